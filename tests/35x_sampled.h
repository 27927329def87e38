// Shared by the sampled-mode tests (tests/351, 356, 357, 358): one kernel launch on the H100 preset
// cut to 16 SMs (SampledLaunch::sm_count), with 128-thread blocks of 128 registers per thread (4
// blocks an SM, 64 a wave on 16 SMs), an input buffer and an output buffer of u32, run in full or
// sampled; its result, its JSON (as `warplab run --json` writes it) and its output words.
#pragma once

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "31x_timing.h"
#include "lab/metrics_json.h"
#include "sim/func/executor.h"
#include "sim/ptx/parser.h"
#include "sim/timing/gpu_model.h"

namespace warplab::timing_tests {

struct SampledOutcome {
  timing::TimingResult result;
  std::string json;
  std::vector<uint32_t> out;
};

struct SampledLaunch {
  SampledLaunch(const char* ptx_text, const char* name, uint32_t grid)
      : ptx(ptx_text), kernel(name), blocks(grid) {}
  const char* ptx = nullptr;
  const char* kernel = nullptr;  // its name in `ptx`
  uint32_t blocks = 0;           // of 128 threads
  std::vector<uint32_t> in;      // the input buffer's words (the kernel's first parameter)
  uint64_t out_words = 0;        // the output buffer's (its second parameter)
  std::vector<uint32_t> args;    // the u32 parameters after the two buffers
  int64_t l2_bytes = 0;          // > 0: the L2's size (the preset's otherwise)
  int64_t sm_count = 16;         // the preset cut to this many SMs
};

// Runs `l` sampled (`sampling`, enabled) or in full (`sampling` disabled) on `threads` host
// threads.
inline SampledOutcome run_16sm(const SampledLaunch& l, const timing::SamplingOptions& sampling,
                               int threads) {
  auto m = ptx::parse_module(l.ptx, std::string(l.kernel) + ".ptx");
  REQUIRE(m);
  auto prog = func::Program::load(std::move(*m));
  REQUIRE(prog);
  auto cfg = timing::load_config("h100-sxm");
  REQUIRE(cfg);
  cfg->core.sm_count = l.sm_count;
  if (l.l2_bytes > 0) cfg->l2.size_bytes = l.l2_bytes;
  func::DeviceMemory mem;
  const uint64_t a = mem.allocate("in", l.in.size() * 4ull);
  const uint64_t b = mem.allocate("out", l.out_words * 4ull);
  REQUIRE(mem.write(a, l.in.data(), l.in.size() * 4ull));
  func::LaunchConfig launch{l.kernel, {l.blocks, 1, 1}, {128, 1, 1}, 0, {}};
  put(launch.params, a);
  put(launch.params, b);
  for (uint32_t v : l.args) put(launch.params, v);
  timing::TimingOptions o;
  o.registers_per_thread = 128;
  o.threads = threads;
  o.adapt_threads = false;  // the pool ticks every cycle with enough SMs due
  o.sampling = sampling;
  auto r = timing::run_timing(*prog, mem, launch, *cfg, o);
  REQUIRE_MESSAGE(r, (r ? "" : r.error().to_string()));
  REQUIRE_FALSE(r->fault);
  SampledOutcome out;
  out.out.resize(l.out_words);
  REQUIRE(mem.read(b, out.out.data(), l.out_words * 4ull));
  out.json = lab::timing_json(*r, *cfg, prog->module()).dump();
  out.result = std::move(*r);
  return out;
}

// The strided sum (tests/356, 358): out[i] = sum over k < steps of in[(i + 32 k) & mask] (u32,
// wrapping). 12 instructions before the loop, 9 in it, 5 after: a warp runs 17 + 9 x steps.
inline constexpr const char* kStridedSum = R"(.version 9.0
.target sm_90
.address_size 64
.visible .entry strided_sum(.param .u64 in, .param .u64 out, .param .u32 steps, .param .u32 mask)
{
  .reg .pred %p<2>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<9>;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  ld.param.u32 %r1, [steps];
  ld.param.u32 %r2, [mask];
  mov.u32 %r3, %ctaid.x;
  mov.u32 %r4, %ntid.x;
  mov.u32 %r5, %tid.x;
  mad.lo.s32 %r6, %r3, %r4, %r5;
  cvta.to.global.u64 %rd3, %rd1;
  mov.u32 %r7, 0;
  mov.u32 %r8, 0;
  mov.u32 %r9, %r6;
$L_loop:
  and.b32 %r10, %r9, %r2;
  mul.wide.u32 %rd4, %r10, 4;
  add.s64 %rd5, %rd3, %rd4;
  ld.global.u32 %r11, [%rd5];
  add.s32 %r8, %r8, %r11;
  add.s32 %r9, %r9, 32;
  add.s32 %r7, %r7, 1;
  setp.lt.u32 %p1, %r7, %r1;
  @%p1 bra $L_loop;
  cvta.to.global.u64 %rd6, %rd2;
  mul.wide.u32 %rd7, %r6, 4;
  add.s64 %rd8, %rd6, %rd7;
  st.global.u32 [%rd8], %r8;
  ret;
}
)";

// `base` with `edits` made, each (text, replacement) at the text's first place.
inline std::string edited_ptx(const char* base,
                              const std::vector<std::pair<std::string, std::string>>& edits) {
  std::string t = base;
  for (const auto& [a, b] : edits) {
    const size_t p = t.find(a);
    REQUIRE(p != std::string::npos);
    t.replace(p, a.size(), b);
  }
  return t;
}

// SamplingOptions with `enabled` as given, the rest default.
inline timing::SamplingOptions sampling_on(bool enabled) {
  timing::SamplingOptions s;
  s.enabled = enabled;
  return s;
}

}  // namespace warplab::timing_tests
