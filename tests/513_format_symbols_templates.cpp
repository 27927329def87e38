// The experiment format for real kernels (issue 11), part 3: __constant__ and __device__
// variables as buffers (symbol = ...: set from the file or an .npy, read back, checked), and
// template kernels named by their C++ name (NVRTC name expressions). Whole kernels checked
// against the CPU.
#include <doctest/doctest.h>

#include <cmath>

#include "55x_whole_kernel.h"
#include "lab/args.h"
#include "lab/runner.h"

using namespace warplab;
using namespace warplab::lab;

namespace {

std::string format_dir() { return std::string(WARPLAB_SOURCE_DIR) + "/tests/data/format"; }

Experiment load(const std::string& name, const std::string& text = "") {
  auto e = text.empty() ? load_experiment(format_dir() + "/" + name)
                        : parse_experiment(text, format_dir() + "/" + name);
  REQUIRE_MESSAGE(e.has_value(), (e ? "" : e.error().to_string()));
  return *e;
}

RunOptions functional() {
  RunOptions o;
  o.resources = false;
  o.count_lines = false;
  return o;
}

const HostBuffer& buf(const RunResult& r, const std::string& name) {
  for (const HostBuffer& b : r.buffers)
    if (b.name == name) return b;
  FAIL("no buffer " << name);
  return r.buffers.front();
}

}  // namespace

TEST_CASE("513 format: a constant-memory stencil and __device__ variables set and read by name") {
  Toolchain tc;
  if (!tc.has_nvrtc()) {
    MESSAGE("skipped (needs NVRTC): " << tc.why_no_nvrtc());
    return;
  }
  Experiment exp = load("symbols.toml");
  Runner runner(tc, functional());
  auto r = runner.run_once(exp);
  REQUIRE_MESSAGE(r.has_value(), (r ? "" : r.error().to_string()));
  REQUIRE(r->passed());  // the file's own check: two add_one launches counted
  // coeffs: count from the variable (7 floats), contents from coeffs.npy, read back unchanged.
  const HostBuffer& c = buf(*r, "coeffs");
  CHECK(c.symbol == "coeffs");
  const std::vector<float> coeffs = test::as_f32(c);
  CHECK(coeffs == std::vector<float>{0.0625f, 0.125f, 0.1875f, 0.25f, 0.1875f, 0.125f, 0.0625f});
  // The stencil used them: out[i] = sum_k coeffs[k + 3] * in[clamp(i + k)].
  auto in_bufs = make_buffers(exp, exp.env(), {28, 0, 0, 4, 8, 0, 0});
  REQUIRE(in_bufs.has_value());
  const std::vector<float> in = test::as_f32((*in_bufs)[1]);
  const int n = 1000;
  std::vector<double> want(n);
  for (int i = 0; i < n; ++i) {
    double acc = 0;
    for (int k = -3; k <= 3; ++k)
      acc += double(coeffs[k + 3]) * in[std::min(std::max(i + k, 0), n - 1)];
    want[i] = acc;
  }
  CHECK_CLOSE(test::as_f32(buf(*r, "out")), want, 1e-6, 1e-5);
  // bias (module initializer 100) was set to 7 by the file: each add_one adds 1 + 7.
  CHECK(test::as_i32(buf(*r, "bias")) == std::vector<int32_t>{7});
  CHECK(test::as_i32(buf(*r, "v")) == std::vector<int32_t>(64, 16));
  CHECK(load_elem_int(ElemType::U64, buf(*r, "seen").bytes.data(), 0) == 2);

  // Without init, a symbol buffer starts from the variable's own initializer (bias = 100), and
  // every run starts from it again (the counter does not carry over between runs).
  for (BufferDef& b : exp.buffers)
    if (b.name == "bias") b.has_init = false;
  for (int run = 0; run < 2; ++run) {
    auto again = runner.run_once(exp);
    REQUIRE(again.has_value());
    CHECK(test::as_i32(buf(*again, "v")) == std::vector<int32_t>(64, 2 * 101));
    CHECK(load_elem_int(ElemType::U64, buf(*again, "seen").bytes.data(), 0) == 2);
  }
}

TEST_CASE("513 format: symbol errors name the buffer's line") {
  const std::string head = R"T(
[experiment]
source = "kernels.cu"
[[buffers]]
name = "v"
type = "i32"
count = 8
)T";
  const std::string launch = R"T(
[[launches]]
kernel = "add_one"
grid = 1
block = 8
args = ["v", 8]
)T";
  // Passed as an argument: kernels read a module variable by name.
  auto e = parse_experiment(head + R"T(
[[buffers]]
name = "b"
type = "i32"
symbol = "bias"
[[launches]]
kernel = "add_one"
grid = 1
block = 8
args = ["b", 8]
)T",
                            format_dir() + "/t.toml");
  REQUIRE_FALSE(e.has_value());
  CHECK(e.error().to_string().find(
            "t.toml:17: launches[0].args[0]: 'b' is the module variable bias") !=
        std::string::npos);
  Toolchain tc;
  if (!tc.has_nvrtc()) return;
  Runner runner(tc, functional());
  // An unknown variable lists the module's.
  Experiment unknown = load("t.toml", head + R"T(
[[buffers]]
name = "b"
type = "i32"
symbol = "biass"
)T" + launch);
  auto r = runner.run_once(unknown);
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().to_string().find("t.toml:9: buffers[1] (b).symbol: no __constant__ or __device__ "
                                   "variable 'biass'") != std::string::npos);
  CHECK(r.error().to_string().find("__constant__ coeffs") != std::string::npos);
  CHECK(r.error().to_string().find("__device__ bias") != std::string::npos);
  // A count that disagrees with the variable's size.
  Experiment size = load("t.toml", head + R"T(
[[buffers]]
name = "c"
type = "f32"
count = 8
symbol = "coeffs"
)T" + launch);
  r = runner.run_once(size);
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().to_string().find("t.toml:9: buffers[1] (c).count: 8 f32 elements are 32 bytes, "
                                   "but coeffs has 28") != std::string::npos);
}

TEST_CASE("513 format: template kernels by their C++ name match a CPU matrix multiply") {
  Toolchain tc;
  if (!tc.has_nvrtc()) {
    MESSAGE("skipped (needs NVRTC): " << tc.why_no_nvrtc());
    return;
  }
  Experiment exp = load("template.toml");
  Runner runner(tc, functional());
  auto r = runner.run_once(exp);
  REQUIRE_MESSAGE(r.has_value(), (r ? "" : r.error().to_string()));
  REQUIRE(r->launches.size() == 3);
  CHECK(r->launches[0].entry == "_Z13MatrixMulCUDAILi16EEvPfPKfS2_i");
  CHECK(r->launches[1].entry == "_Z13MatrixMulCUDAILi8EEvPfPKfS2_i");
  CHECK(r->launches[2].entry == "_ZN4demo4fillIdEEvPT_S1_i");
  const int n = 64;
  const std::vector<float> A = test::as_f32(buf(*r, "A")), B = test::as_f32(buf(*r, "B"));
  std::vector<double> C(n * n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      double s = 0;
      for (int k = 0; k < n; ++k) s += double(A[i * n + k]) * B[k * n + j];
      C[i * n + j] = s;
    }
  CHECK_CLOSE(test::as_f32(buf(*r, "C")), C, 1e-5, 1e-4);
  CHECK_CLOSE(test::as_f32(buf(*r, "C8")), C, 1e-5, 1e-4);
  CHECK(test::as_vector<double>(buf(*r, "ones")) == std::vector<double>(n, 1.5));
  // The module's entries demangle to the names the experiment used.
  CHECK(demangle("_Z13MatrixMulCUDAILi16EEvPfPKfS2_i") ==
        "void MatrixMulCUDA<16>(float*, float const*, float const*, int)");
  CHECK(demangled_template_name("_ZN4demo4fillIdEEvPT_S1_i") == "demo::fill<double>");
  const ptx::Module& m = r->unit->program->module();
  CHECK((*find_kernel(m, "MatrixMulCUDA<8>"))->name == "_Z13MatrixMulCUDAILi8EEvPfPKfS2_i");
  CHECK((*find_kernel(m, "fill<double>"))->name == "_ZN4demo4fillIdEEvPT_S1_i");
  auto amb = find_kernel(m, "MatrixMulCUDA");
  REQUIRE_FALSE(amb.has_value());
  CHECK(amb.error().message.find("void MatrixMulCUDA<16>(float*, float const*, float const*, int) "
                                 "[_Z13MatrixMulCUDAILi16EEvPfPKfS2_i]") != std::string::npos);

  // A name NVRTC cannot instantiate: the launch's line, NVRTC's reason, the candidates demangled.
  exp.launches[0].kernel = "MatMul<16>";
  auto bad = runner.run_once(exp);
  REQUIRE_FALSE(bad.has_value());
  const std::string msg = bad.error().to_string();
  CHECK(msg.find("template.toml:37: launches[0].kernel: NVRTC cannot instantiate 'MatMul<16>'") !=
        std::string::npos);
  CHECK(msg.find("identifier \"MatMul\" is undefined") != std::string::npos);
  CHECK(msg.find("void MatrixMulCUDA<8>(float*, float const*, float const*, int)") !=
        std::string::npos);
  CHECK(msg.find("__global__ functions declared in it (templates are instantiated by naming one, "
                 "e.g. \"kernel<16>\"): MatrixMulCUDA, fill") != std::string::npos);
}

TEST_CASE("513 format: a __device__ counter without a buffer: per launch, fresh per run") {
  Toolchain tc;
  if (!tc.has_nvrtc()) return;
  Experiment exp = load("device_state.toml");
  Runner runner(tc, functional());
  for (int run = 0; run < 2; ++run) {
    auto r = runner.run_once(exp);
    REQUIRE_MESSAGE(r.has_value(), (r ? "" : r.error().to_string()));
    CHECK(test::as_u32(buf(*r, "out")) == std::vector<uint32_t>{0, 1, 2});
    CHECK(r->passed());
  }
}
