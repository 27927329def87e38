#include "sim/ptx/lexer.h"

namespace warplab::ptx {
namespace {

bool is_word_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$' || c == '%' ||
         c == '.';
}
bool is_word_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '$' || c == '.';
}
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_alnum(char c) { return is_word_char(c) && c != '.' && c != '$'; }

constexpr std::string_view kPunct = ",;:[]{}()+-<>=@!|";

}  // namespace

Expected<std::vector<Token>> tokenize(std::string_view text, const std::string& path) {
  std::vector<Token> out;
  out.reserve(text.size() / 4);
  int line = 1;
  size_t i = 0;
  const size_t n = text.size();
  auto push = [&](Token::Kind kind, size_t begin, size_t end) {
    out.push_back(Token{kind, text.substr(begin, end - begin), line, static_cast<uint32_t>(begin)});
  };
  while (i < n) {
    const char c = text[i];
    // 1. Whitespace and comments.
    if (c == '\n') {
      ++line;
      ++i;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
      ++i;
      continue;
    }
    if (c == '/' && i + 1 < n && text[i + 1] == '/') {
      while (i < n && text[i] != '\n') ++i;
      continue;
    }
    if (c == '/' && i + 1 < n && text[i + 1] == '*') {
      const int start_line = line;
      i += 2;
      while (i < n && !(text[i] == '*' && i + 1 < n && text[i + 1] == '/')) {
        if (text[i] == '\n') ++line;
        ++i;
      }
      if (i >= n) return Error{path, start_line, "unterminated /* comment"};
      i += 2;
      continue;
    }
    // 2. Strings.
    if (c == '"') {
      const size_t begin = ++i;
      while (i < n && text[i] != '"' && text[i] != '\n') {
        if (text[i] == '\\' && i + 1 < n && text[i + 1] != '\n') ++i;
        ++i;
      }
      if (i >= n || text[i] != '"') return Error{path, line, "unterminated string literal"};
      push(Token::Kind::String, begin, i);
      ++i;
      continue;
    }
    // 3. Numbers: digits, hex/float bit patterns, decimal floats, U suffix.
    if (is_digit(c)) {
      const size_t begin = i;
      ++i;
      while (i < n) {
        const char d = text[i];
        if (is_alnum(d) || d == '.') {
          ++i;
          continue;
        }
        // exponent sign: 1.5e-3 (not for 0f/0d/0x literals, which have no exponent)
        if ((d == '+' || d == '-') && (text[i - 1] == 'e' || text[i - 1] == 'E') &&
            !(i - begin >= 2 &&
              (text[begin + 1] == 'x' || text[begin + 1] == 'X' || text[begin + 1] == 'f' ||
               text[begin + 1] == 'F' || text[begin + 1] == 'd' || text[begin + 1] == 'D'))) {
          ++i;
          continue;
        }
        break;
      }
      push(Token::Kind::Number, begin, i);
      continue;
    }
    // 4. Words: identifiers, directives, dotted mnemonics, registers; "::" joins parts.
    if (is_word_start(c)) {
      // A directive (".reg") is one dotted part: ".reg.b32" is two tokens, as ptxas reads it.
      const bool directive = c == '.';
      const size_t begin = i;
      ++i;
      while (i < n) {
        if (directive && text[i] == '.') break;
        if (is_word_char(text[i])) {
          ++i;
          continue;
        }
        // (a part may start with a digit: cp.async's .L2::128B)
        if (text[i] == ':' && i + 2 < n && text[i + 1] == ':' && is_word_char(text[i + 2])) {
          i += 2;
          continue;
        }
        break;
      }
      push(Token::Kind::Word, begin, i);
      continue;
    }
    // 5. Punctuation.
    if (kPunct.find(c) != std::string_view::npos) {
      push(Token::Kind::Punct, i, i + 1);
      ++i;
      continue;
    }
    std::string shown(1, c);
    if (c < 32 || c >= 127) {  // a control or non-ASCII byte, in hex as C writes it: \xc3
      constexpr char kHex[] = "0123456789abcdef";
      const auto u = static_cast<uint8_t>(c);
      shown = std::string("\\x") + kHex[u >> 4] + kHex[u & 15];
    }
    return Error{path, line, "unexpected character '" + shown + "'"};
  }
  out.push_back(Token{Token::Kind::End, {}, line, static_cast<uint32_t>(n)});
  return out;
}

std::string describe(const Token& token) {
  switch (token.kind) {
    case Token::Kind::End:
      return "end of input";
    case Token::Kind::String:
      return "\"" + std::string(token.text) + "\"";
    default:
      return "'" + std::string(token.text) + "'";
  }
}

}  // namespace warplab::ptx
