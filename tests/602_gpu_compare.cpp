// Comparing GPU buffers with simulator buffers: bit-exact and within tolerance. No GPU needed.
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "gpu/compare.h"

using namespace warplab::gpu;

namespace {
template <class T>
std::vector<uint8_t> bytes_of(const std::vector<T>& v) {
  std::vector<uint8_t> out(v.size() * sizeof(T));
  std::memcpy(out.data(), v.data(), out.size());
  return out;
}
}  // namespace

TEST_CASE("602 bit-exact: equal buffers pass, one flipped bit fails with index and both values") {
  std::vector<float> a = {1.0f, 2.0f, 3.0f, 4.0f};
  std::vector<float> b = a;
  auto same = compare_buffers(bytes_of(a), bytes_of(b), ElemType::F32, Tolerance::bit_exact());
  CHECK(same.passed);
  CHECK(same.elements == 4);
  CHECK(same.mismatches == 0);

  b[2] = std::nextafter(3.0f, 4.0f);  // one ulp off
  auto diff = compare_buffers(bytes_of(a), bytes_of(b), ElemType::F32, Tolerance::bit_exact());
  CHECK_FALSE(diff.passed);
  CHECK(diff.mismatches == 1);
  CHECK(diff.max_ulp_error == 1);
  REQUIRE(diff.worst.size() == 1);
  CHECK(diff.worst[0].index == 2);
  CHECK(diff.worst[0].gpu == "3 (0x40400000)");
  CHECK(diff.worst[0].sim == "3.00000024 (0x40400001)");
  CHECK(diff.summary("z").find("buffer z: 1 of 4 elements differ") == 0);
  CHECK(diff.summary("z").find("[2] gpu 3 (0x40400000) sim 3.00000024 (0x40400001)") !=
        std::string::npos);
}

TEST_CASE("602 bit-exact tells +0 from -0 and NaN payloads apart; tolerance mode does not") {
  std::vector<float> a = {0.0f, std::bit_cast<float>(0x7fffffffu)};
  std::vector<float> b = {-0.0f, std::bit_cast<float>(0x7fc00000u)};
  auto exact = compare_buffers(bytes_of(a), bytes_of(b), ElemType::F32, Tolerance::bit_exact());
  CHECK(exact.mismatches == 2);
  CHECK(exact.max_abs_error == 0);
  auto loose = compare_buffers(bytes_of(a), bytes_of(b), ElemType::F32, Tolerance::within(0));
  CHECK(loose.passed);
}

TEST_CASE("602 tolerance: absolute, relative and ulp bounds, any one suffices") {
  std::vector<float> gpu = {1.0f, 100.0f, 1e-3f};
  std::vector<float> sim = {1.0f + 1e-6f, 100.01f, std::nextafter(std::nextafter(1e-3f, 1.f), 1.f)};
  CHECK_FALSE(
      compare_buffers(bytes_of(gpu), bytes_of(sim), ElemType::F32, Tolerance::within(1e-7)).passed);
  CHECK(
      compare_buffers(bytes_of(gpu), bytes_of(sim), ElemType::F32, Tolerance::within(2e-2)).passed);
  // 100 vs 100.01 is 1e-4 relative; 1 vs 1+1e-6 is 8 ulp; 1e-3 is 2 ulp off.
  CHECK(compare_buffers(bytes_of(gpu), bytes_of(sim), ElemType::F32, Tolerance::within(0, 2e-4, 8))
            .passed);
  auto r = compare_buffers(bytes_of(gpu), bytes_of(sim), ElemType::F32, Tolerance::within(0, 0, 2));
  CHECK(r.mismatches == 2);  // elements 0 and 1
  CHECK(r.worst[0].index == 0);
  CHECK(r.worst[1].index == 1);
}

TEST_CASE("602 tolerance: NaN never matches a number, infinities must be equal") {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> gpu = {nan, inf, -inf, 1.0f};
  std::vector<float> sim = {1.0f, inf, inf, nan};
  auto r = compare_buffers(bytes_of(gpu), bytes_of(sim), ElemType::F32, Tolerance::within(1e30));
  CHECK(r.mismatches == 3);
  CHECK(std::isinf(r.max_abs_error));
}

TEST_CASE("602 integers, f64, f16 and size mismatches") {
  std::vector<int32_t> a = {1, -5, 7}, b = {1, -4, 7};
  auto ri = compare_buffers(bytes_of(a), bytes_of(b), ElemType::I32, Tolerance::bit_exact());
  CHECK(ri.mismatches == 1);
  CHECK(ri.worst[0].gpu == "-5");
  CHECK(ri.worst[0].sim == "-4");
  CHECK(ri.max_abs_error == 1);
  CHECK(compare_buffers(bytes_of(a), bytes_of(b), ElemType::I32, Tolerance::within(1)).passed);

  std::vector<double> d1 = {1.0}, d2 = {std::nextafter(1.0, 2.0)};
  auto rd = compare_buffers(bytes_of(d1), bytes_of(d2), ElemType::F64, Tolerance::bit_exact());
  CHECK(rd.max_ulp_error == 1);
  CHECK(rd.worst[0].sim == "1.0000000000000002 (0x3ff0000000000001)");

  std::vector<uint16_t> h1 = {0x3c00 /* 1.0 */}, h2 = {0x3c01};
  auto rh = compare_buffers(bytes_of(h1), bytes_of(h2), ElemType::F16, Tolerance::bit_exact());
  CHECK(rh.worst[0].gpu == "1 (0x3c00)");
  CHECK(rh.max_ulp_error == 1);

  std::vector<uint8_t> small = {1, 2, 3}, big = {1, 2, 3, 4};
  auto rs = compare_buffers(small, big, ElemType::U8, Tolerance::bit_exact());
  CHECK_FALSE(rs.passed);
  CHECK(rs.elements == 3);
  CHECK(rs.summary("x").find("sizes differ: gpu 3 bytes, sim 4 bytes") != std::string::npos);
}

TEST_CASE("602 ulp distance crosses zero and element names parse") {
  CHECK(ulp_distance_f32(0.0f, -0.0f) == 0);
  CHECK(ulp_distance_f32(std::bit_cast<float>(1u), std::bit_cast<float>(0x80000001u)) == 2);
  CHECK(ulp_distance_f64(1.0, 1.0) == 0);
  CHECK(parse_elem_type("f32") == ElemType::F32);
  CHECK(parse_elem_type("int32") == ElemType::I32);
  CHECK_FALSE(parse_elem_type("f128").has_value());
  CHECK(elem_type_name(ElemType::BF16) == "bf16");
  CHECK(elem_size(ElemType::U64) == 8);
}
