// `warplab run FILE.toml`: run an experiment headless.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include "lab/experiment.h"
#include "lab/npy.h"
#include "lab/report.h"
#include "lab/runner.h"
#include "lab/stalls_report.h"
#include "lab/triton.h"
#include "sim/common/output_file.h"
#include "ui/cli/commands.h"

namespace warplab::cli {
namespace {

struct RunArgs {
  std::string file;
  std::string backend = "sim";
  std::string mode = "timing";
  std::string config;
  std::string trace;
  size_t trace_launch = 0;
  int gpu_repeats = 20;
  int gpu_warmup = 3;
  std::string l2 = "cold";
  bool gpu_cold = false;  // the old spelling of --l2 cold (kept for scripts)
  bool counters = false, no_counters = false;
  std::vector<std::string> set;
  std::string json_out;
  std::string dump_dir;
  bool quiet = false;
  bool no_lines = false;
  bool synccheck = false, racecheck = false;
  std::optional<uint64_t> max_instructions, max_cycles;
  int threads = 0;                                  // 0 = all cores
  bool sampled = false;                             // --sampled
  std::string sched;                                // --sched: "" = the preset's policy
  bool sandbox = false, allow_unsandboxed = false;  // compile the CUDA source as untrusted
  // --stalls: per-line warp states of the model and, on the GPU, sampled stall reasons.
  bool stalls = false;
  int stalls_period = 10;
  std::string stalls_json;
};

// Writes a run's buffers (.npy) and PTX into dir. A sweep row's folder (run_I, which --dump makes
// inside the folder the user named) must be a real folder: one that is a symbolic link is refused,
// so that a planted link cannot send the dump elsewhere (the files themselves are opened with
// O_NOFOLLOW by write_output_file).
Status dump_run(const lab::RunResult& r, const std::string& dir, bool made_by_us = false) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (made_by_us && fs::is_symlink(fs::symlink_status(dir, ec)))
    return Error{dir, 0, "is a symbolic link: refusing to dump a sweep row through it"};
  fs::create_directories(dir, ec);
  if (ec) return Error{dir, 0, "cannot create dump directory: " + ec.message()};
  if (made_by_us && (fs::is_symlink(fs::symlink_status(dir, ec)) ||
                     !fs::is_directory(fs::symlink_status(dir, ec))))
    return Error{dir, 0, "is not a folder WarpLab can dump into (a symbolic link or a file)"};
  for (const lab::HostBuffer& b : r.buffers)
    if (auto s = lab::write_npy(dir + "/" + b.name + ".npy", b.to_npy()); !s) return s;
  if (r.unit) {
    std::string name = std::filesystem::path(r.unit->ptx_path).filename().string();
    if (name.size() < 4 || name.substr(name.size() - 4) != ".ptx") name += ".ptx";
    if (auto s = write_output_file(dir + "/" + name, r.unit->ptx, "PTX file"); !s) return s;
  }
  return Ok{};
}

// A count or limit option: "-1" must be refused, not read as 2^64-1.
CLI::Validator not_negative() {
  return CLI::Validator(
      [](std::string& v) {
        return v.find('-') == std::string::npos ? std::string()
                                                : "expected a whole number >= 0, got " + v;
      },
      "");
}

void forget_earlier_outputs(const lab::Experiment& exp, const RunArgs& a) {
  std::error_code ec;
  if (!a.json_out.empty() && a.json_out != "-") std::filesystem::remove(a.json_out, ec);
  if (a.dump_dir.empty()) return;
  namespace fs = std::filesystem;
  auto forget_in = [&](const fs::path& d) {
    for (const lab::BufferDef& b : exp.buffers) fs::remove(d / (b.name + ".npy"), ec);
  };
  forget_in(a.dump_dir);
  // A sweep's earlier rows (run_I): a shorter sweep now must not leave the old rows' buffers.
  for (const auto& e : fs::directory_iterator(a.dump_dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.starts_with("run_") && !e.is_symlink(ec) && e.is_directory(ec)) forget_in(e.path());
  }
}

int run(const RunArgs& a) {
  auto exp = lab::load_experiment(a.file);
  if (!exp) return report_error(exp.error());
  // A Triton kernel without Triton installed: one line, and nothing else changes (exit 0).
  if (exp->source_kind == lab::Experiment::SourceKind::Triton)
    if (const std::string why = lab::TritonBridge().why_unavailable(); !why.empty()) {
      std::cout << "SKIPPED " << a.file << ": a Triton kernel (" << exp->source << "), and " << why
                << "\n";
      return kExitOk;
    }
  for (const std::string& s : a.set)
    if (auto st = lab::set_param(*exp, s); !st) return report_error(st.error());
  lab::RunOptions opt;
  auto backend = lab::parse_backend(a.backend);
  if (!backend) return report_error(backend.error());
  auto mode = lab::parse_mode(a.mode);
  if (!mode) return report_error(mode.error());
  opt.backend = *backend;
  opt.mode = *mode;
  opt.config = a.config;
  opt.count_lines = !a.no_lines;
  if (!a.trace.empty()) {
    lab::TraceCapture capture;  // the default detail: SM 0, the whole launch, 1M events
    capture.launch = a.trace_launch;
    capture.path = a.trace;
    opt.trace = std::move(capture);
  }
  if (a.gpu_repeats < 1) return report_error(Error{"", 0, "--gpu-repeats must be at least 1"});
  opt.gpu.repeats = a.gpu_repeats;
  opt.gpu.warmup = a.gpu_warmup;
  auto l2 = lab::parse_l2_start(a.gpu_cold ? "cold" : a.l2);
  if (!l2) return report_error(Error{"", 0, "--l2: " + l2.error().message});
  opt.l2 = *l2;  // one protocol for both backends
  if (a.counters) opt.gpu.counters = true;
  if (a.no_counters) opt.gpu.counters = false;
  if (a.stalls_period < 5 || a.stalls_period > 31)
    return report_error(
        Error{"", 0, "--stalls-period: expected 5 to 31 (a sample every 2^N cycles)"});
  opt.gpu.stalls = a.stalls || !a.stalls_json.empty();
  opt.gpu.stalls_period_log2 = a.stalls_period;
  opt.synccheck = a.synccheck;
  opt.racecheck = a.racecheck;
  opt.max_instructions = a.max_instructions;
  opt.max_cycles = a.max_cycles;
  opt.threads = resolve_threads(a.threads);
  opt.sampled = a.sampled;
  opt.warp_scheduler = a.sched;
  if (a.sandbox) {
    // Untrusted source (lab/sandbox.h): the compile reads only the toolkit and the folders of the
    // experiment and its source.
    lab::SandboxPolicy policy;
    policy.read_dirs = {std::filesystem::path(exp->path).parent_path().string(),
                        std::filesystem::path(exp->source).parent_path().string()};
    for (std::string& d : policy.read_dirs)
      if (d.empty()) d = ".";
    policy.allow_unconfined = a.allow_unsandboxed;
    opt.sandbox = policy;
  }

  // Stream the report: the header now, each launch as it finishes (a sweep's rows come in its
  // table at the end), and on a terminal a progress line on stderr while a launch runs.
  const bool stream = !a.quiet;
  const bool progress = stream && isatty(STDERR_FILENO);
  bool progress_shown = false;
  std::string progress_head;  // "  running launch 0 (1 of 2): k"
  auto clear_progress = [&] {
    if (progress_shown) std::cerr << "\r\033[K" << std::flush;
    progress_shown = false;
  };
  if (stream) {
    opt.on_launch_start = [&](const lab::LaunchProgress& p) {
      if (!progress) return;
      std::ostringstream h;
      h << "  running";
      if (p.sweep_row >= 0) h << " sweep row " << p.sweep_row + 1 << "/" << p.sweep_rows << ",";
      h << " launch " << p.launch_index << " (" << p.launch_index + 1 << " of " << p.launch_count
        << ")";
      if (p.repeats > 1) h << " (repeat " << p.repeat_index + 1 << "/" << p.repeats << ")";
      h << ": " << p.kernel;
      progress_head = h.str();
      std::cerr << "\r\033[K" << progress_head << " ..." << std::flush;
      progress_shown = true;
    };
    // A long timing launch: where it is, and an estimate of the time left (not with --json).
    if (progress && a.json_out.empty())
      opt.on_timing_progress = [&](const timing::TimingProgress& p) {
        std::cerr << "\r\033[K" << progress_head << ": "
                  << format_timing_progress(
                         {p.cycle, p.blocks_done, p.blocks_total, p.seconds, p.phase})
                  << std::flush;
        progress_shown = true;
      };
    opt.on_launch_done = [&](const lab::LaunchProgress& p, const lab::LaunchRecord& rec) {
      clear_progress();
      if (p.sweep_row < 0) std::cout << lab::format_launch_report(rec) << std::flush;
    };
  }

  lab::Toolchain toolchain;
  lab::Runner runner(toolchain, opt);
  if (stream) {
    // Before anything runs: a bad preset or a missing GPU is bad input (exit 2).
    if (auto s = runner.prepare_backends(); !s) return report_error(s.error());
    lab::ExperimentResult head;
    head.backend = std::string(lab::backend_name(opt.backend));
    head.mode = std::string(lab::mode_name(opt.mode));
    head.l2 = std::string(lab::l2_start_name(opt.l2));
    if (opt.backend != lab::BackendKind::Gpu) head.config = runner.config_name();
    head.gpu_device = runner.gpu_device_name();
    std::cout << lab::format_head(*exp, head);
    if (!a.sched.empty() && opt.backend != lab::BackendKind::Gpu)
      std::cout << "warp scheduler: " << a.sched << " (--sched; the preset's policy set aside)\n";
    if (exp->sweep.empty() && !exp->params.empty()) {
      std::string ps;
      for (const lab::ParamDef& p : exp->params)
        ps += (ps.empty() ? "" : " ") + p.name + "=" + p.value.to_string();
      std::cout << "params: " << ps << "\n";
    }
    std::cout << std::flush;
  }
  // What an earlier run wrote goes first: a run that is interrupted (SIGINT, SIGTERM) or fails
  // leaves no JSON or dumped buffer that could pass for its own.
  forget_earlier_outputs(*exp, a);
  auto result = runner.run(*exp);
  clear_progress();
  if (!result) return report_error(result.error());

  if (stream) std::cout << lab::format_tail(*exp, *result, true) << std::flush;
  int status = kExitOk;
  // --stalls: the per-line table, the report's `line_stalls` section and the data file.
  std::vector<lab::LineStalls> stalls;
  std::vector<std::string> stall_notes;
  if (opt.gpu.stalls) {
    stalls = lab::collect_line_stalls(*exp, *result, a.set, &stall_notes);
    if (stream) {
      std::cout << lab::format_line_stalls(stalls);
      if (stalls.empty())
        std::cout << "\nPer-line warp states: none (the simulator gives them in timing mode)\n";
      for (const std::string& n : stall_notes) std::cout << "note: " << n << "\n";
      std::cout << std::flush;
    }
    if (!a.stalls_json.empty())
      if (auto s = lab::write_line_stalls_file(a.stalls_json, stalls); !s)
        status = report_error(s.error());
  }
  if (!a.json_out.empty()) {
    nlohmann::json report = lab::experiment_json(*exp, *result);
    if (opt.gpu.stalls) {
      report["line_stalls"] = nlohmann::json::array();
      for (const lab::LineStalls& s : stalls) report["line_stalls"].push_back(lab::to_json(s));
      if (!stall_notes.empty()) report["line_stalls_notes"] = stall_notes;
    }
    // Invalid UTF-8 (a file name, a kernel's printf) becomes U+FFFD, not an exception.
    std::string text = report.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    if (a.json_out == "-") {
      std::cout << text;
    } else {
      std::filesystem::path parent = std::filesystem::path(a.json_out).parent_path();
      std::error_code ec;
      if (!parent.empty()) std::filesystem::create_directories(parent, ec);
      if (auto s = write_output_file(a.json_out, text, "JSON file"); !s)
        status = report_error(s.error());
    }
  }
  if (!a.dump_dir.empty()) {
    if (result->run) {
      if (auto s = dump_run(*result->run, a.dump_dir); !s) status = report_error(s.error());
    } else {
      for (size_t i = 0; i < result->sweep->runs.size(); ++i)
        if (auto s =
                dump_run(result->sweep->runs[i], a.dump_dir + "/run_" + std::to_string(i), true);
            !s)
          status = report_error(s.error());
    }
  }
  if (status != kExitOk) return status;
  if (result->passed()) return kExitOk;
  // Say on stderr why the run failed, so scripts and --quiet users see it.
  auto explain = [&](const lab::RunResult& r) {
    for (const lab::LaunchRecord& l : r.launches) {
      if (l.fault) std::cerr << "warplab: " << lab::format_fault(l);
      for (size_t i = 0; i < l.hazards.size() && i < 8; ++i) {
        const func::Hazard& h = l.hazards[i];
        std::cerr << "warplab: launch " << l.launch_index << " (" << l.kernel
                  << "): " << func::hazard_kind_name(h.kind) << " at PTX line " << h.ptx_line
                  << (h.src_file.empty()
                          ? ""
                          : " (" + h.src_file + ":" + std::to_string(h.src_line) + ")")
                  << (h.other_ptx_line ? " with PTX line " + std::to_string(h.other_ptx_line) +
                                             (h.other_src_file.empty()
                                                  ? ""
                                                  : " (" + h.other_src_file + ":" +
                                                        std::to_string(h.other_src_line) + ")")
                                       : std::string())
                  << ", " << h.count << (h.count == 1 ? " hazard" : " hazards") << "\n";
      }
      if (l.hazards.size() > 8)
        std::cerr << "warplab: launch " << l.launch_index << " (" << l.kernel
                  << "): " << l.hazards.size() - 8 << " more hazard reports\n";
    }
    for (const lab::CheckResult& c : r.checks)
      if (!c.passed)
        std::cerr << "warplab: " << exp->path << ":" << c.line << ": check " << c.buffer << " vs "
                  << c.expected << " failed ("
                  << (c.note.empty() ? std::to_string(c.mismatch_count) + " of " +
                                           std::to_string(c.count) + " elements differ"
                                     : c.note)
                  << ")\n";
  };
  if (result->run)
    explain(*result->run);
  else
    for (const lab::RunResult& r : result->sweep->runs) explain(r);
  return kExitFailed;
}

}  // namespace

Command add_run_command(CLI::App& app) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* sub = app.add_subcommand("run", "Run an experiment file (TOML) and check its results");
  sub->add_option("file", args->file, "Experiment file (see lessons/FORMAT.md)")->required();
  sub->add_option("--backend", args->backend, "Where kernels run: sim, gpu or both")
      ->capture_default_str();
  sub->add_option("--mode", args->mode,
                  "Simulator mode: timing (cycle-level model) or functional (results and "
                  "instruction counts only, faster)")
      ->capture_default_str();
  sub->add_option("--config", args->config,
                  "GPU configuration for the timing model: a preset name (warplab configs) or a "
                  ".toml file (default h100-sxm)");
  sub->add_option("--trace", args->trace,
                  "Write the timing model's event trace of one launch as Chrome trace-event JSON "
                  "(open in ui.perfetto.dev)");
  sub->add_option("--trace-launch", args->trace_launch,
                  "Which executed launch --trace records (0 = the first; a sweep's first row)")
      ->check(not_negative())  // "-1" would otherwise wrap to 2^64-1
      ->capture_default_str();
  sub->add_option("--gpu-repeats", args->gpu_repeats,
                  "GPU: timed launches per launch (median reported)")
      ->capture_default_str();
  sub->add_option("--gpu-warmup", args->gpu_warmup, "GPU: untimed warm-up launches")
      ->check(not_negative())
      ->capture_default_str();
  sub->add_option("--l2", args->l2,
                  "What every timed launch finds in the L2, on both backends: cold (GPU: L2 "
                  "flushed before each timed launch; simulator: an empty L2 at each launch) or "
                  "warm (GPU: timed after the warm-up launches; simulator: after one untimed "
                  "run of the same launch)")
      ->capture_default_str();
  sub->add_flag("--gpu-cold", args->gpu_cold, "The same as --l2 cold")->group("");
  sub->add_flag("--counters", args->counters,
                "GPU: read hardware counters (CUPTI); the default with --backend both");
  sub->add_flag("--no-counters", args->no_counters, "GPU: do not read hardware counters");
  sub->add_flag("--stalls", args->stalls,
                "Per line: the model's warp-state mix (timing mode) and, with --backend gpu/both, "
                "the GPU's sampled stall reasons beside it (CUPTI PC sampling of one extra "
                "launch; needs ptxas and nvdisasm); the JSON gains `line_stalls`");
  sub->add_option("--stalls-period", args->stalls_period,
                  "GPU: a PC sample every 2^N cycles per SM sub-partition (5..31)")
      ->capture_default_str();
  sub->add_option("--stalls-json", args->stalls_json,
                  "Write the per-line stalls as a data file (warplab.line-stalls/1; implies "
                  "--stalls)");
  sub->add_option("--set", args->set, "Override a parameter: --set NAME=VALUE (repeatable)")
      ->allow_extra_args(false);
  sub->add_option("--json", args->json_out, "Write the results as JSON to this file ('-': stdout)");
  sub->add_option("--dump", args->dump_dir,
                  "Write every buffer after the run as DIR/NAME.npy (and the PTX)");
  sub->add_flag("-q,--quiet", args->quiet, "Print nothing but errors and failures");
  add_threads_option(sub, args->threads);
  add_sampled_option(sub, args->sampled);
  sub->add_option("--sched", args->sched,
                  "Timing mode: the warp scheduling policy, lrr (loose round robin) or gto (greedy "
                  "then oldest), in place of the preset's core.warp_scheduler");
  sub->add_flag("--no-line-counts", args->no_lines, "Skip per PTX/CUDA line counts (faster)");
  sub->add_flag(
      "--synccheck", args->synccheck,
      "Simulator: report barriers reached by part of a warp or block and warp-level .sync "
      "masks the GPU leaves undefined (like compute-sanitizer's synccheck); a hazard fails "
      "the run");
  sub->add_flag("--racecheck", args->racecheck,
                "Simulator: report data races on shared memory (and on global memory within a "
                "block) between barriers, both sides with their lines (like compute-sanitizer's "
                "racecheck); a hazard fails the run");
  sub->add_flag("--sandbox", args->sandbox,
                "Compile the CUDA source as untrusted code: in a child confined by Landlock to "
                "the CUDA toolkit and the experiment's folder, with CPU, memory and time limits, "
                "no network and no PTX cache (as `warplab grade` always does)");
  sub->add_flag("--allow-unsandboxed", args->allow_unsandboxed,
                "With --sandbox on a host without Landlock: compile anyway (the source could read "
                "any file this process can)");
  sub->add_option("--max-instructions", args->max_instructions,
                  "Simulator: stop a launch when a warp issues more than N instructions (a hang), "
                  "naming the loop it is stuck in; 0 = no limit (default: the experiment's "
                  "max_instructions, else 10,000,000)")
      ->check(not_negative());
  sub->add_option("--max-cycles", args->max_cycles,
                  "Timing model: stop a launch still running at cycle N (a hang); 0 = no limit "
                  "(default: the experiment's max_cycles, else 1,000,000,000)")
      ->check(not_negative());
  return {sub, [args] { return run(*args); }};
}

}  // namespace warplab::cli
