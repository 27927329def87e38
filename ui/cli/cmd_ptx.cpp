// `warplab ptx FILE.cu`: the PTX NVRTC makes of a CUDA file, and each kernel's resource usage.
// `warplab ptx FILE.py:FUNCTION`: the same for a Triton kernel (the installed Triton compiles it).
#include <map>
#include <fstream>
#include <algorithm>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include "lab/args.h"
#include "lab/compile.h"
#include "lab/expr.h"
#include "lab/triton.h"
#include "sim/common/input_file.h"
#include "sim/func/executor.h"
#include "sim/ptx/parser.h"
#include "sim/timing/config.h"
#include "sim/timing/schedule.h"
#include "ui/cli/commands.h"
#include "sim/common/output_file.h"

namespace warplab::cli {
namespace {

struct PtxArgs {
  std::string file;
  std::string arch = "compute_90";
  std::string sass_arch = "sm_90";
  std::vector<std::string> options;
  std::string out;
  bool resources_only = false;
  bool schedule = false;
  std::string config = "h100-sxm";
  // Triton (FILE.py:FUNCTION): lab/triton.h.
  std::vector<std::string> constexprs;  // NAME=VALUE
  std::string signature;                // "*fp32,*fp32,i32": the non-constexpr parameters' types
  int num_warps = 4, num_stages = 3;
  std::string target = "sm_90";
};

// `warplab ptx kernel.py:fn`: Triton compiles the function (the bridge, through the cache).
// Without --signature, a parameter whose name ends in "ptr" is taken as *fp32 and any other as
// i32; pointers and integers are specialized as 16-divisible (Triton's launcher does so for
// aligned tensors and multiples of 16).
Expected<lab::TritonKernel> compile_triton_cli(const PtxArgs& a, std::string& file) {
  const size_t colon = a.file.rfind(':');
  file = a.file.substr(0, colon);
  lab::TritonRequest req;
  req.file = file;
  req.function = a.file.substr(colon + 1);
  if (req.function.empty())
    return Error{"", 0, "expected FILE.py:FUNCTION (the @triton.jit function to compile)"};
  if (a.target != "sm_90" && a.target != "sm_80")
    return Error{"", 0, "--target: expected sm_90 or sm_80, got " + a.target};
  req.target = a.target == "sm_90" ? 90 : 80;
  req.num_warps = a.num_warps;
  req.num_stages = a.num_stages;
  for (const std::string& c : a.constexprs) {
    const size_t eq = c.find('=');
    if (eq == std::string::npos || eq == 0)
      return Error{"", 0, "--constexpr " + c + ": expected NAME=VALUE"};
    auto v = lab::parse_value(c.substr(eq + 1));
    std::string text = c.substr(eq + 1);
    if (text == "true" || text == "True") text = "true";
    else if (text == "false" || text == "False") text = "false";
    else if (!v) return Error{"", 0, "--constexpr " + c + ": " + v.error().message};
    else text = v->to_string();
    req.constexprs.emplace_back(c.substr(0, eq), text);
  }
  lab::TritonBridge bridge;
  if (const std::string why = bridge.why_unavailable(); !why.empty()) return Error{file, 0, why};
  if (a.signature.empty()) {
    // Ask once with no arguments: the bridge's error lists the parameters it expects.
    auto probe = bridge.compile(req, "", false);
    if (probe) return probe;
    const std::string& m = probe.error().message;
    const size_t open = m.find("besides its constexprs (");
    if (open == std::string::npos) return probe.error();
    const size_t b = open + 24, e = m.find(')', b);
    std::stringstream names(m.substr(b, e - b));
    for (std::string n; std::getline(names, n, ',');) {
      while (!n.empty() && n.front() == ' ') n.erase(0, 1);
      if (n == "none") continue;
      const bool ptr = n.size() >= 3 && n.compare(n.size() - 3, 3, "ptr") == 0;
      req.args.push_back({ptr ? "*fp32" : "i32", true});
    }
  } else {
    std::stringstream types(a.signature);
    for (std::string t; std::getline(types, t, ',');) {
      while (!t.empty() && t.front() == ' ') t.erase(0, 1);
      req.args.push_back({t, true});
    }
  }
  return bridge.compile(req);
}

// What the timing model does to each kernel's loops in place of ptxas (sim/timing/schedule.h).
// `registers`: per kernel, what ptxas gave it (empty when nvJitLink could not say: 32 assumed).
void print_schedule(const func::Program& program, const timing::GpuConfig& cfg,
                    const std::map<std::string, int>& registers) {
  const timing::CompilerConfig& cc = cfg.compiler;
  std::cout << "\n// ---- the compiler's schedule, as the timing model applies it (" << cfg.name
            << ": "
            << (cc.hoist_loads
                    ? "loops unrolled " + std::to_string(cc.unroll) + "x, up to " +
                          std::to_string(cc.max_hoisted_loads) +
                          " loads issued ahead of their use, their results in at most " +
                          std::to_string(static_cast<int>(cc.load_register_share * 100 + 0.5)) +
                          "% of the thread's registers"
                    : "PTX order, no hoisting")
            << ") ----\n";
  const ptx::Module& m = program.module();
  for (const ptx::Function& f : m.functions) {
    if (f.is_extern || f.instructions.empty()) continue;
    auto it = registers.find(f.name);
    // The SM hands registers out per warp in units of 256 (8 per thread).
    const int regs = it == registers.end() ? 32 : (it->second + 7) / 8 * 8;
    const auto loops = timing::loop_schedules(f, cc, regs);
    std::cout << "// " << f.name << ": " << (loops.empty() ? "no loops" : "")
              << (f.is_entry && !loops.empty()
                      ? std::to_string(regs) + " registers per thread" +
                            (it == registers.end() ? " (assumed)" : "")
                      : "")
              << "\n";
    for (const timing::LoopSchedule& l : loops) {
      std::cout << "//   loop at PTX lines " << l.first_line << "-" << l.last_line;
      if (l.loc.line > 0 && l.loc.file >= 0 && l.loc.file < static_cast<int32_t>(m.files.size()))
        std::cout << " (" << m.files[l.loc.file] << ":" << l.loc.line << ")";
      std::cout << ": " << l.loads << " load" << (l.loads == 1 ? "" : "s") << " per iteration, "
                << (l.unrolled ? "unrolled " + std::to_string(cc.unroll) + "x"
                               : "not unrolled (its counter steps by a register, or nounroll)");
      if (l.ldmatrix)
        std::cout << " (" << l.ldmatrix << " of them ldmatrix, which moves like a load)";
      if (l.loads > l.movable)
        std::cout << ", " << l.loads - l.movable
                  << " with an address computed from a load (each moves once that load's data "
                     "is back, plus the address arithmetic; the loads after it may go first)";
      if (l.kept_branches)
        std::cout << "; " << l.kept_branches << " conditional branch"
                  << (l.kept_branches == 1 ? "" : "es") << " inside that ptxas keeps";
      if (l.stop_line)
        std::cout << "; loads stop at line " << l.stop_line
                  << " (a store to their state space, an atomic, a barrier or a fence)";
      std::cout << "\n//     one warp issues up to " << l.ahead << " load"
                << (l.ahead == 1 ? "" : "s") << " back to back before the first use\n";
    }
  }
  // Forward conditional branches: which ptxas keeps (no load below moves above it) and which it
  // predicates (loads move across), schedule.h's kept_branch.
  constexpr size_t kMaxBranches = 16;
  for (const ptx::Function& f : m.functions) {
    if (f.is_extern || f.instructions.empty()) continue;
    const auto branches = timing::branch_schedules(f, cc);
    if (branches.empty() || !cc.hoist_loads) continue;
    std::cout << "// " << f.name << ": forward conditional branches (ptxas predicates one over at "
              << "most compiler.predicate_max_instructions = " << cc.predicate_max_instructions
              << " instructions with no branch among them; it keeps a longer one, and moves no "
                 "load above a branch it keeps):\n";
    for (size_t k = 0; k < branches.size() && k < kMaxBranches; ++k) {
      const timing::BranchSchedule& b = branches[k];
      std::cout << "//   line " << b.line;
      if (b.loc.line > 0 && b.loc.file >= 0 && b.loc.file < static_cast<int32_t>(m.files.size()))
        std::cout << " (" << m.files[b.loc.file] << ":" << b.loc.line << ")";
      std::cout << ": over " << b.skipped << " instruction" << (b.skipped == 1 ? "" : "s") << ", "
                << (b.kept ? "kept" : "predicated");
      if (b.loads_below == 1)
        std::cout << (b.kept ? ": the load after it waits for it" : ": the load after it moves across it");
      else if (b.loads_below > 1)
        std::cout << ": the " << b.loads_below << " loads after it "
                  << (b.kept ? "wait for it" : "move across it");
      std::cout << "\n";
    }
    if (branches.size() > kMaxBranches)
      std::cout << "//   ... and " << branches.size() - kMaxBranches << " more\n";
  }
  // Stores of a loop's first peeled copy (schedule.h: serial_copy_stores): the loads after them
  // in that copy wait for them.
  for (const ptx::Function& f : m.functions) {
    if (f.is_extern || f.instructions.empty() || !cc.hoist_loads) continue;
    const std::vector<uint8_t> serial = timing::serial_copy_stores(f, cc);
    for (size_t k = 0; k < serial.size(); ++k)
      if (serial[k])
        std::cout << "// " << f.name << ": line " << f.instructions[k].ptx_line
                  << ": a store of a loop's first peeled copy (compiler.peeled_copy_serial_bytes): "
                     "ptxas loads that copy through one register set, so the copy's next load "
                     "waits for this store\n";
  }
  // Instructions ptxas expands into sequences: the model issues each as one that holds the
  // scheduler for the sequence.
  for (const ptx::Function& f : m.functions) {
    bool header = false;
    for (const ptx::Instruction& in : f.instructions) {
      const timing::PipeConfig* e = timing::expansion_of(cfg.pipes, in);
      if (!e) continue;
      if (!header) {
        std::cout << "// " << f.name
                  << ": instructions ptxas expands into sequences (issue cycles of the "
                     "scheduler, SFU instructions, cycles to the result):\n";
        header = true;
      }
      std::cout << "//   line " << in.ptx_line;
      const ptx::SourceLoc& at = in.user_loc;
      if (at.line > 0 && at.file >= 0 && at.file < static_cast<int32_t>(m.files.size()))
        std::cout << " (" << m.files[at.file] << ":" << at.line << ")";
      std::cout << ": " << in.text << " -> " << e->interval << " issue cycles, " << e->sfu_ops
                << " on the SFU, result after " << e->latency << "\n";
    }
  }
  std::cout
      << "// (ptxas's real schedule: cuobjdump -sass on the cubin; scripts/microbench/run.sh)\n";
}

int run(const PtxArgs& a) {
  lab::Toolchain toolchain;
  std::string ptx, ptx_name;
  bool is_ptx = a.file.size() > 4 && a.file.substr(a.file.size() - 4) == ".ptx";
  const size_t py = a.file.rfind(".py:");
  if (py != std::string::npos && py + 4 <= a.file.size()) {
    std::string file;
    auto k = compile_triton_cli(a, file);
    if (!k) return report_error(k.error());
    std::cout << "// Triton " << k->triton_version << ": " << k->name << " from " << file
              << ", num_warps " << k->num_warps << " (block of " << 32 * k->num_warps
              << " threads), num_stages " << k->num_stages << ", " << k->shared
              << " bytes of dynamic shared memory, global scratch " << k->global_scratch_size
              << " B, profile scratch " << k->profile_scratch_size << " B"
              << (k->from_cache ? " (from the cache)" : "") << "\n";
    ptx = std::move(k->ptx);
    ptx_name = file + ".ptx";
  } else if (is_ptx) {
    auto text = read_input_file(a.file, "PTX file");
    if (!text) return report_error(text.error());
    ptx = std::move(*text);
    ptx_name = a.file;
    // Nothing to read is bad input, not an empty success; nor is binary data.
    if (ptx.find_first_not_of(" \t\r\n") == std::string::npos)
      return report_error(Error{a.file, 0, "empty PTX file (expected .version, .target, kernels)"});
    if (const size_t nul = ptx.find('\0'); nul != std::string::npos)
      return report_error(
          Error{a.file, static_cast<int>(1 + std::count(ptx.begin(), ptx.begin() + nul, '\n')),
                "a NUL byte: this is not a PTX text file"});
  } else {
    lab::CompileOptions co;
    co.arch = a.arch;
    co.extra = a.options;
    auto r = toolchain.compile_cuda_file(a.file, co);
    if (!r) return report_error(r.error());
    if (!r->log.empty()) std::cerr << r->log << "\n";
    ptx = std::move(r->ptx);
    ptx_name = a.file + ".ptx";
  }
  // 1. WarpLab's own parser and loader read the PTX first: PTX they reject never reaches
  //    nvJitLink, which runs inside this process and has crashed, or taken gigabytes, on
  //    malformed PTX that its own front end should have refused.
  //    With a .cu file the PTX exists only in memory: errors name the CUDA line and the PTX line.
  const std::string source_file = py != std::string::npos ? a.file.substr(0, py + 3) : a.file;
  auto named = [&](const Error& e) {
    return is_ptx ? e : lab::error_in_generated_ptx(e, ptx, ptx_name, source_file);
  };
  std::string rejected;  // why WarpLab cannot read or load it ("" when it can)
  std::optional<func::Program> program;
  if (auto module = ptx::parse_module(ptx, ptx_name); !module) {
    rejected = "the simulator cannot read this PTX: " + named(module.error()).to_string();
  } else if (auto loaded = func::Program::load(std::move(*module)); !loaded) {
    rejected = "the simulator cannot run this PTX: " + named(loaded.error()).to_string();
  } else {
    program.emplace(std::move(*loaded));
  }
  // 2. The PTX itself, printed either way (it is what was asked for).
  if (!a.out.empty()) {
    if (auto s = write_output_file(a.out, ptx, "PTX file"); !s) return report_error(s.error());
  } else if (!a.resources_only) {
    std::cout << ptx;
    if (!ptx.empty() && ptx.back() != '\n') std::cout << "\n";
  }
  // 3. Resource usage, as `ptxas -v` reports it, written as PTX comments so the output stays PTX.
  std::cout << "\n// ---- resource usage (nvJitLink -arch="
            << lab::link_arch_for_ptx(ptx, a.sass_arch) << ") ----\n";
  if (!rejected.empty()) {
    std::cout << "// not computed: WarpLab's parser or loader rejects this PTX (below)\n";
    std::cerr << "warplab: " << rejected << "\n";
    return kExitBadInput;
  }
  auto res = toolchain.resource_usage(ptx, ptx_name, a.sass_arch);
  if (!res) {
    std::cout << "// unavailable: " << res.error().to_string() << "\n";
  } else {
    for (const lab::KernelResources& k : res->kernels)
      std::cout << "// " << lab::demangled_base_name(k.kernel)
                << (k.kernel != lab::demangled_base_name(k.kernel) ? " (" + k.kernel + ")" : "")
                << ": " << k.registers << " registers, " << k.barriers << " barriers, "
                << k.static_shared_bytes << " bytes static shared, " << k.local_bytes
                << " bytes local (stack " << k.stack_frame_bytes << ", spill stores "
                << k.spill_store_bytes << ", spill loads " << k.spill_load_bytes << "), "
                << k.const_bytes << " bytes cmem[0]\n";
  }
  // 4. Can the simulator run each kernel? (An unsupported instruction is named here, with its
  //    PTX line; a module WarpLab cannot simulate is bad input: exit 2.)
  int refused = 0;  // kernels the simulator cannot run (the others still can)
  for (const ptx::Function& f : program->module().functions)
    if (f.is_entry)
      if (auto s = program->check_kernel(f.name); !s && ++refused)
        std::cerr << "warplab: the simulator cannot run kernel '" << f.name
                  << "': " << named(s.error()).to_string() << "\n";
  if (a.schedule) {
    auto cfg = timing::load_config(a.config);
    if (!cfg) return report_error(cfg.error());
    std::map<std::string, int> registers;
    if (res)
      for (const lab::KernelResources& k : res->kernels) registers[k.kernel] = k.registers;
    print_schedule(*program, *cfg, registers);
  }
  return refused ? kExitBadInput : kExitOk;
}

}  // namespace

Command add_ptx_command(CLI::App& app) {
  auto args = std::make_shared<PtxArgs>();
  CLI::App* sub = app.add_subcommand(
      "ptx",
      "Compile a CUDA file to PTX (NVRTC) and show each kernel's registers, shared memory, "
      "barriers and local memory; a .ptx file shows its resource usage");
  sub->add_option("file", args->file,
                  "CUDA (.cu) or PTX (.ptx) file, or FILE.py:FUNCTION (a Triton kernel)")
      ->required();
  sub->add_option("--constexpr", args->constexprs,
                  "Triton: a tl.constexpr value, NAME=VALUE (repeatable)");
  sub->add_option("--signature", args->signature,
                  "Triton: the types of the non-constexpr parameters, e.g. \"*fp32,*fp32,i32\" "
                  "(default: *fp32 for names ending in ptr, else i32)");
  sub->add_option("--num-warps", args->num_warps, "Triton: warps per program")
      ->capture_default_str();
  sub->add_option("--num-stages", args->num_stages, "Triton: software-pipelining stages")
      ->capture_default_str();
  sub->add_option("--target", args->target, "Triton: sm_90 (PTX .target sm_90a) or sm_80")
      ->capture_default_str();
  sub->add_option("--arch", args->arch, "Virtual architecture for NVRTC")->capture_default_str();
  sub->add_option("--sass-arch", args->sass_arch, "Real architecture for resource usage")
      ->capture_default_str();
  sub->add_option("-X,--nvrtc-option", args->options,
                  "Extra NVRTC option, e.g. -X -use_fast_math -X -DTILE=32 (repeatable)")
      ->allow_extra_args(false);
  sub->add_option("-o,--output", args->out, "Write the PTX to this file instead of stdout");
  sub->add_flag("--resources-only", args->resources_only, "Print only the resource usage");
  sub->add_flag("--schedule", args->schedule,
                "Also show what the timing model does to each loop in place of ptxas (unrolling, "
                "loads issued ahead of their use)");
  sub->add_option("--config", args->config, "Timing preset whose [compiler] rule --schedule shows")
      ->capture_default_str();
  return {sub, [args] { return run(*args); }};
}

}  // namespace warplab::cli
