// Expression parser and evaluator (see expr.h for the grammar).
#include "lab/expr.h"

#include <cctype>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <set>

namespace warplab::lab {

struct Expr::Node {
  enum class Kind { Number, Name, Unary, Binary, Call } kind = Kind::Number;
  Value value;            // Number
  std::string name;       // Name, Call (function name)
  char op = 0;            // Unary: '-'; Binary: + - * / % < (<<) > (>>)
  std::vector<int> kids;  // Unary: 1, Binary: 2, Call: arguments
};

std::string Value::to_string() const {
  if (!is_float) return std::to_string(i);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", f);
  // Keep the shortest text that reads back the same.
  for (int prec = 1; prec <= 17; ++prec) {
    char shortbuf[64];
    std::snprintf(shortbuf, sizeof shortbuf, "%.*g", prec, f);
    if (std::strtod(shortbuf, nullptr) == f) {
      std::string s = shortbuf;
      if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
      return s;
    }
  }
  return buf;
}

namespace {

class Parser {
 public:
  Parser(const std::string& text, std::vector<Expr::Node>& nodes) : s_(text), nodes_(nodes) {}

  Expected<int> parse_all() {
    auto root = shift();
    if (!root) return root;
    skip_ws();
    if (pos_ != s_.size()) return fail("unexpected '" + std::string(1, s_[pos_]) + "'");
    return root;
  }

 private:
  const std::string& s_;
  std::vector<Expr::Node>& nodes_;
  size_t pos_ = 0;

  Error fail(const std::string& what) const {
    return Error{
        "", 0, "bad expression \"" + s_ + "\": " + what + " at column " + std::to_string(pos_ + 1)};
  }
  void skip_ws() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool eat(const char* tok) {
    skip_ws();
    size_t n = std::char_traits<char>::length(tok);
    if (s_.compare(pos_, n, tok) == 0) {
      pos_ += n;
      return true;
    }
    return false;
  }
  int add(Expr::Node n) {
    nodes_.push_back(std::move(n));
    return static_cast<int>(nodes_.size()) - 1;
  }
  int binary(char op, int a, int b) {
    Expr::Node n;
    n.kind = Expr::Node::Kind::Binary;
    n.op = op;
    n.kids = {a, b};
    return add(std::move(n));
  }

  Expected<int> shift() {
    auto lhs = sum();
    if (!lhs) return lhs;
    int cur = *lhs;
    for (;;) {
      char op = eat("<<") ? '<' : eat(">>") ? '>' : 0;
      if (!op) return cur;
      auto rhs = sum();
      if (!rhs) return rhs;
      cur = binary(op, cur, *rhs);
    }
  }
  Expected<int> sum() {
    auto lhs = prod();
    if (!lhs) return lhs;
    int cur = *lhs;
    for (;;) {
      char op = eat("+") ? '+' : eat("-") ? '-' : 0;
      if (!op) return cur;
      auto rhs = prod();
      if (!rhs) return rhs;
      cur = binary(op, cur, *rhs);
    }
  }
  Expected<int> prod() {
    auto lhs = unary();
    if (!lhs) return lhs;
    int cur = *lhs;
    for (;;) {
      char op = eat("*") ? '*' : eat("/") ? '/' : eat("%") ? '%' : 0;
      if (!op) return cur;
      auto rhs = unary();
      if (!rhs) return rhs;
      cur = binary(op, cur, *rhs);
    }
  }
  // Nesting and size limits: the parser and the evaluator recurse, so 10,000 nested parentheses
  // or a 200,000-term sum would overflow the stack. No experiment needs more than these.
  static constexpr int kMaxDepth = 200;
  static constexpr size_t kMaxNodes = 4096;
  int depth_ = 0;
  Expected<int> unary() {
    if (++depth_ > kMaxDepth) return fail("expression nested too deeply (at most 200 levels)");
    if (nodes_.size() > kMaxNodes) return fail("expression too long (at most 4096 terms)");
    auto r = unary_inner();
    --depth_;
    return r;
  }
  Expected<int> unary_inner() {
    if (eat("-")) {
      auto k = unary();
      if (!k) return k;
      Expr::Node n;
      n.kind = Expr::Node::Kind::Unary;
      n.op = '-';
      n.kids = {*k};
      return add(std::move(n));
    }
    if (eat("+")) return unary();
    return atom();
  }
  Expected<int> atom() {
    skip_ws();
    if (pos_ >= s_.size()) return fail("expected a number, a name or '('");
    char c = s_[pos_];
    if (c == '(') {
      ++pos_;
      auto e = shift();
      if (!e) return e;
      if (!eat(")")) return fail("expected ')'");
      return e;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') return number();
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t start = pos_;
      while (pos_ < s_.size() &&
             (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_'))
        ++pos_;
      std::string name = s_.substr(start, pos_ - start);
      if (!eat("(")) {
        Expr::Node n;
        n.kind = Expr::Node::Kind::Name;
        n.name = name;
        return add(std::move(n));
      }
      static constexpr const char* kFunctions[] = {"cdiv", "min", "max", "pow2", "int", "float"};
      bool known = false;
      for (const char* f : kFunctions) known = known || name == f;
      if (!known)
        return fail("unknown function '" + name + "' (known: cdiv, min, max, pow2, int, float)");
      Expr::Node n;
      n.kind = Expr::Node::Kind::Call;
      n.name = name;
      if (!eat(")")) {
        for (;;) {
          auto a = shift();
          if (!a) return a;
          n.kids.push_back(*a);
          if (eat(")")) break;
          if (!eat(",")) return fail("expected ',' or ')'");
        }
      }
      size_t want_min = (name == "min" || name == "max") ? 2 : (name == "cdiv" ? 2 : 1);
      size_t want_max = (name == "min" || name == "max") ? 64 : want_min;
      if (n.kids.size() < want_min || n.kids.size() > want_max)
        return fail(name + "() takes " +
                    (want_min == want_max ? std::to_string(want_min)
                                          : "at least " + std::to_string(want_min)) +
                    " argument(s), got " + std::to_string(n.kids.size()));
      return add(std::move(n));
    }
    return fail("unexpected '" + std::string(1, c) + "'");
  }
  Expected<int> number() {
    size_t start = pos_;
    bool is_float = false;
    if (s_.compare(pos_, 2, "0x") == 0 || s_.compare(pos_, 2, "0X") == 0) {
      pos_ += 2;
      while (pos_ < s_.size() && std::isxdigit(static_cast<unsigned char>(s_[pos_]))) ++pos_;
    } else {
      while (pos_ < s_.size()) {
        char c = s_[pos_];
        if (std::isdigit(static_cast<unsigned char>(c)) || c == '_') {
          ++pos_;
        } else if (c == '.') {
          is_float = true;
          ++pos_;
        } else if ((c == 'e' || c == 'E') && pos_ + 1 < s_.size()) {
          is_float = true;
          ++pos_;
          if (s_[pos_] == '+' || s_[pos_] == '-') ++pos_;
        } else {
          break;
        }
      }
    }
    std::string text;
    for (size_t k = start; k < pos_; ++k)
      if (s_[k] != '_') text += s_[k];
    Expr::Node n;
    char* end = nullptr;
    errno = 0;
    if (is_float) {
      n.value = Value::real(std::strtod(text.c_str(), &end));
    } else {
      n.value = Value::integer(static_cast<int64_t>(std::strtoull(text.c_str(), &end, 0)));
    }
    if (end != text.c_str() + text.size() || errno == ERANGE || text.empty())
      return fail("bad number '" + text + "'");
    return add(std::move(n));
  }
};

Expected<Value> eval_node(const std::vector<Expr::Node>& nodes, int at, const Env& env,
                          const std::string& text) {
  auto fail = [&](const std::string& what) -> Error {
    return Error{"", 0, "cannot evaluate \"" + text + "\": " + what};
  };
  const Expr::Node& n = nodes[at];
  switch (n.kind) {
    case Expr::Node::Kind::Number:
      return n.value;
    case Expr::Node::Kind::Name: {
      auto it = env.find(n.name);
      if (it == env.end()) {
        std::string known;
        for (const auto& [k, v] : env) known += (known.empty() ? "" : ", ") + k;
        return fail("unknown parameter '" + n.name + "'" +
                    (known.empty() ? std::string(" (no parameters are defined)")
                                   : " (parameters: " + known + ")"));
      }
      return it->second;
    }
    case Expr::Node::Kind::Unary: {
      auto v = eval_node(nodes, n.kids[0], env, text);
      if (!v) return v;
      if (!v->is_float && v->i == INT64_MIN)
        return fail("integer overflow in -(" + std::to_string(v->i) + ")");
      return v->is_float ? Value::real(-v->f) : Value::integer(-v->i);
    }
    case Expr::Node::Kind::Binary: {
      auto a = eval_node(nodes, n.kids[0], env, text);
      if (!a) return a;
      auto b = eval_node(nodes, n.kids[1], env, text);
      if (!b) return b;
      if (n.op == '<' || n.op == '>') {
        if (a->is_float || b->is_float) return fail("shifts need integers");
        if (b->i < 0 || b->i > 63) return fail("shift by " + std::to_string(b->i));
        return Value::integer(
            n.op == '<' ? static_cast<int64_t>(static_cast<uint64_t>(a->i) << b->i) : a->i >> b->i);
      }
      if (a->is_float || b->is_float) {
        double x = a->as_double(), y = b->as_double();
        switch (n.op) {
          case '+':
            return Value::real(x + y);
          case '-':
            return Value::real(x - y);
          case '*':
            return Value::real(x * y);
          case '/':
            return Value::real(x / y);
          case '%':
            return Value::real(std::fmod(x, y));
        }
      }
      // 64-bit integer arithmetic that overflows is an error, not undefined behaviour.
      int64_t x = a->i, y = b->i, r = 0;
      const auto overflow = [&] {
        return fail(std::string("integer overflow in ") + std::to_string(x) + " " + n.op + " " +
                    std::to_string(y) + " (64-bit integers)");
      };
      switch (n.op) {
        case '+':
          if (__builtin_add_overflow(x, y, &r)) return overflow();
          return Value::integer(r);
        case '-':
          if (__builtin_sub_overflow(x, y, &r)) return overflow();
          return Value::integer(r);
        case '*':
          if (__builtin_mul_overflow(x, y, &r)) return overflow();
          return Value::integer(r);
        case '/':
          if (y == 0) return fail("division by zero");
          if (y == -1 && x == INT64_MIN) return overflow();
          return Value::integer(x / y);
        case '%':
          if (y == 0) return fail("remainder by zero");
          if (y == -1) return Value::integer(0);  // x % -1 is 0 (INT64_MIN % -1 traps in C)
          return Value::integer(x % y);
      }
      return fail("bad operator");
    }
    case Expr::Node::Kind::Call: {
      std::vector<Value> args;
      for (int k : n.kids) {
        auto v = eval_node(nodes, k, env, text);
        if (!v) return v;
        args.push_back(*v);
      }
      if (n.name == "cdiv") {
        if (args[0].is_float || args[1].is_float) return fail("cdiv() needs integers");
        if (args[1].i == 0) return fail("cdiv() by zero");
        int64_t a = args[0].i, b = args[1].i, t = 0;
        if (b < 0 || __builtin_add_overflow(a, b - 1, &t))
          return fail("cdiv() needs a positive divisor and no overflow");
        return Value::integer(t / b);
      }
      if (n.name == "pow2") {
        if (args[0].is_float || args[0].i < 0 || args[0].i > 62)
          return fail("pow2() needs an integer in [0, 62]");
        return Value::integer(int64_t{1} << args[0].i);
      }
      if (n.name == "int") {
        const double v = args[0].as_double();
        if (!(std::fabs(v) < 9223372036854775808.0))  // NaN, infinities and beyond int64
          return fail("int(" + args[0].to_string() + ") is outside the 64-bit integer range");
        return Value::integer(static_cast<int64_t>(v));
      }
      if (n.name == "float") return Value::real(args[0].as_double());
      bool is_min = n.name == "min";
      Value best = args[0];
      for (size_t k = 1; k < args.size(); ++k) {
        const Value& v = args[k];
        bool any_float = best.is_float || v.is_float;
        bool take = any_float ? (is_min ? v.as_double() < best.as_double()
                                        : v.as_double() > best.as_double())
                              : (is_min ? v.i < best.i : v.i > best.i);
        if (any_float)
          best = Value::real(take ? v.as_double() : best.as_double());
        else if (take)
          best = v;
      }
      return best;
    }
  }
  return fail("bad node");
}

}  // namespace

Expected<Expr> Expr::parse(const std::string& text) {
  auto nodes = std::make_shared<std::vector<Node>>();
  Parser p(text, *nodes);
  auto root = p.parse_all();
  if (!root) return root.error();
  Expr e;
  e.text_ = text;
  e.nodes_ = std::move(nodes);
  e.root_ = *root;
  return e;
}

Expr Expr::constant(Value v) {
  auto nodes = std::make_shared<std::vector<Node>>();
  Node n;
  n.value = v;
  nodes->push_back(n);
  Expr e;
  e.text_ = v.to_string();
  e.nodes_ = std::move(nodes);
  e.root_ = 0;
  return e;
}

Expected<Value> Expr::eval(const Env& env) const {
  if (root_ < 0) return Error{"", 0, "empty expression"};
  return eval_node(*nodes_, root_, env, text_);
}

Expected<int64_t> Expr::eval_int(const Env& env) const {
  auto v = eval(env);
  if (!v) return v.error();
  if (!v->is_float) return v->i;
  if (std::isfinite(v->f) && std::floor(v->f) == v->f && std::fabs(v->f) < 9.0e18)
    return static_cast<int64_t>(v->f);
  return Error{"", 0, "\"" + text_ + "\" = " + v->to_string() + " is not an integer"};
}

std::vector<std::string> Expr::names() const {
  std::set<std::string> out;
  if (nodes_)
    for (const Node& n : *nodes_)
      if (n.kind == Node::Kind::Name) out.insert(n.name);
  return {out.begin(), out.end()};
}

Expected<Value> parse_value(const std::string& text) {
  auto e = Expr::parse(text);
  if (!e) return e.error();
  return e->eval({});
}

}  // namespace warplab::lab
