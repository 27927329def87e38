// NumPy .npy I/O and buffer initialisation (lab/npy.h, lab/buffers.h).
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <filesystem>

#include "lab/buffers.h"
#include "lab/npy.h"

using namespace warplab::lab;

namespace {
ParamDef param_def(const std::string& name, Value v) {
  ParamDef p;
  p.name = name;
  p.value = v;
  return p;
}
}  // namespace

TEST_CASE("502 npy: round trip for every element type and shape") {
  auto dir = std::filesystem::temp_directory_path() / "warplab_502";
  std::filesystem::create_directories(dir);
  for (ElemType t :
       {ElemType::F16, ElemType::F32, ElemType::F64, ElemType::I8, ElemType::I16, ElemType::I32,
        ElemType::I64, ElemType::U8, ElemType::U16, ElemType::U32, ElemType::U64}) {
    CAPTURE(elem_type_name(t));
    NpyArray a{t, {3, 5}, {}};
    a.data.resize(15 * elem_size(t));
    for (uint64_t i = 0; i < 15; ++i)
      store_elem(t, a.data.data(), i, static_cast<double>(i) - 3.0 * elem_is_signed(t));
    std::string path = (dir / (std::string(elem_type_name(t)) + ".npy")).string();
    REQUIRE(write_npy(path, a).has_value());
    auto b = read_npy(path);
    REQUIRE_MESSAGE(b.has_value(), (b ? "" : b.error().to_string()));
    CHECK(b->type == t);
    CHECK(b->shape == std::vector<uint64_t>{3, 5});
    CHECK(b->data == a.data);
    auto raw = encode_npy(a);
    CHECK((raw.size() - a.data.size()) % 64 == 0);  // header padded to 64 bytes
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("502 npy: header as numpy writes it, and bad files") {
  NpyArray a{ElemType::F32, {4}, std::vector<uint8_t>(16, 0)};
  auto raw = encode_npy(a);
  std::string header(raw.begin() + 10, raw.end() - 16);
  CHECK(header.find("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }") == 0);
  CHECK(header.back() == '\n');
  std::vector<uint8_t> bad = raw;
  bad[1] = 'X';
  CHECK_FALSE(parse_npy(bad, "x.npy").has_value());
  std::vector<uint8_t> truncated(raw.begin(), raw.end() - 4);
  auto t = parse_npy(truncated, "x.npy");
  REQUIRE_FALSE(t.has_value());
  CHECK(t.error().to_string().find("x.npy") == 0);
  std::string fortran = std::string(raw.begin(), raw.end());
  fortran.replace(fortran.find("False"), 5, "True ");
  CHECK_FALSE(parse_npy(std::vector<uint8_t>(fortran.begin(), fortran.end()), "f.npy").has_value());
  CHECK_FALSE(read_npy("/nonexistent/x.npy").has_value());
}

TEST_CASE("502 npy: the checked-in test file reads") {
  auto a = read_npy(std::string(WARPLAB_SOURCE_DIR) + "/tests/data/vec_add_expected.npy");
  REQUIRE(a.has_value());
  CHECK(a->count() == 1000);
  float v;
  std::memcpy(&v, a->data.data() + 4 * 999, 4);
  CHECK(v == 999.5f);
}

TEST_CASE("502 buffers: SplitMix64 matches the published reference values") {
  // Reference output of splitmix64 seeded with 1234567 (Vigna's splitmix64.c).
  uint64_t state = 1234567;
  CHECK(splitmix64_next(state) == 6457827717110365317ull);
  CHECK(splitmix64_next(state) == 3203168211198807973ull);
  CHECK(splitmix64_next(state) == 9817491932198370423ull);
}

TEST_CASE("502 buffers: every init kind") {
  Experiment exp;
  exp.path = "t.toml";
  exp.params.push_back(param_def("N", Value::integer(10000)));
  auto def = [](const std::string& name, ElemType t, BufferInit init) {
    BufferDef b;
    b.name = name;
    b.type = t;
    b.count = *Expr::parse("N");
    b.init = init;
    return b;
  };
  BufferInit zeros, constant, iota, uni, uni_int;
  constant.kind = BufferInit::Kind::Constant;
  constant.constant = 1.5;
  iota.kind = BufferInit::Kind::Iota;
  iota.start = 10;
  iota.step = -1;
  uni.kind = BufferInit::Kind::Uniform;
  uni.lo = -1;
  uni.hi = 1;
  uni.seed = 7;
  uni_int = uni;
  uni_int.lo = 0;
  uni_int.hi = 4;
  exp.buffers = {def("z", ElemType::F32, zeros), def("c", ElemType::F64, constant),
                 def("i", ElemType::I32, iota),  def("u", ElemType::F32, uni),
                 def("h", ElemType::F16, uni),   def("k", ElemType::U8, uni_int)};
  auto bufs = make_buffers(exp, exp.env());
  REQUIRE_MESSAGE(bufs.has_value(), (bufs ? "" : bufs.error().to_string()));
  const auto& b = *bufs;
  CHECK(b[0].count == 10000);
  CHECK(b[0].at(9999) == 0.0);
  CHECK(b[1].at(5) == 1.5);
  CHECK(b[2].at(0) == 10);
  CHECK(b[2].at(20) == -10);
  double sum = 0;
  for (int k : {3, 4}) {
    for (uint64_t i = 0; i < b[k].count; ++i) {
      double v = b[k].at(i);
      REQUIRE(v >= -1.0);
      REQUIRE(v < 1.0);
      if (k == 3) sum += v;
    }
  }
  CHECK(std::fabs(sum / 10000) < 0.05);
  int seen[4] = {0, 0, 0, 0};
  for (uint64_t i = 0; i < b[5].count; ++i) {
    REQUIRE(b[5].at(i) < 4);
    ++seen[static_cast<int>(b[5].at(i))];
  }
  for (int s : seen) CHECK(s > 2000);
  // Deterministic: the same seed gives the same bytes.
  auto again = make_buffers(exp, exp.env());
  CHECK((*again)[3].bytes == b[3].bytes);
  // The first uniform value follows from the documented formula.
  uint64_t state = 7;
  double u = static_cast<double>(splitmix64_next(state) >> 11) * 0x1.0p-53;
  CHECK(b[3].at(0) == static_cast<float>(-1.0 + 2.0 * u));
}

TEST_CASE("502 buffers: errors name the buffer's line") {
  Experiment exp;
  exp.path = "t.toml";
  BufferDef b;
  b.name = "x";
  b.count = *Expr::parse("M");
  b.line = 12;
  exp.buffers.push_back(b);
  auto r = make_buffers(exp, {});
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().line == 12);
  CHECK(r.error().message.find("buffers[0] (x): count") != std::string::npos);
}

TEST_CASE("502 buffers: more than the machine can hold is refused before anything is allocated") {
  Experiment exp;
  exp.path = "big.toml";
  // 64 buffers of 16 GiB each: 1 TiB, twice that during a run; no machine running this has it.
  for (int k = 0; k < 64; ++k) {
    BufferDef b;
    b.name = "b" + std::to_string(k);
    b.type = ElemType::F32;
    b.count = *Expr::parse("4 * 1024 * 1024 * 1024");
    b.line = 10 + k;
    exp.buffers.push_back(b);
  }
  auto r = make_buffers(exp, {});
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().file == "big.toml");
  CHECK(r.error().line == 10);
  CHECK(r.error().message.find("need 1024.0 GiB of buffers") != std::string::npos);
  CHECK(r.error().message.find("available") != std::string::npos);
}

TEST_CASE("502 buffers: a count whose byte size wraps past 2^64 is refused, for every init kind") {
  // 2^62 f32 elements are 2^64 bytes: 0 once wrapped, which passed the 16 GiB check and then
  // had zeros/constant/iota/uniform written far past a zero-byte allocation.
  for (BufferInit::Kind kind : {BufferInit::Kind::Zeros, BufferInit::Kind::Constant,
                                BufferInit::Kind::Iota, BufferInit::Kind::Uniform}) {
    for (const char* count :
         {"4611686018427387904", "4611686018427387905", "9223372036854775807"}) {
      INFO(count);
      Experiment exp;
      exp.path = "wrap.toml";
      BufferDef b;
      b.name = "x";
      b.type = ElemType::F32;
      b.count = *Expr::parse(count);
      b.init.kind = kind;
      b.line = 7;
      exp.buffers.push_back(b);
      auto r = make_buffers(exp, {});
      REQUIRE_FALSE(r.has_value());
      CHECK(r.error().file == "wrap.toml");
      CHECK(r.error().line == 7);
      CHECK(r.error().message.find("over the 16 GiB") != std::string::npos);
    }
  }
}
