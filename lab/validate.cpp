// The validation corpus: manifest, measured data, simulator runs, errors and the scatter plot.
#include "lab/validate.h"

#include <toml++/toml.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "lab/experiment.h"
#include "lab/runner.h"
#include "lab/triton.h"
#include "lab/validate_schedule.h"

namespace warplab::lab {
namespace {

using nlohmann::json;

int line_of(const toml::node& n) { return static_cast<int>(n.source().begin.line); }

Expected<std::string> read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{path, 0, "cannot open file"};
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// "NAME=VALUE" with a non-empty name and value.
bool is_assignment(const std::string& s) {
  size_t eq = s.find('=');
  return eq != std::string::npos && eq > 0 && eq + 1 < s.size();
}

Expected<std::vector<std::string>> string_list(const toml::node& n, const std::string& path,
                                               const std::string& key, bool assignments) {
  const toml::array* a = n.as_array();
  if (!a) return Error{path, line_of(n), key + ": expected an array of strings"};
  std::vector<std::string> out;
  for (const toml::node& e : *a) {
    auto s = e.value<std::string>();
    if (!s) return Error{path, line_of(e), key + ": expected a string"};
    if (assignments && !is_assignment(*s))
      return Error{path, line_of(e), key + ": expected NAME=VALUE, got '" + *s + "'"};
    out.push_back(*s);
  }
  return out;
}

std::string fixed1(double v) {
  std::ostringstream ss;
  ss << std::fixed << std::setprecision(1) << v;
  return ss.str();
}

// --- simulator runs -------------------------------------------------------------------------

// Points that share experiment, set and row: one run.
struct RunGroup {
  std::string path;
  std::vector<std::string> set, row;
  std::vector<size_t> points;
};

bool launch_selected(const CorpusPoint& p, const LaunchRecord& rec) {
  if (p.launch.empty()) return true;
  return std::find(p.launch.begin(), p.launch.end(), rec.kernel) != p.launch.end() ||
         std::find(p.launch.begin(), p.launch.end(), rec.entry) != p.launch.end();
}

const char* const kAdditive[] = {
    "warp_instructions",    "global_load_requests", "global_load_sectors", "global_store_requests",
    "global_store_sectors", "dram_bytes_read",      "dram_bytes_written",  "shared_bank_conflicts",
    "elapsed_cycles",       "gpu_time_ns"};

// Sums the additive counters of several launches; rates (hit rates, occupancy) only when the
// point is one launch. Adds the derived sums.
void add_counters(CounterMap& into, const CounterMap& c, bool single) {
  for (const auto& [k, v] : c) {
    const auto& key = k;  // clang before 16 cannot capture a structured binding
    bool additive = std::find_if(std::begin(kAdditive), std::end(kAdditive),
                                 [&](const char* a) { return key == a; }) != std::end(kAdditive);
    if (additive)
      into[k] += v;
    else if (single)
      into[k] = v;
  }
}

void derive_counters(CounterMap& c) {
  auto sum2 = [&](const char* out, const char* a, const char* b) {
    if (c.count(a) && c.count(b) && !c.count(out)) c[out] = c[a] + c[b];
  };
  sum2("sectors", "global_load_sectors", "global_store_sectors");
  sum2("dram_bytes", "dram_bytes_read", "dram_bytes_written");
  sum2("shared_bank_conflicts", "shared_bank_conflicts_ld", "shared_bank_conflicts_st");
}

CounterMap json_counters(const json& j) {
  CounterMap m;
  if (!j.is_object()) return m;
  for (auto it = j.begin(); it != j.end(); ++it)
    if (it.value().is_number()) m[it.key()] = it.value().get<double>();
  return m;
}

Status apply_row(Experiment& exp, const std::vector<std::string>& row, const std::string& where) {
  for (const std::string& kv : row) {
    std::string name = kv.substr(0, kv.find('='));
    auto axis = std::find_if(exp.sweep.begin(), exp.sweep.end(),
                             [&](const SweepAxis& a) { return a.param == name; });
    if (axis == exp.sweep.end())
      return Error{exp.path, 0, where + ": row " + kv + ": '" + name + "' is not swept"};
    if (auto s = set_param(exp, kv); !s) return s;
    exp.sweep.erase(axis);
  }
  if (!exp.sweep.empty())
    return Error{exp.path, exp.sweep.front().line,
                 where + ": the experiment sweeps '" + exp.sweep.front().param +
                     "'; the point's row must name a value for it"};
  return Ok{};
}

void run_group(const RunGroup& g, const std::vector<CorpusPoint>& points,
               const ValidateOptions& options, const Toolchain& toolchain,
               std::vector<SimPoint>& out) {
  auto fail = [&](const std::string& why) {
    for (size_t i : g.points) out[i].error = why;
  };
  const auto t0 = std::chrono::steady_clock::now();
  const std::string where = "point " + points[g.points.front()].id;
  auto exp = load_experiment(g.path);
  if (!exp) return fail(exp.error().to_string());
  for (const std::string& s : g.set)
    if (auto st = set_param(*exp, s); !st) return fail(st.error().to_string());
  if (auto st = apply_row(*exp, g.row, where); !st) return fail(st.error().to_string());
  if (exp->source_kind == Experiment::SourceKind::Triton)
    if (const std::string why = TritonBridge().why_unavailable(); !why.empty()) {
      for (size_t i : g.points) out[i].skipped = true;
      return fail("a Triton kernel, and " + why);
    }

  RunOptions opt;
  opt.backend = BackendKind::Sim;
  opt.mode = SimMode::Timing;
  opt.config = options.config;
  opt.count_lines = false;
  opt.l2 = options.cold_l2 ? L2Start::Cold : L2Start::Warm;
  opt.threads = options.threads;
  opt.sampled = options.sampled;
  // With a cold L2, only the launches a point of the group selects are timed; the others (a
  // point's `launch` names some of its experiment's kernels) run functionally: their cycles are
  // never read, and each timed launch starts with an empty L2, so a selected launch's time does
  // not depend on them. (A warm L2 carries over from launch to launch: every launch is timed.)
  if (options.cold_l2)
    opt.timed = [&](const LaunchRecord& rec) {
      return std::any_of(g.points.begin(), g.points.end(),
                         [&](size_t i) { return launch_selected(points[i], rec); });
    };
  Runner runner(toolchain, opt);
  auto r = runner.run_once(*exp);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!r) return fail(r.error().to_string());
  // Without ptxas's register count the occupancy is a guess (32 registers): say so per point.
  const std::string note = r->unit ? r->unit->resources_note : std::string();
  std::string problem;
  for (const LaunchRecord& rec : r->launches)
    if (rec.fault) problem = "kernel " + rec.kernel + " faulted: " + rec.fault->message;
  for (const CheckResult& c : r->checks)
    if (!c.passed)
      problem = exp->path + ":" + std::to_string(c.line) + ": check " + c.buffer + " vs " +
                c.expected + " failed";

  for (size_t i : g.points) {
    const CorpusPoint& p = points[i];
    SimPoint& sp = out[i];
    sp.wall_s = wall;
    if (!problem.empty()) {
      sp.error = problem;
      continue;
    }
    std::vector<const LaunchRecord*> sel;
    for (const LaunchRecord& rec : r->launches)
      if (launch_selected(p, rec)) sel.push_back(&rec);
    for (const LaunchRecord* rec : sel)
      if (!rec->resources && sp.note.empty())
        sp.note = "no register count for kernel " + rec->kernel +
                  (note.empty() ? " in ptxas's report" : " (" + note + ")");
    if (sel.empty()) {
      sp.error = "point " + p.id + ": no launch of kernel(s) named in 'launch'";
      continue;
    }
    bool ok = true;
    for (const LaunchRecord* rec : sel) {
      if (!rec->sim.contains("time_us") || !rec->sim["time_us"].is_number()) {
        ok = false;
        break;
      }
      sp.time_us += rec->sim["time_us"].get<double>();
      sp.cycles += rec->sim.value("cycles", 0.0);
      sp.sim_s += rec->sim.value("wall_s", 0.0);
      const uint64_t blocks = rec->grid.x * uint64_t{rec->grid.y} * rec->grid.z;
      sp.blocks += blocks;
      sp.widest_launch_blocks = std::max(sp.widest_launch_blocks, blocks);
      sp.detailed_blocks += rec->sim.contains("sampled")
                                ? rec->sim["sampled"].value("detailed_blocks", blocks)
                                : blocks;
      add_counters(sp.counters, json_counters(rec->sim.value("counters", json::object())),
                   sel.size() == 1);
    }
    if (!ok) {
      sp.error = "point " + p.id + ": a launch has no simulated time";
      sp.time_us = 0;
      continue;
    }
    derive_counters(sp.counters);
    sp.ok = true;
  }
}

// --- SVG --------------------------------------------------------------------------------------

std::string xml_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '<':
        o += "&lt;";
        break;
      case '>':
        o += "&gt;";
        break;
      case '&':
        o += "&amp;";
        break;
      case '"':
        o += "&quot;";
        break;
      default:
        o += c;
    }
  }
  return o;
}

std::string num(double v) {
  std::ostringstream ss;
  ss << std::fixed << std::setprecision(1) << v;
  return ss.str();
}

// A qualitative palette (24 hues); mechanisms beyond it reuse colours with a black ring.
const char* const kPalette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
                                "#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#393b79", "#637939",
                                "#8c6d31", "#843c39", "#7b4173", "#aec7e8", "#ffbb78", "#98df8a",
                                "#ff9896", "#c5b0d5", "#c49c94", "#f7b6d2", "#dbdb8d", "#9edae5"};

}  // namespace

// --- manifest ---------------------------------------------------------------------------------

namespace {
Expected<toml::table> parse_toml(const std::string& text, const std::string& path) {
  try {
    return toml::parse(text, path);
  } catch (const toml::parse_error& e) {
    return Error{path, static_cast<int>(e.source().begin.line), std::string(e.description())};
  }
}
}  // namespace

Expected<std::vector<CorpusPoint>> parse_corpus(const std::string& toml_text,
                                                const std::string& path) {
  auto parsed = parse_toml(toml_text, path);
  if (!parsed) return parsed.error();
  const toml::table& root = *parsed;
  for (const auto& [k, v] : root)
    if (k.str() != "point" && k.str() != "comparison")
      return Error{path, line_of(v),
                   "unknown key '" + std::string(k.str()) +
                       "' (expected [[point]] and [[comparison]] tables)"};
  const toml::array* arr = root["point"].as_array();
  if (!arr) return Error{path, 0, "no [[point]] tables"};
  const std::filesystem::path dir = std::filesystem::path(path).parent_path();
  std::vector<CorpusPoint> points;
  std::set<std::string> ids;
  for (const toml::node& n : *arr) {
    const toml::table* t = n.as_table();
    if (!t) return Error{path, line_of(n), "point: expected a table"};
    CorpusPoint p;
    p.line = line_of(n);
    const std::string at = "point " + std::to_string(points.size());
    for (const auto& [k, v] : *t) {
      std::string key(k.str());
      const int line = line_of(v);
      if (key == "id" || key == "experiment" || key == "mechanism" || key == "group") {
        auto s = v.value<std::string>();
        if (!s || s->empty()) return Error{path, line, at + "." + key + ": expected a string"};
        (key == "id" ? p.id : key == "experiment" ? p.experiment : key == "group" ? p.group : p.mechanism) = *s;
      } else if (key == "set" || key == "row" || key == "launch") {
        auto l = string_list(v, path, at + "." + key, key != "launch");
        if (!l) return l.error();
        (key == "set" ? p.set : key == "row" ? p.row : p.launch) = std::move(*l);
      } else if (key == "quick" || key == "heavy") {
        if (!v.is_boolean()) return Error{path, line, at + "." + key + ": expected true or false"};
        (key == "quick" ? p.quick : p.heavy) = *v.value<bool>();
      } else {
        return Error{path, line,
                     at + "." + key +
                         ": unknown key (expected one of: id, experiment, set, row, launch, "
                         "mechanism, group, quick, heavy)"};
      }
    }
    for (const auto& [key, val] : {std::pair<const char*, const std::string*>{"id", &p.id},
                                   {"experiment", &p.experiment},
                                   {"mechanism", &p.mechanism}})
      if (val->empty()) return Error{path, p.line, at + ": missing '" + key + "'"};
    if (!ids.insert(p.id).second) return Error{path, p.line, "duplicate point id '" + p.id + "'"};
    p.experiment_path = (dir / p.experiment).lexically_normal().string();
    points.push_back(std::move(p));
  }
  return points;
}

Expected<std::vector<CorpusPoint>> load_corpus(const std::string& path) {
  auto text = read_text(path);
  if (!text) return text.error();
  return parse_corpus(*text, path);
}

Expected<std::vector<CorpusComparison>> parse_comparisons(const std::string& toml_text,
                                                          const std::string& path,
                                                          const std::vector<CorpusPoint>& points) {
  auto parsed = parse_toml(toml_text, path);
  if (!parsed) return parsed.error();
  const toml::table& root = *parsed;
  std::vector<CorpusComparison> out;
  const auto node = root["comparison"];
  if (!node) return out;
  const toml::array* arr = node.as_array();
  if (!arr) return Error{path, line_of(*node.node()), "comparison: expected [[comparison]] tables"};
  std::set<std::string> known, ids;
  for (const CorpusPoint& p : points) known.insert(p.id);
  for (const toml::node& n : *arr) {
    const toml::table* t = n.as_table();
    if (!t) return Error{path, line_of(n), "comparison: expected a table"};
    CorpusComparison c;
    c.line = line_of(n);
    const std::string at = "comparison " + std::to_string(out.size());
    for (const auto& [k, v] : *t) {
      const std::string key(k.str());
      const int line = line_of(v);
      std::string* field = key == "id"            ? &c.id
                           : key == "numerator"   ? &c.numerator
                           : key == "denominator" ? &c.denominator
                                                  : nullptr;
      if (!field)
        return Error{path, line,
                     at + "." + key + ": unknown key (expected one of: id, numerator, denominator)"};
      auto str = v.value<std::string>();
      if (!str || str->empty()) return Error{path, line, at + "." + key + ": expected a string"};
      *field = *str;
    }
    for (const auto& [key, val] :
         {std::pair<const char*, const std::string*>{"id", &c.id},
          {"numerator", &c.numerator},
          {"denominator", &c.denominator}})
      if (val->empty()) return Error{path, c.line, at + ": missing '" + key + "'"};
    for (const std::string* pid : {&c.numerator, &c.denominator})
      if (!known.count(*pid))
        return Error{path, c.line, "comparison '" + c.id + "': no point '" + *pid + "'"};
    if (!ids.insert(c.id).second)
      return Error{path, c.line, "duplicate comparison id '" + c.id + "'"};
    out.push_back(std::move(c));
  }
  return out;
}

Expected<std::vector<CorpusComparison>> load_comparisons(const std::string& path,
                                                         const std::vector<CorpusPoint>& points) {
  auto text = read_text(path);
  if (!text) return text.error();
  return parse_comparisons(*text, path, points);
}

ComparisonJudgement judge_comparison(double sim_ratio, double gpu_ratio) {
  ComparisonJudgement j;
  j.sim_ratio = sim_ratio;
  j.gpu_ratio = gpu_ratio;
  if (!(sim_ratio > 0) || !(gpu_ratio > 0)) return j;
  const bool even = std::fabs(sim_ratio - 1) <= kEvenRatio && std::fabs(gpu_ratio - 1) <= kEvenRatio;
  j.direction = even || (sim_ratio - 1) * (gpu_ratio - 1) > 0;
  j.within20 = std::fabs(sim_ratio / gpu_ratio - 1) <= 0.2 + 1e-12;
  return j;
}

// --- measured data ----------------------------------------------------------------------------

Expected<MeasuredData> parse_measured(const std::string& json_text, const std::string& path) {
  json j;
  try {
    j = json::parse(json_text);
  } catch (const json::parse_error& e) {
    return Error{path, 0, std::string("invalid JSON: ") + e.what()};
  }
  if (!j.is_object() || j.value("schema", "") != "warplab.validation-data/1")
    return Error{path, 0, "expected \"schema\": \"warplab.validation-data/1\""};
  auto str = [](const json& o, const char* k) {
    return o.contains(k) && o[k].is_string() ? o[k].get<std::string>() : std::string();
  };
  auto strings = [](const json& o, const char* k) {
    std::vector<std::string> v;
    if (o.contains(k) && o[k].is_array())
      for (const json& e : o[k])
        if (e.is_string()) v.push_back(e.get<std::string>());
    return v;
  };
  MeasuredData d;
  d.path = path;
  d.device = str(j, "device");
  d.driver = str(j, "driver");
  d.cuda = str(j, "cuda_driver_api");
  d.date = str(j, "date");
  d.l2_convention = str(j, "l2_convention");
  if (!j.contains("points") || !j["points"].is_array())
    return Error{path, 0, "expected a \"points\" array"};
  // A point's own "date" (validate-gpu.sh writes one per point since 2026-11-25) says when it
  // was measured. Older files: --merge put the points kept from the earlier file first and
  // recorded that file's date and their count in "merged_from"; after one merge the split is
  // exact.
  size_t kept = 0;
  std::string kept_date;
  if (j.contains("merged_from") && j["merged_from"].is_array() && !j["merged_from"].empty()) {
    const json& last = j["merged_from"].back();
    if (last.is_object() && last.contains("points") && last["points"].is_number_unsigned())
      kept = last["points"].get<size_t>();
    if (j["merged_from"].size() == 1 && last.is_object()) kept_date = str(last, "date");
  }
  size_t index = 0;
  for (const json& p : j["points"]) {
    MeasuredPoint m;
    m.date = index++ < kept ? kept_date : d.date;
    if (std::string own = str(p, "date"); !own.empty()) m.date = own;
    m.id = str(p, "id");
    if (m.id.empty()) return Error{path, 0, "a point without \"id\""};
    m.ok = p.value("ok", false);
    m.error = str(p, "error");
    m.experiment = str(p, "experiment");
    m.set = strings(p, "set");
    m.row = strings(p, "row");
    m.launch = strings(p, "launch");
    if (m.ok) {
      if (!p.contains("time_us") || !p["time_us"].is_number())
        return Error{path, 0, "point " + m.id + ": \"ok\" without a numeric \"time_us\""};
      m.time_us = p["time_us"].get<double>();
      m.min_us = p.value("min_us", m.time_us);
      m.max_us = p.value("max_us", m.time_us);
      m.l2_flushed = p.value("l2_flushed", false);
      m.counters = json_counters(p.value("counters", json::object()));
      derive_counters(m.counters);
    }
    d.points[m.id] = std::move(m);
  }
  return d;
}

Expected<MeasuredData> load_measured(const std::string& path) {
  auto text = read_text(path);
  if (!text) return text.error();
  return parse_measured(*text, path);
}

std::string measured_slug(const std::string& config) {
  std::string c = config.empty() ? "h100-sxm" : config;
  std::string stem = std::filesystem::path(c).stem().string();
  for (const char* gpu : {"h100", "h200", "a100"})
    if (stem.rfind(gpu, 0) == 0) return gpu;
  return stem;
}

std::string definition_mismatch(const CorpusPoint& p, const MeasuredPoint& m) {
  if (m.experiment != p.experiment) return "experiment " + m.experiment + " vs " + p.experiment;
  if (m.set != p.set) return "set differs";
  if (m.row != p.row) return "row differs";
  if (m.launch != p.launch) return "launch differs";
  return "";
}

// --- simulator --------------------------------------------------------------------------------

std::vector<SimPoint> simulate_corpus(const std::vector<CorpusPoint>& points,
                                      const ValidateOptions& options) {
  std::vector<RunGroup> groups;
  // A heavy point that names its launches runs alone when the L2 starts cold: its run times only
  // its launches (the others run functionally, see run_group) and gives the same cycles, so the
  // heavy runs of one experiment (lesson 5's naive and tiled matmul at 2048^3) run side by side
  // rather than one after the other, at the cost of the other launches' functional run.
  auto alone = [&](const CorpusPoint& p) {
    return options.cold_l2 && p.heavy && !p.launch.empty();
  };
  for (size_t i = 0; i < points.size(); ++i) {
    const CorpusPoint& p = points[i];
    auto g = std::find_if(groups.begin(), groups.end(), [&](const RunGroup& x) {
      return !alone(p) && !alone(points[x.points.front()]) && x.path == p.experiment_path &&
             x.set == p.set && x.row == p.row;
    });
    if (g == groups.end()) {
      groups.push_back({p.experiment_path, p.set, p.row, {}});
      g = groups.end() - 1;
    }
    g->points.push_back(i);
  }
  std::vector<SimPoint> out(points.size());
  // One toolchain for every run: NVRTC and nvJitLink are loaded once and stay loaded while the
  // workers compile (Toolchain::resource_usage takes nvJitLink one call at a time).
  Toolchain toolchain;
  // The plan (validate_schedule.h): longest measured runs first, each with threads by its share
  // of the whole, from jobs x threads host threads. A run costs its measured points' costs summed.
  std::vector<RunCost> costs(groups.size());
  for (size_t k = 0; k < groups.size(); ++k)
    for (size_t i : groups[k].points) {
      costs[k].heavy = costs[k].heavy || points[i].heavy;
      if (auto c = options.cost_s.find(points[i].id); c != options.cost_s.end())
        costs[k].cost_s = std::max(0.0, costs[k].cost_s) + c->second;
    }
  const unsigned host =
      std::max(1u, options.jobs) * static_cast<unsigned>(std::max(1, options.threads));
  const std::vector<PlannedRun> plan = plan_runs(costs, host, options.threads);
  if (options.plan) {
    std::vector<std::string> ids;
    std::vector<int> threads;
    std::vector<double> expected;
    for (const PlannedRun& r : plan) {
      ids.push_back(points[groups[r.run].points.front()].id);
      threads.push_back(r.threads);
      expected.push_back(r.cost_s);
    }
    options.plan(ids, threads, expected, host);
  }
  std::mutex progress_mutex;
  dispatch_runs(plan, host, [&](const PlannedRun& planned) {
    const RunGroup& g = groups[planned.run];
    ValidateOptions run_options = options;
    run_options.threads = planned.threads;
    run_group(g, points, run_options, toolchain, out);  // writes only its own points
    if (options.progress) {
      std::vector<std::string> ids;
      std::vector<SimPoint> results;
      for (size_t i : g.points) {
        ids.push_back(points[i].id);
        results.push_back(out[i]);
      }
      std::lock_guard<std::mutex> lock(progress_mutex);
      options.progress(ids, results, out[g.points.front()].wall_s);
    }
  });
  return out;
}

// --- errors -----------------------------------------------------------------------------------

std::vector<SampledPoint> compare_sampled(const std::vector<CorpusPoint>& points,
                                          const ValidateOptions& options,
                                          const std::function<void(const SampledPoint&)>& done) {
  // The sampled side first: a point the sampler ran in full (too few waves, a traced launch...)
  // is the full model's run, so only the points that sampled run again in full, the costly part.
  std::vector<SampledPoint> out(points.size());
  std::vector<SimPoint> sampled(points.size());
  std::vector<size_t> again;  // the points that sampled, in the corpus's order
  std::mutex mutex;  // the progress callbacks come one at a time; `done` from either phase
  auto index = [&](const std::string& id) {
    for (size_t i = 0; i < points.size(); ++i)
      if (points[i].id == id) return i;
    return points.size();
  };
  auto finish = [&](size_t i, const SimPoint& f) {
    SampledPoint& p = out[i];
    const SimPoint& s = sampled[i];
    p.id = points[i].id;
    p.heavy = points[i].heavy;
    p.full_cycles = f.cycles;
    p.sampled_cycles = s.cycles;
    p.full_wall_s = f.sim_s;
    p.sampled_wall_s = s.sim_s;
    p.detailed_fraction = s.blocks ? double(s.detailed_blocks) / double(s.blocks) : 1;
    p.sampled = s.ok && s.detailed_blocks < s.blocks;
    if (!f.ok || !s.ok) {
      p.error = !s.ok ? "sampled: " + s.error : "full: " + f.error;
    } else if (f.cycles <= 0) {
      p.error = "no cycles";
    } else {
      p.ok = true;
      p.err_pct = 100 * std::abs(s.cycles - f.cycles) / f.cycles;
    }
    if (done) done(p);
  };
  ValidateOptions o = options;
  o.sampled = true;
  o.progress = [&](const std::vector<std::string>& ids, const std::vector<SimPoint>& results,
                   double) {
    std::lock_guard<std::mutex> lock(mutex);
    for (size_t k = 0; k < ids.size(); ++k) {
      const size_t i = index(ids[k]);
      if (i == points.size()) continue;
      sampled[i] = results[k];
      if (!results[k].ok || results[k].detailed_blocks < results[k].blocks) continue;
      finish(i, results[k]);  // ran in full: it is its own full run
    }
  };
  sampled = simulate_corpus(points, o);
  std::vector<CorpusPoint> rerun;
  for (size_t i = 0; i < points.size(); ++i)
    if (sampled[i].ok && sampled[i].detailed_blocks < sampled[i].blocks) {
      again.push_back(i);
      rerun.push_back(points[i]);
    } else if (out[i].id.empty()) {
      finish(i, sampled[i]);  // a failed run (the callback is not called for every failure)
    }
  o.sampled = false;
  o.progress = [&](const std::vector<std::string>& ids, const std::vector<SimPoint>& results,
                   double) {
    std::lock_guard<std::mutex> lock(mutex);
    for (size_t k = 0; k < ids.size(); ++k)
      if (const size_t i = index(ids[k]); i < points.size()) finish(i, results[k]);
  };
  const std::vector<SimPoint> full = simulate_corpus(rerun, o);
  for (size_t k = 0; k < again.size(); ++k)
    if (out[again[k]].id.empty()) finish(again[k], full[k]);
  return out;
}

std::string format_sampled_row(const SampledPoint& p) {
  std::ostringstream t;
  t << std::left << std::setw(40) << (p.id + (p.heavy ? " (heavy)" : "")) << std::right;
  if (!p.ok) {
    t << "  FAILED: " << p.error << "\n";
    return t.str();
  }
  char row[160];
  std::snprintf(row, sizeof row, "%14.0f%14.0f%8.2f%9.1f%%%10.2f%10.2f%8.1fx%s\n", p.full_cycles,
                p.sampled_cycles, p.err_pct, 100 * p.detailed_fraction, p.full_wall_s,
                p.sampled_wall_s, p.sampled_wall_s > 0 ? p.full_wall_s / p.sampled_wall_s : 0,
                p.sampled ? "" : "  (not sampled: one full run)");
  t << row;
  return t.str();
}

std::string format_sampled(const std::vector<SampledPoint>& points) {
  std::ostringstream t;
  t << std::left << std::setw(40) << "point" << std::right << std::setw(14) << "full_cycles"
    << std::setw(14) << "sampled" << std::setw(8) << "err%" << std::setw(10) << "detailed"
    << std::setw(10) << "full_s" << std::setw(10) << "sampled_s" << std::setw(9) << "speedup"
    << "\n";
  int n = 0, n_sampled = 0;
  double max_err = 0, sum_err = 0, full_s = 0, sampled_s = 0, full_heavy = 0, sampled_heavy = 0;
  uint64_t failed = 0;
  double detailed = 0;
  for (const SampledPoint& p : points) {
    t << format_sampled_row(p);
    if (!p.ok) {
      ++failed;
      continue;
    }
    ++n;
    n_sampled += p.sampled;
    max_err = std::max(max_err, p.err_pct);
    sum_err += p.err_pct;
    detailed += p.detailed_fraction;
    full_s += p.full_wall_s;
    sampled_s += p.sampled_wall_s;
    if (p.heavy) {
      full_heavy += p.full_wall_s;
      sampled_heavy += p.sampled_wall_s;
    }
  }
  auto ratio = [](double a, double b) { return b > 0 ? a / b : 0.0; };
  char heavy[32] = "none";
  if (full_heavy > 0) std::snprintf(heavy, sizeof heavy, "%.1f", ratio(full_heavy, sampled_heavy));
  char line[320];
  std::snprintf(line, sizeof line,
                "SAMPLED points=%d sampled=%d failed=%llu max_err=%.2f%% mean_err=%.2f%% speedup=%.1f "
                "speedup_heavy=%s detailed=%.1f%% target=%s\n",
                n, n_sampled, static_cast<unsigned long long>(failed), max_err, n ? sum_err / n : 0.0,
                ratio(full_s, sampled_s),
                heavy,
                n ? 100 * detailed / n : 100.0, failed == 0 && max_err <= 2 ? "yes" : "no");
  t << "(err: the sampled run's cycles against the full model's; speed-up: wall time of the "
       "point's launches in the timing model, full / sampled; a point not sampled ran once, "
       "its full run; target: within 2% on every point)\n"
    << line;
  return t.str();
}

double abs_pct_error(double sim_us, double gpu_us) {
  return 100.0 * std::fabs(sim_us - gpu_us) / gpu_us;
}

ErrorSummary summarize_errors(const std::vector<std::pair<double, double>>& sim_gpu_us,
                              const std::vector<std::string>& ids) {
  ErrorSummary s;
  double sum = 0;
  for (size_t i = 0; i < sim_gpu_us.size(); ++i) {
    const auto [sim, gpu] = sim_gpu_us[i];
    if (!(gpu > 0) || !std::isfinite(sim)) continue;
    const double e = abs_pct_error(sim, gpu);
    sum += e;
    ++s.points;
    if (e <= 20.0) ++s.within20;
    if (s.points == 1 || e > s.worst) {
      s.worst = e;
      s.worst_id = i < ids.size() ? ids[i] : "";
    }
  }
  s.mape = s.points ? sum / s.points : 0.0;
  return s;
}

std::vector<CounterAgreement> counter_agreement(
    const std::vector<std::pair<const CounterMap*, const CounterMap*>>& sim_gpu) {
  std::vector<CounterAgreement> out = {
      {"sectors", 0, 1, ""},
      {"dram_bytes_read", 0, 65536, ""},
      {"shared_bank_conflicts", 64, 1, " (arbitration allowed: 1% of warp instructions)", 0.01},
      {"warp_instructions", 0, 1, " (PTX against SASS instructions)"},
  };
  for (CounterAgreement& c : out)
    for (const auto& [sim, gpu] : sim_gpu) {
      auto s = sim->find(c.key), g = gpu->find(c.key);
      if (s == sim->end() || g == gpu->end() || !std::isfinite(s->second) ||
          !std::isfinite(g->second))
        continue;
      const double sv = s->second, gv = g->second;
      if (std::max(gv, sv) < c.min) continue;
      ++c.points;
      double floor = c.floor;
      if (auto gi = gpu->find("warp_instructions"); gi != gpu->end() && std::isfinite(gi->second))
        floor = std::max(floor, c.floor_per_instruction * gi->second);
      if (std::fabs(sv - gv) <= std::max(0.1 * gv, floor)) ++c.within10;
    }
  return out;
}

std::string summary_line(const std::string& config, const ErrorSummary& s) {
  return "VALIDATE config=" + config + " points=" + std::to_string(s.points) +
         " mape=" + fixed1(s.mape) + "% worst=" + fixed1(s.worst) +
         "% within20=" + std::to_string(s.within20);
}

// --- SVG --------------------------------------------------------------------------------------

std::string scatter_svg(const std::vector<ScatterDot>& dots, const std::string& title) {
  // Plot area in pixels; axes in decades of microseconds covering every dot.
  const double W = 760, H = 560, left = 70, right = 230, top = 40, bottom = 60;
  const double pw = W - left - right, ph = H - top - bottom;
  double lo = 1, hi = 10;
  bool any = false;
  for (const ScatterDot& d : dots) {
    if (!(d.measured_us > 0 && d.simulated_us > 0)) continue;
    const double a = std::min(d.measured_us, d.simulated_us);
    const double b = std::max(d.measured_us, d.simulated_us);
    lo = any ? std::min(lo, a) : a;
    hi = any ? std::max(hi, b) : b;
    any = true;
  }
  const int d0 = static_cast<int>(std::floor(std::log10(lo)));
  int d1 = static_cast<int>(std::ceil(std::log10(hi)));
  if (d1 <= d0) d1 = d0 + 1;
  auto x = [&](double us) { return left + pw * (std::log10(us) - d0) / (d1 - d0); };
  auto y = [&](double us) { return top + ph - ph * (std::log10(us) - d0) / (d1 - d0); };

  std::vector<std::string> mechs;
  for (const ScatterDot& d : dots)
    if (std::find(mechs.begin(), mechs.end(), d.mechanism) == mechs.end())
      mechs.push_back(d.mechanism);
  std::sort(mechs.begin(), mechs.end());
  const size_t np = std::size(kPalette);
  auto colour = [&](const std::string& m) {
    size_t i = std::find(mechs.begin(), mechs.end(), m) - mechs.begin();
    return std::pair<const char*, bool>{kPalette[i % np], i >= np};  // (fill, ringed)
  };

  std::ostringstream s;
  s << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << W << "\" height=\"" << H
    << "\" viewBox=\"0 0 " << W << " " << H << "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  s << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  s << "<text x=\"" << num(W / 2) << "\" y=\"22\" text-anchor=\"middle\" font-size=\"14\">"
    << xml_escape(title) << "</text>\n";
  // The +-20% band: between sim = 0.8 * gpu and sim = 1.2 * gpu, clipped to the plot.
  const double a = std::pow(10.0, d0), b = std::pow(10.0, d1);
  s << "<clipPath id=\"plot\"><rect x=\"" << num(left) << "\" y=\"" << num(top) << "\" width=\""
    << num(pw) << "\" height=\"" << num(ph) << "\"/></clipPath>\n";
  s << "<g clip-path=\"url(#plot)\">\n";
  s << "<polygon class=\"band\" fill=\"#dddddd\" fill-opacity=\"0.6\" points=\"" << num(x(a)) << ","
    << num(y(a * 1.2)) << " " << num(x(b)) << "," << num(y(b * 1.2)) << " " << num(x(b)) << ","
    << num(y(b * 0.8)) << " " << num(x(a)) << "," << num(y(a * 0.8)) << "\"/>\n";
  s << "<line class=\"diagonal\" x1=\"" << num(x(a)) << "\" y1=\"" << num(y(a)) << "\" x2=\""
    << num(x(b)) << "\" y2=\"" << num(y(b)) << "\" stroke=\"black\" stroke-width=\"1\"/>\n";
  s << "</g>\n";
  // Axes, decade ticks and grid.
  s << "<rect x=\"" << num(left) << "\" y=\"" << num(top) << "\" width=\"" << num(pw)
    << "\" height=\"" << num(ph) << "\" fill=\"none\" stroke=\"black\"/>\n";
  for (int d = d0; d <= d1; ++d) {
    const double v = std::pow(10.0, d);
    std::ostringstream label;
    label << v;
    s << "<line x1=\"" << num(x(v)) << "\" y1=\"" << num(top) << "\" x2=\"" << num(x(v))
      << "\" y2=\"" << num(top + ph) << "\" stroke=\"#eeeeee\"/>";
    s << "<line x1=\"" << num(left) << "\" y1=\"" << num(y(v)) << "\" x2=\"" << num(left + pw)
      << "\" y2=\"" << num(y(v)) << "\" stroke=\"#eeeeee\"/>\n";
    s << "<text x=\"" << num(x(v)) << "\" y=\"" << num(top + ph + 16)
      << "\" text-anchor=\"middle\">" << label.str() << "</text>";
    s << "<text x=\"" << num(left - 6) << "\" y=\"" << num(y(v) + 4) << "\" text-anchor=\"end\">"
      << label.str() << "</text>\n";
  }
  s << "<text x=\"" << num(left + pw / 2) << "\" y=\"" << num(H - 18)
    << "\" text-anchor=\"middle\">measured on the GPU (us, log scale)</text>\n";
  s << "<text transform=\"translate(18," << num(top + ph / 2)
    << ") rotate(-90)\" text-anchor=\"middle\">simulated (us, log scale)</text>\n";
  // Dots.
  for (const ScatterDot& d : dots) {
    if (!(d.measured_us > 0 && d.simulated_us > 0)) continue;
    auto [fill, ring] = colour(d.mechanism);
    s << "<circle class=\"dot\" cx=\"" << num(x(d.measured_us)) << "\" cy=\""
      << num(y(d.simulated_us)) << "\" r=\"4\" fill=\"" << fill << "\" fill-opacity=\"0.85\""
      << (ring ? " stroke=\"black\"" : "") << "><title>" << xml_escape(d.id) << ": sim "
      << d.simulated_us << " us, GPU " << d.measured_us << " us</title></circle>\n";
  }
  // Legend.
  double ly = top + 4;
  s << "<text x=\"" << num(W - right + 14) << "\" y=\"" << num(ly + 8)
    << "\" font-weight=\"bold\">mechanism</text>\n";
  s << "<rect x=\"" << num(W - right + 14) << "\" y=\"" << num(ly + 16)
    << "\" width=\"12\" height=\"8\" fill=\"#dddddd\"/><text x=\"" << num(W - right + 32)
    << "\" y=\"" << num(ly + 24) << "\">within 20%</text>\n";
  ly += 30;
  for (const std::string& m : mechs) {
    ly += 16;
    auto [fill, ring] = colour(m);
    s << "<circle class=\"legend\" cx=\"" << num(W - right + 20) << "\" cy=\"" << num(ly - 4)
      << "\" r=\"4\" fill=\"" << fill << "\"" << (ring ? " stroke=\"black\"" : "") << "/><text x=\""
      << num(W - right + 32) << "\" y=\"" << num(ly) << "\">" << xml_escape(m) << "</text>\n";
  }
  s << "</svg>\n";
  return s.str();
}

}  // namespace warplab::lab
