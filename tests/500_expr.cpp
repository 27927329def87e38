// Expressions in experiment files (lab/expr.h).
#include <doctest/doctest.h>

#include "lab/expr.h"

using warplab::lab::Env;
using warplab::lab::Expr;
using warplab::lab::Value;

namespace {
Value eval(const std::string& text, const Env& env = {}) {
  auto e = Expr::parse(text);
  REQUIRE_MESSAGE(e.has_value(), (e ? "" : e.error().message));
  auto v = e->eval(env);
  REQUIRE_MESSAGE(v.has_value(), (v ? "" : v.error().message));
  return *v;
}
}  // namespace

TEST_CASE("500 expr: integer arithmetic follows C") {
  CHECK(eval("1 + 2 * 3").i == 7);
  CHECK(eval("(1 + 2) * 3").i == 9);
  CHECK(eval("7 / 2").i == 3);
  CHECK(eval("-7 / 2").i == -3);
  CHECK(eval("-7 % 3").i == -1);
  CHECK(eval("1 << 20").i == 1048576);
  CHECK(eval("1 << 4 + 1").i == 32);  // shifts bind looser than +, as in C
  CHECK(eval("256 >> 2").i == 64);
  CHECK(eval("0x100").i == 256);
  CHECK(eval("1_000_000").i == 1000000);
  CHECK_FALSE(eval("3").is_float);
}

TEST_CASE("500 expr: floats, functions and parameters") {
  Env env{{"N", Value::integer(1000)}, {"block", Value::integer(256)}, {"alpha", Value::real(0.5)}};
  CHECK(eval("cdiv(N, block)", env).i == 4);
  CHECK(eval("cdiv(1024, 256)").i == 4);
  CHECK(eval("min(N, block, 7)", env).i == 7);
  CHECK(eval("max(N, block)", env).i == 1000);
  CHECK(eval("pow2(10)").i == 1024);
  Value a = eval("alpha * N", env);
  CHECK(a.is_float);
  CHECK(a.f == 500.0);
  CHECK(eval("int(alpha * 3)", env).i == 1);
  CHECK(eval("7 / 2.0").f == 3.5);
  CHECK(eval("1.5e3").f == 1500.0);
  CHECK(eval("float(3)").is_float);
  CHECK(eval("max(1, 2.5)").f == 2.5);
}

TEST_CASE("500 expr: errors say what and where") {
  auto e = Expr::parse("N + * 2");
  REQUIRE_FALSE(e.has_value());
  CHECK(e.error().message.find("column 5") != std::string::npos);
  CHECK_FALSE(Expr::parse("cdiv(1)").has_value());
  CHECK_FALSE(Expr::parse("foo(1)").has_value());
  CHECK_FALSE(Expr::parse("(1 + 2").has_value());
  CHECK_FALSE(Expr::parse("").has_value());
  auto ok = Expr::parse("N / 0");
  REQUIRE(ok.has_value());
  auto v = ok->eval({{"N", Value::integer(3)}});
  REQUIRE_FALSE(v.has_value());
  CHECK(v.error().message.find("division by zero") != std::string::npos);
  auto unknown = Expr::parse("M * 2")->eval({{"N", Value::integer(3)}});
  REQUIRE_FALSE(unknown.has_value());
  CHECK(unknown.error().message.find("unknown parameter 'M'") != std::string::npos);
  CHECK(Expr::parse("N * M + cdiv(K, N)")->names() == std::vector<std::string>{"K", "M", "N"});
  CHECK_FALSE(Expr::parse("2.5")->eval_int({}).has_value());
  CHECK(*Expr::parse("2.0")->eval_int({}) == 2);
}

TEST_CASE("500 expr: values print so they read back") {
  CHECK(Value::integer(42).to_string() == "42");
  CHECK(Value::real(0.1).to_string() == "0.1");
  CHECK(Value::real(2.0).to_string() == "2.0");
}
