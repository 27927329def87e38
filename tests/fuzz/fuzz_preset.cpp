// Fuzz target: GPU presets (configs/*.toml) and the timing model built from them.
//
// The input is a preset file. parse_config must return a GpuConfig or an Error naming a line
// (values past any GPU's physical range included: they would make the model allocate or count
// without bound). A preset that loads runs a small launch on the timing model (two blocks of a
// kernel with global loads and stores, shared memory and a barrier), so every unit the preset
// sizes (SMs, schedulers, caches, DRAM) is built and driven with the fuzzed values.
// `base = "NAME"` resolves against the repository's configs/.
#include <string>

#include "sim/func/executor.h"
#include "sim/func/memory.h"
#include "sim/ptx/parser.h"
#include "sim/timing/config.h"
#include "sim/timing/gpu_model.h"
#include "tests/fuzz/fuzz_target.h"

using namespace warplab;

namespace {

// y[i] = x[i] + x[i ^ 1] through shared memory, one block of 64 threads per 64 elements.
const char* kPtx = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 x, .param .u64 y)
{
  .shared .align 4 .b8 s[256];
  .reg .b64 %rd<8>;
  .reg .b32 %r<10>;
  .reg .f32 %f<4>;
  ld.param.u64 %rd1, [x];
  ld.param.u64 %rd2, [y];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mad.lo.u32 %r3, %r2, 64, %r1;
  mul.wide.u32 %rd3, %r3, 4;
  add.u64 %rd4, %rd1, %rd3;
  ld.global.f32 %f1, [%rd4];
  shl.b32 %r4, %r1, 2;
  mov.u32 %r5, s;
  add.u32 %r6, %r5, %r4;
  st.shared.f32 [%r6], %f1;
  bar.sync 0;
  xor.b32 %r7, %r1, 1;
  shl.b32 %r8, %r7, 2;
  add.u32 %r9, %r5, %r8;
  ld.shared.f32 %f2, [%r9];
  add.f32 %f3, %f1, %f2;
  add.u64 %rd5, %rd2, %rd3;
  st.global.f32 [%rd5], %f3;
  ret;
}
)";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const std::string dir = std::string(WARPLAB_SOURCE_DIR) + "/configs";
  auto cfg = timing::parse_config(text, dir + "/fuzzed.toml", dir);
  if (!cfg) return 0;
  (void)timing::describe_config(*cfg);
  auto m = ptx::parse_module(kPtx, "fuzz_preset.ptx");
  if (!m) __builtin_trap();  // the fixed kernel must load
  auto program = func::Program::load(std::move(*m));
  if (!program) __builtin_trap();
  func::DeviceMemory mem;
  const uint64_t x = mem.allocate("x", 128 * 4), y = mem.allocate("y", 128 * 4);
  func::LaunchConfig lc;
  lc.kernel = "k";
  lc.grid = {2, 1, 1};
  lc.block = {64, 1, 1};
  lc.params.resize(16);
  for (int i = 0; i < 8; ++i) {
    lc.params[i] = static_cast<uint8_t>(x >> (8 * i));
    lc.params[8 + i] = static_cast<uint8_t>(y >> (8 * i));
  }
  lc.max_instructions_per_warp = 10000;
  timing::TimingOptions opt;
  opt.max_cycles = 2'000'000;
  (void)timing::run_timing(*program, mem, lc, *cfg, opt);
  return 0;
}
