// Parameter-block marshalling and launch validation: what reaches cuLaunchKernel. No GPU needed.
#include <doctest/doctest.h>

#include <cstring>

#include "gpu/launcher.h"

using namespace warplab::gpu;

namespace {
template <class T>
T read_at(const std::vector<uint8_t>& bytes, size_t offset) {
  T v;
  std::memcpy(&v, bytes.data() + offset, sizeof v);
  return v;
}
}  // namespace

TEST_CASE("601 param block: each value at the next offset aligned to its size, as PTX lays it") {
  // vec_add(const float* x, const float* y, float* z, int n): three .u64 then a .u32.
  ParamBlock p;
  CHECK(p.add_buffer(0) == 0);
  CHECK(p.add_buffer(1) == 8);
  CHECK(p.add_buffer(2, 16) == 16);
  CHECK(p.add(int32_t{1 << 24}) == 24);
  CHECK(p.bytes().size() == 28);
  // A u8 then a double: the double skips to offset 8.
  ParamBlock q;
  CHECK(q.add(uint8_t{7}) == 0);
  CHECK(q.add(2.5) == 8);
  CHECK(q.add(uint16_t{3}) == 16);
  CHECK(q.bytes().size() == 18);
  CHECK(read_at<double>(q.bytes(), 8) == 2.5);
  // A struct by value with .align 16.
  const uint8_t blob[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  CHECK(q.add_bytes(blob, sizeof blob, 16) == 32);
  CHECK(q.bytes().size() == 44);
  CHECK(q.bytes()[32 + 11] == 12);
}

TEST_CASE("601 patch_params writes each buffer's device address (plus offset) at its slot") {
  ParamBlock p;
  p.add_buffer(0);
  p.add(float{1.5f});
  p.add_buffer(1, 64);
  GpuLaunch l;
  l.kernel = "k";
  p.fill(l);
  REQUIRE(l.buffer_params.size() == 2);
  auto out = patch_params(l, {0x7f0000001000ull, 0x7f0000200000ull});
  REQUIRE(out.has_value());
  CHECK(read_at<uint64_t>(*out, 0) == 0x7f0000001000ull);
  CHECK(read_at<float>(*out, 8) == 1.5f);
  CHECK(read_at<uint64_t>(*out, 16) == 0x7f0000200040ull);
  // The launch's own block is left untouched (placeholders stay zero).
  CHECK(read_at<uint64_t>(l.params, 0) == 0);
}

TEST_CASE("601 patch_params names a patch that points at a missing buffer or outside the block") {
  GpuLaunch l;
  l.kernel = "vec_add";
  l.params.resize(8);
  l.buffer_params = {{0, 3, 0}};
  auto bad_buffer = patch_params(l, {0x1000});
  REQUIRE_FALSE(bad_buffer.has_value());
  CHECK(bad_buffer.error().message.find("names buffer 3 but the launch has 1 buffers") !=
        std::string::npos);
  l.buffer_params = {{4, 0, 0}};
  auto outside = patch_params(l, {0x1000});
  REQUIRE_FALSE(outside.has_value());
  CHECK(outside.error().message.find("outside the 8-byte parameter block") != std::string::npos);
}

TEST_CASE("601 validate_launch rejects launches the driver would refuse, naming the kernel") {
  GpuLaunch l;
  l.kernel = "k";
  l.grid = {4, 1, 1};
  l.block = {256, 1, 1};
  CHECK(validate_launch(l).has_value());
  l.block = {1024, 2, 1};
  auto too_big = validate_launch(l);
  REQUIRE_FALSE(too_big.has_value());
  CHECK(too_big.error().message == "launch of k: block of 2048 threads (at most 1024)");
  l.block = {32, 1, 1};
  l.grid = {1, 0, 1};
  CHECK_FALSE(validate_launch(l).has_value());
  l.grid = {1, 70000, 1};
  CHECK_FALSE(validate_launch(l).has_value());
  l.grid = {1, 1, 1};
  l.kernel.clear();
  CHECK(validate_launch(l).error().message == "launch of <no kernel>: no kernel name");
}
