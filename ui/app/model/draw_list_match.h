// Which of this frame's draw lists were drawn last frame (ui/app/frame_damage.h redraws only what
// changed). Dear ImGui gives each window (and child window) one draw list that lives as long as
// the window; a tab switch shows another child window, a popup or tooltip adds one. A list kept
// from the last frame is compared with its copy triangle by triangle; a list that came or went
// damages the area it covers or covered. Lists are drawn in order and may overlap (a tooltip over
// a panel), so if the lists kept changed their order, any overlap may look different and the
// frame is drawn whole. No ImGui or GL here (tests/719).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace warplab::app {

struct DrawListKey {
  const void* list = nullptr;  // the ImDrawList
  std::string owner;           // its window's name
};

struct DrawListMatch {
  bool reordered = false;      // lists kept were drawn in another order (draw the frame whole)
  std::vector<int> before_of;  // per list now: its index in the last frame, -1 when it came
  std::vector<size_t> went;    // the last frame's lists not drawn now
};

// A list now matches a list before with the same pointer and owner (a window destroyed and another
// created at its address is another list).
DrawListMatch match_draw_lists(const std::vector<DrawListKey>& before,
                               const std::vector<DrawListKey>& now);

}  // namespace warplab::app
