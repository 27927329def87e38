// `warplab validate`: the validation corpus on the simulator, against a GPU's measured data.
//
// Runs every point of validation/corpus.toml (or the quick subset) in timing mode with the chosen
// preset, reads the measured data of the matching GPU (validation/data/h100.json for h100-sxm,
// h200.json for h200), and prints per point the simulated and measured times, their ratio and the
// counters side by side, then one summary line:
//   VALIDATE config=NAME points=N mape=X% worst=Y% within20=K
// then the counters within 10%, a line per generalization set (VALIDATE group=...), one for the
// latency-bound points (every launch under the preset's SM count in blocks:
//   VALIDATE group=latency_bound points=N mape=X%), and the lesson comparisons ([[comparison]]: ratios of two points'
// times) with their own line:
//   COMPARISONS comparisons=N direction=K within20=M
// Both sides use the cold-L2 convention (see lab/validate.h).
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <thread>

#include "lab/first_answers.h"
#include "lab/install_dirs.h"
#include "lab/stalls_validate.h"
#include "lab/validate.h"
#include "lab/validate_schedule.h"
#include "ui/cli/commands.h"
#include "sim/common/output_file.h"
#include "sim/timing/config.h"

namespace warplab::cli {
namespace {

using nlohmann::json;

struct ValidateArgs {
  std::string config = "h100-sxm";
  std::string corpus = "validation/corpus.toml";
  std::string data;  // default: <corpus dir>/data/<slug>.json
  bool quick = false;
  bool heavy = false;
  std::string only;
  std::string json_out, plot_out;
  double max_mape = -1;
  unsigned jobs = 0;  // 0 = hardware threads
  // --stalls: per-line stall reasons, model against the committed GPU samples (lab/stalls_validate.h)
  bool stalls = false;
  std::string stalls_data = "validation/data/stalls";
  int threads = 0;    // per run; 0 = what the jobs leave of the hardware threads
  bool sampled = false;  // --sampled: each point full and sampled, the sampled mode's error
  std::string costs;     // measured run times (default: <corpus dir>/sim-cost.tsv, if present)
};

// 1234 -> "1.23k", 12345678 -> "12.3M": short enough for side-by-side columns.
std::string compact(double v) {
  const char* suffix[] = {"", "k", "M", "G", "T"};
  int i = 0;
  double a = std::fabs(v);
  while (a >= 1000 && i < 4) {
    a /= 1000;
    v /= 1000;
    ++i;
  }
  std::ostringstream s;
  s << std::setprecision(a >= 100 || i == 0 ? 4 : 3) << v << suffix[i];
  return s.str();
}

std::string fixed(double v, int digits) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(digits) << v;
  return s.str();
}

// The counters shown side by side (key, column title).
const std::pair<const char*, const char*> kShown[] = {{"sectors", "sectors"},
                                                      {"dram_bytes_read", "DRAM rd B"},
                                                      {"l2_hit_rate_pct", "L2 hit%"},
                                                      {"shared_bank_conflicts", "bank cf"},
                                                      {"warp_instructions", "warp inst"}};

std::string pair_cell(const lab::CounterMap& sim, const lab::CounterMap* gpu, const char* key) {
  auto s = sim.find(key);
  std::string a = s == sim.end() ? "-" : compact(s->second);
  std::string b = "-";
  if (gpu)
    if (auto g = gpu->find(key); g != gpu->end()) b = compact(g->second);
  return a + "/" + b;
}

Status write_file(const std::string& path, const std::string& text) {
  std::filesystem::path parent = std::filesystem::path(path).parent_path();
  std::error_code ec;
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  return write_output_file(path, text, "file");
}

// `--stalls`: every data file in the directory, simulated and compared line by line.
int validate_stalls(const ValidateArgs& a) {
  std::error_code ec;
  if (!std::filesystem::is_directory(a.stalls_data, ec))
    return report_error(Error{a.stalls_data, 0,
                              "no such directory (per-line stall data: scripts/stalls-gpu.sh "
                              "writes it on a GPU machine)"});
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(a.stalls_data, ec))
    if (e.path().extension() == ".json") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  if (files.empty()) {
    std::cout << "STALLS no data files in " << a.stalls_data << "\n";
    return kExitOk;
  }
  auto points = lab::validate_line_stalls(files, a.config, WARPLAB_SOURCE_DIR, a.only);
  std::cout << lab::format_stall_validation(points);
  return kExitOk;
}

int validate(const ValidateArgs& given) {
  if (given.stalls) return validate_stalls(given);
  ValidateArgs a = given;
  a.corpus = lab::find_corpus(a.corpus);  // ./validation, else an installed one
  auto corpus = lab::load_corpus(a.corpus);
  if (!corpus) {
    Error e = corpus.error();
    e.message += " (run from the repository root, or pass --corpus)";
    return report_error(e);
  }
  std::vector<lab::CorpusPoint> points;
  std::regex only;
  try {
    only = std::regex(a.only.empty() ? ".*" : a.only);
  } catch (const std::regex_error& e) {
    return report_error(Error{"", 0, "--only: invalid regular expression: " + a.only});
  }
  for (const lab::CorpusPoint& p : *corpus)
    if ((!a.quick || p.quick) && (a.heavy || !p.heavy) && std::regex_search(p.id, only))
      points.push_back(p);
  if (points.empty()) return report_error(Error{a.corpus, 0, "no point selected"});
  auto comparisons = lab::load_comparisons(a.corpus, *corpus);
  if (!comparisons) return report_error(comparisons.error());

  // The measured data of the matching GPU.
  const std::string slug = lab::measured_slug(a.config);
  const std::string data_path =
      !a.data.empty()
          ? a.data
          : (std::filesystem::path(a.corpus).parent_path() / "data" / (slug + ".json")).string();
  std::optional<lab::MeasuredData> data;
  std::string no_data;
  if (std::filesystem::exists(data_path)) {
    auto d = lab::load_measured(data_path);
    if (!d) return report_error(d.error());
    data = std::move(*d);
  } else {
    no_data = data_path + " not found";
    if (!a.data.empty()) return report_error(Error{data_path, 0, "measured data not found"});
  }
  if (a.max_mape >= 0 && !data)
    return report_error(Error{"", 0, "--max-mape needs measured data (" + no_data + ")"});

  size_t heavy_skipped = 0;
  for (const lab::CorpusPoint& p : *corpus) heavy_skipped += p.heavy && !a.heavy && !a.quick;
  std::cout << "warplab validate: " << points.size() << " points" << (a.quick ? " (quick)" : "")
            << (heavy_skipped
                    ? " (" + std::to_string(heavy_skipped) + " heavy ones skipped: --heavy)"
                    : std::string())
            << ", config " << a.config << ", L2 cold before every launch (both sides)\n";
  if (data)
    std::cout << "measured: " << data->device << ", driver " << data->driver << ", CUDA "
              << data->cuda << ", " << data->date << " (" << data->path << "; L2 "
              << data->l2_convention << ")\n";
  else
    std::cout << "measured: none for " << slug << " (" << no_data << "): simulated times only\n";

  lab::ValidateOptions opt;
  opt.config = a.config;
  opt.cold_l2 = true;
  // Jobs x threads = the hardware threads unless both are given: runs of whole points scale
  // best, so by default every core takes a point, each on one thread (-j alone: the threads
  // the jobs leave; --threads alone: as many jobs as fit beside them).
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  opt.jobs = a.jobs
                 ? a.jobs
                 : (a.threads > 0 ? std::max(1u, cores / static_cast<unsigned>(a.threads)) : cores);
  opt.threads = a.threads > 0 ? a.threads : static_cast<int>(std::max(1u, cores / opt.jobs));
  // The measured run times that order the runs and size their threads (validate_schedule.h).
  const std::string costs_path =
      !a.costs.empty() ? a.costs
                       : (std::filesystem::path(a.corpus).parent_path() / "sim-cost.tsv").string();
  if (!a.costs.empty() || std::filesystem::exists(costs_path)) {
    auto costs = lab::load_costs(costs_path);
    if (!costs) return report_error(costs.error());
    opt.cost_s = std::move(*costs);
  }
  // The plan's longest runs (stderr): which start first, on how many threads.
  opt.plan = [](const std::vector<std::string>& ids, const std::vector<int>& threads,
                const std::vector<double>& cost_s, unsigned host) {
    std::cerr << "  plan: " << ids.size() << " runs on " << host
              << " host threads, longest expected first:";
    for (size_t k = 0; k < ids.size() && k < 4; ++k)
      std::cerr << (k ? ", " : " ") << ids[k] << " (" << threads[k]
                << (threads[k] == 1 ? " thread, " : " threads, ") << fixed(cost_s[k], 1)
                << " s on one)";
    std::cerr << "\n";
  };
  // Each run's points as it finishes (stderr), with the GPU's time: a run stopped part-way has
  // still reported them.
  opt.progress = [&data](const std::vector<std::string>& ids,
                         const std::vector<lab::SimPoint>& results, double wall_s) {
    for (size_t k = 0; k < ids.size(); ++k) {
      std::cerr << "  simulated " << ids[k];
      if (k == 0) std::cerr << " in " << fixed(wall_s, 1) << " s";
      const lab::SimPoint& r = results[k];
      if (!r.ok) {
        std::cerr << ": failed\n";
        continue;
      }
      std::cerr << ": " << fixed(r.time_us, 2) << " us";
      if (data)
        if (auto m = data->points.find(ids[k]); m != data->points.end() && m->second.ok &&
                                                m->second.time_us > 0)
          std::cerr << " (GPU " << fixed(m->second.time_us, 2) << " us: "
                    << fixed(r.time_us / m->second.time_us, 2) << "x)";
      std::cerr << "\n";
    }
  };

  if (a.sampled) {  // the sampled mode against the full model (sim/timing/sampling.h)
    std::cout << "sampled simulation against the full model: every point run sampled, the "
                 "points that sampled again in full\n";
    // Each point's row on stderr as soon as both sides are known (a run cut off part-way
    // still leaves them), the whole table on stdout at the end.
    const auto compared =
        lab::compare_sampled(points, opt, [](const lab::SampledPoint& p) {
          std::cerr << "  SAMPLED_POINT " << lab::format_sampled_row(p) << std::flush;
        });
    std::cout << lab::format_sampled(compared);
    if (!a.json_out.empty()) {
      json jp = json::array();
      for (const lab::SampledPoint& p : compared)
        jp.push_back({{"id", p.id},
                      {"heavy", p.heavy},
                      {"ok", p.ok},
                      {"error", p.error},
                      {"full_cycles", p.full_cycles},
                      {"sampled_cycles", p.sampled_cycles},
                      {"err_pct", p.err_pct},
                      {"detailed_fraction", p.detailed_fraction},
                      {"sampled", p.sampled},
                      {"full_wall_s", p.full_wall_s},
                      {"sampled_wall_s", p.sampled_wall_s}});
      const std::string text = json{{"sampled_validation", jp}}.dump(2) + "\n";
      if (a.json_out == "-")
        std::cout << text;
      else if (auto st = write_file(a.json_out, text); !st)
        return report_error(st.error());
    }
    for (const lab::SampledPoint& p : compared)
      if (!p.ok) return kExitFailed;
    return kExitOk;
  }
  const std::vector<lab::SimPoint> sim = lab::simulate_corpus(points, opt);

  // The table.
  std::ostringstream t;
  t << std::left << std::setw(36) << "point" << std::setw(22) << "mechanism" << std::right
    << std::setw(10) << "sim_us" << std::setw(10) << "gpu_us" << std::setw(9) << "sim/gpu"
    << std::setw(8) << "err%";
  for (const auto& [k, title] : kShown) t << std::setw(18) << (std::string(title) + " s/g");
  t << "\n";
  std::vector<std::pair<double, double>> pairs;
  std::vector<std::string> pair_ids;
  std::vector<std::pair<const lab::CounterMap*, const lab::CounterMap*>> counter_pairs;
  std::vector<lab::ScatterDot> dots;
  std::map<std::string, double> sim_us, gpu_us;  // by point id, for the comparisons
  json jpoints = json::array();
  int sim_failed = 0;
  for (size_t i = 0; i < points.size(); ++i) {
    const lab::CorpusPoint& p = points[i];
    const lab::SimPoint& s = sim[i];
    const lab::MeasuredPoint* m = nullptr;
    std::string gpu_note;
    if (data) {
      auto it = data->points.find(p.id);
      if (it == data->points.end())
        gpu_note = "not measured";
      else if (!it->second.ok)
        gpu_note = "GPU run failed: " + it->second.error;
      else if (std::string why = lab::definition_mismatch(p, it->second); !why.empty())
        gpu_note = "measured with another definition (" + why + ")";
      else
        m = &it->second;
    }
    t << std::left << std::setw(36) << p.id << std::setw(22) << p.mechanism << std::right;
    json jp{{"id", p.id},
            {"mechanism", p.mechanism},
            {"group", p.group},
            {"experiment", p.experiment},
            {"set", p.set},
            {"row", p.row},
            {"launch", p.launch},
            {"quick", p.quick}};
    if (s.skipped) {  // a Triton kernel without Triton: not a failure of the simulator
      t << "  SKIPPED: " << s.error << "\n";
      jp["skipped"] = s.error;
      jpoints.push_back(jp);
      continue;
    }
    if (!s.ok) {
      ++sim_failed;
      t << "  SIMULATION FAILED: " << s.error << "\n";
      jp["sim_error"] = s.error;
      jpoints.push_back(jp);
      continue;
    }
    jp["sim_us"] = s.time_us;
    sim_us[p.id] = s.time_us;
    jp["sim_wall_s"] = s.wall_s;
    jp["sim_counters"] = s.counters;
    t << std::setw(10) << fixed(s.time_us, 2);
    if (m) {
      const double err = lab::abs_pct_error(s.time_us, m->time_us);
      t << std::setw(10) << fixed(m->time_us, 2) << std::setw(9) << fixed(s.time_us / m->time_us, 2)
        << std::setw(8) << fixed(err, 1);
      pairs.push_back({s.time_us, m->time_us});
      counter_pairs.push_back({&s.counters, &m->counters});
      pair_ids.push_back(p.id);
      dots.push_back({p.id, p.mechanism, m->time_us, s.time_us});
      jp["gpu_us"] = m->time_us;
      gpu_us[p.id] = m->time_us;
      jp["gpu_min_us"] = m->min_us;
      jp["gpu_max_us"] = m->max_us;
      jp["gpu_counters"] = m->counters;
      jp["ratio"] = s.time_us / m->time_us;
      jp["abs_pct_error"] = err;
    } else {
      t << std::setw(10) << "-" << std::setw(9) << "-" << std::setw(8) << "-";
      if (!gpu_note.empty()) jp["gpu_note"] = gpu_note;
    }
    for (const auto& [k, title] : kShown)
      t << std::setw(18) << pair_cell(s.counters, m ? &m->counters : nullptr, k);
    if (!gpu_note.empty()) t << "  (" << gpu_note << ")";
    if (!s.note.empty()) {
      t << "  (" << s.note << ": the occupancy assumes 32 registers)";
      jp["sim_note"] = s.note;
    }
    t << "\n";
    jpoints.push_back(jp);
  }
  std::cout << t.str();
  const lab::ErrorSummary sum = lab::summarize_errors(pairs, pair_ids);
  if (sum.points > 0)
    std::cout << "worst: " << sum.worst_id << " (" << fixed(sum.worst, 1) << "%)\n";
  const std::string line = lab::summary_line(a.config, sum);
  std::cout << line << "\n";
  // Counters within 10%, per counter, over the points measured.
  std::string counters_line = "COUNTERS within10%:";
  json jcounters = json::object();
  for (const lab::CounterAgreement& c : lab::counter_agreement(counter_pairs)) {
    counters_line += std::string(" ") + c.key + "=" + std::to_string(c.within10) + "/" +
                     std::to_string(c.points) + c.note;
    jcounters[c.key] = {{"within10", c.within10}, {"points", c.points}};
  }
  if (data) std::cout << counters_line << "\n";
  // Generalization sets: their first answers (validation/data/first-answers.json) beside today's.
  json jgroups = json::array();
  {
    const std::string first_path =
        (std::filesystem::path(a.corpus).parent_path() / "data" / "first-answers.json").string();
    std::optional<lab::FirstAnswers> first;
    if (std::filesystem::exists(first_path)) {
      auto f = lab::load_first_answers(first_path);
      if (!f) return report_error(f.error());
      first = std::move(*f);
    }
    for (const lab::GroupSummary& g :
         lab::summarize_groups(points, sim_us, gpu_us, first ? &*first : nullptr, a.config)) {
      const std::string gl = lab::group_line(g);
      if (data) std::cout << gl << "\n";
      jgroups.push_back({{"group", g.group},
                         {"points", g.points},
                         {"mape_pct", g.mape},
                         {"first_points", g.first_points},
                         {"first_answer_mape_pct", g.first_answer_mape},
                         {"line", gl}});
    }
  }
  {  // Latency-bound points: every launch has fewer blocks than the preset has SMs.
    auto cfg = timing::load_config(a.config);
    if (!cfg) return report_error(cfg.error());
    std::vector<uint64_t> widest;
    for (const lab::SimPoint& s : sim) widest.push_back(s.ok ? s.widest_launch_blocks : 0);
    const lab::GroupSummary g =
        lab::summarize_latency_bound(points, widest, sim_us, gpu_us, cfg->core.sm_count);
    const std::string gl = lab::latency_bound_line(g);
    if (data) std::cout << gl << "\n";
    jgroups.push_back({{"group", g.group},
                       {"points", g.points},
                       {"mape_pct", g.mape},
                       {"sm_count", cfg->core.sm_count},
                       {"line", gl}});
  }
  // Lesson comparisons: ratios of two points, both simulated and measured.
  json jcomparisons = json::array();
  int compared = 0, direction = 0, within20 = 0;
  std::ostringstream ct;
  for (const lab::CorpusComparison& c : *comparisons) {
    auto sn = sim_us.find(c.numerator), sd = sim_us.find(c.denominator);
    auto gn = gpu_us.find(c.numerator), gd = gpu_us.find(c.denominator);
    if (sn == sim_us.end() || sd == sim_us.end() || gn == gpu_us.end() || gd == gpu_us.end())
      continue;
    const lab::ComparisonJudgement j =
        lab::judge_comparison(sn->second / sd->second, gn->second / gd->second);
    ++compared;
    direction += j.direction;
    within20 += j.direction && j.within20;
    ct << std::left << std::setw(44) << c.id << std::right << std::setw(9) << fixed(j.sim_ratio, 2)
       << std::setw(9) << fixed(j.gpu_ratio, 2) << std::setw(9)
       << fixed(j.sim_ratio / j.gpu_ratio, 2) << "  "
       << (!j.direction ? "WRONG DIRECTION" : j.within20 ? "ok" : "off by more than 20%") << "\n";
    jcomparisons.push_back({{"id", c.id},
                            {"numerator", c.numerator},
                            {"denominator", c.denominator},
                            {"sim_ratio", j.sim_ratio},
                            {"gpu_ratio", j.gpu_ratio},
                            {"direction", j.direction},
                            {"within20", j.within20}});
  }
  const std::string comparisons_line =
      "COMPARISONS comparisons=" + std::to_string(compared) +
      " direction=" + std::to_string(direction) + " within20=" + std::to_string(within20);
  if (compared > 0) {
    std::cout << "\n" << std::left << std::setw(44) << "lesson comparison (A / B)" << std::right
              << std::setw(9) << "sim" << std::setw(9) << "gpu" << std::setw(9) << "sim/gpu"
              << "\n"
              << ct.str() << comparisons_line
              << " (ratio on the GPU's side of 1, and within 20% of it)\n";
  }

  int status = kExitOk;
  if (!a.json_out.empty()) {
    json j{{"schema", "warplab.validate/1"},
           {"config", a.config},
           {"l2",
            "cold: every launch starts with an empty L2 (GPU: flushed before each timed "
            "launch)"},
           {"quick", a.quick},
           {"measured", data ? json{{"path", data->path},
                                    {"device", data->device},
                                    {"driver", data->driver},
                                    {"cuda", data->cuda},
                                    {"date", data->date},
                                    {"l2_convention", data->l2_convention}}
                             : json(nullptr)},
           {"points", jpoints},
           {"summary",
            {{"points", sum.points},
             {"mape_pct", sum.mape},
             {"worst_pct", sum.worst},
             {"worst_id", sum.worst_id},
             {"within20", sum.within20},
             {"line", line},
             {"counters", jcounters},
             {"comparisons",
              {{"compared", compared},
               {"direction", direction},
               {"within20", within20},
               {"line", comparisons_line}}}}},
           {"groups", jgroups},
           {"comparisons", jcomparisons}};
    std::string text = j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    if (a.json_out == "-")
      std::cout << text;
    else if (auto s = write_file(a.json_out, text); !s)
      status = report_error(s.error());
  }
  if (!a.plot_out.empty()) {
    std::string title = "WarpLab " + a.config + " vs " + (data ? data->device : "no GPU data") +
                        ": " + std::to_string(sum.points) + " points, MAPE " + fixed(sum.mape, 1) +
                        "%";
    if (auto s = write_file(a.plot_out, lab::scatter_svg(dots, title)); !s)
      status = report_error(s.error());
  }
  if (status != kExitOk) return status;
  if (sim_failed) {
    std::cerr << "warplab: " << sim_failed << " point(s) failed in the simulator\n";
    return kExitFailed;
  }
  if (a.max_mape >= 0 && sum.points == 0) {
    std::cerr << "warplab: --max-mape: no point has both a simulated and a measured time\n";
    return kExitFailed;
  }
  if (a.max_mape >= 0 && sum.mape > a.max_mape) {
    std::cerr << "warplab: MAPE " << fixed(sum.mape, 1) << "% is above --max-mape " << a.max_mape
              << "%\n";
    return kExitFailed;
  }
  return kExitOk;
}

}  // namespace

Command add_validate_command(CLI::App& app) {
  auto args = std::make_shared<ValidateArgs>();
  CLI::App* sub = app.add_subcommand(
      "validate", "Run the validation corpus on the simulator and compare with a GPU's data");
  sub->add_option("--config", args->config,
                  "Timing preset; picks the measured data (h100-sxm: data/h100.json, h200: "
                  "data/h200.json)")
      ->capture_default_str();
  sub->add_flag("--sampled", args->sampled,
                "Run every selected point sampled (sim/timing/sampling.h), the ones that sample "
                "again in full, and report "
                "the sampled mode's cycle error against the full model and its speed-up, with a "
                "'SAMPLED points=N max_err=X% ...' line");
  sub->add_flag("--quick", args->quick, "Only the points marked quick (the CI subset)");
  sub->add_flag("--heavy", args->heavy,
                "Also the points marked heavy (minutes each to simulate; skipped by default)");
  sub->add_option("--json", args->json_out, "Write the per-point results as JSON ('-': stdout)");
  sub->add_option("--plot", args->plot_out,
                  "Write a log-log scatter of simulated vs measured time as SVG");
  sub->add_option("--max-mape", args->max_mape,
                  "Exit 1 when the mean absolute percentage error (%) is above this");
  sub->add_option("--corpus", args->corpus, "The corpus manifest")->capture_default_str();
  sub->add_option("--data", args->data,
                  "Measured data file (default: data/<gpu>.json beside the manifest)");
  sub->add_option("--only", args->only, "Only the points whose id matches this regex");
  sub->add_flag("--stalls", args->stalls,
                "Compare per-line stall reasons instead: the model's warp states against the GPU's "
                "PC samples in --stalls-data (top reason agreement and mix distance per line)");
  sub->add_option("--stalls-data", args->stalls_data,
                  "Directory of per-line stall data files (warplab.line-stalls/1)")
      ->capture_default_str();
  sub->add_option("-j,--jobs", args->jobs,
                  "Runs simulated in parallel (default: the hardware threads, or those that "
                  "--threads leaves; jobs x threads host threads in all)");
  sub->add_option("--threads", args->threads,
                  "Host threads inside each run (default: what -j leaves of the hardware "
                  "threads, 1 without -j). Results are identical for any number")
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--costs", args->costs,
                  "Measured seconds per point on one thread ('ID SECONDS' lines; default: "
                  "sim-cost.tsv beside the manifest): the longest runs start first, with more of "
                  "the jobs x threads host threads (lab/validate_schedule.h)");
  return {sub, [args] { return validate(*args); }};
}

}  // namespace warplab::cli
