// The tensor-core element types of experiment buffers: bf16, e4m3, e5m2 (lab/elem_type.h): their
// values, rounding from double, init (iota, uniform), and .npy files holding their raw bits.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>

#include "lab/buffers.h"
#include "lab/npy.h"

using namespace warplab::lab;

TEST_CASE("517 bf16/e4m3/e5m2: names, sizes, values and rounding to nearest even") {
  CHECK(parse_elem_type("bf16") == ElemType::BF16);
  CHECK(parse_elem_type("bfloat16") == ElemType::BF16);
  CHECK(parse_elem_type("e4m3") == ElemType::E4M3);
  CHECK(parse_elem_type("e5m2") == ElemType::E5M2);
  CHECK(elem_size(ElemType::BF16) == 2);
  CHECK(elem_size(ElemType::E4M3) == 1);
  CHECK(elem_is_float(ElemType::E5M2));
  CHECK(elem_type_names().find("bf16 e4m3 e5m2") != std::string::npos);
  uint8_t buf[8] = {};
  // bf16 1 + 2^-8 is a tie between 1 and 1 + 2^-7: even (1.0, 0x3F80); just above goes up.
  store_elem(ElemType::BF16, buf, 0, 1.0 + std::ldexp(1.0, -8));
  CHECK((buf[0] | buf[1] << 8) == 0x3F80);
  store_elem(ElemType::BF16, buf, 0, 1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40));
  CHECK((buf[0] | buf[1] << 8) == 0x3F81);  // straight from double: no f32 double rounding
  CHECK(load_elem(ElemType::BF16, buf, 0) == 1.0 + std::ldexp(1.0, -7));
  store_elem(ElemType::BF16, buf, 1, -3.0e38);
  CHECK(load_elem(ElemType::BF16, buf, 1) == -std::ldexp(226.0, 120));  // 1.765625 * 2^127
  store_elem(ElemType::E4M3, buf, 0, 448.0);
  CHECK(buf[0] == 0x7E);
  store_elem(ElemType::E4M3, buf, 1, -0.3);  // between 0.28125 and 0.3125: nearer 0.3125
  CHECK(load_elem(ElemType::E4M3, buf, 1) == -0.3125);
  store_elem(ElemType::E4M3, buf, 2, 1000.0);  // too large: NaN (e4m3 has no infinity)
  CHECK(std::isnan(load_elem(ElemType::E4M3, buf, 2)));
  store_elem(ElemType::E5M2, buf, 0, 1e6);  // too large: infinity
  CHECK(std::isinf(load_elem(ElemType::E5M2, buf, 0)));
  store_elem(ElemType::E5M2, buf, 1, 0.75);
  CHECK(buf[1] == 0x3A);  // 0.11 binary = 1.1 * 2^-1: exponent 14, fraction 10
}

TEST_CASE("517 bf16/e4m3/e5m2 buffers: iota and uniform init, npy files of raw bits") {
  Experiment exp;
  exp.path = "t.toml";
  auto def = [](const std::string& name, ElemType t, BufferInit init) {
    BufferDef b;
    b.name = name;
    b.type = t;
    b.count = *Expr::parse("1000");
    b.init = init;
    return b;
  };
  BufferInit iota, uni;
  iota.kind = BufferInit::Kind::Iota;
  iota.start = -8;
  iota.step = 0.25;
  uni.kind = BufferInit::Kind::Uniform;
  uni.lo = -1;
  uni.hi = 1;
  uni.seed = 3;
  exp.buffers = {def("a", ElemType::BF16, iota), def("b", ElemType::BF16, uni),
                 def("c", ElemType::E4M3, uni), def("d", ElemType::E5M2, uni)};
  auto bufs = make_buffers(exp, exp.env());
  REQUIRE_MESSAGE(bufs.has_value(), (bufs ? "" : bufs.error().to_string()));
  const auto& b = *bufs;
  CHECK(b[0].at(0) == -8.0);
  CHECK(b[0].at(33) == 0.25);  // -8 + 33/4, exact in bf16
  for (int k : {1, 2, 3}) {
    int below_zero = 0;
    for (uint64_t i = 0; i < b[k].count; ++i) {
      const double v = b[k].at(i);
      REQUIRE(v >= -1.0);
      REQUIRE(v < 1.0);  // half-open even after rounding (nudged below 1)
      below_zero += v < 0;
    }
    CHECK(below_zero > 400);
    CHECK(below_zero < 600);
  }

  // A bf16 buffer read from a '<u2' .npy of raw bits (what numpy users write), and one converted
  // from a float32 .npy.
  auto dir = std::filesystem::temp_directory_path() / "warplab_517";
  std::filesystem::create_directories(dir);
  NpyArray bits{ElemType::U16, {3}, {}};
  const uint16_t raw[3] = {0x3F80, 0xC000, 0x3E80};  // 1, -2, 0.25
  bits.data.assign(reinterpret_cast<const uint8_t*>(raw),
                   reinterpret_cast<const uint8_t*>(raw) + 6);
  const std::string p_bits = (dir / "bits.npy").string();
  REQUIRE(write_npy(p_bits, bits).has_value());
  NpyArray f32{ElemType::F32, {3}, {}};
  const float vals[3] = {1.0f, -2.0f, 0.25f};
  f32.data.assign(reinterpret_cast<const uint8_t*>(vals),
                  reinterpret_cast<const uint8_t*>(vals) + 12);
  const std::string p_f32 = (dir / "f32.npy").string();
  REQUIRE(write_npy(p_f32, f32).has_value());
  BufferInit from_bits, from_f32;
  from_bits.kind = from_f32.kind = BufferInit::Kind::Npy;
  from_bits.npy_path = p_bits;
  from_f32.npy_path = p_f32;
  Experiment e2;
  e2.path = "t.toml";
  BufferDef x = def("x", ElemType::BF16, from_bits), y = def("y", ElemType::BF16, from_f32);
  x.count = *Expr::parse("3"), y.count = *Expr::parse("3");
  e2.buffers = {x, y};
  auto nb = make_buffers(e2, e2.env());
  REQUIRE_MESSAGE(nb.has_value(), (nb ? "" : nb.error().to_string()));
  for (int k : {0, 1}) {
    CHECK((*nb)[k].at(0) == 1.0);
    CHECK((*nb)[k].at(1) == -2.0);
    CHECK((*nb)[k].at(2) == 0.25);
  }
  // Written back, a bf16 buffer is a '<u2' file of the same bits.
  const auto out = encode_npy((*nb)[1].to_npy());
  const std::string header(out.begin() + 10, out.begin() + 30);
  CHECK(header.find("'<u2'") != std::string::npos);
  CHECK(std::equal(out.end() - 6, out.end(), bits.data.begin()));
  std::filesystem::remove_all(dir);
}
