// Experiment files: parsing and the file:line errors instructors see (lab/experiment.h).
#include <doctest/doctest.h>

#include <string>

#include "lab/experiment.h"

using namespace warplab::lab;
using warplab::Error;

namespace {

std::string data_path(const std::string& name) {
  return std::string(WARPLAB_SOURCE_DIR) + "/tests/data/" + name;
}

const char* kGood = R"TOML(# a comment
[experiment]
name = "vec_add"
description = "z = x + y"
source = "vec_add.cu"

[params]
N = 1000
block = { value = 256, choices = [32, 64, 128, 256, 512, 1024], description = "threads" }
scale = { value = 1.5, min = 0.0, max = 4.0 }

[[buffers]]
name = "x"
type = "f32"
count = "N"
init = { uniform = [-1, 1], seed = 7 }

[[buffers]]
name = "y"
type = "f32"
count = "N"
init = "iota"

[[buffers]]
name = "z"
type = "f32"
count = "N"

[[launches]]
kernel = "vec_add"
grid = "cdiv(N, block)"
block = "block"
args = ["x", "y", "z", "N"]

[[checks]]
buffer = "z"
expect = "y"
atol = 1e-6

[sweep]
block = [64, 128]
)TOML";

// Parses kGood with `from` replaced by `to`; returns the error (the test expects one).
Error error_of(const std::string& from, const std::string& to) {
  std::string text = kGood;
  size_t at = text.find(from);
  REQUIRE_MESSAGE(at != std::string::npos, from);
  text.replace(at, from.size(), to);
  auto e = parse_experiment(text, data_path("t.toml"));
  REQUIRE_FALSE_MESSAGE(e.has_value(), "expected an error after replacing " << from);
  return e.error();
}

}  // namespace

TEST_CASE("501 experiment: a complete file parses into the typed struct") {
  auto e = parse_experiment(kGood, data_path("t.toml"));
  REQUIRE_MESSAGE(e.has_value(), (e ? "" : e.error().to_string()));
  CHECK(e->name == "vec_add");
  CHECK(e->source_kind == Experiment::SourceKind::Cuda);
  REQUIRE(e->params.size() == 3);
  CHECK(e->params[0].name == "N");  // file order, not key order
  CHECK(e->params[1].choices.size() == 6);
  CHECK(e->params[2].value.is_float);
  REQUIRE(e->buffers.size() == 3);
  CHECK(e->buffers[0].init.kind == BufferInit::Kind::Uniform);
  CHECK(e->buffers[0].init.seed == 7);
  CHECK(e->buffers[1].init.kind == BufferInit::Kind::Iota);
  REQUIRE(e->launches.size() == 1);
  CHECK(e->launches[0].args[0].kind == ArgDef::Kind::Buffer);
  CHECK(e->launches[0].args[3].kind == ArgDef::Kind::Scalar);
  CHECK(*e->launches[0].grid[0].eval_int(e->env()) == 4);
  CHECK(e->checks[0].atol == doctest::Approx(1e-6));
  REQUIRE(e->sweep.size() == 1);
  CHECK(e->sweep[0].values.size() == 2);
}

TEST_CASE("501 experiment: --set overrides and validates") {
  auto e = parse_experiment(kGood, data_path("t.toml"));
  REQUIRE(e.has_value());
  CHECK(set_param(*e, "N=1<<12").has_value());
  CHECK(e->find_param("N")->value.i == 4096);
  CHECK(set_param(*e, "block=128").has_value());
  auto bad_choice = set_param(*e, "block=100");
  REQUIRE_FALSE(bad_choice.has_value());
  CHECK(bad_choice.error().message.find("not one of its choices") != std::string::npos);
  CHECK_FALSE(set_param(*e, "scale=5").has_value());  // above max
  auto unknown = set_param(*e, "M=3");
  REQUIRE_FALSE(unknown.has_value());
  CHECK(unknown.error().message.find("unknown parameter 'M'") != std::string::npos);
  CHECK_FALSE(set_param(*e, "N").has_value());
}

TEST_CASE("501 experiment: every error names file:line and the key") {
  SUBCASE("unknown buffer in a check") {
    Error err = error_of("expect = \"y\"", "expect = \"q\"");
    CHECK(err.file == data_path("t.toml"));
    CHECK(err.line == 37);
    CHECK(err.message.find("checks[0].expect") != std::string::npos);
  }
  SUBCASE("argument that is neither buffer nor parameter") {
    Error err = error_of("\"z\", \"N\"]", "\"w\", \"N\"]");
    CHECK(err.line == 33);
    CHECK(err.message.find("launches[0].args[2]") != std::string::npos);
    CHECK(err.message.find("'w' is neither a buffer nor a parameter") != std::string::npos);
  }
  SUBCASE("bad expression") {
    Error err = error_of("grid = \"cdiv(N, block)\"", "grid = \"cdiv(N, block\"");
    CHECK(err.line == 31);
    CHECK(err.message.find("launches[0].grid") != std::string::npos);
    CHECK(err.message.find("expected ',' or ')'") != std::string::npos);
  }
  SUBCASE("unknown parameter in an expression") {
    Error err = error_of("count = \"N\"\ninit = \"iota\"", "count = \"N * K\"\ninit = \"iota\"");
    CHECK(err.line == 21);
    CHECK(err.message.find("unknown parameter 'K'") != std::string::npos);
  }
  SUBCASE("missing source file") {
    Error err = error_of("source = \"vec_add.cu\"", "source = \"nope.cu\"");
    CHECK(err.line == 5);
    CHECK(err.message.find("nope.cu: no such file") != std::string::npos);
  }
  SUBCASE("unknown key (a typo)") {
    Error err = error_of("atol = 1e-6", "atoll = 1e-6");
    CHECK(err.line == 38);
    CHECK(err.message.find("checks[0].atoll: unknown key") != std::string::npos);
  }
  SUBCASE("unknown element type") {
    Error err = error_of("type = \"f32\"\ncount = \"N\"\ninit = \"iota\"",
                         "type = \"float4\"\ncount = \"N\"\ninit = \"iota\"");
    CHECK(err.line == 20);
    CHECK(err.message.find("unknown element type 'float4'") != std::string::npos);
  }
  SUBCASE("sweep value outside the choices") {
    Error err = error_of("block = [64, 128]", "block = [64, 100]");
    CHECK(err.line == 41);
    CHECK(err.message.find("sweep.block") != std::string::npos);
  }
  SUBCASE("TOML syntax error") {
    Error err = error_of("N = 1000", "N = = 1000");
    CHECK(err.line == 8);
    CHECK(err.message.find("TOML syntax error") != std::string::npos);
  }
  SUBCASE("duplicate buffer") {
    Error err = error_of("name = \"y\"", "name = \"x\"");
    CHECK(err.line == 19);
    CHECK(err.message.find("declared twice") != std::string::npos);
  }
  SUBCASE("missing npy file") {
    Error err = error_of("init = \"iota\"", "init = { npy = \"missing.npy\" }");
    CHECK(err.line == 22);
    CHECK(err.message.find("missing.npy") != std::string::npos);
  }
}

TEST_CASE("501 experiment: the test data file loads") {
  auto e = load_experiment(data_path("vec_add.toml"));
  REQUIRE_MESSAGE(e.has_value(), (e ? "" : e.error().to_string()));
  CHECK(e->launches.size() == 2);
  auto missing = load_experiment(data_path("no_such.toml"));
  REQUIRE_FALSE(missing.has_value());
  CHECK(missing.error().to_string().find("no_such.toml") != std::string::npos);
}
