#include "lab/runner.h"

#include <chrono>
#include <fstream>
#include <sstream>

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
bool RunResult::passed() const {
  if (faulted()) return false;
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

// The simulator, functional mode: every thread executed exactly, instructions counted.
class SimFunctionalBackend : public LaunchBackend {
 public:
  SimFunctionalBackend(std::shared_ptr<const func::Program> program, const RunOptions& options)
      : program_(std::move(program)) {
    fopts_.count_lines = options.count_lines;
    fopts_.max_warp_instructions = options.max_warp_instructions;
  }
  std::string_view name() const override { return "sim"; }

  Expected<std::vector<uint64_t>> prepare(const std::vector<HostBuffer>& buffers) override {
    for (const HostBuffer& b : buffers) {
      uint64_t addr = memory_.allocate(b.name, b.bytes.size());
      if (!b.bytes.empty())
        if (auto s = memory_.write(addr, b.bytes.data(), b.bytes.size()); !s) return s.error();
      addresses_.push_back(addr);
    }
    return addresses_;
  }

  Status launch(const BoundLaunch& l, LaunchRecord& rec) override {
    auto t0 = std::chrono::steady_clock::now();
    auto r = func::run_functional(*program_, memory_, l.config, fopts_);
    rec.sim_wall_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!r) return r.error();
    rec.stats = std::move(r->stats);
    rec.fault = std::move(r->fault);
    rec.sim["wall_s"] = rec.sim_wall_seconds;
    rec.sim["mode"] = "functional";
    return Ok{};
  }

  Status read_back(std::vector<HostBuffer>& buffers) override {
    for (size_t i = 0; i < buffers.size(); ++i)
      if (!buffers[i].bytes.empty())
        if (auto s = memory_.read(addresses_[i], buffers[i].bytes.data(), buffers[i].bytes.size());
            !s)
          return s;
    return Ok{};
  }

 private:
  std::shared_ptr<const func::Program> program_;
  func::DeviceMemory memory_;
  func::FunctionalOptions fopts_;
  std::vector<uint64_t> addresses_;
};

std::string read_text(const std::string& path, bool& ok) {
  std::ifstream in(path);
  ok = static_cast<bool>(in);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

Expected<std::unique_ptr<LaunchBackend>> make_backend(
    const RunOptions& options, std::shared_ptr<const func::Program> program) {
  if (options.backend != BackendKind::Sim)
    return Error{
        "", 0,
        "--backend " + std::string(backend_name(options.backend)) +
            ": the real-GPU backend is not built into this WarpLab yet; use --backend sim"};
  if (options.mode == SimMode::Timing)
    return Error{"", 0,
                 "--mode timing: the timing model is not available in this build yet; use "
                 "--mode functional"};
  return std::unique_ptr<LaunchBackend>(new SimFunctionalBackend(std::move(program), options));
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
  auto backend = make_backend(options_, (*unit)->program);
  if (!backend) return backend.error();
  auto addresses = (*backend)->prepare(result.buffers);
  if (!addresses) return addresses.error();

  bool stop = false;
  for (size_t i = 0; i < exp.launches.size() && !stop; ++i) {
    const LaunchDef& l = exp.launches[i];
    const ptx::Function* kernel = *find_kernel(program.module(), l.kernel);  // checked in compile
    auto bound = bind_launch(exp, i, *kernel, env, *addresses);
    if (!bound) return bound.error();
    for (int64_t r = 0; r < bound->repeat && !stop; ++r) {
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
        if (const KernelResources* kr = (*unit)->resources->find(kernel->name)) rec.resources = *kr;
      if (auto s = (*backend)->launch(*bound, rec); !s) {
        Error e = s.error();
        return Error{exp.path, l.line,
                     "launches[" + std::to_string(i) + "] (" + l.kernel + "): " + e.to_string()};
      }
      stop = rec.fault.has_value();  // later launches would read a half-written state
      result.launches.push_back(std::move(rec));
    }
  }
  if (auto s = (*backend)->read_back(result.buffers); !s) return s.error();
  result.checks = run_checks(exp, result.buffers);
  return result;
}

Expected<ExperimentResult> Runner::run(const Experiment& exp) {
  ExperimentResult out;
  out.backend = std::string(backend_name(options_.backend));
  out.mode = std::string(mode_name(options_.mode));
  if (exp.sweep.empty()) {
    auto r = run_once(exp);
    if (!r) return r.error();
    out.run = std::move(*r);
  } else {
    SweepResult sweep;
    for (const SweepAxis& a : exp.sweep) sweep.axes.push_back(a.param);
    std::vector<size_t> at(exp.sweep.size(), 0);
    for (;;) {
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
    out.notes.push_back(first.unit->resources_note);
  return out;
}

}  // namespace warplab::lab
