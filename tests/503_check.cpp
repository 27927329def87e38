// Check tolerance logic (lab/check.h).
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "lab/check.h"

using namespace warplab::lab;

namespace {
HostBuffer f32(const std::string& name, std::vector<float> v) {
  HostBuffer b{name, ElemType::F32, v.size(), std::vector<uint8_t>(v.size() * 4)};
  std::memcpy(b.bytes.data(), v.data(), b.bytes.size());
  return b;
}
HostBuffer i32(const std::string& name, std::vector<int32_t> v) {
  HostBuffer b{name, ElemType::I32, v.size(), std::vector<uint8_t>(v.size() * 4)};
  std::memcpy(b.bytes.data(), v.data(), b.bytes.size());
  return b;
}
CheckDef rule(double atol, double rtol, bool exact = false, int show = 8) {
  CheckDef c;
  c.atol = atol;
  c.rtol = rtol;
  c.exact = exact;
  c.show = show;
  return c;
}
const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();
}  // namespace

TEST_CASE("503 check: equal buffers pass with zero errors") {
  auto r = compare_buffers(rule(0, 0), f32("z", {1, 2, 3}), f32("ref", {1, 2, 3}));
  CHECK(r.passed);
  CHECK(r.max_abs_error == 0);
  CHECK(r.max_rel_error == 0);
  CHECK(r.count == 3);
}

TEST_CASE("503 check: |got - expected| <= atol + rtol * |expected|") {
  HostBuffer got = f32("z", {1.0f, 100.5f, 0.0f});
  HostBuffer exp = f32("ref", {1.0f, 100.0f, 0.0f});
  CHECK_FALSE(compare_buffers(rule(0.1, 0), got, exp).passed);
  CHECK(compare_buffers(rule(0.5, 0), got, exp).passed);
  CHECK(compare_buffers(rule(0, 0.005), got, exp).passed);
  CHECK_FALSE(compare_buffers(rule(0, 0.004), got, exp).passed);
  auto r = compare_buffers(rule(0, 0), got, exp);
  CHECK(r.max_abs_error == doctest::Approx(0.5));
  CHECK(r.max_rel_error == doctest::Approx(0.005));
  CHECK(r.mismatch_count == 1);
  REQUIRE(r.mismatches.size() == 1);
  CHECK(r.mismatches[0].index == 1);
  CHECK(r.mismatches[0].got == 100.5);
  CHECK(r.mismatches[0].expected == 100.0);
}

TEST_CASE("503 check: worst mismatches first, at most `show`") {
  auto r = compare_buffers(rule(0, 0, false, 2), f32("z", {1, 5, 3, 10, 2}),
                           f32("ref", {0, 0, 0, 0, 0}));
  CHECK(r.mismatch_count == 5);
  REQUIRE(r.mismatches.size() == 2);
  CHECK(r.mismatches[0].index == 3);
  CHECK(r.mismatches[1].index == 1);
  CHECK(std::isinf(r.max_rel_error));  // expected 0, got nonzero
}

TEST_CASE("503 check: NaN, Inf and signed zero") {
  CHECK(compare_buffers(rule(0, 0), f32("z", {kNaN}), f32("r", {kNaN})).passed);
  auto nan_vs_num = compare_buffers(rule(1, 1), f32("z", {kNaN}), f32("r", {1}));
  CHECK_FALSE(nan_vs_num.passed);
  CHECK(std::isinf(nan_vs_num.max_abs_error));
  CHECK(compare_buffers(rule(0, 0), f32("z", {kInf}), f32("r", {kInf})).passed);
  CHECK_FALSE(compare_buffers(rule(1e30, 0), f32("z", {kInf}), f32("r", {-kInf})).passed);
  CHECK_FALSE(compare_buffers(rule(1e30, 0), f32("z", {kInf}), f32("r", {1})).passed);
  CHECK(compare_buffers(rule(0, 0), f32("z", {-0.0f}), f32("r", {0.0f})).passed);
  CHECK_FALSE(compare_buffers(rule(0, 0, true), f32("z", {-0.0f}), f32("r", {0.0f})).passed);
}

TEST_CASE("503 check: exact compares bits; integers compare as integers") {
  float a = 1.0f, b = std::nextafter(1.0f, 2.0f);
  CHECK(compare_buffers(rule(1e-6, 0), f32("z", {a}), f32("r", {b})).passed);
  CHECK_FALSE(compare_buffers(rule(0, 0, true), f32("z", {a}), f32("r", {b})).passed);
  CHECK(compare_buffers(rule(0, 0, true), i32("z", {-5, 7}), i32("r", {-5, 7})).passed);
  auto r = compare_buffers(rule(0, 0), i32("z", {-5, 8}), i32("r", {-5, 7}));
  CHECK_FALSE(r.passed);
  CHECK(r.max_abs_error == 1);
  CHECK(compare_buffers(rule(1, 0), i32("z", {-5, 8}), i32("r", {-5, 7})).passed);
}

TEST_CASE("503 check: different lengths fail with a note") {
  auto r = compare_buffers(rule(0, 0), f32("z", {1, 2}), f32("r", {1, 2, 3}));
  CHECK_FALSE(r.passed);
  CHECK(r.note.find("2 elements") != std::string::npos);
}
