// A block slot's registers between blocks (sim/func/reg_init.h): a block that runs after another
// in the same slot zeroes only the registers some thread may read before writing, and a thread
// that reads a register it never wrote still finds 0, however many blocks ran there before.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "31x_timing.h"
#include "sim/func/decoded.h"
#include "sim/func/executor.h"
#include "sim/timing/config.h"
#include "sim/timing/gpu_model.h"

using namespace warplab;
using namespace warplab::timing;
using warplab::timing_tests::load;
using warplab::timing_tests::put;

namespace {

const func::DecodedKernel& kernel_of(const func::Program& p, const std::string& name) {
  const func::DecodedKernel* k = p.decoded().find(name);
  REQUIRE(k);
  return *k;
}

// out[gid] = ctaid + 1 when (ctaid + tid) % 3 == 0, else %r7 unwritten (0): a register written on
// one path only, read after the paths join. %r8 is read before any write on every path.
constexpr const char* kOnePath = R"(.version 9.0
.target sm_90
.address_size 64
.visible .entry one_path(.param .u64 out, .param .u64 out2)
{
  .reg .pred %p<2>;
  .reg .b32 %r<10>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd6, [out2];
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %tid.x;
  mov.u32 %r3, %ntid.x;
  mad.lo.s32 %r4, %r1, %r3, %r2;
  add.s32 %r5, %r1, %r2;
  rem.u32 %r6, %r5, 3;
  setp.ne.u32 %p1, %r6, 0;
  @%p1 bra $L_join;
  add.s32 %r7, %r1, 1;
$L_join:
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.u32 %rd3, %r4, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r7;
  add.s32 %r9, %r8, %r2;
  add.s32 %r8, %r1, 7;
  cvta.to.global.u64 %rd5, %rd6;
  add.s64 %rd7, %rd5, %rd3;
  st.global.u32 [%rd7], %r9;
  ret;
}
)";

}  // namespace

TEST_CASE("380 the registers a block must zero: none for vec_add, the unwritten ones") {
  auto vec = load(timing_tests::kVecAdd);
  REQUIRE(vec);
  const func::DecodedKernel& v = kernel_of(*vec, "vec_add");
  REQUIRE(v.zero_slots.has_value());
  CHECK(v.zero_slots->empty());  // every register is written before it is read

  auto one = load(kOnePath);
  REQUIRE(one);
  const func::DecodedKernel& k = kernel_of(*one, "one_path");
  REQUIRE(k.zero_slots.has_value());
  // %r7 (written on one path only) and %r8 (read before its write): their register indices.
  std::vector<std::string> names;
  const auto& regs = one->module().functions[k.module_index].regs;
  for (int32_t s : *k.zero_slots) {
    REQUIRE(k.slot_reg[s] >= 0);
    names.push_back(regs[k.slot_reg[s]].name);
  }
  CHECK(names == std::vector<std::string>{"%r7", "%r8"});

  // A warp shuffle reads other lanes' registers: not followed, every register is zeroed.
  std::string shfl = timing_tests::kVecAdd;
  shfl.replace(shfl.find("  add.f32 %f3"), 0, "  shfl.sync.idx.b32 %r4, %r3, 0, 31, -1;\n");
  auto s = load(shfl);
  REQUIRE(s);
  CHECK_FALSE(kernel_of(*s, "vec_add").zero_slots.has_value());
}

TEST_CASE("380 a register no thread wrote reads 0 in every block of a reused slot") {
  auto prog = load(kOnePath);
  REQUIRE(prog);
  auto cfg = load_config("h100-sxm");
  REQUIRE(cfg);
  cfg->core.sm_count = 2;  // 96 blocks of 64 threads on 2 SMs: each slot runs several blocks
  const uint32_t blocks = 96, threads = 64, n = blocks * threads;
  func::DeviceMemory mem;
  const uint64_t out = mem.allocate("out", n * 4), out2 = mem.allocate("out2", n * 4);
  func::LaunchConfig launch;
  launch.kernel = "one_path";
  launch.grid = {blocks, 1, 1};
  launch.block = {threads, 1, 1};
  put(launch.params, out);
  put(launch.params, out2);
  TimingOptions o;
  o.threads = 1;
  o.registers_per_thread = 32;
  auto r = run_timing(*prog, mem, launch, *cfg, o);
  REQUIRE(r);
  REQUIRE_FALSE(r->fault);
  std::vector<uint32_t> got(n), got2(n);
  REQUIRE(mem.read(out, got.data(), n * 4));
  REQUIRE(mem.read(out2, got2.data(), n * 4));
  int written = 0;
  for (uint32_t b = 0; b < blocks; ++b)
    for (uint32_t t = 0; t < threads; ++t) {
      const uint32_t want = (b + t) % 3 == 0 ? b + 1 : 0;
      written += want != 0;
      REQUIRE(got[b * threads + t] == want);
      REQUIRE(got2[b * threads + t] == t);  // %r8 read as 0
    }
  CHECK(written == static_cast<int>(n / 3));
}
