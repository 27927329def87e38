// The lesson catalog (ui/app/model/lesson_catalog.h) and the trace index the timeline and memory
// panels read (ui/app/model/trace_index.h), on a hand-made trace.
#include <doctest/doctest.h>

#include <cctype>
#include <string>

#include "ui/app/model/lesson_catalog.h"
#include "ui/app/model/trace_index.h"

using namespace warplab;

TEST_CASE("703 lessons are listed in README order with pages, experiments and kernels") {
  const auto lessons = app::scan_lessons(std::string(WARPLAB_SOURCE_DIR) + "/lessons");
  REQUIRE(lessons.size() >= 8);
  CHECK(lessons[0].id == "01-threads-and-warps");
  const int i = app::find_lesson(lessons, "02");
  REQUIRE(i == 1);
  CHECK(lessons[i].id == "02-coalescing");
  CHECK(lessons[i].title == "2. Memory coalescing");
  CHECK(lessons[i].pages.size() == 1);
  CHECK(lessons[i].experiments.size() == 2);
  CHECK(app::file_name(lessons[i].sources.at(0)) == "coalescing.cu");
  CHECK(app::find_lesson(lessons, "calibration") == -1);  // no pages: not a lesson
  CHECK(app::find_lesson(lessons, "99-nope") == -1);
  // Every numbered lesson is listed with its number, also where its page's heading has none.
  for (const app::LessonEntry& l : lessons) {
    CAPTURE(l.id);
    if (!std::isdigit(static_cast<unsigned char>(l.id[0]))) continue;
    CHECK(l.title.rfind(std::to_string(std::stoi(l.id.substr(0, 2))) + ". ", 0) == 0);
  }
}

namespace {
timing::Trace small_trace() {
  timing::Trace t;
  auto span = [&](int sm, int slot, uint64_t b, uint64_t e, timing::WarpState s) {
    timing::WarpSpan w;
    w.sm = sm;
    w.slot = slot;
    w.begin = b;
    w.end = e;
    w.state = s;
    t.spans.push_back(w);
  };
  span(0, 1, 100, 150, timing::WarpState::LongScoreboard);  // out of order on purpose
  span(0, 1, 0, 100, timing::WarpState::Selected);
  span(0, 0, 10, 60, timing::WarpState::Wait);
  span(1, 0, 5, 400, timing::WarpState::Barrier);
  auto access = [&](int slot, uint64_t issue, uint64_t ready) {
    timing::AccessRecord a;
    a.sm = 0;
    a.slot = slot;
    a.issue = issue;
    a.ready = ready;
    t.accesses.push_back(a);
  };
  access(1, 90, 140);
  access(1, 20, 30);
  access(1, 95, 100);
  timing::IssueRecord ir;
  ir.sm = 0;
  ir.slot = 1;
  ir.cycle = 90;
  t.issues.push_back(ir);
  return t;
}
}  // namespace

TEST_CASE("703 trace index: rows by SM then slot, spans sorted, extent") {
  const timing::Trace t = small_trace();
  const app::TraceIndex ix = app::build_trace_index(t);
  REQUIRE(ix.rows.size() == 3);
  CHECK(ix.rows[0].sm == 0);
  CHECK(ix.rows[0].slot == 0);
  CHECK(ix.rows[1].slot == 1);
  CHECK(ix.rows[2].sm == 1);
  CHECK(ix.first_cycle == 0);
  CHECK(ix.last_cycle == 400);
  CHECK(ix.rows[1].spans[0].begin == 0);
  CHECK(ix.row_of(1, 0) == 2);
  CHECK(ix.row_of(3, 3) == -1);
}

TEST_CASE("703 trace index look-ups: span under a cycle, last issue, access in flight") {
  const timing::Trace t = small_trace();
  const app::TraceIndex ix = app::build_trace_index(t);
  REQUIRE(ix.span_at(1, 120) != nullptr);
  CHECK(ix.span_at(1, 120)->state == timing::WarpState::LongScoreboard);
  CHECK(ix.span_at(1, 100)->state == timing::WarpState::LongScoreboard);  // [begin, end)
  CHECK(ix.span_at(0, 5) == nullptr);
  CHECK(ix.span_at(0, 60) == nullptr);
  CHECK(ix.issue_at_or_before(t, 1, 89) == std::nullopt);
  CHECK(ix.issue_at_or_before(t, 1, 90) == std::optional<uint32_t>(0));
  // At 120 the access issued at 90 is still in flight (ready 140); the one at 95 is done.
  CHECK(ix.access_near(t, 1, 120) == std::optional<uint32_t>(0));
  // At 97 both are in flight: the later one.
  CHECK(ix.access_near(t, 1, 97) == std::optional<uint32_t>(2));
  // Before any access: the first one.
  CHECK(ix.access_near(t, 1, 5) == std::optional<uint32_t>(1));
  CHECK(ix.access_near(t, 0, 50) == std::nullopt);
}
