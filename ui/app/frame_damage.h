// Redrawing only what changed since the last frame. On Mesa's software renderer (llvmpipe: CI,
// machines without a GPU) every triangle costs about a microsecond and every shaded pixel a few
// nanoseconds, and while the timeline plays most of the screen (the lesson page, the experiment,
// most of every panel) is the same from one frame to the next.
//
// Each frame ImGui still builds every panel's draw list; this compares them with the last
// frame's: a list with the same commands and indices whose vertices moved damages the boxes of
// the triangles that changed (where they were and where they are), any other change damages the
// list's whole area, and a list that came or went (a tab switch shows another child window)
// damages the area it covers or covered. Only the damaged rectangles are cleared and drawn again,
// every list that reaches into them included, clipped to them, so the picture is the one a whole
// redraw gives.
//
// That needs a back buffer that still holds the last frame after a swap (a copying swap, as
// Mesa's software renderer does). probe() checks it once; where it does not hold (a GPU driver
// that flips buffers) every frame is drawn whole, as before. --verify-damage (main.cpp) draws
// each frame both ways and counts the pixels that differ.
#pragma once

#include <imgui.h>

#include <string>
#include <vector>

#include "ui/app/model/draw_list_match.h"

struct GLFWwindow;

namespace warplab::app {
// Opaque geometry between these two marks on a draw list is drawn with blending off: under a
// software renderer (llvmpipe, Xvfb) a pixel then costs no read of the one beneath. Only for
// shapes of fully opaque colours that need no antialiased edges (rectangles, not text).
void begin_opaque(ImDrawList* dl);
void end_opaque(ImDrawList* dl);
}  // namespace warplab::app

namespace warplab::app {

class FrameDamage {
 public:
  // Clears the back buffer twice with two colours, swapping after each, and reads it back: the
  // second colour means swaps copy and the back buffer keeps the last frame.
  void probe(GLFWwindow* window);
  bool enabled() const { return preserved_; }
  // Draws `dd` into the back buffer (framebuffer w x h): whole when forced, on the first frame,
  // after a resize, when the lists kept changed order or most of the screen is damaged; else only
  // the damaged rectangles. `clear` is the background every frame starts from.
  void render(ImDrawData* dd, int fb_w, int fb_h, const ImVec4& clear, bool force_whole = false);
  // Pixels redrawn in the last frame (for --frame-stats' reading of what changed).
  double last_redrawn_px() const { return last_px_; }

 private:
  struct ListCopy {
    const ImDrawList* list = nullptr;
    std::string owner;
    std::vector<ImDrawCmd> cmds;
    std::vector<ImDrawVert> vtx;
    std::vector<ImDrawIdx> idx;
  };
  void damage_list(const ListCopy& old, const ImDrawList& now);
  void add_rect(ImVec4 r);
  void remember(ImDrawData* dd);

  bool preserved_ = false;
  int w_ = 0, h_ = 0;
  std::vector<ListCopy> prev_;
  std::vector<ImVec4> rects_;  // damage of the frame being drawn (x0, y0, x1, y1), display pixels
  std::vector<ImVec2> scratch_;
  std::vector<DrawListKey> keys_before_, keys_now_;
  double last_px_ = 0;
};

}  // namespace warplab::app
