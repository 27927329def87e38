// The PTX lexer: tokens, comments, literals, line numbers.
#include <doctest/doctest.h>

#include "sim/ptx/lexer.h"

using warplab::ptx::Token;
using warplab::ptx::tokenize;

namespace {
std::vector<std::string> texts(const std::vector<Token>& toks) {
  std::vector<std::string> out;
  for (const Token& t : toks)
    if (t.kind != Token::Kind::End) out.emplace_back(t.text);
  return out;
}
}  // namespace

TEST_CASE("101 lexer: dotted mnemonics stay whole, directives split at dots") {
  auto toks = tokenize("ld.global.nc.v4.f32 {%f1,_}, [%rd1+-4]; .reg.b32 x;", "t.ptx");
  REQUIRE(toks);
  CHECK(texts(*toks) == std::vector<std::string>{"ld.global.nc.v4.f32", "{", "%f1", ",", "_", "}",
                                                 ",", "[", "%rd1", "+", "-", "4", "]", ";", ".reg",
                                                 ".b32", "x", ";"});
  CHECK(toks->back().kind == Token::Kind::End);
}

TEST_CASE("101 lexer: :: joins state-space qualifiers, a single ':' ends a label") {
  auto toks = tokenize("$L__BB0_1:\n ld.shared::cta.u32 %r1, [x];", "t.ptx");
  REQUIRE(toks);
  CHECK((*toks)[0].text == "$L__BB0_1");
  CHECK((*toks)[1].is(':'));
  CHECK((*toks)[2].text == "ld.shared::cta.u32");
  CHECK((*toks)[2].line == 2);
}

TEST_CASE("101 lexer: numbers keep their raw text") {
  auto toks = tokenize("0f3F800000 0d3FF0000000000000 0x1FU 017 42U 1.5e-3 9.0", "t.ptx");
  REQUIRE(toks);
  CHECK(texts(*toks) == std::vector<std::string>{"0f3F800000", "0d3FF0000000000000", "0x1FU", "017",
                                                 "42U", "1.5e-3", "9.0"});
  for (size_t i = 0; i + 1 < toks->size(); ++i) CHECK((*toks)[i].kind == Token::Kind::Number);
}

TEST_CASE("101 lexer: comments are skipped and lines still counted") {
  auto toks = tokenize("a // one\n/* two\nthree */ b\n\"s t\" c", "t.ptx");
  REQUIRE(toks);
  REQUIRE(toks->size() == 5);
  CHECK((*toks)[0].line == 1);
  CHECK((*toks)[1].text == "b");
  CHECK((*toks)[1].line == 3);
  CHECK((*toks)[2].kind == Token::Kind::String);
  CHECK((*toks)[2].text == "s t");
  CHECK((*toks)[3].line == 4);
}

TEST_CASE("101 lexer: errors name the line") {
  auto a = tokenize("x\n/* never closed", "bad.ptx");
  REQUIRE(!a);
  CHECK(a.error().line == 2);
  CHECK(a.error().file == "bad.ptx");
  CHECK(a.error().message.find("unterminated") != std::string::npos);
  auto b = tokenize("x\ny\n\"open", "bad.ptx");
  REQUIRE(!b);
  CHECK(b.error().line == 3);
  auto c = tokenize("add # 3", "bad.ptx");
  REQUIRE(!c);
  CHECK(c.error().message.find("'#'") != std::string::npos);
}
