// Shared by the sampled-mode tests (tests/351, 356, 357, 358): one kernel launch on the H100 preset
// cut to 16 SMs (SampledLaunch::sm_count), with 128-thread blocks of 128 registers per thread (4
// blocks an SM, 64 a wave on 16 SMs), an input buffer and an output buffer of u32, run in full or
// sampled; its result, its JSON (as `warplab run --json` writes it) and its output words.
#pragma once

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
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

// SamplingOptions with `enabled` as given, the rest default.
inline timing::SamplingOptions sampling_on(bool enabled) {
  timing::SamplingOptions s;
  s.enabled = enabled;
  return s;
}

}  // namespace warplab::timing_tests
