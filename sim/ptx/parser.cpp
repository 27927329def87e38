// Module level of the PTX front end: the token cursor, error reporting, the top-level directives
// (.version/.target/.address_size/.file/.section/.pragma and linkage), and the public entry points.
#include "sim/ptx/parser.h"

#include <charconv>
#include <fstream>
#include <sstream>

#include "sim/common/input_file.h"
#include "sim/ptx/parser_state.h"

namespace warplab::ptx {
namespace detail {

Parser::Parser(std::string_view text, std::vector<Token> tokens, std::string path)
    : text_(text), tokens_(std::move(tokens)) {
  module_.path = std::move(path);
}

// ---- cursor and errors -------------------------------------------------------------------------

const Token& Parser::peek(size_t ahead) const {
  const size_t i = pos_ + ahead;
  return i < tokens_.size() ? tokens_[i] : tokens_.back();
}

const Token& Parser::take() {
  const Token& t = tokens_[pos_];
  if (pos_ + 1 < tokens_.size()) ++pos_;
  return t;
}

bool Parser::accept(char punct) {
  if (!peek().is(punct)) return false;
  take();
  return true;
}

bool Parser::accept_word(std::string_view word) {
  if (!peek().is_word(word)) return false;
  take();
  return true;
}

const Token& Parser::expect(char punct, std::string_view what_for) {
  if (!peek().is(punct))
    fail_at(peek(), "'" + std::string(1, punct) + "' " + std::string(what_for));
  return take();
}

const Token& Parser::expect_word(std::string_view what_for) {
  if (peek().kind != Token::Kind::Word) fail_at(peek(), std::string(what_for));
  return take();
}

const Token& Parser::expect_string(std::string_view what_for) {
  if (peek().kind != Token::Kind::String) fail_at(peek(), std::string(what_for));
  return take();
}

uint64_t Parser::expect_uint(std::string_view what_for) {
  const Token& t = peek();
  if (t.kind != Token::Kind::Number) fail_at(t, std::string(what_for));
  const Operand imm = parse_immediate(t, false);
  if (imm.imm_kind != Operand::ImmKind::Int) fail_at(t, std::string(what_for));
  take();
  return imm.bits;
}

void Parser::fail(int line, std::string message) const {
  throw ParseFailure{Error{module_.path, line, std::move(message)}};
}

void Parser::fail_unsupported(int line, std::string message) const {
  throw ParseFailure{Error{module_.path, line, std::move(message)}, true};
}

void Parser::fail_at(const Token& token, std::string_view expected) const {
  fail(token.line, "expected " + std::string(expected) + ", found " + describe(token));
}

void Parser::skip_statement() {
  int depth = 0;
  while (peek().kind != Token::Kind::End) {
    const Token& t = take();
    if (t.is('{')) ++depth;
    if (t.is('}')) --depth;
    if (t.is(';') && depth <= 0) return;
  }
}

void Parser::skip_braced_block() {
  const Token& open = expect('{', "to open the block");
  int depth = 1;
  while (depth > 0) {
    const Token& t = take();
    if (t.kind == Token::Kind::End) fail(open.line, "unterminated block: missing '}'");
    if (t.is('{')) ++depth;
    if (t.is('}')) --depth;
  }
}

// ---- module level ------------------------------------------------------------------------------

Module Parser::parse() {
  while (peek().kind != Token::Kind::End) parse_top_level_statement();
  resolve_functions();
  return std::move(module_);
}

void Parser::parse_top_level_statement() {
  const Token& t = peek();
  if (t.kind != Token::Kind::Word || t.text.empty() || t.text[0] != '.')
    fail_at(t, "a directive (.version, .entry, .func, .global ...)");
  const std::string_view d = t.text;
  const int line = t.line;
  if (d == ".version") return parse_version();
  if (d == ".target") return parse_target();
  if (d == ".address_size") {
    take();
    module_.address_size = static_cast<int>(expect_uint("an address size (32 or 64)"));
    if (module_.address_size != 64)
      fail(line, ".address_size " + std::to_string(module_.address_size) +
                     " is not supported (WarpLab simulates 64-bit PTX)");
    return;
  }
  if (d == ".file") return parse_file_directive();
  if (d == ".section") {
    take();
    expect_word("a section name after .section");
    skip_braced_block();
    return;
  }
  if (d == ".pragma") {
    take();
    expect_string("a string after .pragma");
    expect(';', "after .pragma");
    return;
  }
  Linkage linkage;
  while (true) {
    if (accept_word(".visible"))
      linkage.is_visible = true;
    else if (accept_word(".extern"))
      linkage.is_extern = true;
    else if (accept_word(".weak") || accept_word(".common"))
      linkage.is_weak = true;
    else
      break;
  }
  const Token& what = peek();
  if (what.is_word(".entry") || what.is_word(".func")) {
    take();
    return parse_function(linkage, what.text == ".entry", what.line);
  }
  if (what.is_word(".global")) return take(), parse_variable(Space::Global, linkage, -1);
  if (what.is_word(".shared")) return take(), parse_variable(Space::Shared, linkage, -1);
  if (what.is_word(".const")) return take(), parse_variable(Space::Const, linkage, -1);
  if (what.is_word(".local")) return take(), parse_variable(Space::Local, linkage, -1);
  if (what.is_word(".alias")) fail(what.line, ".alias is not supported");
  if (what.is_word(".shared::cluster") || what.text.rfind(".reqnctapercluster", 0) == 0)
    fail(what.line, "thread-block clusters are out of scope");
  fail(what.line, "unexpected " + describe(what) +
                      " at module scope: expected .version, .target, .address_size, .file, "
                      ".section, .entry, .func or a .global/.shared/.const variable");
}

void Parser::parse_version() {
  take();
  const Token& v = peek();
  if (v.kind != Token::Kind::Number) fail_at(v, "a version number after .version (e.g. 9.0)");
  take();
  const std::string_view s = v.text;
  const size_t dot = s.find('.');
  int major = 0, minor = 0;
  auto [p1, e1] = std::from_chars(s.data(), s.data() + (dot == s.npos ? s.size() : dot), major);
  bool ok = e1 == std::errc() && p1 == s.data() + (dot == s.npos ? s.size() : dot);
  if (dot != s.npos) {
    auto [p2, e2] = std::from_chars(s.data() + dot + 1, s.data() + s.size(), minor);
    ok = ok && e2 == std::errc() && p2 == s.data() + s.size();
  }
  if (!ok) fail_at(v, "a version number after .version (e.g. 9.0)");
  module_.version_major = major;
  module_.version_minor = minor;
}

void Parser::parse_target() {
  take();
  const Token& t = expect_word("a target after .target (e.g. sm_90)");
  module_.target = std::string(t.text);
  while (accept(',')) expect_word("a target option after ','");  // texmode_*, debug
}

void Parser::parse_file_directive() {
  take();
  const int line = peek().line;
  const uint64_t index = expect_uint("a file index after .file");
  const Token& path = expect_string("a quoted file path after the .file index");
  // Optional timestamp and size: .file 1 "x.cu", 1700000000, 1234
  while (accept(',')) expect_uint("a number (timestamp or size) in .file");
  if (index > 1'000'000) fail(line, ".file index " + std::to_string(index) + " is too large");
  if (module_.files.size() <= index) module_.files.resize(index + 1);
  module_.files[index] = std::string(path.text);
}

void Parser::resolve_functions() {
  for (const PendingName& p : pending_functions_) {
    Function& f = module_.functions[static_cast<size_t>(p.function)];
    Instruction& inst = f.instructions[static_cast<size_t>(p.instruction)];
    const auto it = functions_.find(p.name);
    if (it == functions_.end()) {
      const std::string kind = f.is_entry ? "kernel '" : "function '";
      if (p.where == PendingName::Where::Callee)
        fail(p.line, "call to undeclared function '" + p.name + "' in " + kind + f.name + "'");
      fail(p.line, "undefined label or symbol '" + p.name + "' in " + kind + f.name + "'");
    }
    if (p.where == PendingName::Where::Callee) {
      inst.callee = it->second;
      continue;
    }
    Operand& op = p.where == PendingName::Where::Op ? inst.ops[static_cast<size_t>(p.index)]
                  : p.where == PendingName::Where::CallReturn
                      ? inst.call_returns[static_cast<size_t>(p.index)]
                      : inst.call_args[static_cast<size_t>(p.index)];
    op.kind = Operand::Kind::Symbol;
    op.scope = Operand::Scope::Function;
    op.symbol = it->second;
  }
  pending_functions_.clear();
}

}  // namespace detail

Expected<Module> parse_module(std::string_view text, std::string path) {
  auto tokens = tokenize(text, path);
  if (!tokens) return tokens.error();
  try {
    detail::Parser parser(text, std::move(*tokens), path);
    return parser.parse();
  } catch (const detail::ParseFailure& f) {
    return f.error;
  } catch (const std::bad_alloc&) {
    return Error{path, 0, "out of memory while parsing PTX"};
  }
}

Expected<Module> parse_file(const std::string& path) {
  auto text = read_input_file(path, "PTX file");
  if (!text) return text.error();
  return parse_module(*text, path);
}

}  // namespace warplab::ptx
