// Kernel lookup and argument type-checking against the PTX signature (lab/args.h).
#include <doctest/doctest.h>

#include <cstring>

#include "lab/args.h"

using namespace warplab;
using namespace warplab::lab;

namespace {
ParamDef param_def(const std::string& name, Value v) {
  ParamDef p;
  p.name = name;
  p.value = v;
  return p;
}
}  // namespace

namespace {

ptx::Param param(const std::string& name, ptx::Type t, uint64_t offset, uint64_t size = 0) {
  ptx::Param p;
  p.name = name;
  p.type = t;
  p.offset = offset;
  p.size = size ? size : static_cast<uint64_t>(ptx::type_bits(t) / 8);
  return p;
}

// The signature of `void saxpy(float a, const float* x, float* y, unsigned n)` as NVRTC emits it.
ptx::Module module() {
  ptx::Module m;
  m.path = "k.ptx";
  ptx::Function f;
  f.name = "_Z5saxpyfPKfPfj";
  f.is_entry = true;
  f.params = {param("p0", ptx::Type::F32, 0), param("p1", ptx::Type::U64, 8),
              param("p2", ptx::Type::U64, 16), param("p3", ptx::Type::U32, 24)};
  f.param_bytes = 28;
  m.functions.push_back(f);
  ptx::Function g = f;
  g.name = "plain";
  m.functions.push_back(g);
  ptx::Function helper = f;
  helper.name = "_Z6helperv";
  helper.is_entry = false;
  m.functions.push_back(helper);
  return m;
}

Experiment experiment(std::vector<std::string> args) {
  Experiment e;
  e.path = "k.toml";
  e.params = {param_def("n", Value::integer(1000)), param_def("a", Value::real(2.5))};
  BufferDef x, y;
  x.name = "x";
  y.name = "y";
  e.buffers = {x, y};
  LaunchDef l;
  l.kernel = "saxpy";
  l.line = 20;
  l.args_line = 24;
  for (int d = 0; d < 3; ++d) {
    l.grid[d] = Expr::constant(Value::integer(d == 0 ? 4 : 1));
    l.block[d] = Expr::constant(Value::integer(d == 0 ? 256 : 1));
  }
  l.shared_bytes = Expr::constant(Value::integer(0));
  l.repeat = Expr::constant(Value::integer(1));
  int line = 25;
  for (const std::string& s : args) {
    ArgDef a;
    a.line = line++;
    a.text = s;
    if (e.find_buffer(s)) {
      a.kind = ArgDef::Kind::Buffer;
      a.buffer = s;
    } else {
      a.expr = *Expr::parse(s);
    }
    l.args.push_back(a);
  }
  e.launches.push_back(l);
  return e;
}

}  // namespace

TEST_CASE("504 args: kernels are found by C++ name or PTX name") {
  ptx::Module m = module();
  CHECK((*find_kernel(m, "saxpy"))->name == "_Z5saxpyfPKfPfj");
  CHECK((*find_kernel(m, "_Z5saxpyfPKfPfj"))->name == "_Z5saxpyfPKfPfj");
  CHECK((*find_kernel(m, "plain"))->name == "plain");
  auto missing = find_kernel(m, "helper");  // a .func is not a kernel
  REQUIRE_FALSE(missing.has_value());
  CHECK(missing.error().message.find("unknown kernel 'helper'") != std::string::npos);
  // Candidates are listed demangled, with the PTX entry name.
  CHECK(missing.error().message.find("saxpy(float, float const*, float*, unsigned int) "
                                     "[_Z5saxpyfPKfPfj]") != std::string::npos);
  CHECK(demangled_base_name("_ZN4demo6kernelEPf") == "demo::kernel");
  CHECK(demangled_base_name("_Z6kernelILi16EEvPf") == "kernel");
  CHECK(demangled_base_name("vec_add") == "vec_add");
}

TEST_CASE("504 args: a correct launch packs the parameter block like the driver") {
  ptx::Module m = module();
  Experiment e = experiment({"a", "x", "y", "n"});
  auto b = bind_launch(e, 0, m.functions[0], e.env(), {0x1000, 0x2000});
  REQUIRE_MESSAGE(b.has_value(), (b ? "" : b.error().to_string()));
  REQUIRE(b->config.params.size() == 28);
  float a;
  uint64_t x, y;
  uint32_t n;
  std::memcpy(&a, &b->config.params[0], 4);
  std::memcpy(&x, &b->config.params[8], 8);
  std::memcpy(&y, &b->config.params[16], 8);
  std::memcpy(&n, &b->config.params[24], 4);
  CHECK(a == 2.5f);
  CHECK(x == 0x1000);
  CHECK(y == 0x2000);
  CHECK(n == 1000);
  CHECK(b->pointer_params == std::vector<BoundLaunch::PointerParam>{{8, 0, 0}, {16, 1, 0}});
  CHECK(b->config.grid.x == 4);
  CHECK(b->config.block.x == 256);
  // An integer literal to a float parameter converts.
  Experiment e2 = experiment({"3", "x", "y", "n / 2"});
  auto b2 = bind_launch(e2, 0, m.functions[0], e2.env(), {0x1000, 0x2000});
  REQUIRE(b2.has_value());
  std::memcpy(&a, &b2->config.params[0], 4);
  std::memcpy(&n, &b2->config.params[24], 4);
  CHECK(a == 3.0f);
  CHECK(n == 500);
}

TEST_CASE("504 args: mismatches are errors naming the key and line") {
  ptx::Module m = module();
  SUBCASE("a buffer passed for a u32 parameter") {
    Experiment e = experiment({"a", "x", "y", "x"});
    auto s = check_signature(e, 0, m.functions[0]);
    REQUIRE_FALSE(s.has_value());
    CHECK(s.error().file == "k.toml");
    CHECK(s.error().line == 28);
    CHECK(s.error().message.find("launches[0].args[3]") != std::string::npos);
    CHECK(s.error().message.find("'x' is a buffer") != std::string::npos);
    CHECK(s.error().message.find(".u32") != std::string::npos);
  }
  SUBCASE("too few arguments") {
    Experiment e = experiment({"a", "x", "y"});
    auto s = check_signature(e, 0, m.functions[0]);
    REQUIRE_FALSE(s.has_value());
    CHECK(s.error().line == 24);
    CHECK(s.error().message.find("3 argument(s) given, but kernel saxpy takes 4") !=
          std::string::npos);
  }
  SUBCASE("a float for an integer parameter") {
    Experiment e = experiment({"a", "x", "y", "a"});
    auto b = bind_launch(e, 0, m.functions[0], e.env(), {0x1000, 0x2000});
    REQUIRE_FALSE(b.has_value());
    CHECK(b.error().line == 28);
    CHECK(b.error().message.find("is a float") != std::string::npos);
  }
  SUBCASE("an integer out of range") {
    Experiment e = experiment({"a", "x", "y", "4294967296"});
    auto b = bind_launch(e, 0, m.functions[0], e.env(), {0x1000, 0x2000});
    REQUIRE_FALSE(b.has_value());
    CHECK(b.error().message.find("does not fit") != std::string::npos);
    Experiment e2 = experiment({"a", "x", "y", "-2147483649"});
    CHECK_FALSE(bind_launch(e2, 0, m.functions[0], e2.env(), {0x1000, 0x2000}).has_value());
  }
  SUBCASE("a negative int for a .u32 parameter (nvcc declares C int parameters .u32)") {
    Experiment e = experiment({"a", "x", "y", "-1"});
    auto b = bind_launch(e, 0, m.functions[0], e.env(), {0x1000, 0x2000});
    REQUIRE_MESSAGE(b.has_value(), (b ? "" : b.error().to_string()));
    uint32_t v = 0;
    std::memcpy(&v, b->config.params.data() + 24, 4);
    CHECK(v == 0xFFFFFFFFu);
  }
  SUBCASE("a block of more than 1024 threads") {
    Experiment e = experiment({"a", "x", "y", "n"});
    e.launches[0].block[1] = Expr::constant(Value::integer(8));
    auto b = bind_launch(e, 0, m.functions[0], e.env(), {0x1000, 0x2000});
    REQUIRE_FALSE(b.has_value());
    CHECK(b.error().line == 20);
    CHECK(b.error().message.find("2048 threads per block") != std::string::npos);
  }
}
