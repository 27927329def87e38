// tests/390: `warplab validate --sampled` (lab/validate.h: compare_sampled): every point runs
// sampled first, and only the points that sampled run again in full; each point is reported once,
// as soon as both sides are known. Checked against independent simulate_corpus runs of each side.
#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <string>

#include "lab/validate.h"

using namespace warplab::lab;

namespace {

std::string src(const std::string& rel) { return std::string(WARPLAB_SOURCE_DIR) + "/" + rel; }

}  // namespace

TEST_CASE("390 validate --sampled: only the points that sample run twice; each reported once") {
  // occ.pad76800: lesson 3's occupancy sweep at 76,800 B of shared memory a block, many waves
  // (it samples); vec_add: lesson 1's default size, under a wave (the sampler runs it in full).
  const std::string text = std::string(R"TOML(
[[point]]
id = "occ.pad76800"
experiment = ")TOML") + src("lessons/03-block-size/occupancy.toml") +
                           R"TOML("
row = ["pad=76800"]
mechanism = "m"

[[point]]
id = "vec_add"
experiment = ")TOML" + src("lessons/01-threads-and-warps/vec_add.toml") +
                           R"TOML("
mechanism = "m"
)TOML";
  auto pts = parse_corpus(text, "/abs.toml");
  REQUIRE(pts);
  REQUIRE(pts->size() == 2);
  ValidateOptions o;
  o.jobs = 2;
  std::map<std::string, int> reported;
  const std::vector<SampledPoint> c =
      compare_sampled(*pts, o, [&](const SampledPoint& p) { ++reported[p.id]; });
  CHECK(reported == std::map<std::string, int>{{"occ.pad76800", 1}, {"vec_add", 1}});
  REQUIRE(c.size() == 2);
  // Each side on its own.
  ValidateOptions full = o, sampled = o;
  full.sampled = false;
  sampled.sampled = true;
  const std::vector<SimPoint> f = simulate_corpus(*pts, full), s = simulate_corpus(*pts, sampled);
  REQUIRE(f[0].ok);
  REQUIRE(s[0].ok);
  REQUIRE(f[1].ok);
  // The point that samples: both sides, and the error between them.
  CHECK(c[0].id == "occ.pad76800");
  CHECK(c[0].ok);
  CHECK(c[0].sampled);
  CHECK(s[0].detailed_blocks < s[0].blocks);
  CHECK(c[0].detailed_fraction == double(s[0].detailed_blocks) / double(s[0].blocks));
  CHECK(c[0].full_cycles == f[0].cycles);
  CHECK(c[0].sampled_cycles == s[0].cycles);
  CHECK(c[0].sampled_cycles != c[0].full_cycles);  // extrapolated: not the full model's
  CHECK(c[0].err_pct == 100 * std::abs(s[0].cycles - f[0].cycles) / f[0].cycles);
  CHECK(c[0].err_pct < 2);
  // The point the sampler runs in full: one run, the full model's cycles, error 0.
  CHECK(c[1].id == "vec_add");
  CHECK(c[1].ok);
  CHECK_FALSE(c[1].sampled);
  CHECK(c[1].detailed_fraction == 1);
  CHECK(c[1].full_cycles == f[1].cycles);
  CHECK(c[1].sampled_cycles == f[1].cycles);
  CHECK(c[1].err_pct == 0);
  CHECK(c[1].full_wall_s == c[1].sampled_wall_s);  // the same run
  const std::string table = format_sampled(c);
  CHECK(table.find("SAMPLED points=2 sampled=1 failed=0 ") != std::string::npos);
  CHECK(table.find("vec_add") != std::string::npos);
  CHECK(table.find("(not sampled: one full run)") != std::string::npos);
}
