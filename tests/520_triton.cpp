// Triton kernels (lab/triton.h): the bridge's JSON, the experiment keys and their file:line
// errors, linking PTX for its own .target (sm_90a), and, where Triton is installed, whole kernels
// compiled by it and run on the simulator. Cases that need Triton or the CUDA toolkit skip with
// one MESSAGE saying why.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "50x_cli.h"
#include "lab/compile.h"
#include "lab/experiment.h"
#include "lab/runner.h"
#include "lab/triton.h"

using namespace warplab::lab;

namespace {

std::string tdata(const std::string& name) {
  return std::string(WARPLAB_SOURCE_DIR) + "/tests/data/triton/" + name;
}

std::string read_all(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

namespace {

// An experiment file in tests/data/triton/ (so "add.py" resolves) with this text.
warplab::Expected<Experiment> parse(const std::string& text) {
  return parse_experiment(text, tdata("inline.toml"));
}

const char* kHead = R"TOML([experiment]
triton = "add.py"
constexprs = { BLOCK_SIZE = "BLOCK" }
num_warps = "warps"

[params]
N = 1000
BLOCK = 256
warps = 2

[[buffers]]
name = "x"
type = "f32"
count = "N"
)TOML";

}  // namespace

TEST_CASE("520 triton: PTX links for its own .target") {
  CHECK(link_arch_for_ptx(".version 9.0\n.target sm_90a\n.address_size 64\n", "sm_90") == "sm_90a");
  CHECK(link_arch_for_ptx(".version 9.0\n.target sm_90f\n", "sm_90") == "sm_90f");
  CHECK(link_arch_for_ptx(".version 9.0\n.target sm_90\n", "sm_90") == "sm_90");
  CHECK(link_arch_for_ptx(".version 8.8\n.target sm_80\n", "sm_90") == "sm_90");  // forward
  CHECK(link_arch_for_ptx(".version 9.0\n.target sm_100a\n", "sm_90") == "sm_90");
  CHECK(link_arch_for_ptx("// no target\n", "sm_90") == "sm_90");
  CHECK(link_arch_for_ptx(".target sm_90a, debug\n", "sm_90") == "sm_90a");

  Toolchain tc;
  if (!tc.has_nvjitlink()) {
    MESSAGE("skipped the nvJitLink half (needs the CUDA toolkit): " << tc.why_no_nvjitlink());
    return;
  }
  // Triton's PTX (.target sm_90a) asked for sm_90: ptxas's real figures, not a refusal.
  const std::string ptx = read_all(tdata("add_sm90a.ptx"));
  REQUIRE(ptx.find(".target sm_90a") != std::string::npos);
  auto res = tc.resource_usage(ptx, "add_sm90a.ptx", "sm_90");
  REQUIRE_MESSAGE(res.has_value(), (res ? "" : res.error().to_string()));
  CHECK(res->sass_arch == "sm_90a");
  REQUIRE(res->kernels.size() == 1);
  CHECK(res->kernels[0].kernel == "add_kernel");
  CHECK(res->kernels[0].registers > 8);
  CHECK(res->kernels[0].registers <= 64);
}

TEST_CASE("520 triton: the bridge's request and reply") {
  TritonRequest req;
  req.file = "k.py";
  req.function = "add_kernel";
  req.args = {{"*fp32", true}, {"i32", false}};
  req.constexprs = {{"BLOCK_SIZE", "1024"}, {"EVEN", "true"}};
  req.num_warps = 8;
  req.target = 80;
  const std::string j = triton_request_json(req);
  CHECK(j.find("\"function\":\"add_kernel\"") != std::string::npos);
  CHECK(j.find("{\"divisible_by_16\":true,\"type\":\"*fp32\"}") != std::string::npos);
  CHECK(j.find("\"BLOCK_SIZE\":1024") != std::string::npos);
  CHECK(j.find("\"EVEN\":true") != std::string::npos);
  CHECK(j.find("\"num_warps\":8") != std::string::npos);
  CHECK(j.find("\"target\":80") != std::string::npos);

  auto ok = parse_triton_reply(
      R"({"ok": true, "ptx": ".version 9.0", "name": "add_kernel", "shared": 2048,
          "num_warps": 8, "num_stages": 2, "target": 80, "global_scratch_size": 0,
          "params": ["x_ptr", "n"], "constexpr_params": ["BLOCK_SIZE"],
          "triton_version": "3.9.0"})",
      "k.py");
  REQUIRE(ok.has_value());
  CHECK(ok->name == "add_kernel");
  CHECK(ok->shared == 2048);
  CHECK(ok->num_warps == 8);
  CHECK(ok->num_stages == 2);
  CHECK(ok->params == std::vector<std::string>{"x_ptr", "n"});
  CHECK(ok->constexpr_params == std::vector<std::string>{"BLOCK_SIZE"});
  CHECK(ok->triton_version == "3.9.0");

  auto bad = parse_triton_reply(R"({"ok": false, "error": "NameError: x", "line": 12})", "k.py");
  REQUIRE_FALSE(bad.has_value());
  CHECK(bad.error().file == "k.py");
  CHECK(bad.error().line == 12);
  CHECK(bad.error().message == "NameError: x");
  CHECK_FALSE(parse_triton_reply("not json", "k.py").has_value());
  CHECK_FALSE(parse_triton_reply(R"({"ok": true, "name": "k"})", "k.py").has_value());  // no PTX

  CHECK(triton_type_name("f32") == "fp32");
  CHECK(triton_type_name("f16") == "fp16");
  CHECK(triton_type_name("u32") == "u32");
  CHECK(triton_type_name("i64") == "i64");
}

TEST_CASE("520 triton: experiment keys") {
  auto e = parse(std::string(kHead) + R"TOML(
[[launches]]
kernel = "add_kernel"
grid = "cdiv(N, BLOCK)"
args = ["x", "x", "x", "N"]
)TOML");
  REQUIRE_MESSAGE(e.has_value(), (e ? "" : e.error().to_string()));
  CHECK(e->source_kind == Experiment::SourceKind::Triton);
  CHECK(e->source == tdata("add.py"));
  CHECK(e->triton.function == "add_kernel");
  CHECK(e->triton.target == 90);
  REQUIRE(e->triton.constexprs.size() == 1);
  CHECK(e->triton.constexprs[0].first == "BLOCK_SIZE");
  // The block is 32 * num_warps; the scratch pointers follow the kernel's own arguments.
  const LaunchDef& l = e->launches[0];
  CHECK(*l.block[0].eval_int(e->env()) == 64);
  REQUIRE(l.args.size() == 6);
  CHECK(*l.args[4].expr.eval_int(e->env()) == 0);
  CHECK(*l.args[5].expr.eval_int(e->env()) == 0);

  struct Bad {
    std::string text;
    int line;
    std::string says;
  };
  const Bad cases[] = {
      {std::string(kHead) + "\n[[launches]]\nkernel = \"add_kernel\"\ngrid = 4\nblock = 128\n"
                            "args = []\n",
       19, "launches[0].block: not given for a Triton kernel"},
      {std::string(kHead) + "\n[[launches]]\nkernel = \"add_kernel\"\ngrid = 4\n"
                            "shared_bytes = 128\nargs = []\n",
       19, "launches[0].shared_bytes: not given for a Triton kernel"},
      {std::string(kHead) + "\n[[launches]]\nkernel = \"add_kernel\"\ngrid = 4\nargs = []\n"
                            "\n[[launches]]\nkernel = \"other\"\ngrid = 4\nargs = []\n",
       22, "every launch of a Triton experiment runs the same function"},
      {"[experiment]\ntriton = \"add.py\"\nsource = \"add.cu\"\n", 3,
       "experiment.source: not used with 'triton"},
      {"[experiment]\ntriton = \"add.py\"\ntarget = \"sm_75\"\n[[launches]]\nkernel = \"k\"\n"
       "grid = 1\nargs = []\n",
       3, "experiment.target: expected \"sm_90\""},
      {"[experiment]\nsource = \"../vec_add.cu\"\nnum_warps = 4\n", 3,
       "experiment.num_warps: only used with 'triton"},
      {"[experiment]\ntriton = \"add.toml\"\n", 2, "experiment.triton: expected a Python file"},
      {"[experiment]\ntriton = \"missing.py\"\n", 2, "experiment.triton"},
      {std::string(kHead) + "\n[[launches]]\nkernel = \"add_kernel\"\ngrid = 4\n"
                            "args = [{ struct = [{ f32 = 1 }] }]\n",
       0, ""},  // parses; the runner refuses structs (below)
      {"[experiment]\ntriton = \"add.py\"\nconstexprs = { BLOCK_SIZE = \"NOPE\" }\n"
       "[[launches]]\nkernel = \"k\"\ngrid = 1\nargs = []\n",
       3, "experiment.constexprs.BLOCK_SIZE"},
  };
  for (const Bad& c : cases) {
    auto r = parse(c.text);
    if (c.line == 0) {
      CHECK_MESSAGE(r.has_value(), (r ? "" : r.error().to_string()));
      continue;
    }
    REQUIRE_FALSE_MESSAGE(r.has_value(), c.says);
    INFO(r.error().to_string());
    CHECK(r.error().line == c.line);
    CHECK(r.error().message.find(c.says) != std::string::npos);
  }
}

TEST_CASE("520 triton: without Triton, one sentence says why") {
  const char* old = std::getenv("WARPLAB_PYTHON");
  const std::string saved = old ? old : "";
  setenv("WARPLAB_PYTHON", "/nonexistent/python3", 1);
  TritonBridge b;
  const std::string why = b.why_unavailable();
  if (old)
    setenv("WARPLAB_PYTHON", saved.c_str(), 1);
  else
    unsetenv("WARPLAB_PYTHON");
  CHECK(why.find("Python 3") != std::string::npos);
  CHECK(why.find("WARPLAB_PYTHON") != std::string::npos);
  CHECK(b.version().empty());
  TritonRequest req;
  req.file = tdata("add.py");
  req.function = "add_kernel";
  auto k = b.compile(req);
  REQUIRE_FALSE(k.has_value());
  CHECK(k.error().message == why);
}

TEST_CASE("520 triton: kernels compiled by the installed Triton") {
  TritonBridge bridge;
  if (const std::string why = bridge.why_unavailable(); !why.empty()) {
    MESSAGE("skipped (needs Triton): " << why);
    return;
  }
  // A compile error comes back at the .py line, with Triton's reason.
  TritonRequest bad;
  bad.file = tdata("bad.py");
  bad.function = "bad_kernel";
  bad.args = {{"*fp32", true}, {"i32", true}};
  bad.constexprs = {{"BLOCK", "128"}};
  auto e = bridge.compile(bad, "", false);
  REQUIRE_FALSE(e.has_value());
  CHECK(e.error().file == tdata("bad.py"));
  CHECK(e.error().line == 11);
  CHECK(e.error().message.find("undefined_scale") != std::string::npos);
  // A function the file does not define: the ones it does are listed.
  bad.function = "nope";
  auto missing = bridge.compile(bad, "", false);
  REQUIRE_FALSE(missing.has_value());
  CHECK(missing.error().message.find("it defines: bad_kernel") != std::string::npos);
  // The wrong number of arguments names the parameters.
  bad.function = "bad_kernel";
  bad.args.pop_back();
  auto count = bridge.compile(bad, "", false);
  REQUIRE_FALSE(count.has_value());
  CHECK(count.error().message.find(
            "takes 2 arguments besides its constexprs (x_ptr, n); 1 given") != std::string::npos);

  // The vector add experiment: Triton's PTX on the simulator, checked exactly; counts by line of
  // the .py file (its .loc lines).
  auto exp = load_experiment(tdata("add.toml"));
  REQUIRE_MESSAGE(exp.has_value(), (exp ? "" : exp.error().to_string()));
  RunOptions opt;
  opt.mode = SimMode::Functional;
  opt.ptx_cache = false;
  opt.resources = false;
  Toolchain tc;
  Runner runner(tc, opt);
  auto r = runner.run_once(*exp);
  REQUIRE_MESSAGE(r.has_value(), (r ? "" : r.error().to_string()));
  CHECK(r->passed());
  REQUIRE(r->unit->triton.has_value());
  CHECK(r->unit->triton->num_warps == 2);
  CHECK(r->unit->ptx.find(".target sm_90a") != std::string::npos);
  // 16-byte aligned buffers and N = 1008 (a multiple of 16): Triton vectorizes the masked loads.
  CHECK(r->unit->ptx.find("ld.global.v4") != std::string::npos);
  REQUIRE(r->launches.size() == 1);
  CHECK(r->launches[0].block.x == 64);
  CHECK(r->launches[0].grid.x == 4);
  REQUIRE(r->launches[0].stats.has_value());
  const auto& files = r->unit->program->module().files;
  std::set<int> lines;
  for (const auto& [fl, c] : r->launches[0].stats->by_src_line) {
    REQUIRE(fl.first >= 0);
    REQUIRE(static_cast<size_t>(fl.first) < files.size());
    CHECK(files[fl.first] == tdata("add.py"));
    lines.insert(fl.second);
  }
  // add.py: program_id, the offsets, the mask, two loads and the store (lines 15-20); nothing
  // past them (Triton's inline-asm .loc lines, which run past the end, are dropped).
  for (int line : {15, 16, 17, 18, 19, 20}) CHECK_MESSAGE(lines.count(line), "line " << line);
  for (int line : lines) CHECK_MESSAGE((line >= 14 && line <= 20), "line " << line);
}

TEST_CASE("520 triton: warplab run skips without Triton; warplab ptx FILE.py:FUNCTION") {
  // A Triton experiment where Triton cannot run: one line, exit 0, nothing else.
  auto s = warplab::test::run_warplab_env("WARPLAB_PYTHON=/nonexistent/python3",
                                          "run " + tdata("add.toml"), "triton_skip");
  CHECK(s.status == 0);
  CHECK(s.out.rfind("SKIPPED ", 0) == 0);
  CHECK(s.out.find("a Triton kernel") != std::string::npos);
  CHECK(std::count(s.out.begin(), s.out.end(), '\n') == 1);

  TritonBridge bridge;
  if (const std::string why = bridge.why_unavailable(); !why.empty()) {
    MESSAGE("skipped the rest (needs Triton): " << why);
    return;
  }
  auto p = warplab::test::run_warplab_env(
      "WARPLAB_NO_CACHE=1",
      "ptx " + tdata("add.py") + ":add_kernel --constexpr BLOCK_SIZE=256 --num-warps 2",
      "triton_ptx");
  INFO(p.err);
  CHECK(p.status == 0);
  CHECK(p.out.rfind("// Triton ", 0) == 0);
  CHECK(p.out.find("num_warps 2 (block of 64 threads)") != std::string::npos);
  CHECK(p.out.find(".target sm_90a") != std::string::npos);
  CHECK(p.out.find(".visible .entry add_kernel(") != std::string::npos);
  Toolchain tc;
  if (tc.has_nvjitlink()) {
    CHECK(p.out.find("resource usage (nvJitLink -arch=sm_90a)") != std::string::npos);
    CHECK(p.out.find("// add_kernel: ") != std::string::npos);
  }
  // A function the file does not define is bad input (exit 2) naming the file.
  auto bad = warplab::test::run_warplab_env("WARPLAB_NO_CACHE=1",
                                            "ptx " + tdata("add.py") + ":nope", "triton_ptx_bad");
  CHECK(bad.status == 2);
  CHECK(bad.err.find("no @triton.jit function 'nope'") != std::string::npos);
}

TEST_CASE("520 triton: WARPLAB_TRITON_FROM_CACHE runs a cached compile without Triton") {
  TritonBridge bridge;
  if (const std::string why = bridge.why_unavailable(); !why.empty()) {
    MESSAGE("skipped (needs Triton to fill the cache): " << why);
    return;
  }
  const std::string dir =
      std::filesystem::temp_directory_path() / ("warplab_triton_cache_" + std::to_string(getpid()));
  auto filled = warplab::test::run_warplab_env("WARPLAB_CACHE_DIR=" + dir,
                                               "run " + tdata("add.toml"), "triton_fill");
  CHECK(filled.status == 0);
  auto cached = warplab::test::run_warplab_env(
      "WARPLAB_CACHE_DIR=" + dir +
          " WARPLAB_TRITON_FROM_CACHE=1 WARPLAB_PYTHON=/nonexistent/python3",
      "run " + tdata("add.toml"), "triton_cached");
  INFO(cached.err);
  CHECK(cached.status == 0);
  CHECK(cached.out.find("PASSED") != std::string::npos);
  // Another BLOCK_SIZE was never compiled: an error that says so (exit 2).
  auto other = warplab::test::run_warplab_env(
      "WARPLAB_CACHE_DIR=" + dir +
          " WARPLAB_TRITON_FROM_CACHE=1 WARPLAB_PYTHON=/nonexistent/python3",
      "run " + tdata("add.toml") + " --set BLOCK=128", "triton_cached_other");
  CHECK(other.status == 2);
  CHECK(other.err.find("no cached Triton compile of add_kernel") != std::string::npos);
  std::filesystem::remove_all(dir);
}
