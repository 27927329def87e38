#include "lab/runner.h"

#include <cstdint>
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "gpu/backend.h"
#include "lab/backends.h"
#include "lab/presets.h"
#include "sim/ptx/parser.h"
#include "sim/timing/warp_scheduler.h"

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
std::string_view l2_start_name(L2Start l) { return l == L2Start::Cold ? "cold" : "warm"; }

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
Expected<L2Start> parse_l2_start(const std::string& s) {
  if (s == "cold") return L2Start::Cold;
  if (s == "warm") return L2Start::Warm;
  return Error{"", 0, "unknown L2 start '" + s + "' (expected cold or warm)"};
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

// The launches' kernel names that are C++ template-ids ("MatrixMulCUDA<16>"), each once.
std::vector<std::string> template_kernel_names(const Experiment& exp) {
  std::vector<std::string> out;
  for (const LaunchDef& l : exp.launches)
    if (l.kind == LaunchDef::Kind::Kernel && l.kernel.find('<') != std::string::npos &&
        std::find(out.begin(), out.end(), l.kernel) == out.end())
      out.push_back(l.kernel);
  return out;
}

// Per buffer: the module variable a `symbol = ...` buffer names (nullptr for plain buffers).
// The name is the PTX name or the C++ name ("c_coeffs", "ns::table"); only .global and .const
// variables at module scope qualify.
Expected<std::vector<const ptx::Variable*>> resolve_symbols(const Experiment& exp,
                                                            const ptx::Module& m) {
  std::vector<const ptx::Variable*> out(exp.buffers.size(), nullptr);
  for (size_t k = 0; k < exp.buffers.size(); ++k) {
    const BufferDef& b = exp.buffers[k];
    if (b.symbol.empty()) continue;
    std::string known;
    for (const ptx::Variable& v : m.variables) {
      if (v.function >= 0 || (v.space != ptx::Space::Global && v.space != ptx::Space::Const))
        continue;
      known += (known.empty() ? "" : ", ") +
               std::string(v.space == ptx::Space::Const ? "__constant__ " : "__device__ ") +
               demangled_base_name(v.name);
      if (v.name == b.symbol || demangled_base_name(v.name) == b.symbol) out[k] = &v;
    }
    const std::string key = "buffers[" + std::to_string(k) + "] (" + b.name + ").symbol";
    if (!out[k])
      return Error{exp.path, b.line,
                   key + ": no __constant__ or __device__ variable '" + b.symbol + "' in " +
                       m.path + " (module variables: " + (known.empty() ? "none" : known) + ")"};
    const uint64_t es = elem_size(b.type);
    if (out[k]->size % es != 0)
      return Error{exp.path, b.line,
                   key + ": " + b.symbol + " has " + std::to_string(out[k]->size) +
                       " bytes, not a whole number of " + std::string(elem_type_name(b.type)) +
                       " elements"};
  }
  return out;
}

// Marks the symbol buffers, checks their sizes against the variables', and gives a buffer
// without `init` the variable's own initial value.
Status attach_symbols(const Experiment& exp, const std::vector<const ptx::Variable*>& vars,
                      std::vector<HostBuffer>& buffers) {
  for (size_t k = 0; k < buffers.size(); ++k) {
    const ptx::Variable* v = vars[k];
    if (!v) continue;
    const BufferDef& b = exp.buffers[k];
    if (buffers[k].bytes.size() != v->size)
      return Error{exp.path, b.line,
                   "buffers[" + std::to_string(k) + "] (" + b.name +
                       ").count: " + std::to_string(buffers[k].count) + " " +
                       std::string(elem_type_name(b.type)) + " elements are " +
                       std::to_string(buffers[k].bytes.size()) + " bytes, but " + b.symbol +
                       " has " + std::to_string(v->size) +
                       " (leave out count to take the variable's size)"};
    buffers[k].symbol = v->name;
    if (!b.has_init) {
      std::fill(buffers[k].bytes.begin(), buffers[k].bytes.end(), 0);
      std::copy_n(v->init.begin(), std::min<size_t>(v->init.size(), buffers[k].bytes.size()),
                  buffers[k].bytes.begin());
    }
  }
  return Ok{};
}

// One execution of a [[launches]] entry: which, and the values of the loop variables around it
// (its own and those of the spans it is in), outermost first.
struct PlannedLaunch {
  size_t index = 0;
  std::vector<std::pair<std::string, Value>> loop;
};

// Entries [begin, end) in order, each once per iteration of its `for` loops; an entry whose loops
// span later entries runs those inside each iteration.
Status expand_range(const Experiment& exp, size_t begin, size_t end, const Env& env,
                    std::vector<std::pair<std::string, Value>>& vars,
                    std::vector<PlannedLaunch>& plan) {
  constexpr size_t kMaxLaunches = 1'000'000;
  for (size_t i = begin; i < end;) {
    const LaunchDef& l = exp.launches[i];
    const size_t span_end = std::min(end, i + std::max<size_t>(l.span, 1));
    Status s = for_each_iteration(exp, l.loops, env, [&](const Env& e) -> Status {
      const size_t mark = vars.size();
      for (const LoopDef& lp : l.loops) vars.emplace_back(lp.var, e.at(lp.var));
      if (plan.size() >= kMaxLaunches)
        return Error{exp.path, l.line, "for: more than 1,000,000 launches and steps in all"};
      if (l.kind != LaunchDef::Kind::Loop) plan.push_back({i, vars});
      Status inner =
          span_end > i + 1 ? expand_range(exp, i + 1, span_end, e, vars, plan) : Status(Ok{});
      vars.resize(mark);
      return inner;
    });
    if (!s) {
      const std::string prefix = "launches[" + std::to_string(i) + "].";
      if (s.error().message.rfind("launches[", 0) == 0) return s;  // from an inner entry
      return Error{s.error().file, s.error().line, prefix + s.error().message};
    }
    i = span_end;
  }
  return Ok{};
}

Expected<std::vector<PlannedLaunch>> expand_launches(const Experiment& exp, const Env& env) {
  std::vector<PlannedLaunch> plan;
  std::vector<std::pair<std::string, Value>> vars;
  if (auto s = expand_range(exp, 0, exp.launches.size(), env, vars, plan); !s) return s.error();
  return plan;
}

Env plan_env(const PlannedLaunch& p, const Env& env) {
  Env e = env;
  for (const auto& [name, v] : p.loop) e[name] = v;
  return e;
}

// ---- Triton's scratch memory
// Triton 3.x appends two pointers to every kernel: global scratch and profile scratch. Where the
// compiled kernel's metadata asks for N > 0 bytes of one, Triton's launcher allocates N bytes per
// program (grid x * y * z of them, aligned as the metadata says) and passes the base: each
// program finds its own slice from its program id (device-side TMA descriptors live there, for
// one). WarpLab does the same on both backends: one buffer after the experiment's, as large as
// the largest launch needs, zeroed at the start of the run; where the metadata asks for 0 bytes
// the pointer stays null.
constexpr uint64_t kScratchAlign = 256;  // device buffers are 256-byte aligned on both backends

struct TritonScratch {
  int global_buffer = -1, profile_buffer = -1;  // index in the run's buffers; -1: null pointer
};

Expected<TritonScratch> triton_scratch(const Experiment& exp,
                                       const std::vector<PlannedLaunch>& plan, const Env& env,
                                       const TritonKernel& k, std::vector<HostBuffer>& buffers) {
  TritonScratch out;
  uint64_t programs = 0;  // the most programs one launch runs
  for (const PlannedLaunch& p : plan) {
    const LaunchDef& l = exp.launches[p.index];
    if (l.kind != LaunchDef::Kind::Kernel) continue;
    uint64_t n = 1;
    for (const Expr& e : l.grid) {
      auto v = e.eval_int(plan_env(p, env));
      if (!v)
        return Error{exp.path, l.line,
                     "launches[" + std::to_string(p.index) + "].grid: " + v.error().message};
      n *= static_cast<uint64_t>(std::max<int64_t>(*v, 1));
    }
    programs = std::max(programs, n);
  }
  for (const auto& [size, which] : {std::pair{k.global_scratch_size, &out.global_buffer},
                                    std::pair{k.profile_scratch_size, &out.profile_buffer}}) {
    if (size == 0 || programs == 0) continue;
    constexpr uint64_t kMaxBytes = uint64_t{4} << 30;
    if (size > kMaxBytes / programs)
      return Error{exp.path, exp.source_line,
                   "experiment.triton: " + k.name + " asks for " + std::to_string(size) +
                       " bytes of scratch memory per program, " + std::to_string(programs) +
                       " programs: more than 4 GiB"};
    HostBuffer b;
    b.name = which == &out.global_buffer ? "triton_global_scratch" : "triton_profile_scratch";
    b.type = ElemType::U8;
    b.count = size * programs;
    b.bytes.assign(b.count, 0);
    *which = static_cast<int>(buffers.size());
    buffers.push_back(std::move(b));
  }
  return out;
}

// Points the kernel's two trailing scratch parameters at the scratch buffers (null where the
// metadata asks for none), as pointer parameters the GPU backend rewrites with its addresses.
void bind_triton_scratch(const TritonScratch& s, const ptx::Function& kernel,
                         const std::vector<uint64_t>& addresses, BoundLaunch& b) {
  if (kernel.params.size() < 2) return;
  const size_t first = kernel.params.size() - 2;
  for (const auto& [buffer, k] :
       {std::pair{s.global_buffer, first}, std::pair{s.profile_buffer, first + 1}}) {
    if (buffer < 0) continue;
    const uint64_t offset = kernel.params[k].offset;
    const uint64_t addr = addresses.at(static_cast<size_t>(buffer));
    if (offset + 8 > b.config.params.size()) continue;
    std::memcpy(b.config.params.data() + offset, &addr, 8);
    b.pointer_params.push_back({offset, buffer, 0});
    if (k < b.arg_text.size())
      b.arg_text[k] =
          buffer == s.global_buffer ? "triton_global_scratch" : "triton_profile_scratch";
  }
}

// A memset or memcpy step of launch entry `index`, on the backend's device buffers.
Status run_step(const Experiment& exp, size_t index, const Env& env,
                const std::vector<HostBuffer>& buffers, LaunchBackend& backend) {
  const LaunchDef& l = exp.launches[index];
  const std::string key = "launches[" + std::to_string(index) + "]";
  auto range = [&](const SliceDef& s, const char* what) -> Expected<std::pair<uint64_t, uint64_t>> {
    const HostBuffer& b = buffers.at(static_cast<size_t>(exp.buffer_index(s.buffer)));
    auto r = eval_slice(s, env, b.count);
    if (!r) return Error{exp.path, l.line, key + "." + what + ": " + r.error().message};
    return r;
  };
  const size_t dst = static_cast<size_t>(exp.buffer_index(l.target.buffer));
  const uint32_t es = elem_size(buffers[dst].type);
  auto to = range(l.target, l.kind == LaunchDef::Kind::Memset ? "memset" : "memcpy");
  if (!to) return to.error();
  const uint64_t n = to->second - to->first;
  std::vector<uint8_t> bytes(n * es);
  if (l.kind == LaunchDef::Kind::Memset) {
    auto v = l.value.eval(env);
    if (!v) return Error{exp.path, l.line, key + ".value: " + v.error().message};
    const ElemType t = buffers[dst].type;
    if (!elem_is_float(t)) {
      // An integer buffer takes an integer that fits its type (as the C++ assignment would
      // without a narrowing warning); -1, and no other negative value, fills an unsigned buffer
      // with all ones.
      const int bits = static_cast<int>(elem_size(t)) * 8;
      const bool is_signed = elem_is_signed(t);
      const int64_t lo = is_signed ? (bits == 64 ? INT64_MIN : -(int64_t{1} << (bits - 1))) : -1;
      const bool fits =
          !v->is_float && v->i >= lo &&
          (bits == 64 || v->i <= (is_signed ? (int64_t{1} << (bits - 1)) - 1
                                            : (int64_t{1} << bits) - 1));
      if (!fits)
        return Error{exp.path, l.line,
                     key + ".value = " + v->to_string() + " is not a " +
                         std::string(elem_type_name(t)) + " value"};
      const uint64_t u = static_cast<uint64_t>(v->i);
      if (n) std::memcpy(bytes.data(), &u, es);  // little-endian: the low bytes
    } else if (n) {
      store_elem(t, bytes.data(), 0, v->as_double());
    }
    for (uint64_t i = 1; i < n; ++i) std::memcpy(bytes.data() + i * es, bytes.data(), es);
  } else {
    auto from = range(l.source, "from");
    if (!from) return from.error();
    if (from->second - from->first != n)
      return Error{exp.path, l.line,
                   key + ": memcpy \"" + l.source.text + "\" (" +
                       std::to_string(from->second - from->first) + " elements) to \"" +
                       l.target.text + "\" (" + std::to_string(n) + " elements): the sizes differ"};
    const size_t src = static_cast<size_t>(exp.buffer_index(l.source.buffer));
    if (auto s = backend.read_range(src, from->first * es, bytes.data(), bytes.size()); !s)
      return Error{exp.path, l.line, key + ": " + s.error().message};
  }
  if (auto s = backend.write_range(dst, to->first * es, bytes.data(), bytes.size()); !s)
    return Error{exp.path, l.line, key + ": " + s.error().message};
  return Ok{};
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

const ptx::Function* CompiledUnit::kernel(const std::string& name) const {
  if (!program) return nullptr;
  const ptx::Module& m = program->module();
  for (const auto& [expr, entry] : lowered_names)
    if (expr == name)
      for (const ptx::Function& f : m.functions)
        if (f.is_entry && f.name == entry) return &f;
  auto k = find_kernel(m, name);
  return k ? *k : nullptr;
}

Error Runner::explain_invalid_option(const Experiment& exp, const Error& e) const {
  // NVRTC's log follows the first line: "nvrtc: error: unrecognized option -foo found".
  std::string said = e.message.substr(e.message.find('\n') + 1);
  while (!said.empty() && std::isspace(static_cast<unsigned char>(said.back()))) said.pop_back();
  const std::string nvrtc = "NVRTC " + toolchain_.nvrtc_version();
  if (said.find("gpu-architecture") != std::string::npos) {
    std::string known;
    for (int a : toolchain_.supported_archs())
      known += (known.empty() ? "" : ", ") + std::to_string(a);
    const std::string what = nvrtc + " refused --gpu-architecture=" + exp.arch + " (" + said +
                             "); expected compute_NN or sm_NN for an NN it supports" +
                             (known.empty() ? std::string() : " (" + known + ")");
    if (exp.arch_line > 0) return Error{exp.path, exp.arch_line, "experiment.arch: " + what};
    return Error{exp.path, exp.source_line,
                 "experiment: the default architecture: " + what + "; give 'arch = ...'"};
  }
  // The option NVRTC names: the longest of the experiment's options found in what it said.
  int best = -1;
  size_t best_len = 0;
  for (size_t i = 0; i < exp.options.size(); ++i) {
    const std::string name = exp.options[i].substr(0, exp.options[i].find('='));
    if (name.size() > best_len && said.find(name) != std::string::npos)
      best = static_cast<int>(i), best_len = name.size();
  }
  const std::string what = nvrtc + " refused it (" + said +
                           "); expected an option NVRTC takes (its documentation lists them, "
                           "such as \"-use_fast_math\", \"-DNAME=1\", \"-G\")";
  if (best >= 0 && best < static_cast<int>(exp.option_lines.size()))
    return Error{
        exp.path, exp.option_lines[best],
        "experiment.options[" + std::to_string(best) + "] \"" + exp.options[best] + "\": " + what};
  return Error{exp.path, exp.options_line > 0 ? exp.options_line : exp.source_line,
               "experiment.options: " + what};
}

Error Runner::explain_name_expressions(const Experiment& exp, const CompileOptions& co,
                                       const Error& failed) const {
  // Compile each template-id alone: the first that fails is what NVRTC could not find. Then list
  // what the source does define, demangled: its kernels with the template instances the other
  // launches name, and the names of every __global__ function (templates included).
  std::vector<std::string> good;
  std::optional<std::pair<size_t, Error>> bad;
  for (size_t i = 0; i < exp.launches.size(); ++i) {
    const LaunchDef& l = exp.launches[i];
    if (l.kind != LaunchDef::Kind::Kernel || l.kernel.find('<') == std::string::npos) continue;
    CompileOptions one = co;
    one.name_expressions = {l.kernel};
    auto t = toolchain_.compile_cuda_cached(exp.source, one);
    if (t)
      good.push_back(l.kernel);
    else if (!bad)
      bad.emplace(i, t.error());
  }
  if (!bad) return failed;
  CompileOptions rest = co;
  rest.name_expressions = good;
  auto ptx = toolchain_.compile_cuda_cached(exp.source, rest);
  if (!ptx) return ptx.error();  // the source itself does not compile
  std::string candidates;
  if (auto m = ptx::parse_module(ptx->ptx, exp.source + ".ptx"))
    for (const ptx::Function& f : m->functions)
      if (f.is_entry)
        candidates +=
            "\n  " + demangle(f.name) + (demangle(f.name) == f.name ? "" : "  [" + f.name + "]");
  std::string declared;
  {
    std::ifstream in(exp.source);
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();
    // The identifier before the first '(' after each `__global__` (templates included).
    std::set<std::string> seen;
    for (size_t at = text.find("__global__"); at != std::string::npos;
         at = text.find("__global__", at + 10)) {
      const size_t paren = text.find_first_of("(;{", at + 10);
      if (paren == std::string::npos || text[paren] != '(') continue;
      size_t e = paren;
      while (e > at && (text[e - 1] == ' ' || text[e - 1] == '\t' || text[e - 1] == '\n')) --e;
      size_t b = e;
      while (b > at &&
             (std::isalnum(static_cast<unsigned char>(text[b - 1])) || text[b - 1] == '_'))
        --b;
      if (b < e && seen.insert(text.substr(b, e - b)).second)
        declared += (declared.empty() ? "" : ", ") + text.substr(b, e - b);
    }
  }
  const LaunchDef& l = exp.launches[bad->first];
  return Error{exp.path, l.kernel_line,
               "launches[" + std::to_string(bad->first) + "].kernel: NVRTC cannot instantiate '" +
                   l.kernel + "' from " + exp.source + ":\n" + bad->second.message +
                   "\nkernels the source defines (with the template instances other launches "
                   "name):" +
                   (candidates.empty() ? std::string(" none") : candidates) +
                   "\n__global__ functions declared in it (templates are instantiated by naming "
                   "one, e.g. \"kernel<16>\"): " +
                   (declared.empty() ? std::string("none") : declared)};
}

Expected<TritonKernel> Runner::compile_triton(const Experiment& exp, const Env& env,
                                              std::string& key) {
  const Experiment::TritonDef& td = exp.triton;
  const std::string w = "experiment";
  if (td.function.empty())
    return Error{exp.path, td.line, w + ".triton: no [[launches]] entry names a kernel to run"};
  TritonRequest req;
  req.file = exp.source;
  req.function = td.function;
  req.target = td.target;
  for (const auto& [name, e] : td.constexprs) {
    auto v = e.eval(env);
    if (!v)
      return Error{exp.path, td.constexprs_line,
                   w + ".constexprs." + name + ": " + v.error().message};
    req.constexprs.emplace_back(name, v->to_string());
  }
  for (const char* what : {"num_warps", "num_stages"}) {
    const bool warps = std::string(what) == "num_warps";
    auto v = (warps ? td.num_warps : td.num_stages).eval_int(env);
    if (!v) return Error{exp.path, td.line, w + "." + what + ": " + v.error().message};
    if (warps && (*v < 1 || *v > 32 || (*v & (*v - 1)) != 0))
      return Error{exp.path, td.line,
                   w + ".num_warps = " + std::to_string(*v) +
                       ": expected a power of two from 1 to 32 (a block of 32 * num_warps "
                       "threads)"};
    if (!warps && (*v < 1 || *v > 8))
      return Error{exp.path, td.line,
                   w + ".num_stages = " + std::to_string(*v) + ": expected 1 to 8"};
    (warps ? req.num_warps : req.num_stages) = static_cast<int>(*v);
  }
  // The signature and the launcher's specialization, from every launch's arguments: a pointer
  // 16-byte aligned or an integer that is a multiple of 16 in every launch gets divisibility 16
  // (buffers start 256-byte aligned); one that reads a loop variable gets none.
  bool first = true;
  for (size_t i = 0; i < exp.launches.size(); ++i) {
    const LaunchDef& l = exp.launches[i];
    if (l.kind != LaunchDef::Kind::Kernel) continue;
    const size_t n = l.args.size() >= 2 ? l.args.size() - 2 : 0;  // less the scratch pointers
    if (first) req.args.resize(n, TritonArg{"", true});
    if (req.args.size() != n)
      return Error{exp.path, l.args_line,
                   "launches[" + std::to_string(i) + "].args: " + std::to_string(n) +
                       " arguments, but the first launch of " + td.function + " gives " +
                       std::to_string(req.args.size())};
    for (size_t k = 0; k < n; ++k) {
      const ArgDef& a = l.args[k];
      const std::string akey =
          "launches[" + std::to_string(i) + "].args[" + std::to_string(k) + "]";
      TritonArg& t = req.args[k];
      std::string type;
      bool divisible = false;
      if (a.kind == ArgDef::Kind::Struct || a.kind == ArgDef::Kind::TensorMap) {
        return Error{exp.path, a.line,
                     akey + ": a Triton kernel takes pointers (buffers) and scalars, not structs "
                            "or tensor maps (tl.make_tensor_descriptor builds its own)"};
      } else if (a.kind == ArgDef::Kind::Buffer) {
        const BufferDef* b = exp.find_buffer(a.buffer);
        type = "*" + triton_type_name(std::string(elem_type_name(b->type)));
        if (type == "*")
          return Error{exp.path, a.line,
                       akey + ": Triton has no pointer type for " + b->name + "'s element type"};
        auto off = a.offset.empty() ? Expected<int64_t>(int64_t{0}) : a.offset.eval_int(env);
        divisible = off && (*off * static_cast<int64_t>(elem_size(b->type))) % 16 == 0;
      } else {
        auto v = a.expr.eval(env);
        if (v && v->is_float) {
          type = "fp32";  // a Python float argument: Triton passes it as fp32
        } else {
          const bool wide = v && (v->i < INT32_MIN || v->i > INT32_MAX);
          type = wide ? "i64" : "i32";
          if (!first && t.type == "i64") type = "i64";
          divisible = v && v->i % 16 == 0;
        }
      }
      if (!first && t.type != type && !(t.type.rfind("i", 0) == 0 && type.rfind("i", 0) == 0))
        return Error{exp.path, a.line,
                     akey + ": a " + type + " here, but a " + t.type + " in an earlier launch"};
      t.type = type;
      t.divisible_by_16 = t.divisible_by_16 && divisible;
    }
    first = false;
  }
  key = triton_request_json(req);
  auto k = triton_.compile(req, options_.ptx_cache_dir, options_.ptx_cache);
  if (!k) return Error{exp.path, exp.source_line, "experiment.triton: " + k.error().to_string()};
  for (const auto& [size, align] : {std::pair{k->global_scratch_size, k->global_scratch_align},
                                    std::pair{k->profile_scratch_size, k->profile_scratch_align}})
    if (size > 0 && (align == 0 || kScratchAlign % align != 0))
      return Error{exp.path, exp.source_line,
                   "experiment.triton: " + td.function + " asks for scratch memory aligned to " +
                       std::to_string(align) + " bytes; WarpLab's buffers are aligned to " +
                       std::to_string(kScratchAlign)};
  return k;
}

Runner::Runner(const Toolchain& toolchain, RunOptions options)
    : toolchain_(toolchain), options_(std::move(options)) {}

Expected<std::shared_ptr<const CompiledUnit>> Runner::compile(const Experiment& exp,
                                                              const Env& env) {
  // 1. The -D defines for these parameter values select (or build) a compiled unit.
  std::vector<std::string> defines;
  std::string key;
  for (const auto& [name, expr, line] : exp.defines) {
    auto v = expr.eval(env);
    if (!v) return Error{exp.path, line, "experiment.defines." + name + ": " + v.error().message};
    defines.push_back("-D" + name + "=" + v->to_string());
    key += defines.back() + " ";
  }
  for (const std::string& t : template_kernel_names(exp)) key += "name:" + t + " ";
  std::optional<TritonKernel> triton;
  if (exp.source_kind == Experiment::SourceKind::Triton) {
    // The Triton bridge runs Python in this process's environment: nothing confines it.
    if (options_.sandbox)
      return Error{exp.path, exp.source_line,
                   "experiment.source: a Triton kernel cannot be compiled in the sandbox (it "
                   "confines NVRTC only); run it without --sandbox if you trust it"};
    std::string request;
    auto k = compile_triton(exp, env, request);
    if (!k) return k.error();
    key += "triton:" + request;
    triton = std::move(*k);
  }
  if (auto it = units_.find(key); it != units_.end()) return it->second;

  auto unit = std::make_shared<CompiledUnit>();
  unit->defines_key = key;
  // 2. Source -> PTX (through the PTX cache). Kernels named by a template-id become NVRTC name
  //    expressions, which instantiate them and give back their entry names.
  if (exp.source_kind == Experiment::SourceKind::Cuda) {
    // Only options that cannot make NVRTC read or write other files (lab/compile.h).
    const std::string folder = std::filesystem::path(exp.path).parent_path().string();
    for (size_t i = 0; i < exp.options.size(); ++i)
      if (std::string why = nvrtc_option_problem(exp.options[i], folder); !why.empty())
        return Error{
            exp.path, i < exp.option_lines.size() ? exp.option_lines[i] : exp.options_line,
            "experiment.options[" + std::to_string(i) + "] \"" + exp.options[i] + "\": " + why};
    CompileOptions co;
    co.arch = exp.arch;
    co.extra = exp.options;
    co.sandbox = options_.sandbox;
    co.extra.insert(co.extra.end(), defines.begin(), defines.end());
    co.name_expressions = template_kernel_names(exp);
    co.cache_dir = options_.ptx_cache_dir;
    auto ptx = options_.ptx_cache ? toolchain_.compile_cuda_cached(exp.source, co)
                                  : toolchain_.compile_cuda_file(exp.source, co);
    if (!ptx && ptx.error().message.find("NVRTC_ERROR_INVALID_OPTION") != std::string::npos)
      return explain_invalid_option(exp, ptx.error());
    if (!ptx && !co.name_expressions.empty()) return explain_name_expressions(exp, co, ptx.error());
    if (!ptx) return ptx.error();
    unit->ptx = std::move(ptx->ptx);
    unit->compile_log = std::move(ptx->log);
    unit->lowered_names = std::move(ptx->lowered_names);
    unit->from_cache = ptx->from_cache;
    unit->ptx_path = exp.source + ".ptx";
  } else if (triton) {
    unit->ptx = std::move(triton->ptx);
    unit->from_cache = triton->from_cache;
    unit->ptx_path = exp.source + ".ptx";
    unit->lowered_names.emplace_back(exp.triton.function, triton->name);
    unit->triton = std::move(triton);
  } else {
    bool ok = false;
    unit->ptx = read_text(exp.source, ok);
    if (!ok) return Error{exp.path, exp.source_line, "experiment.ptx: cannot read " + exp.source};
    unit->ptx_path = exp.source;
  }
  // 3. PTX -> IR -> the simulator's program.
  const bool generated = exp.source_kind != Experiment::SourceKind::Ptx;
  // PTX NVRTC generated exists only in memory: an error in it names the CUDA line, the PTX line
  // and the experiment's `source =` line (the whole module fails, as cuModuleLoad would).
  auto in_source = [&](const Error& e) {
    if (!generated) return e;
    return Error{exp.path, exp.source_line,
                 "experiment.source: " +
                     error_in_generated_ptx(e, unit->ptx, unit->ptx_path, exp.source).to_string()};
  };
  auto module = ptx::parse_module(unit->ptx, unit->ptx_path);
  if (!module) return in_source(module.error());
  auto program = func::Program::load(std::move(*module));
  if (!program) return in_source(program.error());
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
    if (l.kind != LaunchDef::Kind::Kernel) continue;
    const ptx::Function* k = unit->kernel(l.kernel);
    if (!k) {
      auto found = find_kernel(m, l.kernel);
      return Error{exp.path, l.kernel_line,
                   "launches[" + std::to_string(i) +
                       "].kernel: " + (found ? std::string("not found") : found.error().message)};
    }
    if (auto s = check_signature(exp, i, *k); !s) return s.error();
    if (auto s = unit->program->check_kernel(k->name); !s) {  // unsupported code in it
      const Error e = generated
                          ? error_in_generated_ptx(s.error(), unit->ptx, unit->ptx_path, exp.source)
                          : s.error();
      // The driver may well run what the simulator cannot: with the GPU in the run, the GPU
      // runs it alone and the simulator's reason becomes a note.
      if (options_.backend != BackendKind::Sim) {
        unit->sim_refusals.emplace(k->name, e.to_string());
        continue;
      }
      return Error{exp.path, l.kernel_line,
                   "launches[" + std::to_string(i) + "].kernel: " + e.to_string()};
    }
  }
  units_[key] = unit;
  return std::shared_ptr<const CompiledUnit>(unit);
}

Expected<RunResult> Runner::run_once(const Experiment& exp) {
  RunResult result;
  auto env_or = exp.eval_env();  // derived parameters evaluated
  if (!env_or) return env_or.error();
  const Env env = std::move(*env_or);
  for (const ParamDef& p : exp.params) result.params.emplace_back(p.name, env.at(p.name));
  auto unit = compile(exp, env);
  if (!unit) return unit.error();
  result.unit = *unit;
  const func::Program& program = *(*unit)->program;

  auto symbols = resolve_symbols(exp, program.module());
  if (!symbols) return symbols.error();
  std::vector<uint64_t> symbol_bytes;
  for (const ptx::Variable* v : *symbols) symbol_bytes.push_back(v ? v->size : 0);
  auto buffers = make_buffers(exp, env, symbol_bytes);
  if (!buffers) return buffers.error();
  result.buffers = std::move(*buffers);
  if (auto s = attach_symbols(exp, *symbols, result.buffers); !s) return s.error();
  // Every launch entry once per iteration of its `for` loops (once without), in file order.
  auto plan = expand_launches(exp, env);
  if (!plan) return plan.error();
  // The scratch memory a Triton kernel's metadata asks for, after the experiment's buffers.
  std::optional<TritonScratch> scratch;
  if ((*unit)->triton) {
    auto sc = triton_scratch(exp, *plan, env, *(*unit)->triton, result.buffers);
    if (!sc) return sc.error();
    scratch = *sc;
  }
  std::vector<uint64_t> counts;
  for (const HostBuffer& b : result.buffers) counts.push_back(b.count);
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
  for (size_t pi = 0; pi < plan->size() && !stop; ++pi) {
    const size_t i = (*plan)[pi].index;
    const LaunchDef& l = exp.launches[i];
    const Env lenv = plan_env((*plan)[pi], env);  // with the loop variables
    if (l.kind != LaunchDef::Kind::Kernel) {      // memset / memcpy
      if (auto s = run_step(exp, i, lenv, result.buffers, **backend); !s) return s.error();
      continue;
    }
    const ptx::Function* kernel = (*unit)->kernel(l.kernel);  // checked in compile
    if (!kernel)
      return Error{exp.path, l.kernel_line,
                   "launches[" + std::to_string(i) + "].kernel: not found"};
    auto bound = bind_launch(exp, i, *kernel, lenv, *addresses, counts);
    if (!bound) return bound.error();
    if ((*unit)->triton) {  // the dynamic shared memory Triton's compiled kernel asks for
      bound->config.dynamic_shared_bytes += static_cast<uint32_t>((*unit)->triton->shared);
      bind_triton_scratch(*scratch, *kernel, *addresses, *bound);
    }
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
      rec.loop = (*plan)[pi].loop;
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
  result.checks = run_checks(exp, result.buffers, env);
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
    if (!options_.warp_scheduler.empty() && options_.warp_scheduler != config_->core.warp_scheduler) {
      if (!timing::make_warp_scheduler(options_.warp_scheduler))
        return Error{"", 0, "--sched: unknown warp scheduling policy '" + options_.warp_scheduler +
                                "' (lrr, gto)"};
      auto changed = std::make_shared<timing::GpuConfig>(*config_);
      changed->core.warp_scheduler = options_.warp_scheduler;
      config_ = changed;
    }
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
  out.l2 = std::string(l2_start_name(options_.l2));
  // Before compiling anything: a bad preset or a missing GPU is bad input (exit 2).
  if (auto s = prepare_backends(); !s) return s.error();
  // So is an expected-values .npy that cannot be read: an error naming the check's line, not a
  // check that fails after the run as if the kernel were wrong.
  for (size_t i = 0; i < exp.checks.size(); ++i) {
    const CheckDef& c = exp.checks[i];
    if (c.expect_npy.empty()) continue;
    if (auto a = read_npy(c.expect_npy); !a)
      return Error{exp.path, c.line,
                   "checks[" + std::to_string(i) + "].expect: " + a.error().to_string()};
  }
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
        {"l2_flushed", options_.l2 == L2Start::Cold}};
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
  if (first.unit)
    for (const auto& [entry, why] : first.unit->sim_refusals)
      out.notes.push_back("the simulator cannot run kernel " + entry +
                          (options_.backend == BackendKind::Both
                               ? " (its launches, and every launch after the first of them, run "
                                 "on the GPU alone, with nothing to compare): "
                               : ": ") +
                          why);
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
