// The experiment format for real kernels (issue 11), part 2: launches repeated by `for` loops
// (a bitonic sort: 55 launches of one kernel for N = 1024) and memset / memcpy steps between
// launches, checked against the CPU (std::sort, and the steps replayed on host vectors).
#include <doctest/doctest.h>

#include <algorithm>

#include "55x_whole_kernel.h"
#include "lab/runner.h"

using namespace warplab;
using namespace warplab::lab;

namespace {

std::string format_dir() { return std::string(WARPLAB_SOURCE_DIR) + "/tests/data/format"; }

Experiment load(const std::string& name) {
  auto e = load_experiment(format_dir() + "/" + name);
  REQUIRE_MESSAGE(e.has_value(), (e ? "" : e.error().to_string()));
  return *e;
}

std::string load_error(const std::string& text) {
  auto e = parse_experiment(text, format_dir() + "/bad.toml");
  REQUIRE_FALSE(e.has_value());
  return e.error().to_string();
}

// Every iteration of `loops` as "k=2 j=1;" text.
std::string iterations(const Experiment& exp, const std::vector<LoopDef>& loops) {
  std::string out;
  Status s = for_each_iteration(exp, loops, exp.env(), [&](const Env& e) -> Status {
    for (const LoopDef& l : loops) out += l.var + "=" + e.at(l.var).to_string() + " ";
    out += ";";
    return Ok{};
  });
  REQUIRE_MESSAGE(s.has_value(), (s ? "" : s.error().to_string()));
  return out;
}

const char* kHead = R"T(
[experiment]
source = "kernels.cu"
[params]
N = 8
[[buffers]]
name = "v"
type = "i32"
count = "N"
)T";

}  // namespace

TEST_CASE("512 format: a bitonic sort from nested dependent loops sorts like std::sort") {
  Toolchain tc;
  if (!tc.has_nvrtc()) {
    MESSAGE("skipped (needs NVRTC): " << tc.why_no_nvrtc());
    return;
  }
  Experiment exp = load("steps.toml");
  RunOptions o;
  o.resources = false;
  o.count_lines = false;
  Runner runner(tc, o);
  for (int64_t n : {256, 1024}) {
    CAPTURE(n);
    REQUIRE(set_param(exp, "N=" + std::to_string(n)).has_value());
    auto r = runner.run_once(exp);
    REQUIRE_MESSAGE(r.has_value(), (r ? "" : r.error().to_string()));
    // log2(n) (log2(n) + 1) / 2 launches of bitonic_step, then 3 of add_one.
    int lg = 0;
    while ((int64_t{1} << lg) < n) ++lg;
    REQUIRE(r->launches.size() == static_cast<size_t>(lg * (lg + 1) / 2 + 3));
    CHECK(r->launches[0].loop[0].second.i == 2);  // k = 2, j = 1 first
    CHECK(r->launches[0].loop[1].second.i == 1);
    CHECK(r->launches[lg * (lg + 1) / 2 - 1].loop[0].second.i == n);  // k = n, j = 1 last
    auto in = make_buffers(exp, exp.env(), {0, 0, 0, 8});             // launches_seen: 8 bytes
    REQUIRE(in.has_value());
    std::vector<uint32_t> want = test::as_u32((*in)[0]);
    const std::vector<uint32_t> unsorted = want;
    std::sort(want.begin(), want.end());
    CHECK(test::as_u32(r->buffers[0]) == want);
    // copy = [sorted, unsorted]: memcpy before and after the sort.
    std::vector<uint32_t> copy = want;
    copy.insert(copy.end(), unsorted.begin(), unsorted.end());
    CHECK(test::as_u32(r->buffers[1]) == copy);
    // v: iota, v[0:64] = -5, three add_one launches (+1 + bias 100 each), v[250:] = 0.
    std::vector<int32_t> v(256);
    for (int i = 0; i < 256; ++i) v[i] = i < 64 ? -5 : i;
    for (int32_t& e : v) e += 3 * 101;
    for (int i = 250; i < 256; ++i) v[i] = 0;
    CHECK(test::as_i32(r->buffers[2]) == v);
    // The __device__ counter, read back through its symbol buffer: three add_one launches.
    REQUIRE(r->buffers[3].count == 1);
    CHECK(load_elem_int(ElemType::U64, r->buffers[3].bytes.data(), 0) == 3);
  }
}

TEST_CASE("512 format: loop forms, dependent ranges and their errors") {
  Experiment e;
  auto ok = parse_experiment(std::string(kHead) + R"T(
[[launches]]
kernel = "add_one"
grid = 1
block = 8
args = ["v", "N"]
for = { k = { from = 2, to = "N", mul = 2 }, j = { from = "k / 2", to = 1, div = 2 } }
[[launches]]
kernel = "add_one"
grid = 1
block = 8
args = ["v", "i"]
for = { i = { from = "N - 1", to = 0, step = -3 }, b = [32, "2 * i"] }
)T",
                             format_dir() + "/t.toml");
  REQUIRE_MESSAGE(ok.has_value(), (ok ? "" : ok.error().to_string()));
  e = *ok;
  CHECK(iterations(e, e.launches[0].loops) ==
        "k=2 j=1 ;k=4 j=2 ;k=4 j=1 ;k=8 j=4 ;k=8 j=2 ;k=8 j=1 ;");
  CHECK(iterations(e, e.launches[1].loops) ==
        "i=7 b=32 ;i=7 b=14 ;i=4 b=32 ;i=4 b=8 ;i=1 b=32 ;i=1 b=2 ;");
  // A range that is empty from the start runs nothing.
  LoopDef none = e.launches[1].loops[0];
  none.from = Expr::constant(Value::integer(-1));
  CHECK(iterations(e, {none}).empty());
  // mul 1 and step 0 would never end.
  LoopDef bad = e.launches[0].loops[0];
  bad.step = Expr::constant(Value::integer(1));
  Status s = for_each_iteration(e, {bad}, e.env(), [](const Env&) -> Status { return Ok{}; });
  REQUIRE_FALSE(s.has_value());
  CHECK(s.error().to_string().find("t.toml:16: for.k: mul must be at least 2 (got 1)") !=
        std::string::npos);
  // A loop variable is not a parameter elsewhere, nor before it is declared.
  std::string err = load_error(std::string(kHead) + R"T(
[[launches]]
kernel = "add_one"
grid = "j"
block = 8
args = ["v", "N"]
for = { j = { from = 0, to = 1 } }
[[launches]]
kernel = "add_one"
grid = "j"
block = 8
args = ["v", "N"]
)T");
  CHECK(err.find("bad.toml:19: launches[1].grid: unknown parameter 'j'") != std::string::npos);
  err = load_error(std::string(kHead) + R"T(
[[launches]]
kernel = "add_one"
grid = 1
block = 8
args = ["v", "N"]
for = { a = { from = "b", to = 1 }, b = [1] }
)T");
  CHECK(err.find("bad.toml:16: launches[0].for.a.from: unknown parameter 'b'") !=
        std::string::npos);
  err = load_error(std::string(kHead) + R"T(
[[launches]]
kernel = "add_one"
grid = 1
block = 8
args = ["v", "N"]
for = { N = [1] }
)T");
  CHECK(err.find("launches[0].for.N: 'N' is already a parameter or buffer name") !=
        std::string::npos);
  // Steps: unknown keys, type mismatch, sizes checked when run.
  err = load_error(std::string(kHead) + R"T(
[[launches]]
memset = "v"
kernel = "add_one"
)T");
  CHECK(err.find("bad.toml:13: launches[0].kernel: unknown key (expected one of: memset, value, "
                 "for, span)") != std::string::npos);
  err = load_error(std::string(kHead) + R"T(
[[buffers]]
name = "f"
type = "f32"
count = "N"
[[launches]]
memcpy = "f"
from = "v[0:N]"
)T");
  CHECK(err.find("bad.toml:17: launches[0].from: 'v' holds i32 but 'f' holds f32") !=
        std::string::npos);
}

TEST_CASE("512 format: a memcpy between slices of different sizes is an error at its line") {
  Toolchain tc;
  if (!tc.has_nvrtc()) return;
  auto e = parse_experiment(std::string(kHead) + R"T(
[[launches]]
memcpy = "v[0:4]"
from = "v[2:N]"
[[launches]]
kernel = "add_one"
grid = 1
block = 8
args = ["v", "N"]
)T",
                            format_dir() + "/t.toml");
  REQUIRE(e.has_value());
  Runner runner(tc, RunOptions{});
  auto r = runner.run_once(*e);
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().to_string().find("t.toml:11: launches[0]: memcpy \"v[2:N]\" (6 elements) to "
                                   "\"v[0:4]\" (4 elements): the sizes differ") !=
        std::string::npos);
  // A memset value that is not one of the buffer's values.
  Experiment m = *e;
  m.launches[0].kind = LaunchDef::Kind::Memset;
  m.launches[0].value = Expr::constant(Value::real(0.5));
  r = runner.run_once(m);
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().to_string().find("t.toml:11: launches[0].value = 0.5 is not a i32 value") !=
        std::string::npos);
  m.launches[0].value = Expr::constant(Value::integer(int64_t{1} << 31));
  CHECK_FALSE(runner.run_once(m).has_value());
  m.launches[0].value = Expr::constant(Value::integer(-(int64_t{1} << 31)));
  CHECK(runner.run_once(m).has_value());
  // A slice past the end.
  e->launches[0].source.end = Expr::constant(Value::integer(9));
  r = runner.run_once(*e);
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().to_string().find(
            "launches[0].from: \"v[2:N]\" = [2:9] is outside v's 8 elements") != std::string::npos);
}

TEST_CASE("512 format: a loop spanning several entries runs them in order each iteration") {
  Toolchain tc;
  if (!tc.has_nvrtc()) return;
  // For i = 0..3: add_one (v += 1 + bias), then snapshot v into snap[8 i : 8 i + 8]; inside,
  // for j = 0..i: one more add_one per j. Then one last memset after the span.
  auto e = parse_experiment(std::string(kHead) + R"T(
[[buffers]]
name = "snap"
type = "i32"
count = "4 * N"
[[launches]]
kernel = "add_one"
grid = 1
block = 8
args = ["v", "N"]
for = { i = { from = 0, to = 3 } }
span = 3
[[launches]]
memcpy = "snap[i * N:(i + 1) * N]"
from = "v"
[[launches]]
kernel = "add_one"
grid = 1
block = 8
args = ["v", "i + 1"]
for = { j = { from = 0, to = "i - 1" } }
[[launches]]
memset = "v[0:2]"
value = -1
)T",
                            format_dir() + "/t.toml");
  REQUIRE_MESSAGE(e.has_value(), (e ? "" : e.error().to_string()));
  CHECK(e->launches[0].span == 3);
  Runner runner(tc, RunOptions{});
  auto r = runner.run_once(*e);
  REQUIRE_MESSAGE(r.has_value(), (r ? "" : r.error().to_string()));
  // CPU: the same sequence on a host vector.
  std::vector<int32_t> v(8, 0), snap(32, 0);
  int launches = 0;
  for (int i = 0; i <= 3; ++i) {
    for (int32_t& x : v) x += 101;
    ++launches;
    std::copy(v.begin(), v.end(), snap.begin() + 8 * i);
    for (int j = 0; j <= i - 1; ++j) {
      for (int k = 0; k < i + 1; ++k) v[k] += 101;
      ++launches;
    }
  }
  v[0] = v[1] = -1;
  CHECK(test::as_i32(r->buffers[1]) == snap);
  CHECK(test::as_i32(r->buffers[0]) == v);
  REQUIRE(r->launches.size() == static_cast<size_t>(launches));  // 4 + 0 + 1 + 2 + 3
  // The inner launches carry both loops' variables, outermost first.
  const LaunchRecord& last = r->launches.back();
  REQUIRE(last.loop.size() == 2);
  CHECK(last.loop[0].first == "i");
  CHECK(last.loop[0].second.i == 3);
  CHECK(last.loop[1].first == "j");
  CHECK(last.loop[1].second.i == 2);
  // Outside the span the loop variable does not exist; a span past the end is an error.
  std::string err = load_error(std::string(kHead) + R"T(
[[launches]]
kernel = "add_one"
grid = 1
block = 8
args = ["v", "N"]
for = { i = [1] }
span = 2
[[launches]]
memset = "v[i]"
[[launches]]
memset = "v[i]"
)T");
  CHECK(err.find("bad.toml:21: launches[2].memset: unknown parameter 'i'") != std::string::npos);
  err = load_error(std::string(kHead) + R"T(
[[launches]]
kernel = "add_one"
grid = 1
block = 8
args = ["v", "N"]
for = { i = [1] }
span = 2
)T");
  CHECK(err.find("bad.toml:17: launches[0].span: expected 1 to 1") != std::string::npos);
}

TEST_CASE("512 format: a cuda-samples-shaped bitonic sort (loop head spanning two kernels)") {
  Toolchain tc;
  if (!tc.has_nvrtc()) return;
  Experiment exp = load("bitonic_samples.toml");
  CHECK(exp.launches[0].kind == LaunchDef::Kind::Loop);
  Runner runner(tc, RunOptions{});
  for (int64_t n : {256, 4096}) {
    CAPTURE(n);
    REQUIRE(set_param(exp, "N=" + std::to_string(n)).has_value());
    auto r = runner.run_once(exp);
    REQUIRE_MESSAGE(r.has_value(), (r ? "" : r.error().to_string()));
    auto in = make_buffers(exp, exp.env());
    REQUIRE(in.has_value());
    std::vector<uint32_t> want = test::as_u32((*in)[0]);
    std::sort(want.begin(), want.end());
    CHECK(test::as_u32(r->buffers[0]) == want);
    // One shared launch per k; global launches for strides >= 256: 0 + 1 + 2 + 3 + 4 for 4096.
    CHECK(r->launches.size() == (n == 256 ? 8u : 12u + 10u));
  }
  // A loop head must span something.
  std::string err = load_error(std::string(kHead) + R"T(
[[launches]]
for = { k = [1, 2] }
[[launches]]
memset = "v"
)T");
  CHECK(err.find(
            "bad.toml:11: launches[0]: a loop without kernel, memset or memcpy needs span = N") !=
        std::string::npos);
}
