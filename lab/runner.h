// Running an experiment: compile, allocate, launch in order, check; and sweeps over parameters.
//
//   1. compile the source once per distinct set of -D defines (NVRTC; .ptx is read as is), parse
//      the PTX and load it into the simulator; ask nvJitLink for each kernel's resource usage;
//   2. resolve every launch's kernel and type-check its arguments (errors here are bad input);
//   3. build the buffers (buffers.h) and hand them to the backend;
//   4. run the launches in file order, each `repeat` times; a kernel fault (a hang or a barrier
//      deadlock included) stops the launch sequence but keeps everything gathered so far (the
//      buffers still dump, the checks still run; RunResult::skipped_launches names the rest);
//      synccheck/racecheck hazards are kept in each launch's record and fail the run;
//   5. read the buffers back and run the checks.
// A sweep repeats 3-5 for every combination of the [sweep] values (the first axis varies slowest).
//
// Backends (lab/sim_backend.cpp, lab/gpu_backend.cpp), all behind LaunchBackend:
//   sim   the simulator, functional mode (exact results, instruction counts) or timing mode (the
//         cycle-level model of sim/timing: cycles, occupancy, warp states, memory);
//   gpu   the same PTX, buffers and launches on a real NVIDIA GPU (gpu/): times and counters;
//   both  the two in lockstep: after every launch the GPU's buffers are compared with the
//         simulator's (bit-exact, or within a tolerance for kernels using .approx instructions).
// A launch record keeps the simulator's functional counts at top level and the backends' figures
// in its `sim` and `gpu` JSON objects (lab/metrics_json.h; documented in lessons/FORMAT.md).
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "lab/args.h"
#include "lab/buffers.h"
#include "lab/check.h"
#include "lab/compile.h"
#include "lab/experiment.h"
#include "lab/triton.h"
#include "sim/func/executor.h"
#include "sim/timing/config.h"
#include "sim/timing/gpu_model.h"

namespace warplab::gpu {
class Backend;
class GpuModule;
}  // namespace warplab::gpu

namespace warplab::lab {

enum class BackendKind { Sim, Gpu, Both };
enum class SimMode { Functional, Timing };
// What every timed launch finds in the L2, on both backends alike (`--l2 cold|warm`).
//   Cold (the default, the convention of Triton's do_bench): the GPU memsets twice its L2 size
//   before each timed launch (outside the timed events); the simulator starts every launch with
//   an empty L2.
//   Warm: the GPU times its launches after untimed warm-up launches of the same kernel; the
//   simulator keeps one L2 across the run's launches and runs each launch once untimed first
//   (device memory restored afterwards), so the timed launch finds what its own warm-up left.
enum class L2Start { Cold, Warm };
std::string_view backend_name(BackendKind b);  // "sim", "gpu", "both"
std::string_view mode_name(SimMode m);         // "functional", "timing"
std::string_view l2_start_name(L2Start l);     // "cold", "warm"
Expected<BackendKind> parse_backend(const std::string& s);
Expected<SimMode> parse_mode(const std::string& s);
Expected<L2Start> parse_l2_start(const std::string& s);

// How the real GPU is timed and read (--gpu-repeats, --gpu-warmup, --counters; the L2 state is
// RunOptions::l2, shared with the simulator).
struct GpuRunOptions {
  int warmup = 3;                // untimed launches before the timed ones
  int repeats = 20;              // timed launches (median, min, max reported)
  std::optional<bool> counters;  // read hardware counters; unset = on with `both`, off with `gpu`
  // Per-line stall reasons (gpu/pc_sampling.h): one more launch under CUPTI PC sampling, its
  // samples mapped to PTX and CUDA lines into gpu["line_stalls"] (lab/line_stalls.h).
  bool stalls = false;
  int stalls_period_log2 = 10;  // a sample every 2^N cycles per SM sub-partition (5..31)
};

// Capturing the timing model's event trace (sim/timing/trace.h), for `warplab run --trace` and the
// desktop app alike. Each traced launch's record keeps the trace in `timing->trace`; with a path,
// the one traced launch is also written there as Chrome trace-event JSON (ui.perfetto.dev).
// Only the first run of a sweep is traced.
struct TraceCapture {
  timing::TraceOptions options;  // SMs in full detail, cycle window, event budget (enabled implied)
  std::optional<size_t> launch;  // which executed launch (0 = the first); unset = every launch
  std::string path;              // "" = keep in memory only; else needs `launch` (one file)
};

// Where a run is (RunOptions::on_launch_start / on_launch_done).
struct LaunchProgress {
  size_t launch_index = 0;  // in Experiment::launches
  size_t launch_count = 0;  // Experiment::launches.size()
  int64_t repeat_index = 0, repeats = 1;
  std::string kernel;
  int sweep_row = -1;  // -1 without a sweep
  size_t sweep_rows = 0;
};

struct LaunchRecord;

struct RunOptions {
  BackendKind backend = BackendKind::Sim;
  SimMode mode = SimMode::Functional;  // the library's default; `warplab run` defaults to timing
  std::string config;  // timing-model preset name or file ("" = the default, h100-sxm)
  std::optional<TraceCapture> trace;  // timing mode: capture the model's event trace (unset = off)
  GpuRunOptions gpu;
  bool count_lines = true;  // per PTX/CUDA line counts
  // The L2 every timed launch starts with, the same on both backends (see L2Start).
  L2Start l2 = L2Start::Cold;
  bool resources = true;  // ask nvJitLink for registers/shared memory
  std::string sass_arch = "sm_90";
  uint64_t max_warp_instructions = 0;  // per launch; 0 = unlimited
  // The PTX cache (lab/compile_cache.h): on by default; "" = its default directory.
  bool ptx_cache = true;
  std::string ptx_cache_dir;
  // Compile CUDA in the sandbox (lab/sandbox.h): set for untrusted source (`warplab grade`
  // always, `run`/`lesson --sandbox`). Unset = in this process.
  std::optional<SandboxPolicy> sandbox;
  // Checkers (compute-sanitizer's synccheck and racecheck, sim/func/hazard.h), simulator only:
  // off by default (they cost time); on here (`--synccheck`, `--racecheck`) or by the
  // experiment's `synccheck = true` / `racecheck = true`. Any hazard fails the run.
  bool synccheck = false;
  bool racecheck = false;
  // Hang limits, simulator only: unset = the experiment's `max_instructions` / `max_cycles`, or
  // else the defaults (func::LaunchConfig::kDefaultMaxInstructionsPerWarp,
  // timing::TimingOptions::kDefaultMaxCycles); 0 = no limit. Past one, the launch stops with a
  // Hang fault naming where it is stuck, and the later launches are skipped.
  std::optional<uint64_t> max_instructions;  // instructions per warp (both modes)
  std::optional<uint64_t> max_cycles;        // simulated cycles (timing mode)
  // Timing mode: host threads per launch (timing::TimingOptions::threads: 1 = one thread, 0 = all
  // cores; results do not depend on it), a flag another thread sets to stop the running launch
  // (it then fails with the Error "cancelled"), and a progress callback (on the running thread,
  // about every quarter second of a launch).
  int threads = 1;
  // Timing mode, threads > 1: let the loop time trial stretches and run on one thread where
  // that is faster (timing::TimingOptions::adapt_threads); false: every cycle with enough SMs
  // due on the threads (the same results either way).
  bool adapt_threads = true;
  // Timing mode: measure where the loop's host time goes (timing::TimingOptions::profile_loop;
  // LaunchRecord::timing->loop_profile).
  bool profile_loop = false;
  // Timing mode: sampled simulation (sim/timing/sampling.h; `--sampled`): grids of many waves
  // simulate some waves in detail and fast-forward the rest; every result says so.
  bool sampled = false;
  // Timing mode: which launches the timing model times (unset = every one). The others run in
  // functional mode: the same results in memory, no cycles or time_us (`warplab validate`
  // times only the launches its points select; every launch still runs and is checked).
  std::function<bool(const LaunchRecord&)> timed;
  // Timing mode: the warp scheduling policy, in place of the preset's core.warp_scheduler ("" =
  // the preset's; "lrr" or "gto", sim/timing/warp_scheduler.h; `warplab run --sched`).
  std::string warp_scheduler;
  const std::atomic<bool>* cancel = nullptr;
  std::function<void(const timing::TimingProgress&)> on_timing_progress;
  // Streaming (`warplab run` prints each launch as it finishes): called on the running thread
  // when a launch starts and when its record is complete.
  std::function<void(const LaunchProgress&)> on_launch_start;
  std::function<void(const LaunchProgress&, const LaunchRecord&)> on_launch_done;
};

// One executed launch (one repeat of one [[launches]] entry).
struct LaunchRecord {
  size_t launch_index = 0;  // in Experiment::launches
  int64_t repeat_index = 0;
  std::string kernel;  // as written in the experiment
  std::string entry;   // PTX entry name
  func::Dim3 grid, block;
  uint32_t shared_bytes = 0;  // dynamic
  std::string backend;        // "sim", "gpu", "both"
  std::vector<std::string> args;
  std::vector<std::pair<std::string, Value>> loop;  // the entry's `for` variables, outermost first
  std::optional<func::LaunchStats> stats;           // the simulator's counts
  std::optional<func::LaunchFault> fault;
  std::optional<KernelResources> resources;
  // Where `resources` came from: "nvjitlink" (ptxas's figures, in process) or "gpu" (the driver's
  // JIT, cuFuncGetAttribute, when nvJitLink is missing but a GPU is in use; no barrier count).
  std::string resources_source;
  uint32_t ptx_static_shared_bytes = 0;  // from the PTX alone (when nvJitLink is absent)
  double sim_wall_seconds = 0;
  std::string printf_output;  // what the kernel printed (device printf) in the simulator
  // synccheck/racecheck findings (RunOptions turns them on), one per kind and PTX line pair
  // with a count; any fails the run.
  std::vector<func::Hazard> hazards;
  // Timing mode: the model's whole result (cycles, warp states by line, memory table), with the
  // event trace when this launch was traced (RunOptions::trace); shared so copies stay cheap.
  std::shared_ptr<const timing::TimingResult> timing;
  nlohmann::json sim = nlohmann::json::object();  // backend extras: timing model's cycles,
  nlohmann::json gpu = nlohmann::json::object();  // time_us, ipc, occupancy, ...; GPU times
  // --backend both/gpu: the GPU could not run the launch, or its buffers differ from the
  // simulator's after it (details in gpu["error"] / gpu["compare"]). Either fails the run.
  bool gpu_failed = false;
  bool backends_differ = false;
};

struct CompiledUnit {
  std::string defines_key;  // "-DTILE=16 ..." this unit was built with
  std::string ptx;
  std::string ptx_path;     // name used for PTX lines in messages
  std::string compile_log;  // NVRTC warnings
  std::shared_ptr<const func::Program> program;
  std::optional<ResourceReport> resources;
  std::string resources_note;  // why resources are missing ("" when present)
  bool from_cache = false;     // the PTX came from the PTX cache
  // --backend gpu/both: kernels the simulator cannot run (unsupported code in them or in a
  // function they call): entry name -> the simulator's reason. The GPU runs them alone; the
  // reason is reported once, as a note (ExperimentResult::notes). Empty with --backend sim,
  // where such a kernel is an error.
  std::map<std::string, std::string> sim_refusals;
  // Kernels named by a C++ template-id ("MatrixMulCUDA<16>"): NVRTC's entry name for each.
  std::vector<std::pair<std::string, std::string>> lowered_names;
  // A Triton kernel (lab/triton.h): what its compile reported (dynamic shared memory the launch
  // passes, warps, scratch, Triton's version); its `ptx` is left empty (the unit's is the same).
  std::optional<TritonKernel> triton;
  // The entry a launch's `kernel` names (lowered names first, then find_kernel()); nullptr when
  // none (Runner::compile has reported it).
  const ptx::Function* kernel(const std::string& name) const;
};

struct RunResult {
  std::vector<std::pair<std::string, Value>> params;  // values used, in file order
  std::vector<LaunchRecord> launches;
  std::vector<CheckResult> checks;
  std::vector<HostBuffer> buffers;  // final contents (for --dump)
  std::shared_ptr<const CompiledUnit> unit;
  // Launches (indices in Experiment::launches) not run, or not every repeat, because an earlier
  // launch faulted: they would read a half-written state.
  std::vector<size_t> skipped_launches;
  bool synccheck = false, racecheck = false;  // which checkers ran
  bool faulted() const;
  bool has_hazards() const;
  bool passed() const;  // no fault, no hazard and every check passed
};

struct SweepResult {
  std::vector<std::string> axes;  // swept parameter names
  std::vector<RunResult> runs;    // one per combination
};

struct ExperimentResult {
  std::string backend, mode;
  std::string l2 = "cold";  // RunOptions::l2: what every timed launch found in the L2, both sides
  std::optional<RunResult> run;                        // without [sweep]
  std::optional<SweepResult> sweep;                    // with [sweep]
  std::vector<std::string> notes;                      // e.g. "resource usage unavailable: ..."
  std::string config;                                  // timing mode: the preset's name
  std::string gpu_device;                              // gpu/both: the device's one-line name
  nlohmann::json gpu_info = nlohmann::json::object();  // gpu/both: device facts, launch overhead
  bool passed() const;
};

// A place a launch sequence runs: owns the device buffers for one run.
class LaunchBackend {
 public:
  virtual ~LaunchBackend() = default;
  virtual std::string_view name() const = 0;
  // Allocates the buffers with their initial contents; returns their device addresses (the
  // parameter blocks the runner builds use them; pointer_params marks where they appear).
  virtual Expected<std::vector<uint64_t>> prepare(const std::vector<HostBuffer>& buffers) = 0;
  // Runs one launch; fills rec (stats, fault, sim/gpu extras). An Error is a launch that could
  // not start (bad input); a kernel's own fault goes into rec.fault.
  virtual Status launch(const BoundLaunch& launch, LaunchRecord& rec) = 0;
  // Copies the buffers' current contents back into `buffers` (same order as prepare).
  virtual Status read_back(std::vector<HostBuffer>& buffers) = 0;
  // Steps between launches (memset, memcpy): the host reads or writes `n` bytes of buffer
  // `buffer` from byte `offset` on, as cuMemcpy/cuMemset do between kernel launches.
  virtual Status read_range(size_t buffer, uint64_t offset, uint8_t* dst, uint64_t n) = 0;
  virtual Status write_range(size_t buffer, uint64_t offset, const uint8_t* src, uint64_t n) = 0;
};

// What a backend needs beyond the options: the compiled unit (program and PTX text), the loaded
// timing preset, and the opened GPU with this unit's module. The Runner fills it once per run.
struct BackendContext {
  std::shared_ptr<const CompiledUnit> unit;
  std::shared_ptr<const timing::GpuConfig> config;   // timing mode
  std::shared_ptr<gpu::Backend> gpu;                 // gpu / both
  std::shared_ptr<const gpu::GpuModule> gpu_module;  // unit->ptx loaded on the GPU
  bool trace = false;                                // this run captures options.trace
};

// Creates the backend for `options`. A choice that cannot work here (timing mode without a
// preset, the GPU without its device) is an Error that says plainly what is missing.
Expected<std::unique_ptr<LaunchBackend>> make_backend(const RunOptions& options,
                                                      const BackendContext& context);
// The simulator in functional or timing mode (the default preset), with no GPU.
Expected<std::unique_ptr<LaunchBackend>> make_backend(const RunOptions& options,
                                                      std::shared_ptr<const func::Program> program);

class Runner {
 public:
  Runner(const Toolchain& toolchain, RunOptions options);
  // Compiles (cached per -D set) and checks every launch's kernel and arguments.
  Expected<std::shared_ptr<const CompiledUnit>> compile(const Experiment& exp, const Env& env);
  // One run with the experiment's current parameter values.
  Expected<RunResult> run_once(const Experiment& exp);
  // A whole experiment: one run, or every combination of the sweep.
  Expected<ExperimentResult> run(const Experiment& exp);
  // Loads the preset (timing mode) and opens the GPU (gpu/both) once per Runner; run() and
  // run_once() call it first. Public so a caller can learn early that the GPU is missing (the
  // Error says why) and fall back to the simulator, as the desktop app does.
  Status prepare_backends();
  // After prepare_backends: the timing preset's name ("" = none) and the GPU's ("" = none).
  std::string config_name() const;
  std::string gpu_device_name() const;

 private:
  const Toolchain& toolchain_;
  RunOptions options_;
  // A compile with name expressions failed: finds the template-id NVRTC could not instantiate
  // and lists the kernels the source defines (demangled).
  // NVRTC refused an option (NVRTC_ERROR_INVALID_OPTION): the error names the experiment's
  // `arch` or `options` line, what NVRTC said and what it takes.
  Error explain_invalid_option(const Experiment& exp, const Error& e) const;
  Error explain_name_expressions(const Experiment& exp, const CompileOptions& co,
                                 const Error& failed) const;
  // A Triton experiment's source -> PTX (lab/triton.h): the request from the parameters and
  // the launches' arguments, then the bridge (through the cache).
  Expected<TritonKernel> compile_triton(const Experiment& exp, const Env& env, std::string& key);
  TritonBridge triton_;  // the installed Triton (probed at its first use)
  std::map<std::string, std::shared_ptr<const CompiledUnit>> units_;
  std::shared_ptr<const timing::GpuConfig> config_;
  std::shared_ptr<gpu::Backend> gpu_;
  std::map<std::string, std::shared_ptr<const gpu::GpuModule>> gpu_modules_;  // per defines key
  bool traced_ = false;  // the trace was captured (only the first run of a sweep is traced)
  int sweep_row_ = -1;   // the sweep row run_once is running (-1: no sweep)
  size_t sweep_rows_ = 0;
};

}  // namespace warplab::lab
