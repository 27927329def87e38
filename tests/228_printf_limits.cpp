// Device printf under hostile formats (issue 21): a width or precision of 2^31-1 or 10^9 is
// clamped to 512 (the host would format gigabytes otherwise), one call's text is cut at 16 KiB
// with a note, and a loop of printf calls that passes the per-launch budget (64 MiB of text) is
// stopped as a hang instead of running on. Expected text comes from the host's snprintf with
// the clamped format, written here.
#include <chrono>
#include <cstdio>
#include <string>

#include "21x_sim.h"

using namespace warplab;
using func::LaunchFault;

namespace {

// `.global .align 1 .b8 NAME[n] = {...}`: the NUL-terminated bytes of `text`.
std::string ptx_string(const std::string& name, const std::string& text) {
  std::string bytes;
  for (unsigned char c : text) bytes += std::to_string(c) + ", ";
  return ".global .align 1 .b8 " + name + "[" + std::to_string(text.size() + 1) + "] = {" +
         bytes + "0};\n";
}

// Kernels in the shape nvcc gives printf: the arguments in a local buffer, vprintf(fmt, buf).
// one_printf(n, v): printf(kFormat, n, v) once per thread, the rest of the 512-byte buffer zero.
// wide_printf: printf(kWide) (forty %512d of zeros). loop_printf(n): printf("%500d\n", i) for
// i < n.
const std::string kFormat = "%2147483647d|%.999999999f\n";
const std::string kWide = [] {
  std::string s;
  for (int i = 0; i < 40; ++i) s += "%512d";
  return s + "\n";
}();

std::string kernels() {
  return std::string(R"(.version 8.0
.target sm_90
.address_size 64
.extern .func (.param .b32 func_retval0) vprintf
(
  .param .b64 vprintf_param_0,
  .param .b64 vprintf_param_1
)
;
)") + ptx_string("$fmt", kFormat) +
         ptx_string("$wide", kWide) + ptx_string("$each", "%500d\n") + R"(
.visible .entry one_printf(.param .u32 n, .param .f64 v)
{
  .local .align 8 .b8 __local_depot0[512];
  .reg .b64 %SP;
  .reg .b64 %SPL;
  .reg .b32 %r<3>;
  .reg .b64 %rd<5>;
  .reg .f64 %fd<2>;
  mov.u64 %SPL, __local_depot0;
  cvta.local.u64 %SP, %SPL;
  ld.param.u32 %r1, [n];
  ld.param.f64 %fd1, [v];
  add.u64 %rd1, %SP, 0;
  add.u64 %rd2, %SPL, 0;
  st.local.u32 [%rd2], %r1;
  st.local.f64 [%rd2+8], %fd1;
  mov.u64 %rd3, $fmt;
  cvta.global.u64 %rd4, %rd3;
  {
  .param .b64 param0;
  st.param.b64 [param0+0], %rd4;
  .param .b64 param1;
  st.param.b64 [param1+0], %rd1;
  .param .b32 retval0;
  call.uni (retval0), vprintf, (param0, param1);
  ld.param.b32 %r2, [retval0+0];
  }
  ret;
}

.visible .entry wide_printf()
{
  .local .align 8 .b8 __local_depot1[512];
  .reg .b64 %SP;
  .reg .b64 %SPL;
  .reg .b64 %rd<5>;
  mov.u64 %SPL, __local_depot1;
  cvta.local.u64 %SP, %SPL;
  add.u64 %rd1, %SP, 0;
  mov.u64 %rd3, $wide;
  cvta.global.u64 %rd4, %rd3;
  {
  .param .b64 param0;
  st.param.b64 [param0+0], %rd4;
  .param .b64 param1;
  st.param.b64 [param1+0], %rd1;
  .param .b32 retval0;
  call.uni (retval0), vprintf, (param0, param1);
  }
  ret;
}

.visible .entry loop_printf(.param .u32 n)
{
  .local .align 8 .b8 __local_depot2[8];
  .reg .b64 %SP;
  .reg .b64 %SPL;
  .reg .b32 %r<4>;
  .reg .b64 %rd<5>;
  .reg .pred %p<2>;
  mov.u64 %SPL, __local_depot2;
  cvta.local.u64 %SP, %SPL;
  ld.param.u32 %r1, [n];
  mov.u32 %r2, 0;
  add.u64 %rd1, %SP, 0;
  add.u64 %rd2, %SPL, 0;
  mov.u64 %rd3, $each;
  cvta.global.u64 %rd4, %rd3;
$L_print:
  st.local.u32 [%rd2], %r2;
  {
  .param .b64 param0;
  st.param.b64 [param0+0], %rd4;
  .param .b64 param1;
  st.param.b64 [param1+0], %rd1;
  .param .b32 retval0;
  call.uni (retval0), vprintf, (param0, param1);
  }
  add.u32 %r2, %r2, 1;
  setp.lt.u32 %p1, %r2, %r1;
  @%p1 bra $L_print;
  ret;
}
)";
}

}  // namespace

TEST_CASE("228 printf: a width or precision past 512 is formatted as 512, at once") {
  test::Sim s(kernels(), "printf_limits.ptx");
  const auto t0 = std::chrono::steady_clock::now();
  // n = 42, v = 1.5 (its bits)
  auto r = s.run("one_printf", {1, 1, 1}, {2, 1, 1}, {42, 0x3ff8000000000000ull});
  REQUIRE_FALSE(r.fault);
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(5));
  char want[2048];
  const int n = std::snprintf(want, sizeof want, "%512d|%.512f\n", 42, 1.5);
  REQUIRE(n == 512 + 1 + 514 + 1);
  CHECK(s.mem.take_printf() == std::string(want) + want);  // two threads, one line each
}

TEST_CASE("228 printf: one call's text is cut at 16 KiB, with a note") {
  test::Sim s(kernels(), "printf_limits.ptx");
  auto r = s.run("wide_printf", {1, 1, 1}, {1, 1, 1}, {});
  REQUIRE_FALSE(r.fault);
  const std::string out = s.mem.take_printf();
  // Forty fields of 512 characters (20,480) are more than 16,384: the first 16,384 are kept.
  char field[600];
  std::snprintf(field, sizeof field, "%512d", 0);
  std::string want;
  while (want.size() < 16384) want += field;
  want.resize(16384);
  REQUIRE(out.size() > 16384);
  CHECK(out.substr(0, 16384) == want);
  CHECK(out.substr(16384) ==
        "... (cut: the simulator keeps at most 16384 bytes of one printf call)\n");
}

TEST_CASE("228 printf: a loop past the launch's 64 MiB budget stops as a hang") {
  test::Sim s(kernels(), "printf_limits.ptx");
  // 10^6 lines of 501 bytes = 501 MB: past the budget after 64 MiB / 501 = 133,949 lines.
  func::FunctionalOptions opts;
  opts.max_warp_instructions = 0;
  auto r = s.run("loop_printf", {1, 1, 1}, {1, 1, 1}, {1000000}, 0, opts);
  REQUIRE(r.fault);
  CHECK(r.fault->kind == LaunchFault::Kind::Hang);
  CHECK(r.fault->message.find("its printf calls produced more than 64 MiB of text in this "
                              "launch") != std::string::npos);
  const std::string out = s.mem.take_printf();
  // The 1 MiB buffer holds the first 2,092 lines whole; the note counts the calls dropped.
  const size_t kept = (size_t{1} << 20) / 501;
  char first[600];
  std::snprintf(first, sizeof first, "%500d\n", 0);
  CHECK(out.substr(0, 501) == first);
  const uint64_t made = ((uint64_t{64} << 20) / 501) + 1;  // the call that passed the budget
  CHECK(out.substr(kept * 501) == "(" + std::to_string(made - kept) +
                                      " printf call(s) dropped: the 1 MiB printf buffer was "
                                      "full, as the GPU's would be)\n");
}
