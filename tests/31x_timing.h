// What the timing tests (3xx) share: a module loader, the issues of one PTX line from a run's
// trace (and the cycle of a line that issues once), and the vector add most of them launch.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "sim/func/executor.h"
#include "sim/ptx/parser.h"
#include "sim/timing/gpu_model.h"

namespace warplab::timing_tests {

// Appends `v` to a launch's parameter bytes at its natural alignment (as the kernel's .param
// list lays them out).
template <class T>
void put(std::vector<uint8_t>& p, T v) {
  const size_t at = (p.size() + sizeof(T) - 1) / sizeof(T) * sizeof(T);
  p.resize(at + sizeof(T));
  std::memcpy(p.data() + at, &v, sizeof(T));
}

inline Expected<func::Program> load(const std::string& text) {
  auto m = ptx::parse_module(text, "test.ptx");
  if (!m) return m.error();
  return func::Program::load(std::move(*m));
}

// The issues of PTX line `line` (of scheduler slot `slot`, or every slot), in cycle order.
inline std::vector<timing::IssueRecord> issues_of(const timing::TimingResult& r, int32_t line,
                                                   int slot = -1) {
  std::vector<timing::IssueRecord> out;
  for (const auto& i : r.trace.issues)
    if (i.ptx_line == line && (slot < 0 || i.slot == slot)) out.push_back(i);
  std::sort(out.begin(), out.end(), [](const timing::IssueRecord& a,
                                       const timing::IssueRecord& b) { return a.cycle < b.cycle; });
  return out;
}

// The cycle of PTX line `line`'s one issue (the test stops if it issued other than once).
inline uint64_t issue_cycle(const timing::TimingResult& r, int32_t line) {
  const auto i = issues_of(r, line);
  REQUIRE(i.size() == 1);
  return i[0].cycle;
}

// z[i] = x[i] + y[i] for i < n: loads on lines 25-26, the add 27, the store 30.
inline constexpr const char* kVecAdd = R"(.version 9.0
.target sm_90
.address_size 64
.visible .entry vec_add(.param .u64 x, .param .u64 y, .param .u64 z, .param .u32 n)
{
  .reg .pred %p<2>;
  .reg .f32 %f<4>;
  .reg .b32 %r<6>;
  .reg .b64 %rd<11>;
  ld.param.u64 %rd1, [x];
  ld.param.u64 %rd2, [y];
  ld.param.u64 %rd3, [z];
  ld.param.u32 %r2, [n];
  mov.u32 %r3, %ctaid.x;
  mov.u32 %r4, %ntid.x;
  mov.u32 %r5, %tid.x;
  mad.lo.s32 %r1, %r3, %r4, %r5;
  setp.ge.s32 %p1, %r1, %r2;
  @%p1 bra $L_end;
  cvta.to.global.u64 %rd4, %rd1;
  mul.wide.s32 %rd5, %r1, 4;
  add.s64 %rd6, %rd4, %rd5;
  cvta.to.global.u64 %rd7, %rd2;
  add.s64 %rd8, %rd7, %rd5;
  ld.global.f32 %f1, [%rd6];
  ld.global.f32 %f2, [%rd8];
  add.f32 %f3, %f1, %f2;
  cvta.to.global.u64 %rd9, %rd3;
  add.s64 %rd10, %rd9, %rd5;
  st.global.f32 [%rd10], %f3;
$L_end:
  ret;
}
)";

}  // namespace warplab::timing_tests
