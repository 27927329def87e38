// The warp timeline's geometry (ui/app/model/timeline_view.h): cycle <-> pixel mapping, zoom
// about the mouse, panning, culling of off-screen spans and merging of sub-pixel spans.
#include <doctest/doctest.h>

#include "ui/app/model/timeline_view.h"

using warplab::app::TimelineView;
using warplab::timing::WarpSpan;
using warplab::timing::WarpState;

namespace {
WarpSpan span(uint64_t b, uint64_t e, WarpState s = WarpState::Selected) {
  WarpSpan w;
  w.begin = b;
  w.end = e;
  w.state = s;
  return w;
}
}  // namespace

TEST_CASE("701 fit maps the trace onto the track width") {
  TimelineView v;
  v.fit(1000, 3000, 500);
  CHECK(v.x_of(1000) == doctest::Approx(0));
  CHECK(v.x_of(3000) == doctest::Approx(500));
  CHECK(v.cycle_at(250) == doctest::Approx(2000));
  CHECK(v.last_cycle() == doctest::Approx(3000));
}

TEST_CASE("701 zoom keeps the cycle under the mouse fixed") {
  TimelineView v;
  v.fit(0, 10000, 1000);  // 10 cycles per pixel
  const double anchor = v.cycle_at(300);
  v.zoom_at(300, 0.5, 0.01, 100);
  CHECK(v.cycles_per_px == doctest::Approx(5));
  CHECK(v.cycle_at(300) == doctest::Approx(anchor));
  v.zoom_at(300, 1e-6, 0.01, 100);  // clamped
  CHECK(v.cycles_per_px == doctest::Approx(0.01));
  CHECK(v.cycle_at(300) == doctest::Approx(anchor));
  v.zoom_at(300, 1e9, 0.01, 100);
  CHECK(v.cycles_per_px == doctest::Approx(100));
}

TEST_CASE("701 dragging right shows earlier cycles; clamping keeps the trace on screen") {
  TimelineView v;
  v.fit(0, 1000, 100);  // 10 cycles per pixel
  v.first_cycle = 500;
  v.pan_px(20);
  CHECK(v.first_cycle == doctest::Approx(300));
  v.pan_px(1e6);
  v.clamp_to(0, 1000);
  CHECK(v.last_cycle() > 0);  // part of the trace is still visible
  v.pan_px(-1e7);
  v.clamp_to(0, 1000);
  CHECK(v.first_cycle < 1000);
}

TEST_CASE("701 visible_range culls spans outside the view by binary search") {
  std::vector<WarpSpan> row = {span(0, 10), span(10, 20), span(20, 35), span(40, 50), span(50, 90)};
  auto [a, b] = warplab::app::visible_range(row, 15, 45);
  CHECK(a == 1);
  CHECK(b == 4);
  auto [c, d] = warplab::app::visible_range(row, 90, 100);
  CHECK(c == d);  // nothing ends after 90
  auto [e, f] = warplab::app::visible_range(row, 35, 40);
  CHECK(e == f);  // the gap between spans
  auto [g, h] = warplab::app::visible_range(row, -5, 1000);
  CHECK(g == 0);
  CHECK(h == row.size());
}

TEST_CASE("701 prepare_row keeps wide spans and merges sub-pixel runs") {
  TimelineView v;
  v.fit(0, 1000, 100);  // 10 cycles per pixel
  std::vector<WarpSpan> row;
  row.push_back(span(0, 200, WarpState::LongScoreboard));  // 20 px
  for (uint64_t c = 200; c < 300; c += 2)                  // 50 spans of 0.2 px
    row.push_back(span(c, c + 2, c % 4 ? WarpState::Selected : WarpState::Wait));
  row.push_back(span(300, 302, WarpState::Wait));     // one more thin span
  row.push_back(span(302, 600, WarpState::Barrier));  // ~30 px
  const auto boxes = warplab::app::prepare_row(row, v, 1.0f);
  REQUIRE(boxes.size() == 3);
  CHECK(boxes[0].state == WarpState::LongScoreboard);
  CHECK(boxes[0].x0 == doctest::Approx(0));
  CHECK(boxes[0].x1 == doctest::Approx(20));
  CHECK(boxes[1].merged());
  CHECK(boxes[1].count == 51);
  CHECK(boxes[1].x0 == doctest::Approx(20));
  CHECK(boxes[1].x1 == doctest::Approx(30.2));
  CHECK(boxes[1].state == WarpState::Wait);  // 26 of the 51 thin spans: the dominant state
  CHECK(boxes[2].state == WarpState::Barrier);
  CHECK_FALSE(boxes[2].merged());
}

TEST_CASE("701 prepare_row draws nothing for rows outside the view") {
  TimelineView v;
  v.fit(1000, 2000, 100);
  std::vector<WarpSpan> row = {span(0, 500), span(2500, 3000)};
  CHECK(warplab::app::prepare_row(row, v).empty());
}

TEST_CASE("701 tick steps are 1, 2 or 5 times a power of ten") {
  CHECK(warplab::app::tick_step(1.0, 90) == doctest::Approx(100));
  CHECK(warplab::app::tick_step(3.0, 90) == doctest::Approx(500));
  CHECK(warplab::app::tick_step(0.01, 90) == doctest::Approx(1));
  CHECK(warplab::app::tick_step(25.0, 90) == doctest::Approx(5000));
  CHECK(warplab::app::format_cycles(1234) == "1234");
  CHECK(warplab::app::format_cycles(56789) == "56.79k");
  CHECK(warplab::app::format_cycles(4560000) == "4.56M");
}
