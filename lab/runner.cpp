#include "lab/runner.h"

#include <chrono>
#include <fstream>
#include <sstream>

#include "gpu/backend.h"
#include "lab/backends.h"
#include "lab/presets.h"
#include "sim/ptx/parser.h"

namespace warplab::lab {

std::string_view backend_name(BackendKind b) {
  switch (b) {
    case BackendKind::Sim:
      return "sim";
    case BackendKind::Gpu:
      return "gpu";
    case BackendKind::Both:
      return "both";
  }
  return "?";
}
std::string_view mode_name(SimMode m) { return m == SimMode::Functional ? "functional" : "timing"; }

Expected<BackendKind> parse_backend(const std::string& s) {
  if (s == "sim") return BackendKind::Sim;
  if (s == "gpu") return BackendKind::Gpu;
  if (s == "both") return BackendKind::Both;
  return Error{"", 0, "unknown backend '" + s + "' (expected sim, gpu or both)"};
}
Expected<SimMode> parse_mode(const std::string& s) {
  if (s == "functional") return SimMode::Functional;
  if (s == "timing") return SimMode::Timing;
  return Error{"", 0, "unknown mode '" + s + "' (expected functional or timing)"};
}

bool RunResult::faulted() const {
  for (const LaunchRecord& l : launches)
    if (l.fault) return true;
  return false;
}
bool RunResult::has_hazards() const {
  for (const LaunchRecord& l : launches)
    if (!l.hazards.empty()) return true;
  return false;
}
bool RunResult::passed() const {
  if (faulted() || has_hazards()) return false;
  for (const LaunchRecord& l : launches)
    if (l.gpu_failed || l.backends_differ) return false;
  for (const CheckResult& c : checks)
    if (!c.passed) return false;
  return true;
}
bool ExperimentResult::passed() const {
  if (run) return run->passed();
  if (sweep)
    for (const RunResult& r : sweep->runs)
      if (!r.passed()) return false;
  return true;
}

namespace {

std::string read_text(const std::string& path, bool& ok) {
  std::ifstream in(path);
  ok = static_cast<bool>(in);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

Expected<std::unique_ptr<LaunchBackend>> make_backend(const RunOptions& options,
                                                      const BackendContext& context) {
  if (!context.unit || !context.unit->program) return Error{"", 0, "no compiled program"};
  if (options.mode == SimMode::Timing && !context.config && options.backend != BackendKind::Gpu)
    return Error{"", 0, "--mode timing: no GPU configuration loaded"};
  if (options.backend != BackendKind::Sim && (!context.gpu || !context.gpu_module))
    return Error{"", 0,
                 "--backend " + std::string(backend_name(options.backend)) + ": no GPU opened"};
  switch (options.backend) {
    case BackendKind::Sim:
      return make_sim_backend(options, context);
    case BackendKind::Gpu:
      return make_gpu_backend(options, context);
    case BackendKind::Both:
      return make_both_backend(make_sim_backend(options, context), options, context);
  }
  return Error{"", 0, "unknown backend"};
}

Expected<std::unique_ptr<LaunchBackend>> make_backend(
    const RunOptions& options, std::shared_ptr<const func::Program> program) {
  RunOptions o = options;
  o.backend = BackendKind::Sim;
  auto unit = std::make_shared<CompiledUnit>();
  unit->program = std::move(program);
  BackendContext ctx;
  ctx.unit = unit;
  if (o.mode == SimMode::Timing) {
    auto cfg = load_gpu_config(o.config);
    if (!cfg) return cfg.error();
    ctx.config = *cfg;
  }
  return make_backend(o, ctx);
}

Runner::Runner(const Toolchain& toolchain, RunOptions options)
    : toolchain_(toolchain), options_(std::move(options)) {}

Expected<std::shared_ptr<const CompiledUnit>> Runner::compile(const Experiment& exp,
                                                              const Env& env) {
  // 1. The -D defines for these parameter values select (or build) a compiled unit.
  std::vector<std::string> defines;
  std::string key;
  for (const auto& [name, expr] : exp.defines) {
    auto v = expr.eval(env);
    if (!v)
      return Error{exp.path, exp.source_line,
                   "experiment.defines." + name + ": " + v.error().message};
    defines.push_back("-D" + name + "=" + v->to_string());
    key += defines.back() + " ";
  }
  if (auto it = units_.find(key); it != units_.end()) return it->second;

  auto unit = std::make_shared<CompiledUnit>();
  unit->defines_key = key;
  // 2. Source -> PTX.
  if (exp.source_kind == Experiment::SourceKind::Cuda) {
    CompileOptions co;
    co.arch = exp.arch;
    co.extra = exp.options;
    co.extra.insert(co.extra.end(), defines.begin(), defines.end());
    auto ptx = toolchain_.compile_cuda_file(exp.source, co);
    if (!ptx) return ptx.error();
    unit->ptx = std::move(ptx->ptx);
    unit->compile_log = std::move(ptx->log);
    unit->ptx_path = exp.source + ".ptx";
  } else {
    bool ok = false;
    unit->ptx = read_text(exp.source, ok);
    if (!ok) return Error{exp.path, exp.source_line, "experiment.ptx: cannot read " + exp.source};
    unit->ptx_path = exp.source;
  }
  // 3. PTX -> IR -> the simulator's program.
  auto module = ptx::parse_module(unit->ptx, unit->ptx_path);
  if (!module) return module.error();
  auto program = func::Program::load(std::move(*module));
  if (!program) return program.error();
  unit->program = std::make_shared<const func::Program>(std::move(*program));
  // 4. Resource usage, as ptxas reports it.
  if (options_.resources) {
    if (!toolchain_.has_nvjitlink()) {
      unit->resources_note =
          "registers/shared memory per kernel unavailable: " + toolchain_.why_no_nvjitlink();
    } else {
      auto r = toolchain_.resource_usage(unit->ptx, unit->ptx_path, options_.sass_arch);
      if (r)
        unit->resources = std::move(*r);
      else
        unit->resources_note =
            "registers/shared memory per kernel unavailable: " + r.error().to_string();
    }
  }
  // 5. Every launch names a kernel of this module and matches its signature.
  const ptx::Module& m = unit->program->module();
  for (size_t i = 0; i < exp.launches.size(); ++i) {
    const LaunchDef& l = exp.launches[i];
    auto k = find_kernel(m, l.kernel);
    if (!k)
      return Error{exp.path, l.kernel_line,
                   "launches[" + std::to_string(i) + "].kernel: " + k.error().message};
    if (auto s = check_signature(exp, i, **k); !s) return s.error();
  }
  units_[key] = unit;
  return std::shared_ptr<const CompiledUnit>(unit);
}

Expected<RunResult> Runner::run_once(const Experiment& exp) {
  RunResult result;
  const Env env = exp.env();
  for (const ParamDef& p : exp.params) result.params.emplace_back(p.name, p.value);
  auto unit = compile(exp, env);
  if (!unit) return unit.error();
  result.unit = *unit;
  const func::Program& program = *(*unit)->program;

  auto buffers = make_buffers(exp, env);
  if (!buffers) return buffers.error();
  result.buffers = std::move(*buffers);
  if (auto s = prepare_backends(); !s) return s.error();
  BackendContext ctx;
  ctx.unit = *unit;
  ctx.config = config_;
  ctx.gpu = gpu_;
  if (gpu_) {
    auto& mod = gpu_modules_[(*unit)->defines_key];
    if (!mod) {
      auto m = gpu_->load_ptx((*unit)->ptx, (*unit)->ptx_path);
      if (!m) return m.error();
      mod = std::make_shared<const gpu::GpuModule>(std::move(*m));
    }
    ctx.gpu_module = mod;
  }
  ctx.trace = options_.trace.has_value() && !traced_;
  traced_ = traced_ || ctx.trace;
  // Checkers and hang limits: the command line's, else the experiment's, else the defaults.
  RunOptions eff = options_;
  eff.synccheck = options_.synccheck || exp.synccheck;
  eff.racecheck = options_.racecheck || exp.racecheck;
  if (!eff.max_cycles) eff.max_cycles = exp.max_cycles;
  if (!eff.max_instructions) eff.max_instructions = exp.max_instructions;
  // The checkers run in the simulator: with the GPU alone nothing is checked.
  result.synccheck = eff.synccheck && options_.backend != BackendKind::Gpu;
  result.racecheck = eff.racecheck && options_.backend != BackendKind::Gpu;
  auto backend = make_backend(eff, ctx);
  if (!backend) return backend.error();
  auto addresses = (*backend)->prepare(result.buffers);
  if (!addresses) return addresses.error();

  bool stop = false;
  for (size_t i = 0; i < exp.launches.size() && !stop; ++i) {
    const LaunchDef& l = exp.launches[i];
    const ptx::Function* kernel = *find_kernel(program.module(), l.kernel);  // checked in compile
    auto bound = bind_launch(exp, i, *kernel, env, *addresses);
    if (!bound) return bound.error();
    bound->config.synccheck = eff.synccheck;
    bound->config.racecheck = eff.racecheck;
    if (eff.max_instructions) bound->config.max_instructions_per_warp = *eff.max_instructions;
    LaunchProgress progress;
    progress.launch_index = i;
    progress.launch_count = exp.launches.size();
    progress.repeats = bound->repeat;
    progress.kernel = l.kernel;
    progress.sweep_row = sweep_row_;
    progress.sweep_rows = sweep_rows_;
    for (int64_t r = 0; r < bound->repeat && !stop; ++r) {
      progress.repeat_index = r;
      if (options_.on_launch_start) options_.on_launch_start(progress);
      LaunchRecord rec;
      rec.launch_index = i;
      rec.repeat_index = r;
      rec.kernel = l.kernel;
      rec.entry = kernel->name;
      rec.grid = bound->config.grid;
      rec.block = bound->config.block;
      rec.shared_bytes = bound->config.dynamic_shared_bytes;
      rec.backend = std::string(backend_name(options_.backend));
      rec.args = bound->arg_text;
      rec.ptx_static_shared_bytes = program.static_shared_bytes(kernel->name);
      if ((*unit)->resources)
        if (const KernelResources* kr = (*unit)->resources->find(kernel->name)) {
          rec.resources = *kr;
          rec.resources_source = "nvjitlink";
        }
      if (!rec.resources && ctx.gpu_module)  // no nvJitLink: the driver JIT's figures will do
        if (auto a = ctx.gpu_module->kernel_attributes(kernel->name)) {
          KernelResources kr;
          kr.kernel = kernel->name;
          kr.registers = a->registers_per_thread;
          kr.static_shared_bytes = static_cast<uint64_t>(a->static_shared_bytes);
          kr.local_bytes = static_cast<uint64_t>(a->local_bytes_per_thread);
          kr.const_bytes = static_cast<uint64_t>(a->const_bytes);
          rec.resources = kr;
          rec.resources_source = "gpu";
        }
      if (auto s = (*backend)->launch(*bound, rec); !s) {
        Error e = s.error();
        return Error{exp.path, l.line,
                     "launches[" + std::to_string(i) + "] (" + l.kernel + "): " + e.to_string()};
      }
      stop = rec.fault.has_value();  // later launches would read a half-written state
      if (stop && r + 1 < bound->repeat) result.skipped_launches.push_back(i);
      result.launches.push_back(std::move(rec));
      if (options_.on_launch_done) options_.on_launch_done(progress, result.launches.back());
    }
    if (stop)
      for (size_t j = i + 1; j < exp.launches.size(); ++j) result.skipped_launches.push_back(j);
  }
  if (auto s = (*backend)->read_back(result.buffers); !s) return s.error();
  result.checks = run_checks(exp, result.buffers);
  return result;
}

std::string Runner::config_name() const { return config_ ? config_->name : std::string(); }
std::string Runner::gpu_device_name() const { return gpu_ ? gpu_->device().name : std::string(); }

Status Runner::prepare_backends() {
  if (options_.trace && options_.mode != SimMode::Timing)
    return Error{"", 0, "--trace needs the timing model (--mode timing)"};
  if (options_.trace && options_.backend == BackendKind::Gpu)
    return Error{"", 0, "--trace records the simulator's timing model: use --backend sim or both"};
  if (options_.trace && !options_.trace->path.empty() && !options_.trace->launch)
    return Error{"", 0, "--trace FILE records one launch: say which (--trace-launch)"};
  if (options_.mode == SimMode::Timing && !config_ && options_.backend != BackendKind::Gpu) {
    auto cfg = load_gpu_config(options_.config);
    if (!cfg) {
      Error e = cfg.error();
      e.message = "--config: " + e.message;
      return e;
    }
    config_ = *cfg;
  }
  if (options_.backend != BackendKind::Sim && !gpu_) {
    auto g = gpu::Backend::open();
    if (!g)
      return Error{"", 0,
                   "--backend " + std::string(backend_name(options_.backend)) +
                       ": the real GPU is not available: " + g.error().message};
    gpu_ = std::make_shared<gpu::Backend>(std::move(*g));
  }
  return Ok{};
}

Expected<ExperimentResult> Runner::run(const Experiment& exp) {
  ExperimentResult out;
  out.backend = std::string(backend_name(options_.backend));
  out.mode = std::string(mode_name(options_.mode));
  // Before compiling anything: a bad preset or a missing GPU is bad input (exit 2).
  if (auto s = prepare_backends(); !s) return s.error();
  if (config_ && options_.backend != BackendKind::Gpu) out.config = config_->name;
  if (gpu_) {
    const gpu::DeviceInfo& d = gpu_->device();
    out.gpu_device = d.name;
    out.gpu_info = {
        {"name", d.name},
        {"compute_capability", std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor)},
        {"sm_count", d.sm_count},
        {"sm_clock_mhz", d.sm_clock_khz / 1000},
        {"l2_bytes", d.l2_bytes},
        {"dram_bandwidth_gbps", d.dram_bandwidth_gbps()},
        {"driver_version", d.driver_version},
        {"warmup", options_.gpu.warmup},
        {"repeats", options_.gpu.repeats},
        {"l2_flushed", options_.gpu.cold}};
    if (auto ov = gpu_->launch_overhead())
      out.gpu_info["launch_overhead_us"] = {{"empty_kernel", ov->empty_kernel_us},
                                            {"back_to_back", ov->back_to_back_us}};
  }
  sweep_row_ = -1;
  sweep_rows_ = 0;
  if (exp.sweep.empty()) {
    auto r = run_once(exp);
    if (!r) return r.error();
    out.run = std::move(*r);
  } else {
    SweepResult sweep;
    for (const SweepAxis& a : exp.sweep) sweep.axes.push_back(a.param);
    std::vector<size_t> at(exp.sweep.size(), 0);
    sweep_rows_ = 1;
    for (const SweepAxis& a : exp.sweep) sweep_rows_ *= a.values.size();
    for (sweep_row_ = 0;; ++sweep_row_) {
      Experiment e = exp;
      std::string where;
      for (size_t k = 0; k < at.size(); ++k) {
        for (ParamDef& p : e.params)
          if (p.name == exp.sweep[k].param) p.value = exp.sweep[k].values[at[k]];
        where += (where.empty() ? "" : ", ") + exp.sweep[k].param + "=" +
                 exp.sweep[k].values[at[k]].to_string();
      }
      auto r = run_once(e);
      if (!r) {
        Error err = r.error();
        err.message = "[sweep " + where + "] " + err.message;
        return err;
      }
      sweep.runs.push_back(std::move(*r));
      // Odometer: the last axis varies fastest.
      bool done = true;
      for (size_t k = at.size(); k-- > 0;) {
        if (++at[k] < exp.sweep[k].values.size()) {
          done = false;
          break;
        }
        at[k] = 0;
      }
      if (done) break;
    }
    out.sweep = std::move(sweep);
  }
  const RunResult& first = out.run ? *out.run : out.sweep->runs.front();
  if (first.unit && !first.unit->resources_note.empty())
    out.notes.push_back(
        first.unit->resources_note +
        (gpu_ ? "; the GPU driver's JIT figures (cuFuncGetAttribute) are used instead" : ""));
  if (options_.trace && !options_.trace->path.empty()) {
    const std::string which = std::to_string(*options_.trace->launch);
    bool written = false;
    for (const LaunchRecord& l : first.launches) written = written || l.sim.contains("trace_file");
    out.notes.push_back(written ? "trace of launch " + which + " written to " +
                                      options_.trace->path + (out.sweep ? " (first sweep row)" : "")
                                : "--trace-launch " + which + ": only " +
                                      std::to_string(first.launches.size()) +
                                      " launch(es) ran; no trace written");
  }
  return out;
}

}  // namespace warplab::lab
