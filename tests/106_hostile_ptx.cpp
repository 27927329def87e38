// Hostile PTX: declarations too large to hold (registers, arrays of every state space, parameters)
// and constant barrier operands the GPU refuses are load errors naming the PTX line, never an
// allocation of gigabytes or a fault in the middle of a run; the lexer shows a stray byte in hex.
#include <doctest/doctest.h>

#include <string>

#include "sim/ptx/parser.h"

using namespace warplab::ptx;

namespace {

const std::string kHead = ".version 8.0\n.target sm_90\n.address_size 64\n";  // lines 1-3

// The error of parsing `text`, which must fail.
warplab::Error error_of(const std::string& text) {
  auto m = parse_module(text, "hostile.ptx");
  if (m) FAIL("expected an error for:\n" << text);
  CHECK(m.error().file == "hostile.ptx");
  return m.error();
}

bool has(const warplab::Error& e, std::string_view s) {
  const bool found = e.message.find(s) != std::string::npos;
  if (!found) MESSAGE("message was: " << e.to_string());
  return found;
}

// A kernel whose body is `body`, starting on line 6.
std::string kernel(const std::string& body) {
  return kHead + ".visible .entry k()\n{\n" + body + "\n\tret;\n}\n";
}

}  // namespace

TEST_CASE("106 registers: a huge .reg count is an error naming its line, not 9.5 GB") {
  auto e = error_of(kernel("\t.reg .b32 %r<99999999999>;"));
  CHECK(e.line == 6);
  CHECK(has(e, "%r<99999999999>"));
  CHECK(has(e, "at most 65536"));
  // Many declarations add up to the same limit.
  std::string many;
  for (int i = 0; i < 5; ++i) many += "\t.reg .b32 %r" + std::to_string(i) + "_<16384>;\n";
  auto m = error_of(kernel(many));
  CHECK(m.line == 10);
  CHECK(has(m, "at most 65536"));
  // Up to the limit is fine (nvcc's PTX for big kernels declares thousands).
  CHECK(parse_module(kernel("\t.reg .f32 %f<4096>;\n\t.reg .b32 %r<60000>;"), "ok.ptx"));
}

TEST_CASE("106 variables: every state space has a stated size limit, overflow included") {
  struct Case {
    std::string decl;
    const char* what;
  };
  const Case module_scope[] = {
      {".global .b8 g[6871947673600];", "1 GiB"},
      {".global .u32 g[268435457];", "1 GiB"},
      {".global .b8 g[4294967296][4294967296];", "1 GiB"},  // 2^64 wraps to 0 unchecked
      {".global .b8 g[18446744073709551615];", "1 GiB"},
      {".const .b8 c[65537];", "64 KB constant bank"},
      {".shared .b8 s[49153];", "48 KB of static .shared"},
  };
  for (const Case& c : module_scope) {
    INFO(c.decl);
    auto e = error_of(kHead + c.decl + "\n");
    CHECK(e.line == 4);
    CHECK(has(e, c.what));
  }
  auto local = error_of(kernel("\t.local .align 4 .b8 depot[524289];"));
  CHECK(local.line == 6);
  CHECK(has(local, "512 KB of .local"));
  // The module's .global variables share the limit (each alone is within it).
  auto sum = error_of(kHead + ".global .b8 a[1073741824];\n.global .b8 b[1];\n");
  CHECK(sum.line == 5);
  CHECK(has(sum, "module's .global variables"));
  auto consts = error_of(kHead + ".const .b8 a[40000];\n.const .b8 b[40000];\n");
  CHECK(consts.line == 5);
  // At the limits: loads, and costs nothing until a kernel uses it.
  CHECK(parse_module(kHead + ".global .b8 a[1073741824];\n.const .b8 c[65536];\n"
                             ".shared .b8 s[49152];\n",
                     "ok.ptx"));
  // An initialiser is kept as written, not padded to the variable's size.
  auto m = parse_module(kHead + ".global .u32 big[200000000] = {1, 2};\n", "ok.ptx");
  REQUIRE(m);
  CHECK(m->variables.at(0).size == 800000000);
  CHECK(m->variables.at(0).init.size() == 8);
}

TEST_CASE("106 parameters: sizes past CUDA's 32,764 bytes, and wrapping products, are errors") {
  auto e = error_of(kHead +
                    ".visible .entry k(.param .align 8 .b8 p[4294967296][4294967296])\n{\n"
                    "\tret;\n}\n");
  CHECK(e.line == 4);
  CHECK(has(e, "32764"));
  auto sum = error_of(kHead +
                      ".visible .entry k(.param .b8 a[20000], .param .b8 b[20000])\n{\n"
                      "\tret;\n}\n");
  CHECK(sum.line == 4);
  CHECK(has(sum, "32764"));
}

TEST_CASE("106 barriers: a constant id past 15 or a count that is not whole warps fails to load") {
  const std::string decl = "\t.reg .pred %p<2>;\n\t.reg .b32 %r<2>;\n";  // lines 6-7
  for (const char* bad : {"bar.sync 16;", "barrier.sync 4294967295;", "bar.arrive 16, 64;",
                          "bar.red.popc.u32 %r1, 16, %p1;"}) {
    INFO(bad);
    auto e = error_of(kernel(decl + "\t" + bad));
    CHECK(e.line == 8);
    CHECK(has(e, "a block has 16 barriers (0..15)"));
  }
  for (const char* bad : {"bar.sync 1, 48;", "bar.sync 0, 0;", "bar.arrive 1, 2048;",
                          "bar.red.and.pred %p1, 1, 33, %p0;"}) {
    INFO(bad);
    auto e = error_of(kernel(decl + "\t" + bad));
    CHECK(e.line == 8);
    CHECK(has(e, "multiple of 32"));
  }
  for (const char* ok :
       {"bar.sync 15;", "bar.sync 1, 1024;", "bar.sync %r1;", "bar.red.popc.u32 %r1, 15, %p1;",
        "bar.red.or.pred %p1, 0, 64, !%p0;", "bar.warp.sync -1;"}) {
    INFO(ok);
    CHECK(parse_module(kernel(decl + "\t" + ok), "ok.ptx"));
  }
}

TEST_CASE("106 lexer: a stray byte is shown in hex after \\x") {
  for (const auto& [byte, shown] : {std::pair<char, const char*>{'\x01', "'\\x01'"},
                                    {'\x1f', "'\\x1f'"},
                                    {'\xc3', "'\\xc3'"},
                                    {'\xff', "'\\xff'"},
                                    {'\x7f', "'\\x7f'"}}) {
    INFO(shown);
    auto e = error_of(kHead + std::string(1, byte) + "\n");
    CHECK(e.line == 4);
    CHECK(has(e, std::string("unexpected character ") + shown));
  }
}
