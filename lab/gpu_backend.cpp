// The real GPU as a LaunchBackend, and `both`: the simulator and the GPU in lockstep.
//
// The GPU runs the very PTX the simulator runs (loaded once per compiled unit by the Runner), on
// buffers with the same initial contents, with the same grid, block, dynamic shared memory and
// parameter block: the runner's parameter block holds the simulator's buffer addresses, and each
// pointer parameter becomes a gpu::BufferPatch so the GPU's own addresses go there instead.
// gpu::Backend::run copies the host contents in, runs the correctness launch, copies the results
// back, then times warm-up + N launches and (optionally) reads the counters. The host copies held
// here therefore carry each launch's results into the next, as device memory would.
#include <algorithm>
#include <cstring>
#include <map>
#include <optional>
#include <set>

#include "gpu/backend.h"
#include "gpu/sass_lines.h"
#include "lab/backends.h"
#include "lab/line_stalls.h"
#include "lab/metrics_json.h"

namespace warplab::lab {
namespace {

using nlohmann::json;

gpu::TimingOptions timing_options(const RunOptions& o) {
  gpu::TimingOptions t;
  t.warmup = o.gpu.warmup;
  t.repeats = o.gpu.repeats;
  t.flush_l2 = o.l2 == L2Start::Cold;
  return t;
}

class GpuLaunchBackend : public LaunchBackend {
 public:
  GpuLaunchBackend(const RunOptions& options, const BackendContext& ctx)
      : ctx_(ctx), timing_(timing_options(options)) {
    counters_ = options.gpu.counters.value_or(options.backend == BackendKind::Both);
    stalls_ = options.gpu.stalls;
    stalls_period_ = options.gpu.stalls_period_log2;
  }
  std::string_view name() const override { return "gpu"; }

  Expected<std::vector<uint64_t>> prepare(const std::vector<HostBuffer>& buffers) override {
    std::vector<uint64_t> placeholders;
    for (size_t i = 0; i < buffers.size(); ++i) {
      host_.push_back({buffers[i].name, buffers[i].bytes});
      if (!buffers[i].symbol.empty())
        symbols_.push_back({buffers[i].symbol, static_cast<uint32_t>(i), true});
      placeholders.push_back(0x7000'0000'0000ull + (uint64_t{i} << 32));  // replaced by patches
    }
    add_module_globals(buffers);
    return placeholders;
  }

  // The module's other __device__ variables travel with every launch too, after the experiment's
  // buffers: each run starts them from their initializers (the loaded module would otherwise keep
  // what earlier runs and the timed launches left), and each launch finds what the previous
  // correctness launch left, as in the simulator. Only .global variables: kernels cannot write
  // .const ones.
  void add_module_globals(const std::vector<HostBuffer>& buffers) {
    constexpr uint64_t kMaxBytes = uint64_t{64} << 20;
    for (const ptx::Variable& v : ctx_.unit->program->module().variables) {
      if (v.function >= 0 || v.space != ptx::Space::Global || v.size == 0 || v.size > kMaxBytes)
        continue;
      bool named = false;
      for (const HostBuffer& b : buffers) named = named || b.symbol == v.name;
      if (named) continue;
      std::vector<uint8_t> init(v.size, 0);
      std::copy_n(v.init.begin(), std::min<size_t>(v.init.size(), init.size()), init.begin());
      symbols_.push_back({v.name, static_cast<uint32_t>(host_.size()), false});
      host_.push_back({v.name, std::move(init)});
    }
  }

  Status launch(const BoundLaunch& l, LaunchRecord& rec) override {
    gpu::GpuLaunch g;
    g.kernel = l.config.kernel;
    g.grid = {l.config.grid.x, l.config.grid.y, l.config.grid.z};
    g.block = {l.config.block.x, l.config.block.y, l.config.block.z};
    g.dynamic_shared_bytes = l.config.dynamic_shared_bytes;
    g.cluster = {l.config.cluster.x, l.config.cluster.y, l.config.cluster.z};
    g.cluster_nonportable = l.config.cluster_nonportable;
    g.params = l.config.params;
    for (const ptx::Param& p : l.kernel->params) g.param_offsets.push_back(static_cast<uint32_t>(p.offset));
    g.symbols = symbols_;
    for (const BoundLaunch::PointerParam& pp : l.pointer_params)
      g.buffer_params.push_back({static_cast<uint32_t>(pp.param_offset),
                                 static_cast<uint32_t>(pp.buffer), pp.byte_offset});
    for (const BoundLaunch::TensorMapParam& tm : l.tensor_maps) {
      gpu::TensorMapPatch t;
      t.param_offset = static_cast<uint32_t>(tm.param_offset);
      t.buffer = static_cast<uint32_t>(tm.buffer);
      t.data_type = tm.cuda_data_type;
      t.rank = tm.rank;
      std::copy(std::begin(tm.dims), std::end(tm.dims), t.dims);
      std::copy(std::begin(tm.strides), std::end(tm.strides), t.strides);
      std::copy(std::begin(tm.box), std::end(tm.box), t.box);
      std::copy(std::begin(tm.element_strides), std::end(tm.element_strides), t.element_strides);
      t.swizzle = tm.swizzle;
      t.oob_fill = tm.oob_fill;
      g.tensor_maps.push_back(t);
    }
    std::vector<gpu::GpuBuffer> initial;  // the sampled launch starts from what run() did
    if (stalls_) initial = host_;
    auto r = ctx_.gpu->run(*ctx_.gpu_module, g, host_, timing_, counters_);
    if (!r) {
      rec.gpu = json{{"error", r.error().to_string()}};
      rec.gpu_failed = true;
      return Ok{};
    }
    rec.gpu = gpu_json(*r, timing_);
    if (stalls_) rec.gpu["line_stalls"] = sample_line_stalls(g, initial);
    return Ok{};
  }

  // --stalls: the PTX built with its SASS line table (once per unit), one launch of it under PC
  // sampling, samples summed per PTX line and reason. A failure is reported in the JSON, not
  // raised: the timed figures stand without it.
  json sample_line_stalls(const gpu::GpuLaunch& g, const std::vector<gpu::GpuBuffer>& initial) {
    const gpu::DeviceInfo& dev = ctx_.gpu->device();
    if (!sass_)
      sass_ = gpu::build_sass_with_lines(ctx_.unit->ptx, ctx_.unit->ptx_path,
                                         dev.cc_major * 10 + dev.cc_minor);
    if (!*sass_) return json{{"error", "no per-line stalls: " + sass_->error().to_string()}};
    const gpu::SassBuild& b = **sass_;
    gpu::PcSamplingOptions po;
    po.period_log2 = stalls_period_;
    auto s = ctx_.gpu->sample_pcs(b.cubin, ctx_.unit->ptx_path, g, initial, timing_.flush_l2, po);
    if (!s) return json{{"error", "PC sampling: " + s.error().to_string()}};
    if (!s->available) return json{{"error", "PC sampling unavailable: " + s->reason}};
    std::map<int32_t, StallMix> by_line;
    for (const gpu::PcSample& p : s->samples)
      by_line[gpu::ptx_line_of(b.lines, p.function, p.pc_offset)]
             [model_reason_for_cupti(p.reason)] += p.samples;
    KernelLineStalls k =
        kernel_stalls_from_ptx_lines(by_line, ctx_.unit->program->module(), g.kernel, 0);
    k.dropped = s->dropped_samples;
    json j = to_json(k);
    j["method"] = "CUPTI PC sampling of the PTX built by `ptxas -lineinfo` (" + b.ptxas_version +
                  "); SASS offsets to PTX lines by `nvdisasm -c -gp`; CUDA lines from the PTX's .loc";
    j["sampling_period_log2"] = s->period_log2;
    j["total_samples"] = s->total_samples;
    j["hardware_buffer_full"] = s->hardware_buffer_full;
    j["reasons_collected"] = s->reasons_collected;
    if (!s->note.empty()) j["note"] = s->note;
    return j;
  }

  Status read_back(std::vector<HostBuffer>& buffers) override {
    for (size_t i = 0; i < buffers.size() && i < host_.size(); ++i)
      if (host_[i].bytes.size() == buffers[i].bytes.size()) buffers[i].bytes = host_[i].bytes;
    return Ok{};
  }

  // The host copies carry the device's state between launches, so steps work on them.
  Status read_range(size_t buffer, uint64_t offset, uint8_t* dst, uint64_t n) override {
    const std::vector<uint8_t>& b = host_.at(buffer).bytes;
    if (offset > b.size() || n > b.size() - offset)
      return Error{"", 0, "read outside buffer " + host_.at(buffer).name};
    if (n) std::memcpy(dst, b.data() + offset, n);
    return Ok{};
  }
  Status write_range(size_t buffer, uint64_t offset, const uint8_t* src, uint64_t n) override {
    std::vector<uint8_t>& b = host_.at(buffer).bytes;
    if (offset > b.size() || n > b.size() - offset)
      return Error{"", 0, "write outside buffer " + host_.at(buffer).name};
    if (n) std::memcpy(b.data() + offset, src, n);
    return Ok{};
  }

  const std::vector<gpu::GpuBuffer>& buffers() const { return host_; }

 private:
  BackendContext ctx_;
  gpu::TimingOptions timing_;
  bool counters_ = false;
  bool stalls_ = false;
  int stalls_period_ = 10;
  std::optional<Expected<gpu::SassBuild>> sass_;  // --stalls: built on the first launch
  std::vector<gpu::GpuBuffer> host_;
  std::vector<gpu::SymbolBuffer> symbols_;  // buffers that are module variables
};

class BothBackend : public LaunchBackend {
 public:
  BothBackend(std::unique_ptr<LaunchBackend> sim, const RunOptions& options,
              const BackendContext& ctx)
      : sim_(std::move(sim)), gpu_(options, ctx), ctx_(ctx) {}
  std::string_view name() const override { return "both"; }

  Expected<std::vector<uint64_t>> prepare(const std::vector<HostBuffer>& buffers) override {
    shapes_ = buffers;  // names, types and sizes for read-backs and comparisons
    if (auto g = gpu_.prepare(buffers); !g) return g.error();
    return sim_->prepare(buffers);
  }

  Status launch(const BoundLaunch& l, LaunchRecord& rec) override {
    // A kernel the simulator cannot run runs on the GPU alone (the runner's note says why). From
    // then on the simulator's buffers lag behind the GPU's, so it sits out the rest of the run
    // and the GPU's buffers are the run's results.
    const auto& refusals = ctx_.unit->sim_refusals;
    if (!sim_out_ && refusals.count(l.kernel->name)) sim_out_ = l.kernel->name;
    if (sim_out_) {
      rec.sim = json{{"skipped", *sim_out_ == l.kernel->name
                                     ? "the simulator cannot run this kernel (see the note)"
                                     : "an earlier launch of " + *sim_out_ +
                                           " ran on the GPU alone (see the note)"}};
      return gpu_.launch(l, rec);
    }
    if (auto s = sim_->launch(l, rec); !s) return s;
    if (rec.fault) {
      // The GPU would read or write outside its buffers too; that can end its context.
      rec.gpu = json{{"skipped", "the simulator reported a kernel fault in this launch"}};
      return Ok{};
    }
    if (auto s = gpu_.launch(l, rec); !s) return s;
    if (rec.gpu_failed) return Ok{};
    // Compare every buffer after the launch: bit-exact unless approximate math reached it. A
    // buffer is "approximate" once a launch using approximate instructions wrote it, or once a
    // launch that read an approximate buffer wrote it (errors within PTX's bounds propagate:
    // nine GELU kernels after one tanh). Launch arguments are taken as read and written.
    std::vector<HostBuffer> sim_now = shapes_;
    if (auto s = sim_->read_back(sim_now); !s) return s;
    const bool approx = uses_approximate_math(ctx_.unit->program->module(), *l.kernel);
    approx_.resize(sim_now.size(), false);
    bool reads_approx = approx;
    for (const BoundLaunch::PointerParam& pp : l.pointer_params)
      if (pp.buffer >= 0 && size_t(pp.buffer) < approx_.size() && approx_[pp.buffer])
        reads_approx = true;
    if (reads_approx)
      for (const BoundLaunch::PointerParam& pp : l.pointer_params)
        if (pp.buffer >= 0 && size_t(pp.buffer) < approx_.size()) approx_[pp.buffer] = true;
    json cmp = json::array();
    for (size_t i = 0; i < sim_now.size(); ++i) {
      // FP8 buffers (e4m3, e5m2) are compared as their bytes, bit for bit.
      const std::string tname(elem_type_name(npy_bits_type(sim_now[i].type) == ElemType::U8
                                                 ? ElemType::U8
                                                 : sim_now[i].type));
      auto t = gpu::parse_elem_type(tname);
      if (!t) continue;
      const bool is_float = *t == gpu::ElemType::F16 || *t == gpu::ElemType::F32 ||
                            *t == gpu::ElemType::F64 || *t == gpu::ElemType::BF16;
      // PTX bounds approximate functions by an absolute error near 0 (sin/cos.approx: 2^-20.9)
      // and a relative one elsewhere (ex2/rcp/sqrt/rsqrt.approx: a few ULP; tanh: 2^-10.7 in
      // f16 terms, well under 1e-5 relative in f32 results that pass through later math).
      const gpu::Tolerance tol = approx_[i] && is_float ? gpu::Tolerance::within(1e-6, 1e-5, 4)
                                                        : gpu::Tolerance::bit_exact();
      gpu::CompareResult c =
          gpu::compare_buffers(gpu_.buffers()[i].bytes, sim_now[i].bytes, *t, tol);
      if (!c.passed) rec.backends_differ = true;
      cmp.push_back(compare_json(sim_now[i].name, c, tol));
    }
    rec.gpu["compare"] = cmp;
    rec.gpu["approximate_math"] = reads_approx;
    return Ok{};
  }

  Status read_back(std::vector<HostBuffer>& buffers) override {
    return sim_out_ ? gpu_.read_back(buffers) : sim_->read_back(buffers);
  }
  Status read_range(size_t buffer, uint64_t offset, uint8_t* dst, uint64_t n) override {
    return sim_out_ ? gpu_.read_range(buffer, offset, dst, n)
                    : sim_->read_range(buffer, offset, dst, n);
  }
  Status write_range(size_t buffer, uint64_t offset, const uint8_t* src, uint64_t n) override {
    if (auto s = gpu_.write_range(buffer, offset, src, n); !s) return s;
    return sim_->write_range(buffer, offset, src, n);
  }

 private:
  std::unique_ptr<LaunchBackend> sim_;
  GpuLaunchBackend gpu_;
  BackendContext ctx_;
  std::vector<HostBuffer> shapes_;
  std::vector<bool> approx_;  // per buffer: holds results of approximate math (see launch)
  std::optional<std::string> sim_out_;  // the refused kernel that took the simulator out
};

}  // namespace

bool uses_approximate_math(const ptx::Module& module, const ptx::Function& kernel) {
  std::set<const ptx::Function*> seen;
  std::vector<const ptx::Function*> todo = {&kernel};
  while (!todo.empty()) {
    const ptx::Function* f = todo.back();
    todo.pop_back();
    if (!seen.insert(f).second) continue;
    for (const ptx::Instruction& in : f->instructions) {
      if (in.mod.approx || in.mod.full) return true;
      if (in.callee >= 0 && static_cast<size_t>(in.callee) < module.functions.size())
        todo.push_back(&module.functions[in.callee]);
    }
  }
  return false;
}

std::unique_ptr<LaunchBackend> make_gpu_backend(const RunOptions& options,
                                                const BackendContext& context) {
  return std::make_unique<GpuLaunchBackend>(options, context);
}

std::unique_ptr<LaunchBackend> make_both_backend(std::unique_ptr<LaunchBackend> sim,
                                                 const RunOptions& options,
                                                 const BackendContext& context) {
  return std::make_unique<BothBackend>(std::move(sim), options, context);
}

}  // namespace warplab::lab
