// Redrawing what changed (ui/app/model/draw_list_match.h): a tab switch damages only the lists
// that came and went; lists kept in another order make the frame whole.
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
