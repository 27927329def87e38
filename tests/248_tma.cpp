// TMA tensor copies, functionally: boxes of rank 1 to 5 loaded into shared memory through a
// tensor-map kernel parameter, with every swizzle mode, element strides, out-of-bounds zero and NaN
// fill; a store that skips the elements outside the tensor; a map built on the device with
// tensormap.replace and tensormap.cp_fenceproxy (Triton's way); and the faults of a bad map. The
// kernels are in 24x_tma_ptx.h. Every expected byte is computed here, element by element, from
// the definitions in the CUDA driver's and PTX ISA's documentation (the box is dense in shared
// memory, dimension 0 fastest; swizzle mode m XORs the 16-byte chunk index within each 128-byte
// row with the row index modulo 2^m), not by the simulator's planner.
#include <cmath>
#include <cstring>

#include "21x_sim.h"
#include "24x_tma_ptx.h"
#include "sim/func/tensormap.h"

using namespace warplab;
using warplab::test::Sim;

namespace {

// A box as the test describes it; to_map() encodes it for the kernel parameter.
struct Box {
  uint8_t elem = 7;  // PTX elemtype code (7: f32)
  uint32_t esize = 4;
  int rank = 2;
  uint64_t dim[5] = {1, 1, 1, 1, 1};
  uint64_t stride[5] = {0, 0, 0, 0, 0};  // bytes; [0] unused
  uint32_t box[5] = {1, 1, 1, 1, 1};
  uint32_t es[5] = {1, 1, 1, 1, 1};
  int swizzle = 0;
  bool nan_fill = false;

  func::TensorMap to_map(uint64_t address) const {
    func::TensorMap m;
    m.address = address;
    m.rank = static_cast<uint32_t>(rank);
    m.elem = elem;
    for (int i = 0; i < 5; ++i) {
      m.dim[i] = dim[i];
      m.stride[i] = i == 0 ? esize : stride[i];
      m.box[i] = box[i];
      m.estride[i] = es[i];
    }
    m.swizzle = static_cast<uint8_t>(swizzle);
    m.fill = nan_fill ? 1 : 0;
    return m;
  }
  uint32_t n(int i) const { return i < rank ? (box[i] + es[i] - 1) / es[i] : 1; }
  uint64_t bytes() const { return uint64_t{esize} * n(0) * n(1) * n(2) * n(3) * n(4); }
  uint64_t tensor_bytes() const {
    return (rank == 1 ? uint64_t{esize} : stride[rank - 1]) * dim[rank - 1] + 64;
  }
};

// The documented swizzle: the 16-byte chunk index within its 128-byte row XOR the row index
// modulo the span's chunk count.
uint64_t swizzled(uint64_t a, int mode) {
  if (mode == 0) return a;
  const uint64_t chunks = uint64_t{2} << (mode - 1);  // 2, 4, 8
  const uint64_t chunk = (a >> 4) & 7, row = a >> 7;
  return (a & ~uint64_t{0x70}) | ((chunk ^ (row % chunks)) << 4);
}

// Calls f(shared offset, global byte offset or -1 when outside the tensor) for each element.
template <class F>
void each_element(const Box& b, const int32_t* c, F&& f) {
  uint64_t lin = 0;
  for (uint32_t j4 = 0; j4 < b.n(4); ++j4)
    for (uint32_t j3 = 0; j3 < b.n(3); ++j3)
      for (uint32_t j2 = 0; j2 < b.n(2); ++j2)
        for (uint32_t j1 = 0; j1 < b.n(1); ++j1)
          for (uint32_t j0 = 0; j0 < b.n(0); ++j0, lin += b.esize) {
            const uint32_t j[5] = {j0, j1, j2, j3, j4};
            int64_t g = 0;
            bool in = true;
            for (int i = 0; i < b.rank; ++i) {
              const int64_t x = int64_t{c[i]} + int64_t{j[i]} * b.es[i];
              if (x < 0 || x >= static_cast<int64_t>(b.dim[i])) in = false;
              g += x * static_cast<int64_t>(i == 0 ? b.esize : b.stride[i]);
            }
            f(swizzled(lin, b.swizzle), in ? g : -1);
          }
}

std::vector<uint8_t> expect_load(const Box& b, const std::vector<uint8_t>& g, const int32_t* c) {
  std::vector<uint8_t> out(b.bytes(), 0xEE);
  const uint64_t nan = b.esize == 2 ? 0x7FFF : 0x7FFFFFFF;
  each_element(b, c, [&](uint64_t s, int64_t at) {
    REQUIRE(s + b.esize <= out.size());
    for (uint32_t k = 0; k < b.esize; ++k)
      out[s + k] = at >= 0 ? g[static_cast<size_t>(at) + k]
                           : (b.nan_fill ? static_cast<uint8_t>(nan >> (8 * k)) : 0);
  });
  return out;
}

std::vector<uint8_t> pattern(size_t n, uint32_t seed) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>((i * 131 + seed * 17 + (i >> 8)) & 0xFF);
  return v;
}

// Launches `kernel` with the map as its first parameter, then `rest`.
func::FunctionalResult launch(Sim& s, const std::string& kernel, const func::TensorMap& m,
                              const std::vector<uint64_t>& rest) {
  const ptx::Function* f = s.program->kernel(kernel);
  REQUIRE(f != nullptr);
  REQUIRE(f->params.size() == rest.size() + 1);
  std::vector<uint8_t> block(f->param_bytes);
  const auto enc = m.encode();
  std::memcpy(block.data() + f->params[0].offset, enc.data(), enc.size());
  for (size_t i = 0; i < rest.size(); ++i)
    std::memcpy(block.data() + f->params[i + 1].offset, &rest[i],
                std::min<size_t>(8, f->params[i + 1].size));
  func::LaunchConfig lc{kernel, {1, 1, 1}, {32, 1, 1}, 0, block};
  auto r = func::run_functional(*s.program, s.mem, lc, {});
  if (!r) FAIL("launch: " << r.error().to_string());
  return std::move(*r);
}

// Loads box `b` at `c` from a patterned tensor and compares the tile with expect_load.
void check_load(const Box& b, std::vector<int32_t> c, uint32_t seed = 1) {
  Sim s(test::tma_module(), "tma.ptx");
  const std::vector<uint8_t> g = pattern(b.tensor_bytes(), seed);
  const uint64_t G = s.buffer("tensor", g), O = s.buffer("out", std::vector<uint8_t>(b.bytes(), 0xCD));
  std::vector<uint64_t> rest{O, b.bytes()};
  for (int32_t x : c) rest.push_back(static_cast<uint32_t>(x));
  auto r = launch(s, "tma_load_" + std::to_string(b.rank) + "d", b.to_map(G), rest);
  REQUIRE_MESSAGE(!r.fault, (r.fault ? r.fault->message : ""));
  const auto want = expect_load(b, g, c.data());
  const auto got = s.read<uint8_t>(O, b.bytes());
  for (size_t i = 0; i < want.size(); ++i) REQUIRE_MESSAGE(got[i] == want[i], "byte " << i);
}

}  // namespace

TEST_CASE("248 TMA load: a 2D f32 box inside the tensor, no swizzle") {
  Box b;
  b.dim[0] = 40, b.dim[1] = 24, b.stride[1] = 160, b.box[0] = 16, b.box[1] = 8;
  check_load(b, {8, 4});
}

TEST_CASE("248 TMA load: each swizzle mode with its widest box row (32, 64, 128 bytes)") {
  for (int mode = 1; mode <= 3; ++mode) {
    CAPTURE(mode);
    Box b;
    b.elem = 6, b.esize = 2;  // f16
    b.dim[0] = 256, b.dim[1] = 64, b.stride[1] = 512;
    b.box[0] = (16u << mode) / 2, b.box[1] = 32;
    b.swizzle = mode;
    check_load(b, {64, 16}, static_cast<uint32_t>(mode));
  }
  Box b;  // 128B swizzle with a 64-byte row: two box rows per 128-byte row
  b.dim[0] = 64, b.dim[1] = 32, b.stride[1] = 256, b.box[0] = 16, b.box[1] = 16, b.swizzle = 3;
  check_load(b, {16, 8});
}

TEST_CASE("248 TMA load: boxes crossing the tensor's edges read zeros, or NaN with the NaN fill") {
  Box b;
  b.dim[0] = 20, b.dim[1] = 10, b.stride[1] = 80, b.box[0] = 16, b.box[1] = 8;
  check_load(b, {-4, 6});
  check_load(b, {12, -5});
  check_load(b, {40, 40});  // entirely outside: all fill
  b.nan_fill = true;
  check_load(b, {-4, 6});
  b.elem = 10, b.esize = 2;  // bf16
  b.dim[0] = 24, b.stride[1] = 48, b.box[0] = 16, b.swizzle = 1;
  check_load(b, {16, 3});
}

TEST_CASE("248 TMA load: rank 1, 3 (element strides) and 5") {
  Box one;
  one.rank = 1, one.dim[0] = 100, one.box[0] = 32;
  check_load(one, {80});
  Box three;
  three.rank = 3, three.elem = 1, three.esize = 2;
  three.dim[0] = 32, three.dim[1] = 6, three.dim[2] = 5;
  three.stride[1] = 64, three.stride[2] = 448;  // padded rows and planes
  three.box[0] = 8, three.box[1] = 4, three.box[2] = 3;
  three.es[1] = 2, three.es[2] = 2;
  check_load(three, {4, 1, -1});
  Box five;
  five.rank = 5, five.elem = 0, five.esize = 1;
  const uint64_t dims[5] = {32, 3, 2, 2, 3};
  for (int i = 0; i < 5; ++i) five.dim[i] = dims[i];
  five.stride[1] = 32, five.stride[2] = 96, five.stride[3] = 192, five.stride[4] = 384;
  const uint32_t box[5] = {16, 2, 2, 1, 2};
  for (int i = 0; i < 5; ++i) five.box[i] = box[i];
  check_load(five, {24, 2, 0, 1, 2});
}

TEST_CASE("248 TMA store: the box goes back un-swizzled; elements outside the tensor are skipped") {
  Sim s(test::tma_module(), "tma.ptx");
  Box b;
  b.dim[0] = 40, b.dim[1] = 12, b.stride[1] = 160, b.box[0] = 16, b.box[1] = 8, b.swizzle = 2;
  const std::vector<uint8_t> src = pattern(b.bytes(), 9);
  const std::vector<uint8_t> before(b.tensor_bytes(), 0x5A);
  const uint64_t G = s.buffer("tensor", before), S = s.buffer("src", src);
  const int32_t c[2] = {28, 8};
  auto r = launch(s, "tma_store_2d", b.to_map(G), {S, b.bytes(), 28, 8});
  REQUIRE_MESSAGE(!r.fault, (r.fault ? r.fault->message : ""));
  std::vector<uint8_t> want = before;
  int written = 0;
  each_element(b, c, [&](uint64_t sh, int64_t at) {
    if (at < 0) return;
    ++written;
    for (uint32_t k = 0; k < b.esize; ++k) want[static_cast<size_t>(at) + k] = src[sh + k];
  });
  CHECK(written == 12 * 4);  // columns 28..39, rows 8..11
  const auto got = s.read<uint8_t>(G, want.size());
  for (size_t i = 0; i < want.size(); ++i) REQUIRE_MESSAGE(got[i] == want[i], "byte " << i);
}

TEST_CASE("248 tensormap.replace + cp_fenceproxy: a map built on the device (Triton's way)") {
  Sim s(test::tma_module(), "tma.ptx");
  Box b;
  b.dim[0] = 48, b.dim[1] = 20, b.stride[1] = 192, b.box[0] = 16, b.box[1] = 8, b.swizzle = 2;
  const std::vector<uint8_t> g = pattern(b.tensor_bytes(), 5);
  const uint64_t G = s.buffer("tensor", g), Scratch = s.zeros<uint8_t>("scratch", 128),
                 O = s.zeros<uint8_t>("out", 512);
  auto r = s.run("tma_device_map", {1, 1, 1}, {128, 1, 1}, {Scratch, G, O, 48, 20, 32, 16});
  REQUIRE_MESSAGE(!r.fault, (r.fault ? r.fault->message : ""));
  const int32_t c[2] = {32, 16};
  const auto want = expect_load(b, g, c);
  const auto got = s.read<uint8_t>(O, 512);
  for (size_t i = 0; i < want.size(); ++i) REQUIRE_MESSAGE(got[i] == want[i], "byte " << i);
  // The published map is WarpLab's layout of the same tensor.
  const auto published = s.read<uint8_t>(Scratch, 128);
  const func::TensorMap m = func::TensorMap::decode(published.data());
  CHECK(m.address == G);
  CHECK(m.rank == 2);
  CHECK(m.box[0] == 16);
  CHECK(m.dim[1] == 20);
  CHECK(m.stride[1] == 192);
  CHECK(m.swizzle == 2);
  CHECK(m.check() == "");
}

TEST_CASE("248 TMA faults: a map that breaks the driver's rules, a rank that does not match") {
  Sim s(test::tma_module(), "tma.ptx");
  Box b;
  b.dim[0] = 40, b.dim[1] = 24, b.stride[1] = 160, b.box[0] = 16, b.box[1] = 8;
  const uint64_t G = s.zeros<uint8_t>("tensor", b.tensor_bytes()), O = s.zeros<uint8_t>("out", 4096);
  auto r = launch(s, "tma_load_3d", b.to_map(G), {O, b.bytes(), 0, 0, 0});
  REQUIRE(r.fault);
  CHECK(r.fault->message.find("rank 2 but the copy is .3d") != std::string::npos);
  Box wide = b;
  wide.box[0] = 300;
  r = launch(s, "tma_load_2d", wide.to_map(G), {O, 64, 0, 0});
  REQUIRE(r.fault);
  CHECK(r.fault->message.find("boxDim[0] = 300 must be 1..256") != std::string::npos);
  Box swz = b;
  swz.box[0] = 32, swz.swizzle = 1;  // a 128-byte row under the 32-byte swizzle
  r = launch(s, "tma_load_2d", swz.to_map(G), {O, 64, 0, 0});
  REQUIRE(r.fault);
  CHECK(r.fault->message.find("exceeds the 32-byte swizzle span") != std::string::npos);
  Box odd = b;
  odd.stride[1] = 168;
  r = launch(s, "tma_load_2d", odd.to_map(G), {O, 64, 0, 0});
  REQUIRE(r.fault);
  CHECK(r.fault->message.find("multiple of 16") != std::string::npos);
}

TEST_CASE("248 tensormap layout: encode and decode agree; field offsets stay inside the map") {
  Box b;
  b.rank = 4, b.elem = 10, b.esize = 2, b.swizzle = 3, b.nan_fill = true;
  for (int i = 0; i < 4; ++i) b.dim[i] = 10 + i, b.box[i] = 2 + i, b.es[i] = 1 + i % 2;
  b.stride[1] = 32, b.stride[2] = 512, b.stride[3] = 8192;
  const func::TensorMap m = b.to_map(0x1000);
  const auto bytes = m.encode();
  const func::TensorMap d = func::TensorMap::decode(bytes.data());
  CHECK(d.address == 0x1000);
  CHECK(d.rank == 4);
  CHECK(d.elem == 10);
  CHECK(d.stride[0] == 2);
  for (int i = 0; i < 4; ++i) {
    CHECK(d.dim[i] == m.dim[i]);
    CHECK(d.box[i] == m.box[i]);
    CHECK(d.estride[i] == m.estride[i]);
    if (i) CHECK(d.stride[i] == m.stride[i]);
  }
  CHECK(d.swizzle == 3);
  CHECK(d.fill == 1);
  for (int field = 0; field <= 10; ++field)
    for (uint32_t ord = 0; ord < 5; ++ord) {
      uint32_t n = 0;
      const int off = func::tensormap_field_offset(field, ord, n);
      if (off >= 0) CHECK(static_cast<uint32_t>(off) + n <= 128u);
    }
}
