// The experiment format for real kernels (issue 11), part 1: parameters derived from others,
// pointer offsets ("x + 1024") and structs passed by value. Whole kernels (tests/data/format/
// kernels.cu) checked against results computed here on the CPU.
#include <doctest/doctest.h>

#include <cstring>

#include "55x_whole_kernel.h"
#include "lab/args.h"
#include "lab/runner.h"

using namespace warplab;
using namespace warplab::lab;

namespace {

std::string format_dir() { return std::string(WARPLAB_SOURCE_DIR) + "/tests/data/format"; }

RunOptions functional() {
  RunOptions o;
  o.mode = SimMode::Functional;
  o.resources = false;
  o.count_lines = false;
  return o;
}

// Loads tests/data/format/NAME (or `text` as if it were that file).
Experiment load(const std::string& name, const std::string& text = "") {
  auto e = text.empty() ? load_experiment(format_dir() + "/" + name)
                        : parse_experiment(text, format_dir() + "/" + name);
  REQUIRE_MESSAGE(e.has_value(), (e ? "" : e.error().to_string()));
  return *e;
}

std::string load_error(const std::string& text) {
  auto e = parse_experiment(text, format_dir() + "/bad.toml");
  REQUIRE_FALSE(e.has_value());
  return e.error().to_string();
}

const HostBuffer& buf(const RunResult& r, const std::string& name) {
  for (const HostBuffer& b : r.buffers)
    if (b.name == name) return b;
  FAIL("no buffer " << name);
  return r.buffers.front();
}

const char* kHead = R"T(
[experiment]
source = "kernels.cu"
[params]
N = 64
[[buffers]]
name = "x"
type = "f32"
count = "N"
init = "iota"
[[buffers]]
name = "y"
type = "f32"
count = "N"
)T";

}  // namespace

TEST_CASE("511 format: derived parameters, pointer offsets and structs give the CPU's results") {
  Toolchain tc;
  if (!tc.has_nvrtc()) {
    MESSAGE("skipped (needs NVRTC): " << tc.why_no_nvrtc());
    return;
  }
  Experiment exp = load("args.toml");
  // tiles = N / TILE and half = tiles / 2, evaluated in dependency order.
  auto env = exp.eval_env();
  REQUIRE(env.has_value());
  CHECK(env->at("tiles").i == 16);
  CHECK(env->at("half").i == 8);
  REQUIRE(set_param(exp, "N=8192").has_value());
  CHECK(exp.env().at("tiles").i == 32);  // follows N
  Runner runner(tc, functional());
  auto r = runner.run_once(exp);
  REQUIRE_MESSAGE(r.has_value(), (r ? "" : r.error().to_string()));
  const int64_t N = 8192, TILE = 256, OFF = 16;
  CHECK(r->params[2].first == "tiles");
  CHECK(r->params[2].second.i == N / TILE);

  // Inputs as make_buffers built them (seeded uniform), recomputed independently of the run.
  auto bufs = make_buffers(exp, exp.env());
  REQUIRE(bufs.has_value());
  const std::vector<float> x = test::as_f32((*bufs)[0]), y0 = test::as_f32((*bufs)[2]),
                           z0 = test::as_f32((*bufs)[3]);
  // tile_sums: one partial sum per tile (tree order in the kernel: compare with a tolerance).
  std::vector<float> partial(N / TILE);
  for (int64_t t = 0; t < N / TILE; ++t) {
    double s = 0;
    for (int64_t i = 0; i < TILE; ++i) s += x[t * TILE + i];
    partial[t] = static_cast<float>(s);
  }
  CHECK_CLOSE(test::as_f32(buf(*r, "partial")), partial, 1e-4, 1e-5);
  // axpy on "x + 2 * OFF", "y + OFF": y[OFF + i] += 2 x[2 OFF + i] for i < N - 2 OFF.
  std::vector<float> y = y0;
  for (int64_t i = 0; i < N - 2 * OFF; ++i) y[OFF + i] = 2.0f * x[2 * OFF + i] + y[OFF + i];
  CHECK_BITS_EQUAL(test::as_f32(buf(*r, "y")), y);
  // axpby through the struct: z = 0.5 x + (float)0.25 z.
  std::vector<float> z = z0;
  for (int64_t i = 0; i < N; ++i) z[i] = 0.5f * x[i] + 0.25f * z[i];
  CHECK_BITS_EQUAL(test::as_f32(buf(*r, "z")), z);
  // window: the nested struct's range [half - 6, half + 3) with half = 16, tag 7.
  const std::vector<int32_t> out = test::as_i32(buf(*r, "out"));
  for (int i = 0; i < 32; ++i) CHECK(out[i] == ((i >= 10 && i < 19) ? 7 : -1));
  // The launch record says what each pointer and struct was.
  CHECK(r->launches[1].args[1] == "x + 2 * OFF");
  CHECK(r->launches[2].args[0].find("32 bytes, align 8") != std::string::npos);
}

TEST_CASE("511 format: the struct layout follows the C++ ABI") {
  Experiment exp = load("args.toml");
  const ArgDef& s = exp.launches[2].args[0];
  StructLayout l = struct_layout(s);
  CHECK(l.size == 32);
  CHECK(l.align == 8);
  CHECK(l.text == "{f32 @0, i32 @4, ptr @8, ptr @16, f64 @24} = 32 bytes, align 8");
  StructLayout w = struct_layout(exp.launches[3].args[0]);
  CHECK(w.text == "{i8 @0, {i16 @2, i16 @4} @2, ptr @8} = 16 bytes, align 16");
  // Without align = 16 the same fields make a 16-byte struct aligned to 8: the kernel's
  // .align 16 parameter does not match, and the error shows the layout.
  ArgDef s8 = exp.launches[3].args[0];
  s8.align = 0;
  CHECK(struct_layout(s8).align == 8);
}

TEST_CASE("511 format: errors for derived parameters, offsets and structs name file:line") {
  // A cycle, reported at the first parameter on it with the whole cycle.
  std::string e = load_error(R"T(
[experiment]
source = "kernels.cu"
[params]
a = "b + 1"
b = "c * 2"
c = "a"
[[launches]]
kernel = "k"
grid = 1
block = 1
args = []
)T");
  CHECK(e.find(
            "bad.toml:5: params.a: parameters depend on each other in a cycle: a -> b -> c -> a") !=
        std::string::npos);
  // Reading an unknown parameter.
  e = load_error("[experiment]\nsource = \"kernels.cu\"\n[params]\nt = \"N / 2\"\n");
  CHECK(e.find("bad.toml:4: params.t: unknown parameter 'N'") != std::string::npos);
  // A derived parameter cannot be --set or swept.
  Experiment d = load("args.toml");
  auto st = set_param(d, "tiles=3");
  REQUIRE_FALSE(st.has_value());
  CHECK(st.error().message.find("derived from other parameters (\"N / TILE\")") !=
        std::string::npos);
  // A struct field of an unknown type, and a buffer in a scalar field.
  e = load_error(std::string(kHead) + R"T(
[[launches]]
kernel = "axpby"
grid = 1
block = 1
args = [{ struct = [{ float3 = 1 }] }]
)T");
  CHECK(e.find("launches[0].args[0].struct[0]: unknown field type 'float3'") != std::string::npos);
  e = load_error(std::string(kHead) + R"T(
[[launches]]
kernel = "axpby"
grid = 1
block = 1
args = [{ struct = [{ f32 = "x" }] }]
)T");
  CHECK(e.find("'x' is a buffer: write { ptr = \"x\" }") != std::string::npos);

  Toolchain tc;
  if (!tc.has_nvrtc()) return;
  Runner runner(tc, functional());
  // An offset past the end of the buffer (N is allowed: one past the last element).
  Experiment oob = load("t.toml", std::string(kHead) + R"T(
[[launches]]
kernel = "axpy"
grid = 1
block = 64
args = [1.0, "x + N", "y + (N + 1)", 0]
)T");
  auto r = runner.run_once(oob);
  REQUIRE_FALSE(r.has_value());
  CHECK(
      r.error().to_string().find(
          "t.toml:20: launches[0].args[2] (\"y + (N + 1)\"): offset 65 is outside y, which has 64 "
          "elements (0 to 64 allowed)") != std::string::npos);
  // A field left out: the layout (shown field by field) does not fill the parameter.
  Experiment bad = load("t.toml", std::string(kHead) + R"T(
[[launches]]
kernel = "axpby"
grid = 1
block = 64
args = [{ struct = [{ f32 = 1 }, { i32 = "N" }, { ptr = "x" }, { ptr = "y" }] }]
)T");
  r = runner.run_once(bad);
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().to_string().find(
            "launches[0].args[0]: the struct laid out as {f32 @0, i32 @4, ptr @8, ptr @16} = 24 "
            "bytes, align 8, but parameter 0 of axpby (.b8 axpby_param_0) is 32 bytes, .align 8") !=
        std::string::npos);
  // { ptr = 0 } is a null pointer.
  Experiment null_ptr = load("t.toml", std::string(kHead) + R"T(
[[launches]]
kernel = "axpby"
grid = 1
block = 64
args = [{ struct = [{ f32 = 1 }, { i32 = 0 }, { ptr = 0 }, { ptr = "y" }, { f64 = 1 }] }]
)T");
  CHECK(struct_layout(null_ptr.launches[0].args[0]).text ==
        "{f32 @0, i32 @4, u64 @8, ptr @16, f64 @24} = 32 bytes, align 8");
  r = runner.run_once(null_ptr);  // n = 0: the kernel touches neither pointer
  REQUIRE_MESSAGE(r.has_value(), (r ? "" : r.error().to_string()));
  // A scalar for a struct parameter says how to write one.
  Experiment scalar = load("t.toml", std::string(kHead) + R"T(
[[launches]]
kernel = "axpby"
grid = 1
block = 64
args = [1.0]
)T");
  r = runner.run_once(scalar);
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().to_string().find("is passed by value as 32 bytes (a struct): write its fields") !=
        std::string::npos);
}

TEST_CASE("511 format: hostile argument and slice strings are errors, never a crash") {
  // 200,000 characters after a buffer name, and an unclosed slice: scanned by hand.
  const std::string big(200000, '1');
  std::string e = load_error(std::string(kHead) +
                             "[[launches]]\nkernel = \"axpy\"\ngrid = 1\n"
                             "block = 1\nargs = [\"x + " +
                             big + "\"]\n");
  CHECK(e.find("launches[0].args[0]") != std::string::npos);
  e = load_error(std::string(kHead) +
                 "[[launches]]\nkernel = \"axpy\"\ngrid = 1\nblock = 1\nargs = [\"x * 2\"]\n");
  CHECK(e.find("'x' is a buffer: only an offset may follow it") != std::string::npos);
  e = load_error(std::string(kHead) + "[[checks]]\nbuffer = \"y[0:" + big + "\"\nexpect = \"x\"\n");
  CHECK(e.find("checks[0].buffer: expected a buffer name or a slice") != std::string::npos);
}
