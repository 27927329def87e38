// The simulator as a LaunchBackend: functional mode counts instructions; timing mode runs the
// cycle-level model (sim/timing/gpu_model.h) and records its figures in the launch's `sim` object.
#include <algorithm>
#include <chrono>
#include <sstream>
#include <fstream>
#include <memory>

#include "lab/backends.h"
#include "lab/metrics_json.h"
#include "sim/timing/gpu_model.h"
#include "sim/timing/l2.h"
#include "sim/common/output_file.h"

namespace warplab::lab {
namespace {

class SimBackend : public LaunchBackend {
 public:
  SimBackend(const RunOptions& options, const BackendContext& ctx) : options_(options), ctx_(ctx) {
    fopts_.count_lines = options.count_lines;
    fopts_.max_warp_instructions = options.max_warp_instructions;
  }
  std::string_view name() const override { return "sim"; }

  Expected<std::vector<uint64_t>> prepare(const std::vector<HostBuffer>& buffers) override {
    for (const HostBuffer& b : buffers) {
      uint64_t addr = 0;
      if (!b.symbol.empty()) {
        // The module's own __constant__ / __device__ variable: the storage its launches use.
        const ptx::Module& m = program().module();
        auto v = std::find_if(m.variables.begin(), m.variables.end(),
                              [&](const ptx::Variable& x) { return x.name == b.symbol; });
        if (v == m.variables.end() || v->size != b.bytes.size())
          return Error{"", 0,
                       "buffer " + b.name + ": no module variable " + b.symbol + " of " +
                           std::to_string(b.bytes.size()) + " bytes"};
        addr = func::module_variable_address(m, *v, memory_);
      } else {
        addr = memory_.allocate(b.name, b.bytes.size());
      }
      if (!b.bytes.empty())
        if (auto s = memory_.write(addr, b.bytes.data(), b.bytes.size()); !s) return s.error();
      addresses_.push_back(addr);
    }
    return addresses_;
  }

  Status launch(const BoundLaunch& l, LaunchRecord& rec) override {
    const size_t index = launches_++;
    if (options_.mode == SimMode::Timing && (!options_.timed || options_.timed(rec)))
      return launch_timing(l, rec, index);
    auto t0 = std::chrono::steady_clock::now();
    auto r = func::run_functional(program(), memory_, l.config, fopts_);
    rec.sim_wall_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!r) return r.error();
    rec.stats = std::move(r->stats);
    rec.fault = std::move(r->fault);
    rec.hazards = std::move(r->hazards);
    rec.printf_output = memory_.take_printf();
    rec.sim["wall_s"] = rec.sim_wall_seconds;
    rec.sim["mode"] = "functional";
    return Ok{};
  }

  Status read_range(size_t buffer, uint64_t offset, uint8_t* dst, uint64_t n) override {
    return memory_.read(addresses_.at(buffer) + offset, dst, n);
  }
  Status write_range(size_t buffer, uint64_t offset, const uint8_t* src, uint64_t n) override {
    return memory_.write(addresses_.at(buffer) + offset, src, n);
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
  const func::Program& program() const { return *ctx_.unit->program; }

  Status launch_timing(const BoundLaunch& l, LaunchRecord& rec, size_t index) {
    timing::TimingOptions to;
    to.registers_per_thread = rec.resources ? rec.resources->registers : 0;
    if (options_.max_cycles) to.max_cycles = *options_.max_cycles;
    to.threads = options_.threads;
    to.adapt_threads = options_.adapt_threads;
    to.profile_loop = options_.profile_loop;
    to.sampling.enabled = options_.sampled;
    to.cancel = options_.cancel;
    to.progress = options_.on_timing_progress;
    const bool warm = options_.l2 == L2Start::Warm;
    if (warm) {
      // One L2 for the run, and an untimed warm-up of this launch first, as the GPU backend's
      // warm-up launches: the timed launch finds in the L2 what its own warm-up left there.
      // The warm-up's writes, printf output and any fault are discarded (memory restored); the
      // timed launch then reports whatever it does itself.
      if (!l2_) l2_ = std::make_unique<timing::L2>(*ctx_.config);
      to.l2 = l2_.get();
      func::DeviceMemory saved = memory_;
      auto w = timing::run_timing(program(), memory_, l.config, *ctx_.config, to);
      memory_ = std::move(saved);
      if (!w) return w.error();
    }
    const TraceCapture* capture = ctx_.trace && options_.trace ? &*options_.trace : nullptr;
    const bool trace = capture && (!capture->launch || *capture->launch == index);
    if (trace) to.trace = capture->options;
    to.trace.enabled = trace;
    auto t0 = std::chrono::steady_clock::now();
    auto r = timing::run_timing(program(), memory_, l.config, *ctx_.config, to);
    rec.sim_wall_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!r) return r.error();
    rec.sim = timing_json(*r, *ctx_.config, program().module());
    rec.sim["wall_s"] = rec.sim_wall_seconds;
    // The host seconds a sampled run spent fast-forwarding (beside wall_s: never compared).
    if (rec.sim.contains("sampled"))
      rec.sim["sampled"]["fast_forward_wall_s"] = r->sampling.fast_forward_wall_s;
    rec.sim["l2"] = std::string(l2_start_name(options_.l2));  // warm: after its own warm-up
    if (!rec.resources)
      rec.sim["note"] = "registers per thread unknown (nvJitLink unavailable): 32 assumed";
    if (trace && !capture->path.empty()) {
      const std::string& path = capture->path;
      std::ostringstream out;
      if (auto s = timing::write_chrome_trace(r->trace, out); !s) return s;
      if (auto s = write_output_file(path, out.str(), "trace file"); !s) return s;
      rec.sim["trace_file"] = path;
    }
    if (trace) rec.sim["trace_truncated"] = r->trace.truncated;
    rec.stats = r->stats;
    rec.fault = r->fault;
    rec.hazards = r->hazards;
    rec.printf_output = memory_.take_printf();
    rec.timing = std::make_shared<const timing::TimingResult>(std::move(*r));
    return Ok{};
  }

  RunOptions options_;
  BackendContext ctx_;
  func::DeviceMemory memory_;
  func::FunctionalOptions fopts_;
  std::vector<uint64_t> addresses_;
  size_t launches_ = 0;
  std::unique_ptr<timing::L2> l2_;  // L2Start::Warm: one L2 for all launches
};

}  // namespace

std::unique_ptr<LaunchBackend> make_sim_backend(const RunOptions& options,
                                                const BackendContext& context) {
  return std::make_unique<SimBackend>(options, context);
}

}  // namespace warplab::lab
