// The experiment format for real kernels (issue 11), part 4: checks on slices, integer values
// printed as integers, what exact = true says about +0 vs -0; NVRTC's missing <stdio.h>; the PTX
// cache (hits, invalidation by an included header, corrupt entries, WARPLAB_NO_CACHE).
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "55x_whole_kernel.h"
#include "lab/compile_cache.h"
#include "lab/report.h"
#include "lab/runner.h"

using namespace warplab;
using namespace warplab::lab;
namespace fs = std::filesystem;

namespace {

std::string format_dir() { return std::string(WARPLAB_SOURCE_DIR) + "/tests/data/format"; }

void write(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << text;
}

// A fresh directory under the system temp dir, removed at the end of the test.
struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() /
           ("warplab-514-" + std::to_string(::getpid()) + "-" + std::to_string(std::rand()));
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

}  // namespace

TEST_CASE("514 format: checks on slices, and exact = true says what differs in +0 vs -0") {
  Toolchain tc;
  if (!tc.has_nvrtc()) {
    MESSAGE("skipped (needs NVRTC): " << tc.why_no_nvrtc());
    return;
  }
  auto exp = load_experiment(format_dir() + "/checks.toml");
  REQUIRE_MESSAGE(exp.has_value(), (exp ? "" : exp.error().to_string()));
  RunOptions o;
  o.resources = false;
  Runner runner(tc, o);
  auto r = runner.run_once(*exp);
  REQUIRE_MESSAGE(r.has_value(), (r ? "" : r.error().to_string()));
  // The kernel's result, checked here independently: -0 where x is 0, x elsewhere, 7 past N-10.
  const std::vector<float> y = test::as_f32(r->buffers[1]);
  for (int i = 0; i < 100; ++i) {
    const float x = (i >= 5 && i < 9) ? 0.0f : float(i);
    const float want = i >= 90 ? 7.0f : (x == 0.0f ? -0.0f : x);
    CHECK(std::bit_cast<uint32_t>(y[i]) == std::bit_cast<uint32_t>(want));
  }
  REQUIRE(r->checks.size() == 3);
  const CheckResult& a = r->checks[0];
  CHECK(a.buffer == "y[1:5]");
  CHECK(a.expected == "x[1:5]");
  CHECK(a.count == 4);
  CHECK(a.passed);
  const CheckResult& b = r->checks[1];
  CHECK_FALSE(b.passed);
  CHECK(b.count == 90);
  CHECK(b.mismatch_count == 5);
  CHECK(b.bitwise_only == 5);
  CHECK(b.max_abs_error == 0);
  REQUIRE(b.mismatches.size() == 5);
  CHECK(b.mismatches[1].index == 5);  // indices in the buffer (the slice starts at 0 here)
  CHECK(b.bitwise_note ==
        "bitwise: 5 element(s) equal in value differ in their bits (-0 vs +0 at index 0, -0 vs "
        "+0 at index 5, -0 vs +0 at index 6, ...); exact = true compares bits, a tolerance check "
        "(atol = 0) would pass them");
  CHECK(format_check(b, exp->path).find(b.bitwise_note) != std::string::npos);
  CHECK(r->checks[2].passed);  // the tolerance check: -0 == +0
  // A slice that starts later reports indices in the buffer, not in the slice.
  exp->checks[1].slice.begin = Expr::constant(Value::integer(4));
  exp->checks[1].expect_slice.begin = Expr::constant(Value::integer(4));
  auto r2 = runner.run_once(*exp);
  REQUIRE(r2.has_value());
  REQUIRE(r2->checks[1].mismatches.size() == 4);
  CHECK(r2->checks[1].mismatches[0].index == 5);
  // A slice outside its buffer fails the check with a note naming it.
  exp->checks[0].slice.end = Expr::constant(Value::integer(101));
  auto r3 = runner.run_once(*exp);
  REQUIRE(r3.has_value());
  CHECK_FALSE(r3->checks[0].passed);
  CHECK(r3->checks[0].note == "buffer: \"y[1:5]\" = [1:101] is outside y's 100 elements");
}

TEST_CASE("514 format: integer checks report exact integers") {
  CheckDef def;
  HostBuffer got{"got", ElemType::I64, 3, std::vector<uint8_t>(24)};
  HostBuffer want{"want", ElemType::I64, 3, std::vector<uint8_t>(24)};
  const int64_t g[3] = {1, (int64_t{1} << 53) + 1, -7}, w[3] = {1, int64_t{1} << 53, -7};
  std::memcpy(got.bytes.data(), g, 24);
  std::memcpy(want.bytes.data(), w, 24);
  CheckResult r = compare_buffers(def, got, want);
  CHECK_FALSE(r.passed);
  CHECK(r.integer);
  REQUIRE(r.mismatches.size() == 1);
  CHECK(r.mismatches[0].got_int == (int64_t{1} << 53) + 1);
  const std::string text = format_check(r, "t.toml");
  CHECK(text.find("9007199254740993    9007199254740992") !=
        std::string::npos);  // not 9.00719925e+15
  HostBuffer u{"u", ElemType::U64, 1, std::vector<uint8_t>(8, 0xff)};
  HostBuffer u0{"u0", ElemType::U64, 1, std::vector<uint8_t>(8, 0)};
  const std::string ut = format_check(compare_buffers(def, u, u0), "t.toml");
  CHECK(ut.find("18446744073709551615") != std::string::npos);
}

TEST_CASE("514 format: NVRTC has no <stdio.h>, and the compile error says so") {
  CHECK(nvrtc_hint("a.cu:1: catastrophic error: cannot open source file \"cstdio\"")
            .find("NVRTC compiles without the C and C++ standard library headers, so <cstdio> "
                  "does not exist here") != std::string::npos);
  CHECK(nvrtc_hint("a.cu:1: catastrophic error: cannot open source file \"mine.h\"").empty());
  Toolchain tc;
  if (!tc.has_nvrtc()) return;
  auto r = tc.compile_cuda("#include <stdio.h>\n__global__ void k() { printf(\"hi\\n\"); }\n",
                           "hello.cu", CompileOptions{});
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().line == 1);
  CHECK(r.error().message.find("hint: NVRTC compiles without the C and C++ standard library "
                               "headers, so <stdio.h> does not exist here. Device code needs none "
                               "of them: printf, assert") != std::string::npos);
  // ... and indeed printf and assert compile without any include.
  CHECK(tc.compile_cuda("__global__ void k(int* x) { assert(x); printf(\"%d\\n\", *x); }\n",
                        "hello.cu", CompileOptions{})
            .has_value());
}

TEST_CASE("514 format: the PTX cache hits, follows included headers and ignores bad entries") {
  Toolchain tc;
  if (!tc.has_nvrtc()) {
    MESSAGE("skipped (needs NVRTC): " << tc.why_no_nvrtc());
    return;
  }
  TempDir src, cache;
  write(src.path / "inc.h", "#define SCALE 5.0f\n");
  write(src.path / "k.cu",
        "#include \"inc.h\"\n"
        "extern \"C\" __global__ void scale(float* x) { x[threadIdx.x] *= SCALE; }\n");
  const std::string cu = (src.path / "k.cu").string();
  CompileOptions co;
  co.cache_dir = cache.path.string();
  auto first = tc.compile_cuda_cached(cu, co);
  REQUIRE_MESSAGE(first.has_value(), (first ? "" : first.error().to_string()));
  CHECK_FALSE(first->from_cache);
  auto second = tc.compile_cuda_cached(cu, co);
  REQUIRE(second.has_value());
  CHECK(second->from_cache);
  CHECK(second->ptx == first->ptx);
  // A header included with <...> from the source's directory counts too.
  write(src.path / "k2.cu",
        "#include <inc.h>\n"
        "extern \"C\" __global__ void scale(float* x) { x[threadIdx.x] *= SCALE; }\n");
  const std::string cu2 = (src.path / "k2.cu").string();
  REQUIRE(tc.compile_cuda_cached(cu2, co).has_value());
  CHECK(tc.compile_cuda_cached(cu2, co)->from_cache);
  write(src.path / "inc.h", "#define SCALE 5.0f // edited\n");
  CHECK_FALSE(tc.compile_cuda_cached(cu2, co)->from_cache);
  CHECK_FALSE(tc.compile_cuda_cached(cu, co)->from_cache);
  CHECK(tc.compile_cuda_cached(cu, co)->from_cache);
  // Another option, define or arch is another entry.
  CompileOptions d = co;
  d.extra = {"-DOTHER=1"};
  auto other = tc.compile_cuda_cached(cu, d);
  REQUIRE(other.has_value());
  CHECK_FALSE(other->from_cache);
  // Changing the included header changes the PTX: the cache must not serve the old one.
  write(src.path / "inc.h", "#define SCALE 3.0f\n");
  auto third = tc.compile_cuda_cached(cu, co);
  REQUIRE(third.has_value());
  CHECK_FALSE(third->from_cache);
  CHECK(third->ptx.find("0f40400000") != std::string::npos);  // 3.0f
  CHECK(first->ptx.find("0f40A00000") != std::string::npos);  // 5.0f
  // A corrupt entry (truncated, or one byte changed) is ignored and replaced.
  std::stringstream source;
  source << std::ifstream(cu).rdbuf();
  auto key = ptx_cache_key(source.str(), cu, co, tc.nvrtc_version());
  REQUIRE(key.has_value());
  const std::string entry = ptx_cache_entry_path(cache.path.string(), *key);
  REQUIRE(fs::exists(entry));
  const auto size = fs::file_size(entry);
  fs::resize_file(entry, size / 2);
  CHECK_FALSE(ptx_cache_load(cache.path.string(), *key).has_value());
  auto fourth = tc.compile_cuda_cached(cu, co);
  REQUIRE(fourth.has_value());
  CHECK_FALSE(fourth->from_cache);
  CHECK(fs::file_size(entry) == size);  // stored again, whole
  {
    std::fstream f(entry, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(size - 40));
    f.put('#');
  }
  CHECK_FALSE(ptx_cache_load(cache.path.string(), *key).has_value());
  // No temporary files are left behind.
  for (const auto& e : fs::directory_iterator(cache.path))
    CHECK(e.path().string().find(".tmp.") == std::string::npos);
  // Where the cache lives, and turning it off.
  CHECK(ptx_cache_dir("/somewhere") == "/somewhere");
  ::setenv("WARPLAB_NO_CACHE", "1", 1);
  CHECK(ptx_cache_dir("/somewhere").empty());
  auto off = tc.compile_cuda_cached(cu, co);
  REQUIRE(off.has_value());
  CHECK_FALSE(off->from_cache);
  ::unsetenv("WARPLAB_NO_CACHE");
  const char* old = std::getenv("WARPLAB_CACHE_DIR");
  const std::string saved = old ? old : "";
  ::setenv("WARPLAB_CACHE_DIR", "/tmp/wl-cache-here", 1);
  CHECK(ptx_cache_dir("") == "/tmp/wl-cache-here");
  ::unsetenv("WARPLAB_CACHE_DIR");
  ::setenv("XDG_CACHE_HOME", "/tmp/xdg", 1);
  CHECK(ptx_cache_dir("") == "/tmp/xdg/warplab");
  ::unsetenv("XDG_CACHE_HOME");
  if (!saved.empty()) ::setenv("WARPLAB_CACHE_DIR", saved.c_str(), 1);
  // An include written with a macro cannot be followed: never cached.
  CHECK_FALSE(ptx_cache_key("#define H \"inc.h\"\n#include H\n", cu, co, "13.0").has_value());
}

TEST_CASE("514 format: slice forms") {
  auto exp = load_experiment(format_dir() + "/checks.toml");
  REQUIRE(exp.has_value());
  auto slice = [&](const std::string& text) {
    auto e = parse_experiment(
        "[experiment]\nsource = \"kernels.cu\"\n[params]\nN = 10\n[[buffers]]\nname = \"y\"\n"
        "type = \"f32\"\ncount = \"N\"\n[[launches]]\nmemset = \"" +
            text + "\"\n",
        format_dir() + "/t.toml");
    REQUIRE_MESSAGE(e.has_value(), (e ? "" : e.error().to_string()));
    auto r = eval_slice(e->launches[0].target, e->env(), 10);
    return r ? std::to_string(r->first) + ":" + std::to_string(r->second) : r.error().message;
  };
  CHECK(slice("y") == "0:10");
  CHECK(slice(" y [ 2 : N - 1 ] ") == "2:9");
  CHECK(slice("y[N / 2:]") == "5:10");
  CHECK(slice("y[:3]") == "0:3");
  CHECK(slice("y[7]") == "7:8");
  CHECK(slice("y[4:2]") == "\"y[4:2]\" = [4:2] is outside y's 10 elements");
  CHECK(slice("y[10]") == "\"y[10]\" = [10:11] is outside y's 10 elements");
}
