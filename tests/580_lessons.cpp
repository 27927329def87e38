// Lesson files (lab/lesson.h): every shipped lesson loads; broken files name file:line and what
// was expected; claims and answers evaluate over a run's metrics, checked against figures
// computed here from the run's own records.
#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <tuple>

#include "lab/lesson.h"
#include "lab/lesson_step.h"

using namespace warplab;

namespace {
std::string write_tmp(const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::temp_directory_path() / "warplab-580";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "page.md") << "# A page\n";
  const auto p = dir / name;
  std::ofstream(p) << text;
  return p.string();
}
}  // namespace

TEST_CASE("580 every shipped lesson loads, in order, with claims") {
  auto all = lab::load_lessons(std::string(WARPLAB_SOURCE_DIR) + "/lessons");
  REQUIRE_MESSAGE(all, (all ? "" : all.error().to_string()));
  REQUIRE(all->size() >= 8);
  for (size_t i = 1; i < all->size(); ++i) CHECK((*all)[i - 1].order <= (*all)[i].order);
  for (const auto& l : *all) {
    size_t claims = 0;
    for (const auto& s : l.steps) claims += s.claims.size();
    INFO(l.id);
    CHECK(claims >= 1);
  }
}

TEST_CASE("580 broken lesson files name file:line and what was expected") {
  auto e1 = lab::load_lesson(write_tmp("a.toml", "[lesson]\nid = \"x\"\ntitle = \"t\"\n"));
  REQUIRE_FALSE(e1);
  CHECK(e1.error().message.find("[[steps]]") != std::string::npos);
  auto e2 = lab::load_lesson(
      write_tmp("b.toml",
                "[lesson]\nid = \"x\"\ntitle = \"t\"\n[[steps]]\npage = \"page.md\"\nexperiment = "
                "\"page.md\"\n[[steps.claims]]\ntext = \"c\"\nexpr = 'launch(\"k\").tiem > 1'\n"));
  REQUIRE_FALSE(e2);
  CHECK(e2.error().line == 7);
  CHECK(e2.error().message.find("unknown metric 'tiem'") != std::string::npos);
  auto e3 = lab::load_lesson(write_tmp(
      "c.toml", "[lesson]\nid = \"x\"\ntitle = \"t\"\n[[steps]]\npage = \"missing.md\"\n"));
  REQUIRE_FALSE(e3);
  CHECK(e3.error().message.find("no file 'missing.md'") != std::string::npos);
  auto e4 = lab::load_lesson(write_tmp(
      "d.toml",
      "[lesson]\nid = \"x\"\ntitle = \"t\"\ncolour = 1\n[[steps]]\npage = \"page.md\"\n"));
  REQUIRE_FALSE(e4);
  CHECK(e4.error().line == 4);
  CHECK(e4.error().message.find("unknown key") != std::string::npos);
  auto e5 = lab::load_lesson(
      write_tmp("e.toml",
                "[lesson]\nid = \"x\"\ntitle = \"t\"\n[[steps]]\npage = \"page.md\"\nexperiment = "
                "\"page.md\"\n[[steps.claims]]\ntext = \"c\"\nexpr = 'run().time'\n"));
  REQUIRE_FALSE(e5);
  CHECK(e5.error().message.find("comparison") != std::string::npos);
}

TEST_CASE("580 claims and answers over a run's records") {
  lab::ExperimentResult r;
  r.sweep = lab::SweepResult{};
  r.sweep->axes = {"stride"};
  for (int stride : {1, 8}) {
    lab::RunResult run;
    run.params = {{"stride", lab::Value::integer(stride)}};
    for (int k = 0; k < 2; ++k) {
      lab::LaunchRecord rec;
      rec.kernel = k == 0 ? "ew_a" : "fused";
      rec.sim = {{"time_us", 10.0 * stride + k},
                 {"cycles", 1000},
                 {"counters",
                  {{"global_load_requests", 100},
                   {"global_load_sectors", 400 * stride},
                   {"dram_bytes_read", 1000},
                   {"dram_bytes_written", 24}}}};
      run.launches.push_back(rec);
    }
    lab::HostBuffer b;
    b.name = "y";
    b.type = lab::ElemType::I32;
    b.count = 2;
    b.bytes = {7, 0, 0, 0, 9, 0, 0, 0};
    run.buffers.push_back(b);
    r.sweep->runs.push_back(run);
  }
  auto v = lab::eval_claim("sweep(stride=8).time / sweep(stride=1).time >= 4", r, false);
  REQUIRE(v);
  CHECK(v->lhs == doctest::Approx(161.0 / 21.0));
  CHECK(v->holds);
  auto spr = lab::eval_lesson_expr("sectors_per_request(stride=8)", r, false);
  REQUIRE(spr);
  CHECK(*spr == doctest::Approx(32));
  auto d = lab::eval_lesson_expr("launch_sum(\"ew_*\", stride=1).dram_bytes", r, false);
  REQUIRE(d);
  CHECK(*d == doctest::Approx(1024));
  auto w = lab::eval_lesson_expr(
      "which_max(launch(\"ew_a\", stride=1).time, launch(\"fused\", stride=1).time)", r, false);
  REQUIRE(w);
  CHECK(*w == 1);
  auto b = lab::eval_lesson_expr("buffer(\"y\", 1, stride=1)", r, false);
  REQUIRE(b);
  CHECK(*b == 9);
  // Ambiguous (two sweep rows), unknown kernel, no GPU figures: clear errors.
  auto amb = lab::eval_lesson_expr("launch(\"fused\").time", r, false);
  REQUIRE_FALSE(amb);
  CHECK(amb.error().message.find("sweep rows match") != std::string::npos);
  CHECK_FALSE(lab::eval_lesson_expr("launch(\"nope\", stride=1).time", r, false));
  auto g = lab::eval_lesson_expr("launch(\"fused\", stride=1).time", r, true);
  REQUIRE_FALSE(g);
  CHECK(g.error().message.find("no GPU time") != std::string::npos);
  auto f = lab::eval_claim("launch(\"fused\", stride=8).time < 5", r, false);
  REQUIRE(f);
  CHECK_FALSE(f->holds);
}

TEST_CASE("580 a warp state's metric is its share of the warp-cycles, summed over launches") {
  lab::ExperimentResult r;
  r.run = lab::RunResult{};
  // Two launches of one kernel: 30 + 10 of 100 + 100 warp-cycles in long scoreboard.
  for (auto [ls, sel, bar] : {std::tuple{30, 50, 20}, std::tuple{10, 40, 50}}) {
    lab::LaunchRecord rec;
    rec.kernel = "k";
    rec.sim = {
        {"time_us", 1.0},
        {"cycles", 100},
        {"warp_states",
         {{"total", {{"stall_long_scoreboard", ls}, {"selected", sel}, {"stall_barrier", bar}}}}}};
    r.run->launches.push_back(rec);
  }
  auto v = lab::eval_lesson_expr("launch(\"k\").stall_long_scoreboard", r, false);
  REQUIRE(v);
  CHECK(*v == doctest::Approx(40.0 / 200.0));
  auto s = lab::eval_lesson_expr("run().selected + run().stall_barrier", r, false);
  REQUIRE(s);
  CHECK(*s == doctest::Approx(160.0 / 200.0));
  auto z = lab::eval_lesson_expr("run().stall_mio_throttle", r, false);
  REQUIRE(z);
  CHECK(*z == 0);
  auto bad = lab::eval_lesson_expr("run().stall_typo", r, false);
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message.find("warp state") != std::string::npos);
}

TEST_CASE("580 one step runs the way warplab lesson and the app both run it") {
  auto l = lab::load_lesson(std::string(WARPLAB_SOURCE_DIR) + "/lessons/02-coalescing/lesson.toml");
  REQUIRE(l);
  REQUIRE(l->steps.size() >= 2);
  lab::Toolchain toolchain;
  lab::StepRunSettings set;
  set.ci = true;
  auto none = lab::run_lesson_step(toolchain, *l, 99, set);
  REQUIRE_FALSE(none);
  CHECK(none.error().message == "no step 99");
  // A bad starting value of the step names the lesson file's line; the student's does not.
  lab::Lesson bad = *l;
  bad.steps[0].set.emplace_back("no_such_param", "1");
  auto e = lab::run_lesson_step(toolchain, bad, 0, set);
  REQUIRE_FALSE(e);
  CHECK(e.error().file == l->path);
  CHECK(e.error().line == l->steps[0].line);
  CHECK(e.error().message.rfind("steps[0]: ", 0) == 0);
  if (!toolchain.has_nvrtc()) {
    MESSAGE("skipped: no NVRTC");
    return;
  }
  set.sets = {"N=65536"};
  std::vector<std::string> started;
  auto r = lab::run_lesson_step(toolchain, *l, 0, set,
                                [&](const std::string& l2) { started.push_back(l2); });
  REQUIRE_MESSAGE(r, (r ? "" : r.error().to_string()));
  CHECK(started == std::vector<std::string>{"cold"});
  CHECK(r->backend == lab::BackendKind::Sim);
  CHECK(r->result.passed());
  REQUIRE(r->answers.size() == l->steps[0].questions.size());
  REQUIRE(r->answers.size() == 1);
  CHECK(*r->answers[0].value == 4);  // sectors per request at stride 1
  CHECK(r->answers[0].shown == "4");
  // Every claim once per side it names, the simulator's first; the GPU's did not run.
  for (const lab::StepClaim& c : r->claims) {
    CHECK(c.ran == !c.on_gpu);
    CHECK(c.value.has_value() == !c.on_gpu);
  }
}

TEST_CASE("580 the GPU data folder: other JSON files are skipped, a malformed data file is an error") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "warplab-580-gpu-data";
  fs::remove_all(dir);
  fs::create_directories(dir);
  auto write = [&](const char* name, const char* text) { std::ofstream(dir / name) << text; };
  write("first-answers.json", R"({"groups": {}, "schema": "warplab.first-answers/1"})");
  write("notes.json", "[1, 2, 3]");
  write("h100.json", R"({"schema": "warplab.validation-data/1", "device": "X", "date": "2026-11-26",
                         "points": [{"id": "p.a", "time_us": 2.5}]})");
  auto sets = lab::load_gpu_datasets(dir.string());
  REQUIRE(sets);
  REQUIRE(sets->size() == 1);
  CHECK((*sets)[0].name == "h100");
  CHECK((*sets)[0].points.contains("p.a"));
  write("h200.json", R"({"schema": "warplab.validation-data/1", "points": 7})");
  auto bad = lab::load_gpu_datasets(dir.string());
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message.find("not GPU data") != std::string::npos);
  CHECK(bad.error().file.find("h200.json") != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("580 a claim reads another step's run with step(N); param() reads a run's size") {
  // Two steps' runs built here: step 1 (CUDA, one run at M = 256) and step 2 (a sweep over g at
  // M = 512), each with one launch of known time.
  auto one_run = [](const char* kernel, double us, int m, std::optional<int> g) {
    lab::RunResult run;
    run.params = {{"M", lab::Value::integer(m)}};
    if (g) run.params.emplace_back("g", lab::Value::integer(*g));
    lab::LaunchRecord rec;
    rec.kernel = kernel;
    rec.sim = {{"time_us", us}, {"cycles", 1000}};
    rec.gpu = {{"time_us", 2 * us}};
    run.launches.push_back(rec);
    return run;
  };
  lab::ExperimentResult cuda, twin;
  cuda.run = one_run("mm", 40.0, 256, std::nullopt);
  twin.sweep = lab::SweepResult{};
  twin.sweep->axes = {"g"};
  twin.sweep->runs = {one_run("dot", 10.0, 512, 1), one_run("dot", 12.0, 512, 8)};
  lab::ExprEnv env;
  env.steps = {&cuda, &twin};
  env.step_runs = {true, true};
  env.result = &twin;
  // Per M: step 1 40/256, step 2 (g=8) 12/512: a ratio of 40 * 512 / (12 * 256).
  const std::string expr =
      "(step(1).launch(\"mm\").time / step(1).param(\"M\")) / (sweep(g=8).time / param(\"M\")) >= "
      "6";
  bool pending = true;
  auto v = lab::eval_env_claim(expr, env, &pending);
  REQUIRE_MESSAGE(v, (v ? "" : v.error().to_string()));
  CHECK_FALSE(pending);
  CHECK(v->lhs == doctest::Approx(40.0 * 512 / (12.0 * 256)));
  CHECK(v->holds);
  // The GPU side reads step 1's GPU side too (twice the time on both: the same ratio).
  env.gpu = true;
  auto g = lab::eval_env_claim(expr, env);
  REQUIRE(g);
  CHECK(g->lhs == doctest::Approx(40.0 * 512 / (12.0 * 256)));
  env.gpu = false;
  // param() over a sweep: the rows must agree, or the selectors pick one.
  CHECK(*lab::eval_lesson_expr("param(\"M\")", twin, false) == 512);
  CHECK(*lab::eval_lesson_expr("param(\"g\", g=8)", twin, false) == 8);
  auto differ = lab::eval_lesson_expr("param(\"g\")", twin, false);
  REQUIRE_FALSE(differ);
  CHECK(differ.error().message.find("differs between the runs") != std::string::npos);
  CHECK_FALSE(lab::eval_lesson_expr("param(\"nope\")", twin, false));
  // A step that has not run: the claim is pending (its value is not the claim's).
  env.steps[0] = nullptr;
  auto p = lab::eval_env_claim(expr, env, &pending);
  REQUIRE(p);
  CHECK(pending);
  // Without the lesson, step(N) is an error that says where it belongs.
  auto alone = lab::eval_claim(expr, twin, false);
  REQUIRE_FALSE(alone);
  CHECK(alone.error().message.find("another step's run") != std::string::npos);
}

TEST_CASE("580 a claim's step(N) is checked at load, and names the steps to run first") {
  const std::string exp =
      std::string(WARPLAB_SOURCE_DIR) + "/lessons/01-threads-and-warps/vec_add.toml";
  auto lesson = [&](const std::string& name, const std::string& expr) {
    return lab::load_lesson(write_tmp(
        name,
        "[lesson]\nid = \"x\"\ntitle = \"t\"\n[[steps]]\npage = \"page.md\"\nexperiment = \"" +
            exp + "\"\n[[steps]]\npage = \"page.md\"\n[[steps]]\npage = \"page.md\"\n" +
            "experiment = \"" + exp + "\"\n[[steps.claims]]\ntext = \"c\"\nexpr = '" + expr +
            "'\n"));
  };
  auto ok = lesson("s1.toml", "launch(\"vec_add\").time <= 2 * step(1).launch(\"vec_add\").time");
  REQUIRE_MESSAGE(ok, (ok ? "" : ok.error().to_string()));
  CHECK(lab::claim_run_steps(*ok, 2) == std::vector<size_t>{0});
  CHECK(lab::claim_run_steps(*ok, 0).empty());
  auto far = lesson("s2.toml", "launch(\"vec_add\").time <= step(7).launch(\"vec_add\").time");
  REQUIRE_FALSE(far);
  CHECK(far.error().line == 12);  // the [[steps.claims]] table
  CHECK(far.error().message.find("no step 7 (the lesson has 3)") != std::string::npos);
  auto none = lesson("s3.toml", "launch(\"vec_add\").time <= step(2).launch(\"vec_add\").time");
  REQUIRE_FALSE(none);
  CHECK(none.error().message.find("step 2 runs no experiment") != std::string::npos);
}
