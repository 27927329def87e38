// The app's repaints and A/B views: redrawing what changed (ui/app/model/draw_list_match.h): a
// tab switch damages only the lists that came and went; lists kept in another order make the frame
// whole. A/B on one relative cursor (ui/app/model/ab_cursor.h).
#include <doctest/doctest.h>

#include "ui/app/model/draw_list_match.h"

using namespace warplab::app;

namespace {
int a, b, c, d;  // stand-ins for four draw lists' addresses
}  // namespace

TEST_CASE("719 draw lists: the same lists match one to one") {
  const std::vector<DrawListKey> f = {{&a, "Page"}, {&b, "Memory"}, {&c, "Counters"}};
  const DrawListMatch m = match_draw_lists(f, f);
  CHECK_FALSE(m.reordered);
  CHECK(m.before_of == std::vector<int>{0, 1, 2});
  CHECK(m.went.empty());
}

TEST_CASE("719 draw lists: a tab's child window came, another went") {
  // The lower-left panel switched from the timeline's heat map child to the whole-GPU view.
  const std::vector<DrawListKey> before = {
      {&a, "Page"}, {&b, "Warp timeline"}, {&c, "Warp timeline/heat"}, {&d, "Counters"}};
  int gpu = 0;
  const std::vector<DrawListKey> now = {
      {&a, "Page"}, {&b, "Warp timeline"}, {&gpu, "Warp timeline/sms"}, {&d, "Counters"}};
  const DrawListMatch m = match_draw_lists(before, now);
  CHECK_FALSE(m.reordered);
  CHECK(m.before_of == std::vector<int>{0, 1, -1, 3});
  CHECK(m.went == std::vector<size_t>{2});
}

TEST_CASE("719 draw lists: a tooltip on top came; the rest kept") {
  const std::vector<DrawListKey> before = {{&a, "Page"}, {&b, "Memory"}};
  const std::vector<DrawListKey> now = {{&a, "Page"}, {&b, "Memory"}, {&c, "##Tooltip_00"}};
  const DrawListMatch m = match_draw_lists(before, now);
  CHECK_FALSE(m.reordered);
  CHECK(m.before_of == std::vector<int>{0, 1, -1});
  CHECK(m.went.empty());
}

TEST_CASE("719 draw lists: lists kept in another order make the frame whole") {
  const std::vector<DrawListKey> before = {{&a, "Page"}, {&b, "popup"}, {&c, "Memory"}};
  const std::vector<DrawListKey> now = {{&a, "Page"}, {&c, "Memory"}, {&b, "popup"}};
  CHECK(match_draw_lists(before, now).reordered);
}

TEST_CASE("719 draw lists: another window at a list's address is another list") {
  const std::vector<DrawListKey> before = {{&a, "Lessons"}, {&b, "Experiment"}};
  const std::vector<DrawListKey> now = {{&a, "Lessons"}, {&b, "Experiment (edit)"}};
  const DrawListMatch m = match_draw_lists(before, now);
  CHECK_FALSE(m.reordered);
  CHECK(m.before_of == std::vector<int>{0, -1});
  CHECK(m.went == std::vector<size_t>{1});
}

// ---- A/B on one relative cursor (ui/app/model/ab_cursor.h) ----------------------------------

#include "ui/app/model/ab_cursor.h"

TEST_CASE("719 A/B cursor: the same fraction of each launch") {
  // B (stride 32) runs cycles 100..3300, A (stride 1) 40..1040.
  CHECK(launch_fraction(100, 100, 3300) == 0.0);
  CHECK(launch_fraction(1700, 100, 3300) == doctest::Approx(0.5));
  CHECK(launch_fraction(9999, 100, 3300) == 1.0);  // clamped
  CHECK(launch_fraction(50, 100, 3300) == 0.0);
  CHECK(launch_fraction(7, 5, 5) == 0.0);                                     // an empty launch
  CHECK(relative_cycle(1700, 100, 3300, 40, 1040) == doctest::Approx(540));   // half way
  CHECK(relative_cycle(900, 100, 3300, 40, 1040) == doctest::Approx(290));    // a quarter
  CHECK(relative_cycle(3300, 100, 3300, 40, 1040) == doctest::Approx(1040));  // the end
}

TEST_CASE("719 A/B cursor: A's view lines its launch start up with B's") {
  TimelineView b;
  b.fit(100, 3300, 800);  // 4 cycles per pixel, cycle 100 at x = 0
  const TimelineView a = aligned_view(b, 100, 40);
  CHECK(a.cycles_per_px == b.cycles_per_px);
  CHECK(a.width_px == b.width_px);
  CHECK(a.x_of(40) == doctest::Approx(b.x_of(100)));
  CHECK(a.x_of(1040) == doctest::Approx(b.x_of(1100)));  // A's end: a quarter across
  b.first_cycle = 500;                                   // B panned
  CHECK(aligned_view(b, 100, 40).x_of(440) == doctest::Approx(b.x_of(500)));
}
