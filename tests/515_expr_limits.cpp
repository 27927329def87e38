// Hostile expressions in experiment files: overflow, INT64_MIN / -1, deep nesting and huge sums
// give clear errors instead of undefined behaviour, a crash or a stack overflow (lab/expr.cpp).
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "lab/elem_type.h"
#include "lab/experiment.h"
#include "lab/expr.h"
#include "lab/npy.h"

using namespace warplab;
using namespace warplab::lab;

namespace {
Expected<Value> eval(const std::string& text) {
  auto e = Expr::parse(text);
  if (!e) return e.error();
  return e->eval(Env{});
}
}  // namespace

TEST_CASE("515 integer overflow, division and remainder edge cases") {
  auto a = eval("-9223372036854775807 - 1");  // INT64_MIN, built without overflow
  REQUIRE(a);
  CHECK(a->i == INT64_MIN);
  for (const char* bad : {"(-9223372036854775807 - 1) / -1", "9223372036854775807 + 1",
                          "-(-9223372036854775807 - 1)", "4611686018427387904 * 2",
                          "(-9223372036854775807 - 1) - 1", "cdiv(9223372036854775807, 2)"}) {
    INFO(bad);
    auto v = eval(bad);
    REQUIRE_FALSE(v);
    CHECK(v.error().message.find("overflow") != std::string::npos);
  }
  auto r = eval("(-9223372036854775807 - 1) % -1");
  REQUIRE(r);
  CHECK(r->i == 0);
  CHECK_FALSE(eval("7 / 0"));
  CHECK(eval("cdiv(1000, 256)")->i == 4);
}

TEST_CASE("515 deep nesting and long sums are errors, not stack overflows") {
  const std::string deep = std::string(10000, '(') + "1" + std::string(10000, ')');
  auto d = eval(deep);
  REQUIRE_FALSE(d);
  CHECK(d.error().message.find("nested too deeply") != std::string::npos);
  std::string sum = "1";
  for (int i = 0; i < 200000; ++i) sum += "+1";
  auto s = eval(sum);
  REQUIRE_FALSE(s);
  CHECK(s.error().message.find("too long") != std::string::npos);
  std::string ok = "1";
  for (int i = 0; i < 1000; ++i) ok += "+1";
  CHECK(eval(ok)->i == 1001);
}

TEST_CASE("515 buffer and parameter names are plain names (nothing writes outside --dump DIR)") {
  const std::string head = "[experiment]\nptx = \"calibration.ptx\"\n";
  const std::string at = std::string(WARPLAB_SOURCE_DIR) + "/lessons/calibration/t.toml";
  for (const char* bad : {"../../outside", "a/b", "", ".hidden", "1x"}) {
    INFO(bad);
    auto e = parse_experiment(
        head + "[[buffers]]\nname = \"" + bad + "\"\ntype = \"f32\"\ncount = 4\n", at);
    REQUIRE_FALSE(e);
    CHECK(e.error().line == 4);
    CHECK(e.error().message.find("plain name") != std::string::npos);
  }
  auto p = parse_experiment(head + "[params]\n\"\" = 1\n", at);
  REQUIRE_FALSE(p);
  CHECK(p.error().message.find("parameter name") != std::string::npos);
}

namespace {
std::vector<uint8_t> npy(const std::string& shape, size_t data_bytes) {
  std::string h = "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape + ", }";
  while ((10 + h.size() + 1) % 64) h += ' ';
  h += '\n';
  std::vector<uint8_t> b = {0x93,
                            'N',
                            'U',
                            'M',
                            'P',
                            'Y',
                            1,
                            0,
                            static_cast<uint8_t>(h.size() & 0xFF),
                            static_cast<uint8_t>(h.size() >> 8)};
  b.insert(b.end(), h.begin(), h.end());
  b.resize(b.size() + data_bytes, 0);
  return b;
}
}  // namespace

TEST_CASE("515 hostile .npy headers: negative, overflowing, endless or lying shapes") {
  CHECK(parse_npy(npy("(4,)", 16), "ok.npy"));
  for (const std::string& shape :
       {std::string("(-1,)"), std::string("(1099511627776, 1099511627776)"),
        std::string("(99999999999999999999999,)"), std::string("(8,)")}) {
    INFO(shape);
    auto a = parse_npy(npy(shape, 16), "bad.npy");
    REQUIRE_FALSE(a);
    CHECK(a.error().file == "bad.npy");
  }
  std::string many = "(";
  for (int i = 0; i < 20000; ++i) many += "1, ";
  many += ")";
  auto m = parse_npy(npy(many, 16), "many.npy");
  REQUIRE_FALSE(m);
  CHECK(m.error().message.find("32 dimensions") != std::string::npos);
}

TEST_CASE("515 doubles outside the int64 range: no undefined conversion (found by libFuzzer)") {
  // A float literal keeps a saturated integer reading (1e79 was cast to int64: undefined).
  auto big =
      eval("11111111111111111111111111111111111111111111111111111111111111111111111111111.0");
  REQUIRE(big);
  CHECK(big->is_float);
  CHECK(big->i == INT64_MAX);
  CHECK(eval("-1e300")->i == INT64_MIN);
  CHECK(Value::saturate_int64(std::nan("")) == 0);
  for (const char* bad : {"int(1e19)", "int(-1e300)", "int(float(1) / 0)"}) {
    INFO(bad);
    auto v = eval(bad);
    if (v) FAIL("int() of an out-of-range value gave " << v->to_string());
  }
  CHECK(eval("int(-9.2e18)")->i == -9200000000000000000);
  // Stored into integer buffers: 2^64 and beyond (and +inf) saturate to all ones.
  uint8_t bytes[8];
  for (double v : {7.18459e22, 18446744073709551616.0, HUGE_VAL}) {
    store_elem(ElemType::U64, bytes, 0, v);
    CHECK(load_elem_int(ElemType::U64, bytes, 0) == -1);
    store_elem(ElemType::I32, bytes, 0, v);
    CHECK(load_elem_int(ElemType::I32, bytes, 0) == -1);
  }
  store_elem(ElemType::U64, bytes, 0, 1e19);
  CHECK(static_cast<uint64_t>(load_elem_int(ElemType::U64, bytes, 0)) == 10000000000000000000ull);
}
