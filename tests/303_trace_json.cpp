// The trace's Chrome trace-event export is valid JSON with the required fields (trace.h).
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <map>
#include <sstream>
#include <string>
#include <vector>

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

TEST_CASE("303 asynchronous work is exported on tracks of its own, one per kind of unit") {
  Trace t;
  t.sm_count = 4;
  t.spans.push_back({2, 5, WarpState::Mbarrier, 100, 900, 40});
  // A TMA load by warp slot 5 (1024 bytes, cycles 120..760), a second one overlapping it, the
  // mbarrier wait answered at 790 (phase complete at 760), a wgmma on the SM's tensor cores.
  t.async.push_back({2, 5, AsyncRecord::Kind::TmaLoad, 120, 760, 0, 1024, 31});
  t.async.push_back({2, 5, AsyncRecord::Kind::TmaLoad, 130, 770, 0, 512, 32});
  t.async.push_back({2, 5, AsyncRecord::Kind::MbarrierWait, 150, 790, 760, 0, 35});
  t.async.push_back({2, -1, AsyncRecord::Kind::Wgmma, 800, 864, 920, 128, 50});
  std::ostringstream os;
  REQUIRE(write_chrome_trace(t, os));
  const auto doc = nlohmann::json::parse(os.str());
  check_trace_event_format(doc);
  std::map<int, std::string> track;  // tid -> thread_name on SM 2
  std::map<std::string, std::vector<nlohmann::json>> begins, ends, instants;
  bool process_named = false;
  for (const auto& e : doc["traceEvents"]) {
    const std::string ph = e["ph"];
    if (ph == "M" && e["name"] == "thread_name" && e["pid"] == 2)
      track[e["tid"].get<int>()] = e["args"]["name"];
    if (ph == "M" && e["name"] == "process_name" && e["pid"] == 2) process_named = true;
    if (ph == "b") begins[e["name"]].push_back(e);
    if (ph == "e") ends[e["name"]].push_back(e);
    if (ph == "i") instants[e["name"]].push_back(e);
  }
  CHECK(process_named);
  // Three tracks besides the warp slot's: TMA loads, mbarrier waits, wgmma; none is a warp slot.
  REQUIRE(track.size() == 4);
  CHECK(track.at(5) == "warp slot 5");
  REQUIRE(begins["TMA load"].size() == 2);
  REQUIRE(ends["TMA load"].size() == 2);
  REQUIRE(begins["mbarrier wait"].size() == 1);
  REQUIRE(begins["wgmma"].size() == 1);
  const auto& load = begins["TMA load"][0];
  const int tma_tid = load["tid"];
  CHECK(tma_tid != 5);
  CHECK(track.at(tma_tid) == "TMA unit: loads (global -> shared)");
  CHECK(load["pid"] == 2);
  CHECK(load["cat"] == "tma");
  CHECK(load["ts"] == 120);
  CHECK(load["args"]["bytes"] == 1024);
  CHECK(load["args"]["ptx_line"] == 31);
  CHECK(load["args"]["warp_slot"] == 5);
  // The two overlapping copies are told apart by their ids; each ends where its record does.
  CHECK(begins["TMA load"][1]["tid"] == tma_tid);
  CHECK(load["id"] != begins["TMA load"][1]["id"]);
  for (const auto& e : ends["TMA load"])
    CHECK(e["ts"] == (e["id"] == load["id"] ? 760 : 770));
  const auto& wait = begins["mbarrier wait"][0];
  CHECK(track.at(wait["tid"].get<int>()) == "mbarrier phases (waits answered)");
  CHECK(wait["ts"] == 150);
  CHECK(ends["mbarrier wait"][0]["ts"] == 790);
  CHECK(wait["args"]["done_cycle"] == 760);
  REQUIRE(instants["phase complete"].size() == 1);
  CHECK(instants["phase complete"][0]["ts"] == 760);
  CHECK(instants["phase complete"][0]["tid"] == wait["tid"]);
  const auto& mma = begins["wgmma"][0];
  CHECK(track.at(mma["tid"].get<int>()) == "tensor cores: warpgroup MMA (wgmma)");
  CHECK(mma["cat"] == "tensor_pipe");
  CHECK(mma["args"]["n"] == 128);
  CHECK(mma["args"]["warp_slot"] == -1);
  CHECK(ends["wgmma"][0]["ts"] == 864);
  REQUIRE(instants["accumulators ready"].size() == 1);
  CHECK(instants["accumulators ready"][0]["ts"] == 920);
}
