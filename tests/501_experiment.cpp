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

TEST_CASE("501 experiment: NVRTC's arch and options are checked at their line") {
  // Line 2: the key under test; source at line 1.
  auto err = [](const std::string& key_line, const std::string& source =
                                                 "source = "
                                                 "\"vec_add.cu\"") {
    auto e = parse_experiment("[experiment]\n" + source + "\n" + key_line +
                                  "\n[[buffers]]\nname = \"x\"\ntype = \"f32\"\ncount = 4\n",
                              data_path("t.toml"));
    REQUIRE_FALSE_MESSAGE(e.has_value(), "expected an error for " << key_line);
    CHECK(e.error().file == data_path("t.toml"));
    return e.error();
  };
  for (const char* bad : {"90", "sm90", "compute-90", "compute_9", "compute_90x", "Compute_90"}) {
    CAPTURE(bad);
    const Error e = err(std::string("arch = \"") + bad + "\"");
    CHECK(e.line == 3);
    CHECK(e.message.find("experiment.arch: expected an architecture for NVRTC's "
                         "--gpu-architecture: compute_NN") != std::string::npos);
    CHECK(e.message.find(std::string("got \"") + bad + "\"") != std::string::npos);
  }
  struct Opt {
    const char* toml;
    const char* words;
  };
  for (const Opt& o :
       {Opt{"options = [\"-use_fast_math\", \"\"]", "options[1]: an empty option"},
        Opt{"options = [\"use_fast_math\"]", "is not an option: NVRTC options start with '-'"},
        Opt{"options = [\"-O3 -use_fast_math\"]", "holds more than one option"},
        Opt{"options = [\"--gpu-architecture=compute_80\"]", "give the architecture as 'arch"},
        Opt{"options = [\"-arch\", \"compute_80\"]", "give the architecture as 'arch"},
        Opt{"options = \"-use_fast_math\"", "options: expected an array of strings"}}) {
    CAPTURE(o.toml);
    const Error e = err(o.toml);
    CHECK(e.line == 3);
    CHECK(e.message.find(o.words) != std::string::npos);
  }
  // Good ones pass, with their lines kept for NVRTC's own refusals (tests/505).
  auto ok = parse_experiment(
      "[experiment]\nsource = \"vec_add.cu\"\narch = \"sm_90a\"\noptions = [\n  "
      "\"-use_fast_math\",\n  \"-DX=a b\"]\n[[buffers]]\nname = \"x\"\ntype = \"f32\"\n"
      "count = 4\n[[launches]]\nkernel = \"vec_add\"\ngrid = 1\nblock = 4\n"
      "args = [\"x\", \"x\", \"x\", 4]\n",
      data_path("t.toml"));
  REQUIRE_MESSAGE(ok.has_value(), (ok ? "" : ok.error().to_string()));
  CHECK(ok->arch == "sm_90a");
  CHECK(ok->arch_line == 3);
  CHECK(ok->options_line == 4);
  CHECK(ok->option_lines == std::vector<int>{5, 6});
  for (const char* a : {"compute_90", "compute_100f", "sm_120", "compute_75"}) {
    CAPTURE(a);
    auto e = parse_experiment(
        std::string("[experiment]\nsource = \"vec_add.cu\"\narch = \"") + a + "\"\n",
        data_path("t.toml"));
    CHECK((e || e.error().message.find("experiment.arch") == std::string::npos));
  }
  // With `ptx =` nothing is compiled: NVRTC's keys are errors at their own line.
  for (const char* key :
       {"arch = \"compute_90\"", "options = [\"-use_fast_math\"]", "defines = { T = 4 }"}) {
    CAPTURE(key);
    const Error e = err(key, "ptx = \"../../bench/vec_add.ptx\"");
    CHECK(e.line == 3);
    CHECK(e.message.find("only used to compile a CUDA source with NVRTC") != std::string::npos);
    CHECK(e.message.find("vec_add.ptx as it is") != std::string::npos);
  }
}

TEST_CASE("501 experiment: empty or odd names are refused at their line") {
  const std::string head = "[experiment]\nsource = \"vec_add.cu\"\n";
  auto err = [&](const std::string& rest) {
    auto e = parse_experiment(head + rest, data_path("t.toml"));
    REQUIRE_FALSE_MESSAGE(e.has_value(), "expected an error for " << rest);
    CHECK(e.error().file == data_path("t.toml"));
    return e.error();
  };
  Error p = err("[params]\nN = 4\n\"\" = 1\n");
  CHECK(p.line == 5);
  CHECK(p.message.find("a parameter name must be letters, digits and '_'") != std::string::npos);
  Error b = err("[[buffers]]\nname = \"\"\ntype = \"f32\"\ncount = 4\n");
  CHECK(b.line == 4);
  CHECK(b.message.find("'' is not a plain name") != std::string::npos);
  for (const char* name : {"\"\"", "\"A B\"", "\"1X\"", "\"X=1\""}) {
    CAPTURE(name);
    Error d = err(std::string("[experiment.defines]\n") + name + " = 4\n");
    CHECK(d.line == 4);
    CHECK(d.message.find("is not a macro name") != std::string::npos);
  }
  Error l =
      err("[[buffers]]\nname = \"x\"\ntype = \"f32\"\ncount = 4\n[[launches]]\n"
          "for = { \"\" = { from = 0, to = 3 } }\nkernel = \"vec_add\"\ngrid = 1\nblock = 4\n"
          "args = [\"x\", \"x\", \"x\", 4]\n");
  CHECK(l.line == 8);
  CHECK(l.message.find("is not a loop variable name") != std::string::npos);
}

TEST_CASE("501 experiment: the test data file loads") {
  auto e = load_experiment(data_path("vec_add.toml"));
  REQUIRE_MESSAGE(e.has_value(), (e ? "" : e.error().to_string()));
  CHECK(e->launches.size() == 2);
  auto missing = load_experiment(data_path("no_such.toml"));
  REQUIRE_FALSE(missing.has_value());
  CHECK(missing.error().to_string().find("no_such.toml") != std::string::npos);
}
