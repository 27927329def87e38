// One SM's warp schedulers (ui/app/model/scheduler_view.h): on hand-built spans, which warp each
// scheduler issued and why it lost a cycle, exactly; on a traced run, that every scheduler issues
// at most once a cycle and its issued cycles are the SM's issue records.
#include <doctest/doctest.h>

#include <map>

#include "70x_app.h"
#include "ui/app/model/run_snapshot.h"
#include "ui/app/model/scheduler_view.h"

using namespace warplab;
using timing::WarpState;
using Kind = app::SchedulerRun::Kind;

TEST_CASE("715 scheduler view: issued warp, lost cycles and their reason, columns") {
  timing::Trace t;
  t.sub_partitions = 2;  // slots 0 and 2 on scheduler 0, 1 and 3 on scheduler 1
  t.spans = {
      {0, 0, WarpState::Selected, 0, 1, 0},    {0, 0, WarpState::LongScoreboard, 1, 10, 0},
      {0, 0, WarpState::Selected, 10, 11, 0},  {0, 2, WarpState::NoInstruction, 0, 2, 0},
      {0, 2, WarpState::Selected, 2, 3, 0},    {0, 2, WarpState::Barrier, 3, 12, 0},
      {0, 1, WarpState::Selected, 0, 2, 0},    {0, 1, WarpState::Wait, 2, 5, 0},
      {0, 3, WarpState::NotSelected, 0, 2, 0}, {0, 3, WarpState::Selected, 2, 3, 0},
      {0, 3, WarpState::Wait, 3, 5, 0},
  };
  const app::TraceIndex ix = app::build_trace_index(t);
  CHECK(app::build_scheduler_view(t, ix, 1).schedulers == 0);  // SM 1 was not traced
  const app::SchedulerView v = app::build_scheduler_view(t, ix, 0);
  REQUIRE(v.schedulers == 2);
  CHECK(v.first_cycle == 0);
  CHECK(v.last_cycle == 12);

  const auto& s0 = v.runs[0];
  REQUIRE(s0.size() == 6);
  CHECK((s0[0].kind == Kind::Issued && s0[0].slot == 0 && s0[0].end == 1));
  CHECK((s0[0].warps == 2 && s0[0].ready == 1));
  // A tie (one warp on memory, one not fetched): the first in warp-state order.
  CHECK((s0[1].kind == Kind::Stalled && s0[1].why == WarpState::LongScoreboard));
  CHECK((s0[2].kind == Kind::Issued && s0[2].slot == 2 && s0[2].begin == 2));
  CHECK((s0[3].kind == Kind::Stalled && s0[3].begin == 3 && s0[3].end == 10));
  CHECK((s0[4].kind == Kind::Issued && s0[4].slot == 0));
  // Slot 0's warp is gone after cycle 11: one warp left, at the barrier.
  CHECK((s0[5].kind == Kind::Stalled && s0[5].why == WarpState::Barrier && s0[5].warps == 1));

  const auto& s1 = v.runs[1];
  REQUIRE(s1.size() == 4);
  CHECK((s1[0].kind == Kind::Issued && s1[0].slot == 1 && s1[0].end == 2 && s1[0].ready == 2));
  CHECK((s1[1].kind == Kind::Issued && s1[1].slot == 3));
  CHECK((s1[2].kind == Kind::Stalled && s1[2].why == WarpState::Wait && s1[2].end == 5));
  CHECK((s1[3].kind == Kind::Empty && s1[3].begin == 5 && s1[3].end == 12));

  REQUIRE(v.run_at(0, 5) != nullptr);
  CHECK(v.run_at(0, 5)->begin == 3);
  CHECK(v.run_at(1, 12) == nullptr);

  const app::SchedulerColumn all = v.totals(0, 0, 12);
  CHECK(all.cycles == 12);
  CHECK(all.issued == 3);
  CHECK(all.stalled[size_t(WarpState::LongScoreboard)] == 8);
  CHECK(all.stalled[size_t(WarpState::Barrier)] == 1);
  CHECK(all.main_stall() == WarpState::LongScoreboard);

  const auto cols = v.columns(1, 0, 4, 3);
  REQUIRE(cols.size() == 3);
  CHECK(cols[0].issued == 3);
  CHECK(cols[0].stalled[size_t(WarpState::Wait)] == 1);
  CHECK(cols[1].stalled[size_t(WarpState::Wait)] == 1);
  CHECK(cols[1].empty == 3);
  CHECK(cols[2].empty == 4);
  CHECK(cols[2].main_stall() == WarpState::Selected);  // nothing lost to a stall
  // Half a cycle in a column counts half.
  CHECK(v.totals(1, 4.5, 5.5).stalled[size_t(WarpState::Wait)] == doctest::Approx(0.5));
}

TEST_CASE("715 scheduler view of a traced run: one issue per scheduler per cycle, all of them") {
  auto exp = test::copy_experiment("N=8192");
  if (!exp) return;
  const app::RunSnapshot snap = test::run_sim_traced(*exp);
  INFO(snap.error);
  REQUIRE(snap.ok());
  REQUIRE(snap.launches.size() == 1);
  const timing::Trace& t = snap.launches[0].timing->trace;
  REQUIRE_FALSE(t.truncated);
  CHECK(t.sub_partitions == 4);
  CHECK(t.warp_scheduler == "lrr");
  const app::TraceIndex ix = app::build_trace_index(t);
  const app::SchedulerView v = app::build_scheduler_view(t, ix, 0);
  REQUIRE(v.schedulers == 4);
  // The issue records of SM 0, per (scheduler, cycle): never two.
  std::map<std::pair<int, uint64_t>, int> issued;
  for (const timing::IssueRecord& is : t.issues)
    if (is.sm == 0) ++issued[{is.slot % 4, is.cycle}];
  for (const auto& [key, n] : issued) CHECK(n == 1);
  // Each run of issued cycles matches those records, and the counts add up.
  size_t issued_cycles = 0;
  for (int s = 0; s < 4; ++s)
    for (const app::SchedulerRun& r : v.runs[size_t(s)]) {
      if (r.kind != Kind::Issued) continue;
      CHECK(r.slot % 4 == s);
      for (uint64_t c = r.begin; c < r.end; ++c) CHECK(issued.count({s, c}) == 1);
      issued_cycles += r.end - r.begin;
    }
  CHECK(issued_cycles == issued.size());
}
