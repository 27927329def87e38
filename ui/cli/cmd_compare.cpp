// `warplab compare A.toml B.toml`: two experiments side by side (issue 24: a Triton kernel and
// its CUDA twin). Each runs on the simulator in timing mode with its own --set-a / --set-b values;
// the table shows the simulated time of all its launches, the measured time where the validation
// corpus has a point for the same experiment and values (validation/data/<gpu>.json), the work
// (blocks, threads, registers, warp instructions, memory requests and sectors) and the PTX
// instruction mix by opcode family, written and executed (lab/ptx_mix.h).
#include <algorithm>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "lab/experiment.h"
#include "lab/ptx_mix.h"
#include "lab/runner.h"
#include "lab/triton.h"
#include "lab/validate.h"
#include "ui/cli/commands.h"

namespace warplab::cli {
namespace {

struct CompareArgs {
  std::string a, b;
  std::vector<std::string> set_a, set_b;
  std::string kernel_a, kernel_b;  // only this kernel's launches ("" = every launch)
  std::string config = "h100-sxm";
  std::string corpus = "validation/corpus.toml";
  std::string data;  // default: <corpus dir>/data/<slug>.json
  int threads = 0;
};

struct Side {
  std::string file;
  std::vector<std::string> set;
  std::string only;     // --kernel-a / --kernel-b
  std::string kernels;  // "gelu_fused" or "k1 + k2"
  double sim_us = 0;
  std::optional<double> gpu_us;
  std::string point;  // the corpus point measured ("" = none)
  uint64_t blocks = 0, threads_per_block = 0, warp_inst = 0, registers = 0;
  double load_requests = 0, load_sectors = 0, store_sectors = 0;
  lab::InstructionMix mix;
  bool passed = true;
};

std::string canonical(const std::string& p) {
  std::error_code ec;
  auto c = std::filesystem::weakly_canonical(p, ec);
  return ec ? p : c.string();
}

std::vector<std::string> sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

// Runs one side; an Error is bad input (or a run that could not start).
Status run_side(const CompareArgs& a, Side& s, const std::vector<lab::CorpusPoint>& points,
                const lab::MeasuredData* data) {
  auto exp = lab::load_experiment(s.file);
  if (!exp) return exp.error();
  if (exp->source_kind == lab::Experiment::SourceKind::Triton)
    if (const std::string why = lab::TritonBridge().why_unavailable(); !why.empty())
      return Error{s.file, 0, "a Triton kernel (" + exp->source + "), and " + why};
  // A [sweep]: the point the --set values name (every swept parameter must have one).
  std::erase_if(exp->sweep, [&](const lab::SweepAxis& axis) {
    return std::any_of(s.set.begin(), s.set.end(),
                       [&](const std::string& kv) { return kv.starts_with(axis.param + "="); });
  });
  if (!exp->sweep.empty())
    return Error{s.file, 0, "has a [sweep] over " + exp->sweep[0].param +
                                ": compare runs one point of it; give its value with --set-a / --set-b"};
  for (const std::string& kv : s.set)
    if (auto st = lab::set_param(*exp, kv); !st) return st.error();
  lab::RunOptions opt;
  opt.backend = lab::BackendKind::Sim;
  opt.mode = lab::SimMode::Timing;
  opt.config = a.config;
  opt.count_lines = true;
  opt.threads = resolve_threads(a.threads);
  lab::Toolchain toolchain;
  lab::Runner runner(toolchain, opt);
  auto r = runner.run_once(*exp);
  if (!r) return r.error();
  s.passed = r->passed();
  for (const lab::LaunchRecord& rec : r->launches) {
    if (!s.only.empty() && rec.kernel != s.only && rec.entry != s.only) continue;
    if (s.kernels.find(rec.kernel) == std::string::npos)
      s.kernels += (s.kernels.empty() ? "" : " + ") + rec.kernel;
    s.sim_us += rec.sim.value("time_us", 0.0);
    s.blocks += rec.grid.x * uint64_t{rec.grid.y} * rec.grid.z;
    s.threads_per_block = rec.block.x * uint64_t{rec.block.y} * rec.block.z;
    if (rec.resources) s.registers = std::max<uint64_t>(s.registers, rec.resources->registers);
    if (rec.stats) s.warp_inst += rec.stats->warp_instructions;
    if (const auto c = rec.sim.value("counters", nlohmann::json::object()); c.is_object()) {
      s.load_requests += c.value("global_load_requests", 0.0);
      s.load_sectors += c.value("global_load_sectors", 0.0);
      s.store_sectors += c.value("global_store_sectors", 0.0);
    }
    if (r->unit && r->unit->program && rec.stats)
      for (const auto& [fam, c] :
           lab::instruction_mix(r->unit->program->module(), rec.entry, &*rec.stats)) {
        lab::MixCount& m = s.mix[fam];
        m.written = std::max(m.written, c.written);  // the same kernel launched twice: once
        m.executed += c.executed;
      }
  }
  // The measured time: the corpus point of this experiment with exactly these values.
  const std::string me = canonical(exp->path);
  for (const lab::CorpusPoint& p : points) {
    if (canonical(p.experiment_path) != me || !p.row.empty()) continue;
    if (p.launch != (s.only.empty() ? std::vector<std::string>{} : std::vector<std::string>{s.only}))
      continue;
    if (sorted(p.set) != sorted(s.set)) continue;
    s.point = p.id;
    if (data)
      if (auto it = data->points.find(p.id); it != data->points.end() && it->second.ok)
        s.gpu_us = it->second.time_us;
    break;
  }
  if (s.kernels.empty()) return Error{s.file, 0, "no launch of kernel '" + s.only + "'"};
  return Ok{};
}

std::string num(double v, int digits) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(digits) << v;
  return o.str();
}
std::string count(double v) {  // 1234567 -> "1,234,567"
  std::string s = std::to_string(static_cast<uint64_t>(v + 0.5));
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(i, ",");
  return s;
}

int compare(const CompareArgs& a) {
  std::vector<lab::CorpusPoint> points;
  std::optional<lab::MeasuredData> data;
  std::string data_note;
  std::error_code ec;
  if (std::filesystem::exists(a.corpus, ec)) {
    auto c = lab::load_corpus(a.corpus);
    if (!c) return report_error(c.error());
    points = std::move(*c);
    const std::string path =
        !a.data.empty() ? a.data
                        : (std::filesystem::path(a.corpus).parent_path() / "data" /
                           (lab::measured_slug(a.config) + ".json"))
                              .string();
    if (std::filesystem::exists(path, ec)) {
      auto d = lab::load_measured(path);
      if (!d) return report_error(d.error());
      data = std::move(*d);
    } else {
      data_note = "no measured data (" + path + " not found)";
    }
  } else {
    data_note = "no measured times (" + a.corpus + " not found: run from the source tree or give --corpus)";
  }
  Side sides[2];
  sides[0].file = a.a;
  sides[0].set = a.set_a;
  sides[0].only = a.kernel_a;
  sides[1].only = a.kernel_b;
  sides[1].file = a.b;
  sides[1].set = a.set_b;
  for (Side& s : sides)
    if (auto st = run_side(a, s, points, data ? &*data : nullptr); !st) {
      const bool triton = st.error().message.find("a Triton kernel") == 0;
      if (triton) {  // no Triton here: one line, as `warplab run` says it
        std::cout << "SKIPPED compare: " << st.error().to_string() << "\n";
        return kExitOk;
      }
      return report_error(st.error());
    }

  const std::string gpu_name = data ? data->device : std::string("GPU");
  std::cout << "compare: simulator " << a.config << ", L2 cold";
  if (data) std::cout << "; measured: " << data->device << " (" << data->path << ")";
  std::cout << "\n";
  if (!data_note.empty()) std::cout << "  " << data_note << "\n";
  for (int i = 0; i < 2; ++i) {
    const Side& s = sides[i];
    std::cout << "  " << char('A' + i) << "  " << s.file;
    for (const std::string& kv : s.set) std::cout << " " << kv;
    std::cout << "   kernel " << s.kernels;
    if (!s.point.empty()) std::cout << "   (corpus point " << s.point << ")";
    std::cout << "\n";
  }
  auto row = [](const std::string& what, const std::string& x, const std::string& y) {
    std::cout << "  " << std::left << std::setw(34) << what << std::right << std::setw(14) << x
              << std::setw(14) << y << "\n";
  };
  std::cout << "\n";
  row("", "A", "B");
  row("time, simulated (us)", num(sides[0].sim_us, 2), num(sides[1].sim_us, 2));
  auto gpu = [](const Side& s) { return s.gpu_us ? num(*s.gpu_us, 2) : std::string("-"); };
  row("time, measured (us)", gpu(sides[0]), gpu(sides[1]));
  auto ratio = [](const Side& s) {
    return s.gpu_us && *s.gpu_us > 0 ? num(s.sim_us / *s.gpu_us, 2) + "x" : std::string("-");
  };
  row("simulated / measured", ratio(sides[0]), ratio(sides[1]));
  row("blocks (programs)", count(sides[0].blocks), count(sides[1].blocks));
  row("threads per block", count(sides[0].threads_per_block), count(sides[1].threads_per_block));
  row("registers per thread", sides[0].registers ? count(sides[0].registers) : "-",
      sides[1].registers ? count(sides[1].registers) : "-");
  row("warp instructions", count(sides[0].warp_inst), count(sides[1].warp_inst));
  row("global load requests", count(sides[0].load_requests), count(sides[1].load_requests));
  row("global load sectors", count(sides[0].load_sectors), count(sides[1].load_sectors));
  auto spr = [](const Side& s) {
    return s.load_requests > 0 ? num(s.load_sectors / s.load_requests, 2) : std::string("-");
  };
  row("sectors per load request", spr(sides[0]), spr(sides[1]));
  row("global store sectors", count(sides[0].store_sectors), count(sides[1].store_sectors));

  std::cout << "\n  PTX instruction mix by opcode family: written in the PTX / executed (warp instructions)\n";
  std::map<std::string, std::pair<lab::MixCount, lab::MixCount>> all;
  for (const auto& [f, c] : sides[0].mix) all[f].first = c;
  for (const auto& [f, c] : sides[1].mix) all[f].second = c;
  std::vector<std::pair<std::string, std::pair<lab::MixCount, lab::MixCount>>> order(all.begin(),
                                                                                     all.end());
  std::stable_sort(order.begin(), order.end(), [](const auto& x, const auto& y) {
    return x.second.first.executed + x.second.second.executed >
           y.second.first.executed + y.second.second.executed;
  });
  std::cout << "  " << std::left << std::setw(20) << "family" << std::right << std::setw(10)
            << "A written" << std::setw(14) << "A executed" << std::setw(12) << "B written"
            << std::setw(14) << "B executed" << "\n";
  for (const auto& [f, c] : order)
    std::cout << "  " << std::left << std::setw(20) << f << std::right << std::setw(10)
              << c.first.written << std::setw(14) << count(c.first.executed) << std::setw(12)
              << c.second.written << std::setw(14) << count(c.second.executed) << "\n";
  int status = kExitOk;
  for (int i = 0; i < 2; ++i)
    if (!sides[i].passed) {
      std::cout << "FAILED " << char('A' + i) << ": a check failed or a kernel faulted (warplab run "
                << sides[i].file << " says which)\n";
      status = kExitFailed;
    }
  return status;
}

}  // namespace

Command add_compare_command(CLI::App& app) {
  auto args = std::make_shared<CompareArgs>();
  CLI::App* sub = app.add_subcommand(
      "compare",
      "Two experiments side by side (e.g. a Triton kernel and its CUDA twin): simulated and "
      "measured times, work, memory requests and the PTX instruction mix");
  sub->add_option("a", args->a, "Experiment A (TOML)")->required();
  sub->add_option("b", args->b, "Experiment B (TOML)")->required();
  sub->add_option("--set-a", args->set_a, "Parameter of A, NAME=VALUE (repeatable)");
  sub->add_option("--set-b", args->set_b, "Parameter of B, NAME=VALUE (repeatable)");
  sub->add_option("--kernel-a", args->kernel_a, "Only this kernel's launches of A (default: all)");
  sub->add_option("--kernel-b", args->kernel_b, "Only this kernel's launches of B (default: all)");
  sub->add_option("--config", args->config, "Timing preset (its data file gives measured times)")
      ->capture_default_str();
  sub->add_option("--corpus", args->corpus, "Validation corpus whose points give measured times")
      ->capture_default_str();
  sub->add_option("--data", args->data, "Measured data (default: <corpus dir>/data/<gpu>.json)");
  add_threads_option(sub, args->threads);
  return {sub, [args] { return compare(*args); }};
}

}  // namespace warplab::cli
