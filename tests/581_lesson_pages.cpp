// Lesson pages (lab/lesson_page.h): embedded values render from committed data and presets
// without a run and wait for their step's run otherwise; a broken embed is a load error naming
// the page's file:line; and the drift check: no shipped page types a number in its prose that
// neither an embed computes nor the allow-list covers. A lesson in a folder outside the
// repository loads and renders the same way.
#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "lab/lesson.h"
#include "lab/lesson_page.h"
#include "lab/lesson_step.h"

using namespace warplab;
namespace fs = std::filesystem;

namespace {

// A lesson folder outside the repository: one page, one experiment copied from lesson 2.
fs::path make_lesson(const std::string& name, const std::string& page) {
  const fs::path dir = fs::temp_directory_path() / "warplab-581" / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path src = fs::path(WARPLAB_SOURCE_DIR) / "lessons" / "02-coalescing";
  fs::copy_file(src / "copy.toml", dir / "copy.toml");
  fs::copy_file(src / "coalescing.cu", dir / "coalescing.cu");
  std::ofstream(dir / "page-01.md") << page;
  std::ofstream(dir / "lesson.toml") << "[lesson]\nid = \"" << name
                                      << "\"\ntitle = \"T\"\n\n[[steps]]\npage = \"page-01.md\"\n"
                                         "experiment = \"copy.toml\"\n";
  return dir;
}

}  // namespace

TEST_CASE("581 formats: significant digits, ratios, units") {
  CHECK(*lab::format_value(3.64159, "") == "3.64");
  CHECK(*lab::format_value(524.368, "") == "524");
  CHECK(*lab::format_value(3.64159, "x") == "3.64x");
  CHECK(*lab::format_value(3.64159, "x1") == "3.6x");
  CHECK(*lab::format_value(0.126, "pct") == "13%");
  CHECK(*lab::format_value(0.125, "pct1") == "12.5%");
  CHECK(*lab::format_value(52428800, "MiB") == "50.0 MiB");
  CHECK(*lab::format_value(200704, "KiB") == "196 KiB");
  CHECK(*lab::format_value(12.5432, "us") == "12.5 µs");
  CHECK(*lab::format_value(1234.6, "int") == "1235");
  CHECK(*lab::format_value(0.0951, "g2") == "0.095");
  CHECK(*lab::format_value(2.5, "f1") == "2.5");
  auto bad = lab::format_value(1, "furlongs");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message.find("unknown format 'furlongs'") != std::string::npos);
}

TEST_CASE("581 embeds parse with their lines; broken ones name file:line") {
  auto e = lab::parse_page_embeds("a\nb {{ launch(\"k\").time | us }} c {{ 1 + 2 }}\n", "p.md");
  REQUIRE(e);
  REQUIRE(e->size() == 2);
  CHECK((*e)[0].line == 2);
  CHECK((*e)[0].expr == "launch(\"k\").time");
  CHECK((*e)[0].format == "us");
  CHECK((*e)[1].format.empty());
  auto open = lab::parse_page_embeds("x\n\n{{ launch(\"k\").time\n}}", "p.md");
  REQUIRE_FALSE(open);
  CHECK(open.error().line == 3);
  auto fmt = lab::parse_page_embeds("{{ 1 | parsecs }}", "p.md");
  REQUIRE_FALSE(fmt);
  CHECK(fmt.error().message.find("unknown format") != std::string::npos);
}

TEST_CASE("581 a lesson outside the repository loads; a broken embed is an error at load") {
  const struct {
    const char* embed;
    const char* says;
  } bad[] = {
      {"{{ launch(\"strided_copy\").tiem }}", "unknown metric 'tiem'"},
      {"{{ gpu(\"l2.no-such-point\").time }}", "no point 'l2.no-such-point'"},
      {"{{ gpu(\"h100:l2.stride8.ref\").time | furlongs }}", "unknown format"},
      {"{{ preset(\"h100-sxm\", \"l2.colour\") }}", "no field 'l2.colour'"},
      {"{{ step(3).run().time }}", "no step 3"},
      {"{{ frobnicate(1) }}", "unknown function 'frobnicate'"},
      {"{{ launch(\"strided_copy\").time ", "without '}}'"},
  };
  for (const auto& b : bad) {
    INFO(b.embed);
    const fs::path dir = make_lesson("broken", "# T\n\nline two\n" + std::string(b.embed) + "\n");
    auto l = lab::load_lesson(dir.string());
    REQUIRE_FALSE(l);
    CHECK(l.error().file == (dir / "page-01.md").string());
    CHECK(l.error().line == 4);
    CHECK(l.error().message.find(b.says) != std::string::npos);
  }
}

TEST_CASE("581 committed data and presets render without a run; run values wait for it") {
  const fs::path dir = make_lesson(
      "mine", "# Mine\n\nH100: {{ gpu(\"l2.stride8.ref\").time / gpu(\"l2.stride1.ref\").time | x }}"
              " and {{ gpu(\"l1.vec_add.ref\").dram_bytes | MB }}; L2 {{ preset(\"h100-sxm\", "
              "\"l2.size_bytes\") | MiB }}; copy {{ launch(\"strided_copy\").time | us }}.\n");
  auto l = lab::load_lesson(dir.string());
  REQUIRE_MESSAGE(l, (l ? "" : l.error().to_string()));
  REQUIRE(l->data);
  const lab::GpuDataset* h100 = nullptr;
  for (const lab::GpuDataset& d : *l->data)
    if (d.name == "h100") h100 = &d;
  REQUIRE(h100);
  // The figures computed here from the data file itself.
  const auto& p8 = h100->points["l2.stride8.ref"]["launches"][0]["gpu"];
  const auto& p1 = h100->points["l2.stride1.ref"]["launches"][0]["gpu"];
  const double ratio = p8["time_us"].get<double>() / p1["time_us"].get<double>();
  const auto& c = h100->points["l1.vec_add.ref"]["launches"][0]["gpu"]["counters"]["values"];
  const double mb =
      (c["dram_bytes_read"].get<double>() + c["dram_bytes_written"].get<double>()) / 1e6;
  auto r = lab::render_lesson_page(*l, 0, {nullptr}, *l->data, "(run to see)");
  INFO(r.text);
  CHECK(r.errors.empty());
  CHECK(r.pending == 1);
  CHECK(r.text.find("H100: " + *lab::format_value(ratio, "x") + " and " +
                    *lab::format_value(mb * 1e6, "MB") + "; L2 50.0 MiB; copy (run to see).") !=
        std::string::npos);
  CHECK(r.text.find("measured on " + h100->device + ", " + h100->date_of("l2.stride8.ref")) !=
        std::string::npos);
  CHECK(lab::page_run_steps(*l, 0) == std::vector<size_t>{0});
}

TEST_CASE("581 the drift check finds typed numbers and allows constants") {
  auto nums = [](const std::string& t) {
    std::string out;
    for (const auto& n : lab::loose_numbers(t)) out += std::to_string(n.line) + ":" + n.text + " ";
    return out;
  };
  CHECK(nums("32 lanes read 128-byte lines; 4 sectors; 2^20 elements; 100% useful") == "");
  CHECK(nums("The H100 runs sm_90 with float4 and L2; step 3 of lesson 11") == "");
  CHECK(nums("it takes 3.2x as long") == "1:3.2 ");
  CHECK(nums("a\n11,264 elements and 196 KiB") == "2:11,264 2:196 ");
  CHECK(nums("`N = 1000` in code and {{ 7.5 }} embedded, [link](file-2026.md)") == "");
  CHECK(nums("```\n5.84 us\n```\nafter 5.84") == "4:5.84 ");
}

TEST_CASE("581 every shipped page: embeds resolve and no number in prose is typed by hand") {
  std::vector<Error> broken;
  auto all = lab::load_lessons(std::string(WARPLAB_SOURCE_DIR) + "/lessons", &broken);
  REQUIRE(all);
  for (const Error& e : broken) FAIL_CHECK(e.to_string());
  CHECK(all->size() >= 15);
  size_t pages = 0;
  for (const lab::Lesson& l : *all)
    for (size_t si = 0; si < l.steps.size(); ++si) {
      if (l.steps[si].page.empty()) continue;
      ++pages;
      std::ifstream in(l.steps[si].page);
      std::stringstream ss;
      ss << in.rdbuf();
      for (const lab::LooseNumber& n : lab::loose_numbers(ss.str()))
        FAIL_CHECK(l.steps[si].page << ":" << n.line << ": '" << n.text
                                    << "' typed in prose: embed it ({{ ... }}, lessons/FORMAT.md)");
      // Without runs every embed renders: committed data and presets at once, run values as
      // placeholders (tests lesson_NN render them from runs at CI sizes).
      const lab::RenderedPage r = lab::render_lesson_page(l, si, {}, *l.data);
      for (const Error& e : r.errors) FAIL_CHECK(e.to_string());
    }
  CHECK(pages >= 20);
}

TEST_CASE("581 names in a lesson file are checked against its experiment at load") {
  const struct {
    const char* step;
    int line;
    const char* says;
  } bad[] = {
      {"editable = [\"N\", \"strid\"]\n", 5, "no parameter 'strid'"},
      {"set = { M = 4 }\n", 5, "no parameter 'M'"},
      {"[[steps.claims]]\ntext = \"c\"\nexpr = 'launch(\"strided_cpy\").time > 0'\n", 8,
       "no kernel 'strided_cpy'"},
      {"[[steps.claims]]\ntext = \"c\"\nexpr = 'launch_sum(\"ew_*\").time > 0'\n", 8,
       "no kernel matches 'ew_*'"},
      {"[[steps.questions]]\ntext = \"q\"\nanswer = 'launch(\"strided_copy\", strde=2).time'\n", 8,
       "no parameter 'strde'"},
  };
  for (const auto& b : bad) {
    INFO(b.step);
    const fs::path dir = make_lesson("names", "# T\n");
    std::ofstream(dir / "lesson.toml", std::ios::app) << b.step;
    auto l = lab::load_lesson((dir / "lesson.toml").string());
    REQUIRE_FALSE(l);
    CHECK(l.error().line == b.line);
    CHECK(l.error().message.find(b.says) != std::string::npos);
  }
  const fs::path dir = make_lesson("names-page", "# T\n\n{{ launch(\"strided_cpy\").time }}\n");
  auto l = lab::load_lesson(dir.string());
  REQUIRE_FALSE(l);
  CHECK(l.error().file == (dir / "page-01.md").string());
  CHECK(l.error().line == 3);
}

TEST_CASE("581 without a GPU, GPU claims are evaluated on the committed data at the same values") {
  auto l = lab::load_lesson(std::string(WARPLAB_SOURCE_DIR) + "/lessons/01-threads-and-warps");
  REQUIRE_MESSAGE(l, (l ? "" : l.error().to_string()));
  lab::Toolchain toolchain;
  lab::StepRunSettings settings;  // the simulator alone, the step's own sizes (N = 100000)
  auto run = lab::run_lesson_step(toolchain, *l, 1, settings);
  REQUIRE_MESSAGE(run, (run ? "" : run.error().to_string()));
  const lab::GpuDataset* h100 = nullptr;
  for (const lab::GpuDataset& d : *l->data)
    if (d.name == "h100") h100 = &d;
  REQUIRE(h100);
  // Sectors per request of the point at N = 100000, read here from the file itself.
  const auto& c = h100->points["l1.vec_add.default"]["launches"][0]["gpu"]["counters"]["values"];
  const double spr =
      c["global_load_sectors"].get<double>() / c["global_load_requests"].get<double>();
  bool seen = false;
  for (const lab::StepClaim& cv : run->claims) {
    if (!cv.on_gpu) continue;
    seen = true;
    CHECK_FALSE(cv.ran);
    REQUIRE(cv.value);
    CHECK(cv.value->lhs == doctest::Approx(spr));
    CHECK(cv.measured_on == h100->device + ", " + h100->date_of("l1.vec_add.default"));
  }
  CHECK(seen);
  // At the CI sizes the data have no such point: the GPU side stays not evaluated.
  settings.ci = true;
  auto ci = lab::run_lesson_step(toolchain, *l, 1, settings);
  REQUIRE(ci);
  for (const lab::StepClaim& cv : ci->claims)
    if (cv.on_gpu) CHECK_FALSE(cv.value);
}
