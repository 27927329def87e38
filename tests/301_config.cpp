// GPU presets: loading, strict errors with file:line, listing (sim/timing/config.h).
#include <doctest/doctest.h>

#include <algorithm>

#include "sim/timing/config.h"

using namespace warplab::timing;

TEST_CASE("301 every shipped preset loads and validates") {
  const auto list = list_configs();
  std::vector<std::string> names;
  for (const auto& c : list) names.push_back(c.name);
  for (const char* want : {"h100-sxm", "h200", "a100-sxm", "teaching"}) {
    CHECK(std::find(names.begin(), names.end(), want) != names.end());
    auto c = load_config(want);
    REQUIRE_MESSAGE(c, (c ? "" : c.error().to_string()));
    CHECK(c->name == want);
    CHECK_FALSE(c->description.empty());
  }
}

TEST_CASE("301 h100-sxm matches the measured device facts") {
  auto c = load_config("h100-sxm");
  REQUIRE(c);
  CHECK(c->core.sm_count == 132);
  CHECK(c->core.clock_mhz == 1980);
  CHECK(c->l2.size_bytes == 50 * 1024 * 1024);
  CHECK(c->core.max_warps_per_sm == 64);
  CHECK(c->peak_dram_bytes_per_second() == doctest::Approx(3.35e12).epsilon(0.01));
  auto h200 = load_config("h200");
  REQUIRE(h200);
  CHECK(h200->core.sm_count == 132);  // inherited from the base preset
  CHECK(h200->l2.size_bytes == 60 * 1024 * 1024);
  auto t = load_config("teaching");
  REQUIRE(t);
  CHECK(t->core.sm_count == 2);
  CHECK(t->core.sub_partitions == 1);
}

TEST_CASE("301 unknown keys, bad values and repeated keys are errors at file:line") {
  auto e1 = parse_config("name = \"x\"\n[core]\nsm_count = 4\nsm_cuont = 5\n", "bad.toml", "");
  REQUIRE_FALSE(e1);
  CHECK(e1.error().file == "bad.toml");
  CHECK(e1.error().line == 4);
  CHECK(e1.error().message.find("sm_cuont") != std::string::npos);
  auto e2 = parse_config("[l1]\nhit_latency = fast\n", "bad.toml", "");
  REQUIRE_FALSE(e2);
  CHECK(e2.error().line == 2);
  auto e3 = parse_config("[dram]\nlatency = 3\nlatency = 4\n", "bad.toml", "");
  REQUIRE_FALSE(e3);
  CHECK(e3.error().line == 3);
  auto e4 = parse_config("[caches]\n", "bad.toml", "");
  REQUIRE_FALSE(e4);
  CHECK(e4.error().line == 1);
  auto e5 = parse_config("[core]\nwarp_scheduler = \"random\"\n", "bad.toml", "");
  REQUIRE_FALSE(e5);
  CHECK(e5.error().message.find("random") != std::string::npos);
  CHECK_FALSE(load_config("no-such-gpu"));
}

TEST_CASE("301 every field is described with a unit or a kind") {
  GpuConfig c;
  const auto fields = describe_config(c);
  CHECK(fields.size() > 50);
  for (const auto& f : fields) {
    CHECK_FALSE(f.description.empty());
    CHECK_FALSE(f.value.empty());
  }
}
