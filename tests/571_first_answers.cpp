// The first answers of the generalization sets (lab/first_answers.h): the file reader and its
// errors, the per-group summary `warplab validate` prints (made-up times, the MAPE worked out by
// hand below), and the committed validation/data/first-answers.json against the corpus.
#include <doctest/doctest.h>

#include <set>
#include <string>

#include "lab/first_answers.h"
#include "lab/validate.h"

using namespace warplab::lab;

namespace {

std::string src(const std::string& rel) { return std::string(WARPLAB_SOURCE_DIR) + "/" + rel; }

CorpusPoint point(const std::string& id, const std::string& group) {
  CorpusPoint p;
  p.id = id;
  p.group = group;
  return p;
}

}  // namespace

TEST_CASE("571 first answers: the reader and its errors") {
  auto f = parse_first_answers(
      R"({"schema": "warplab.first-answers/1", "groups": {"gen2": {"date": "d", "commit": "c",
          "time_us": {"h100-sxm": {"a": 10.0, "b": 4}}}}})",
      "f.json");
  REQUIRE(f);
  CHECK(f->groups.at("gen2").commit == "c");
  CHECK(f->groups.at("gen2").time_us.at("h100-sxm").at("b") == 4.0);
  auto err = [](const std::string& text) {
    auto r = parse_first_answers(text, "f.json");
    REQUIRE_FALSE(r);
    return r.error().to_string();
  };
  CHECK(err("{") .find("f.json: not JSON") == 0);
  CHECK(err(R"({"schema": "x", "groups": {}})") ==
        "f.json: expected an object with \"schema\": \"warplab.first-answers/1\"");
  CHECK(err(R"({"schema": "warplab.first-answers/1", "groups": {"g": {"time_us": {"p": {"a": -1}}}}})") ==
        "f.json: groups.g.time_us.p.a: expected a positive time");
  CHECK(err(R"({"schema": "warplab.first-answers/1", "groups": {"g": {}}})") ==
        "f.json: groups.g: expected an object with \"time_us\": {preset: {id: us}}");
}

TEST_CASE("571 first answers: MAPE per group, first answers beside today's") {
  // gen2: a (sim 12, gpu 10, first 15: 20% today, 50% first), b (sim 9, gpu 10, first 10: 10%,
  // 0%), c (no GPU time: left out). gen1: d (sim 5, gpu 4, no first answer: 25%). None: e.
  std::vector<CorpusPoint> pts = {point("a", "gen2"), point("d", "gen1"), point("b", "gen2"),
                                  point("c", "gen2"), point("e", "")};
  std::map<std::string, double> sim = {{"a", 12}, {"b", 9}, {"c", 1}, {"d", 5}, {"e", 1}};
  std::map<std::string, double> gpu = {{"a", 10}, {"b", 10}, {"d", 4}, {"e", 2}};
  auto f = parse_first_answers(
      R"({"schema": "warplab.first-answers/1", "groups": {"gen2": {"time_us":
          {"h100-sxm": {"a": 15, "b": 10}, "h200": {"a": 10}}}}})",
      "f.json");
  REQUIRE(f);
  auto g = summarize_groups(pts, sim, gpu, &*f, "h100-sxm");
  REQUIRE(g.size() == 2);
  CHECK(g[0].group == "gen2");
  CHECK(g[0].points == 2);
  CHECK(g[0].mape == doctest::Approx(15.0));
  CHECK(g[0].first_points == 2);
  CHECK(g[0].first_answer_mape == doctest::Approx(25.0));
  CHECK(group_line(g[0]) == "VALIDATE group=gen2 points=2 first_answer_mape=25.0% mape=15.0%");
  CHECK(group_line(g[1]) == "VALIDATE group=gen1 points=1 first_answer_mape=- mape=25.0%");
  // Another preset: only a has a first answer there (0%).
  auto h = summarize_groups(pts, sim, gpu, &*f, "h200");
  CHECK(group_line(h[0]) == "VALIDATE group=gen2 points=2 first_answer_mape=0.0% (1 of 2) mape=15.0%");
  // No file: today's MAPE only.
  CHECK(group_line(summarize_groups(pts, sim, gpu, nullptr, "h100-sxm")[0]) ==
        "VALIDATE group=gen2 points=2 first_answer_mape=- mape=15.0%");
}

TEST_CASE("571 first answers: the latency-bound group (every launch under the SM count)") {
  // widest launch in blocks: a 4 (in), d 131 (in), b 132 (out: as many as SMs), c 1 (no GPU
  // time), e 0 (not simulated). a: 20%, d: 25%.
  std::vector<CorpusPoint> pts = {point("a", "gen2"), point("d", "gen1"), point("b", "gen2"),
                                  point("c", "gen2"), point("e", "")};
  std::vector<uint64_t> widest = {4, 131, 132, 1, 0};
  std::map<std::string, double> sim = {{"a", 12}, {"b", 9}, {"c", 1}, {"d", 5}, {"e", 1}};
  std::map<std::string, double> gpu = {{"a", 10}, {"b", 10}, {"d", 4}, {"e", 2}};
  GroupSummary g = summarize_latency_bound(pts, widest, sim, gpu, 132);
  CHECK(g.group == "latency_bound");
  CHECK(g.points == 2);
  CHECK(g.mape == doctest::Approx(22.5));
  CHECK(latency_bound_line(g) == "VALIDATE group=latency_bound points=2 mape=22.5%");
  // A preset of 200 SMs takes b in too (10%).
  CHECK(latency_bound_line(summarize_latency_bound(pts, widest, sim, gpu, 200)) ==
        "VALIDATE group=latency_bound points=3 mape=18.3%");
  CHECK(latency_bound_line(summarize_latency_bound(pts, widest, sim, gpu, 1)) ==
        "VALIDATE group=latency_bound points=0 mape=-");
}

TEST_CASE("571 first answers: the committed file names only grouped corpus points") {
  auto pts = load_corpus(src("validation/corpus.toml"));
  REQUIRE(pts);
  auto f = load_first_answers(src("validation/data/first-answers.json"));
  REQUIRE_MESSAGE(f, (f ? "" : f.error().to_string()));
  std::map<std::string, std::string> group_of;
  for (const CorpusPoint& p : *pts) group_of[p.id] = p.group;
  for (const auto& [name, g] : f->groups) {
    CHECK_FALSE(g.commit.empty());
    CHECK_FALSE(g.date.empty());
    for (const auto& [preset, times] : g.time_us)
      for (const auto& [id, us] : times) {
        INFO(name << " " << preset << " " << id);
        CHECK(group_of.count(id) == 1);
        CHECK(group_of[id] == name);
      }
  }
  // Every gen2 point has its first answer on the H100 preset.
  int gen2 = 0;
  for (const CorpusPoint& p : *pts)
    if (p.group == "gen2") {
      ++gen2;
      CHECK_MESSAGE(f->groups.at("gen2").time_us.at("h100-sxm").count(p.id) == 1, p.id);
    }
  CHECK(gen2 >= 22);
}
