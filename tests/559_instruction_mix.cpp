// Whole-kernel test: tests/data/instruction_mix.cu, a kernel built to make nvcc emit a broad mix
// (math library slow paths with madc carry chains, integer intrinsics, 64-bit arithmetic,
// half/bfloat16, warp shuffles, votes, match, redux, atomics of every kind, counting barriers,
// non-inlined device functions). Every result is recomputed here on the CPU from the inputs:
// bit for bit where CUDA defines the result exactly (integer intrinsics, IEEE operations, half and
// bfloat16 roundings, atomics, warp-level results), within the documented error bounds of CUDA's
// math library elsewhere (a few ulp; the fast intrinsics __expf/__sinf/... within 2^-20 or so).
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>

#include "55x_whole_kernel.h"

namespace {

using namespace warplab::test;

// Round-to-nearest-even from double to IEEE half, returning the value as a float.
float to_half(double v) { return static_cast<float>(static_cast<_Float16>(v)); }
uint16_t half_bits(double v) { return std::bit_cast<uint16_t>(static_cast<_Float16>(v)); }
// bfloat16: the top 16 bits of a float, rounded to nearest even or truncated.
float bf16_rn(float f) {
  uint32_t b = std::bit_cast<uint32_t>(f);
  b += 0x7FFFu + ((b >> 16) & 1u);
  return std::bit_cast<float>(b & 0xFFFF0000u);
}
float round_down(double v) {
  float f = static_cast<float>(v);
  if (static_cast<double>(f) > v) f = std::nextafter(f, -INFINITY);
  return f;
}
int clz32(uint32_t v) { return std::countl_zero(v); }
uint32_t funnel_l(uint32_t lo, uint32_t hi, uint32_t s) {
  const uint64_t v = (static_cast<uint64_t>(hi) << 32) | lo;
  return static_cast<uint32_t>((v << (s & 31)) >> 32);
}
uint32_t byte_perm(uint32_t x, uint32_t y, uint32_t s) {
  const uint64_t v = (static_cast<uint64_t>(y) << 32) | x;
  uint32_t r = 0;
  for (int n = 0; n < 4; ++n)
    r |= static_cast<uint32_t>((v >> (8 * ((s >> (4 * n)) & 7))) & 0xFF) << (8 * n);
  return r;
}

}  // namespace

namespace {

void check_instruction_mix(const std::vector<std::string>& nvrtc_options) {
  const int n = 2048, block = 256;
  auto run = run_lesson("tests/data/instruction_mix.toml",
                        {"N=" + std::to_string(n), "block=" + std::to_string(block)},
                        [&](warplab::lab::Experiment& e) { e.options = nvrtc_options; });
  if (!run) return;
  const auto xf = as_f32(run->buffer("xf"));
  const auto xd = as_vector<double>(run->buffer("xd"));
  const auto xi = as_i32(run->buffer("xi"));
  const auto of = as_f32(run->buffer("of"));
  const auto od = as_vector<double>(run->buffer("od"));
  const auto oi = as_vector<int64_t>(run->buffer("oi"));
  const auto oh = as_vector<uint16_t>(run->buffer("oh"));
  const auto ob = as_vector<uint16_t>(run->buffer("ob"));
  const auto cnt = as_u32(run->buffer("cnt"));
  const auto ones = as_u32(run->buffer("ones"));
  auto u_of = [&](int i) { return static_cast<uint32_t>(xi[i]) * 2654435761u; };

  int bad_exact = 0, bad_lib = 0, bad_fast = 0, bad_warp = 0, bad_double = 0, bad_int = 0;
  for (int i = 0; i < n; ++i) {
    const float x = xf[i];
    const double y = xd[i];
    const int a = xi[i];
    const uint32_t u = u_of(i);
    const int lane = i % 32, warp0 = i - lane, block0 = i - i % block;

    // IEEE-exact float operations: bit for bit.
    const float exact = std::fma(x, x, 1.0f) + std::sqrt(std::fabs(x)) + x / (x + 3.0f);
    if (std::bit_cast<uint32_t>(of[4 * i]) != std::bit_cast<uint32_t>(exact) && bad_exact++ < 3)
      MESSAGE("exact float ops at " << i << ": got " << of[4 * i] << ", expected " << exact);

    // The math library: each function within a few ulp; the sum's magnitude is below ~20.
    const double lib = std::exp(x) + std::log(std::fabs(x) + 1.0) + std::tanh(x) +
                       std::pow(std::fabs(x), 1.5) + 1.0 / std::sqrt(std::fabs(x) + 1.0) +
                       std::erf(x) + std::atan2(x, 1.0) + std::cbrt(x) +
                       std::sin(static_cast<double>(x * 40.0f)) + std::cos(x) + x * (a & 7) + 0.5;
    if (!(std::abs(of[4 * i + 1] - lib) <= 2e-5 + 2e-6 * std::abs(lib)) && bad_lib++ < 3)
      MESSAGE("math library at " << i << ": got " << of[4 * i + 1] << ", expected " << lib);

    // The fast intrinsics (ex2/lg2/sin/cos.approx, div.approx): within about 2^-20 absolute here.
    const double fast =
        std::exp(x) + std::sin(x) + std::cos(x) + std::log(std::fabs(x) + 1.0) + x / 3.0;
    if (!(std::abs(of[4 * i + 2] - fast) <= 1e-5) && bad_fast++ < 3)
      MESSAGE("fast intrinsics at " << i << ": got " << of[4 * i + 2] << ", expected " << fast);

    // Shuffles, a shared-memory neighbour, half and bfloat16: bit for bit in the kernel's order.
    const float down = lane < 31 ? xf[i + 1] : x, bfly = xf[warp0 + (lane ^ 2)], idx = xf[warp0],
                up = lane >= 3 ? xf[i - 3] : x;
    const float neighbour = xf[block0 + (i - block0 + 1) % block];
    const float hx = to_half(x);
    const float h = to_half(static_cast<double>(to_half(double(hx) + 0.25)) * hx);
    const float h2lo = to_half(double(h) * hx + 0.5), h2hi = to_half(1.5 * hx + 0.5);
    const float b = bf16_rn(bf16_rn(x) * 3.0f);
    const float mixed = ((((((down + bfly) + idx) + up) + neighbour) + h) + h2lo + h2hi) + b;
    if (std::bit_cast<uint32_t>(of[4 * i + 3]) != std::bit_cast<uint32_t>(mixed) && bad_warp++ < 3)
      MESSAGE("shuffles/half/bf16 at " << i << ": got " << of[4 * i + 3] << ", expected " << mixed);
    CHECK(of[4 * n + i] == 1.0f);  // the non-inlined bump()

    // Doubles: the library within a few ulp of a sum of magnitude < ~40; conversions exact.
    const double dd = std::exp(y) + std::log(std::fabs(y) + 1.0) + std::sqrt(std::fabs(y)) +
                      y / 3.0 + std::sin(y * 1e6) + std::cos(y) + std::fma(y, y, 1.0) +
                      std::nearbyint(y) + std::floor(y);
    const double dwant = dd + static_cast<double>(std::nearbyint(x * 10.0f)) + round_down(y) +
                         static_cast<double>(static_cast<long long>(std::trunc(x * 1e5f))) +
                         static_cast<double>(round_down(static_cast<double>(u)));
    if (!(std::abs(od[i] - dwant) <= 1e-12 * (1 + std::abs(dwant))) && bad_double++ < 3)
      MESSAGE("doubles at " << i << ": got " << od[i] << ", expected " << dwant);

    // Integer intrinsics and 64-bit arithmetic: exact.
    long long s = std::popcount(u) + clz32(static_cast<uint32_t>(a)) + static_cast<int>([&] {
                    uint32_t r = 0;
                    for (int k = 0; k < 32; ++k) r |= ((u >> k) & 1u) << (31 - k);
                    return r >> 16;
                  }()) +
                  (a == 0 ? 0 : std::countr_zero(static_cast<uint32_t>(a)) + 1) + a / 7 + a % 5 +
                  std::abs(a) + std::min(a, 5) + std::max(a, -5) +
                  static_cast<int>(funnel_l(u, u + 1u, a & 31) >> 8) +
                  static_cast<int>(byte_perm(u, static_cast<uint32_t>(a), 0x5410) >> 4) + a * 3 +
                  static_cast<int>((static_cast<uint64_t>(u) * 17u) >> 32) + (std::abs(a - 3) + 1);
    const long long w = static_cast<long long>(a) * 1000003LL;
    s += w * 3 + w / 5 + (w >> 3) + std::popcount(static_cast<uint64_t>(w)) +
         std::countl_zero(static_cast<uint64_t>(w)) +
         static_cast<long long>(
             static_cast<uint64_t>((static_cast<unsigned __int128>(static_cast<uint64_t>(w)) *
                                    0x9E3779B97F4A7C15ull) >>
                                   64) >>
             40);
    if (oi[3 * i] != s && bad_int++ < 3)
      MESSAGE("integer intrinsics at " << i << ": got " << oi[3 * i] << ", expected " << s);

    // Votes, match, redux within the warp; barrier count/or and the shared histogram in the block.
    uint32_t ballot = 0, match = 0;
    int any = 0, red = 0;
    for (int l = 0; l < 32; ++l) {
      ballot |= (xf[warp0 + l] > 0.0f ? 1u : 0u) << l;
      any |= xf[warp0 + l] > 0.5f;
      match |= ((xi[warp0 + l] & 3) == (a & 3) ? 1u : 0u) << l;
      red += xi[warp0 + l] & 7;
    }
    CHECK(oi[3 * i + 1] == static_cast<long long>(ballot) + any + 1 + match + red + 0xFFFFFFFFll);
    int positives = 0, big = 0, same = 0;
    for (int t = block0; t < block0 + block; ++t) {
      positives += xf[t] > 0.0f;
      big |= xf[t] > 0.9f;
      same += (xi[t] & 31) == (a & 31);
    }
    CHECK(oi[3 * i + 2] == positives + 1000 * big + 100000LL * same);
    CHECK(oh[i] == half_bits(x * 3.0f));
    CHECK(ob[i] == (std::bit_cast<uint32_t>(x * 3.0f) >> 16));
  }
  CHECK(bad_exact == 0);
  CHECK(bad_lib == 0);
  CHECK(bad_fast == 0);
  CHECK(bad_warp == 0);
  CHECK(bad_double == 0);
  CHECK(bad_int == 0);

  // Atomics: order-independent final values.
  int32_t mx = 0;
  uint32_t mn = 0xFFFFFFFFu, andv = 0xFFFFFFFFu, orv = 0, xorv = 0, inc = 0, dec = 0;
  uint64_t sum = 0;
  for (int i = 0; i < n; ++i) {
    const uint32_t u = u_of(i);
    mx = std::max(mx, xi[i]);
    mn = std::min(mn, u);
    andv &= u | 0x0F0F0F0Fu;
    orv |= u & 0x00010001u;
    xorv ^= u;
    sum += u;
    inc = inc >= 100 ? 0 : inc + 1;
    dec = (dec == 0 || dec > 100) ? 100 : dec - 1;
  }
  CHECK(cnt[0] == uint32_t(n));
  CHECK(cnt[1] == static_cast<uint32_t>(mx));
  CHECK(ones[0] == mn);
  CHECK(ones[1] == 7u);
  CHECK(cnt[4] == inc);
  CHECK(cnt[5] == dec);
  CHECK(ones[2] == andv);
  CHECK(cnt[7] == orv);
  CHECK(cnt[8] == xorv);
  CHECK(cnt[9] == 42u);
  CHECK(as_f32(run->buffer("cntf"))[0] == float(n));
  CHECK(as_vector<double>(run->buffer("cntd"))[0] == 0.5 * n);
  CHECK(as_vector<uint64_t>(run->buffer("cnt64"))[0] == sum);
}

}  // namespace

TEST_CASE("559 instruction mix: every result against the CPU") { check_instruction_mix({}); }

// -G: no optimisation, every variable in local memory, and the PTX carries .section debug blocks.
TEST_CASE("559 instruction mix compiled with -G (debug): the same results") {
  check_instruction_mix({"-G"});
}
