// The PTX lexer: text -> tokens.
//
// PTX is line-free, C-like text: statements end in ';', blocks use '{ }', comments are // and
// /* */. Mnemonics carry their modifiers joined by dots ("ld.global.nc.v4.f32"), so the lexer keeps
// a dotted run (including "::" as in "shared::cta") in one Word token and leaves splitting it to
// the parser. Numbers are kept as raw text ("0f3F800000", "0x1F", "17U", "1.5e3"); the parser
// decides what they mean. Every token remembers its line (for errors) and where it sits in the text
// (so an instruction can keep the text it was written as).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sim/common/error.h"

namespace warplab::ptx {

struct Token {
  enum class Kind : uint8_t {
    Word,    // identifier, directive (".reg"), dotted mnemonic ("add.s32"), register ("%r1")
    Number,  // raw numeric literal, without sign
    String,  // "..." (text holds the contents without the quotes)
    Punct,   // one of , ; : [ ] { } ( ) + - < > = @ ! |
    End,     // end of input
  };
  Kind kind = Kind::End;
  std::string_view text;  // a view into the source text
  int line = 0;           // 1-based
  uint32_t offset = 0;    // byte offset of the token's first character in the source

  bool is(char punct) const { return kind == Kind::Punct && text.size() == 1 && text[0] == punct; }
  bool is_word(std::string_view w) const { return kind == Kind::Word && text == w; }
};

// Splits `text` into tokens, the last one End. Errors (an unterminated comment or string, a
// character PTX does not use) name `path` and the line.
Expected<std::vector<Token>> tokenize(std::string_view text, const std::string& path);

// How a token reads in an error message: "'%r3'", "end of input".
std::string describe(const Token& token);

}  // namespace warplab::ptx
