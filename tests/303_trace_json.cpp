// The trace's Chrome trace-event export is valid JSON with the required fields (trace.h).
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "sim/timing/trace.h"

using namespace warplab::timing;

namespace {
// Checks the trace-event format: {"traceEvents": [...]}, each event with ph, name, pid, tid and
// (except metadata) ts; complete events with dur; async events with id; counters with args.
void check_trace_event_format(const nlohmann::json& doc) {
  REQUIRE(doc.is_object());
  REQUIRE(doc.contains("traceEvents"));
  REQUIRE(doc["traceEvents"].is_array());
  for (const auto& e : doc["traceEvents"]) {
    REQUIRE(e.is_object());
    REQUIRE(e.contains("ph"));
    REQUIRE(e.contains("name"));
    REQUIRE(e.contains("pid"));
    REQUIRE(e.contains("tid"));
    const std::string ph = e["ph"];
    CHECK(std::string("XiMCbe").find(ph) != std::string::npos);
    if (ph != "M") REQUIRE(e.contains("ts"));
    if (ph == "X") {
      REQUIRE(e.contains("dur"));
      CHECK(e["dur"].get<double>() >= 0);
    }
    if (ph == "b" || ph == "e") REQUIRE(e.contains("id"));
    if (ph == "C") REQUIRE(e["args"].is_object());
  }
}
}  // namespace

TEST_CASE("303 an exported trace is valid trace-event JSON") {
  Trace t;
  t.kernel = "vec\"add\n";  // needs escaping
  t.sm_count = 2;
  t.clock_mhz = 1980;
  t.spans.push_back({0, 3, WarpState::LongScoreboard, 10, 700, 12});
  t.spans.push_back({0, 3, WarpState::Selected, 700, 701, 13});
  t.issues.push_back(
      {0, 3, 700, 13, 5, 1, 0xffffffffu, 0xffffu, t.intern("add.f32 %f3, %f1, %f2;")});
  AccessRecord a;
  a.sm = 0;
  a.slot = 3;
  a.id = 7;
  a.issue = 10;
  a.ready = 700;
  a.lines = 1;
  a.sectors = 4;
  t.accesses.push_back(a);
  t.counters.push_back({256, 100, 50, 4096, 12});
  std::ostringstream os;
  REQUIRE(write_chrome_trace(t, os));
  const auto doc = nlohmann::json::parse(os.str());
  check_trace_event_format(doc);
  int spans = 0, issues = 0, async = 0, counters = 0;
  for (const auto& e : doc["traceEvents"]) {
    const std::string ph = e["ph"];
    spans += ph == "X";
    issues += ph == "i";
    async += ph == "b" || ph == "e";
    counters += ph == "C";
  }
  CHECK(spans == 2);
  CHECK(issues == 1);
  CHECK(async == 2);
  CHECK(counters == 3);
  CHECK(doc["otherData"]["kernel"] == "vec\"add\n");
}

TEST_CASE("303 an access's lines are exported with lanes, sectors and sources") {
  Trace t;
  t.sm_count = 1;
  AccessRecord a;
  a.lines = 2;
  a.line_begin = 0;
  a.line_count = 2;
  a.lane_sectors = 0xe4;   // lanes 0..3 -> sectors 0, 1, 2, 3
  a.exec_mask = 0xff;
  t.accesses.push_back(a);
  AccessLine l0{0x1000, 0x0f, 0x0f, 0};
  for (int s = 0; s < 4; ++s) l0.sources |= uint8_t(s == 0 ? 1 : s == 1 ? 2 : 3) << (2 * s);
  t.access_lines.push_back(l0);
  t.access_lines.push_back({0x1080, 0xf0, 0x1, uint8_t(SectorSource::L2)});
  CHECK(t.access_lines[0].source(0) == SectorSource::L1);
  CHECK(t.access_lines[0].source(3) == SectorSource::Dram);
  std::ostringstream os;
  REQUIRE(write_chrome_trace(t, os));
  const auto doc = nlohmann::json::parse(os.str());
  check_trace_event_format(doc);
  const nlohmann::json* args = nullptr;
  for (const auto& e : doc["traceEvents"])
    if (e["ph"] == "b") args = &e["args"];
  REQUIRE(args);
  CHECK((*args)["lane_sectors"] == "0xe4");
  REQUIRE((*args)["line_detail"].size() == 2);
  CHECK((*args)["line_detail"][0]["address"] == 0x1000);
  CHECK((*args)["line_detail"][0]["lanes"] == "0xf");
  CHECK((*args)["line_detail"][0]["served"] == "L1 L2 DRAM DRAM");
  CHECK((*args)["line_detail"][1]["served"] == "L2 - - -");
  CHECK((*args)["line_detail"][1]["sector_mask"] == 1);
}

TEST_CASE("303 access lines count toward the event bound") {
  Trace t;
  t.options.max_events = 3;
  t.accesses.push_back({});
  t.access_lines.resize(1);
  CHECK(t.room());
  t.access_lines.resize(2);
  CHECK_FALSE(t.room());
}

TEST_CASE("303 the trace window and event bound are honoured") {
  Trace t;
  t.options.sms = {1};
  t.options.cycle_begin = 100;
  t.options.cycle_end = 200;
  t.options.max_events = 2;
  CHECK(t.wants(1, 150));
  CHECK_FALSE(t.wants(0, 150));
  CHECK_FALSE(t.wants(1, 200));
  CHECK(t.room());
  t.spans.push_back({});
  t.spans.push_back({});
  CHECK_FALSE(t.room());
  CHECK(t.truncated);
}
