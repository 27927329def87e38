// Expressions in experiment files: `cdiv(N, block)`, `N / 256`, `1 << k`, `2.0 * pi`.
//
// Instructors write grid sizes, buffer counts and scalar arguments as small arithmetic over the
// experiment's named parameters. An expression is parsed once (syntax errors are reported where
// the file is read) and evaluated for every parameter set of a sweep.
//
// Values are 64-bit integers or doubles. Integer operations stay integer (`/` truncates toward
// zero as in C, `%` is C's remainder); an operation with a float operand is done in double.
// Grammar (lowest precedence first):
//   expr  := shift
//   shift := sum (("<<" | ">>") sum)*
//   sum   := prod (("+" | "-") prod)*
//   prod  := unary (("*" | "/" | "%") unary)*
//   unary := ("-" | "+") unary | atom
//   atom  := NUMBER | NAME | NAME "(" expr ("," expr)* ")" | "(" expr ")"
// Functions: cdiv(a, b) = ceil(a / b) for integers, min(a, b, ...), max(a, b, ...), pow2(k) = 2^k,
// int(x) (truncate), float(x).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "sim/common/error.h"

namespace warplab::lab {

struct Value {
  bool is_float = false;
  int64_t i = 0;
  double f = 0.0;

  static Value integer(int64_t v) { return Value{false, v, static_cast<double>(v)}; }
  static Value real(double v) { return Value{true, saturate_int64(v), v}; }
  // v truncated toward zero, clamped to the int64 range (NaN: 0); a plain cast of a double
  // outside that range is undefined behaviour.
  static int64_t saturate_int64(double v) {
    if (!(v == v)) return 0;
    if (v >= 9223372036854775808.0) return INT64_MAX;
    if (v < -9223372036854775808.0) return INT64_MIN;
    return static_cast<int64_t>(v);
  }
  double as_double() const { return is_float ? f : static_cast<double>(i); }
  std::string to_string() const;  // "256", "1.5"
  bool operator==(const Value& o) const {
    return is_float == o.is_float && (is_float ? f == o.f : i == o.i);
  }
};

// Parses "256", "-3", "1.5e-3", "1<<20" (any expression without names) or returns an error.
Expected<Value> parse_value(const std::string& text);

using Env = std::map<std::string, Value>;

class Expr {
 public:
  Expr() = default;
  // Parses `text`; the error message says what was expected and at which column.
  static Expected<Expr> parse(const std::string& text);
  static Expr constant(Value v);

  Expected<Value> eval(const Env& env) const;
  // Evaluates and requires an integer result (a float with an integral value is accepted).
  Expected<int64_t> eval_int(const Env& env) const;
  const std::string& text() const { return text_; }
  // Every parameter name the expression reads (for "unknown parameter" errors at load time).
  std::vector<std::string> names() const;
  bool empty() const { return root_ < 0; }

  struct Node;

 private:
  std::string text_;
  std::shared_ptr<const std::vector<Node>> nodes_;
  int root_ = -1;
};

}  // namespace warplab::lab
