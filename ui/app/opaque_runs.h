// Drawing solid shapes with blending off. ImGui hands the renderer triangles with blending on,
// so under a software renderer (Mesa's llvmpipe: Xvfb, CI, machines without a GPU) every pixel of a
// panel's frame, a table's header, a bar or a plot's fill also reads the pixel beneath it, though
// most of these shapes are fully opaque. Blending an opaque colour gives that colour exactly, so
// drawing those triangles with blending off gives the same picture for less.
//
// Before a frame is rendered, each draw command is cut into runs of consecutive triangles: a run
// of solid triangles (every vertex fully opaque and sampling the font atlas's white pixel, so the
// colour is the vertex colour) that covers at least kMinArea pixels is drawn with blending off;
// the rest as before. The order of the triangles is kept, so the picture is the one ImGui's own
// rendering gives (--verify-damage compares it with a whole redraw). Commands inside a panel's own
// begin_opaque/end_opaque region (frame_damage.h) are left as they are. After rendering, restore()
// gives every list its own commands back (FrameDamage compares them with the next frame's).
#pragma once

#include <imgui.h>

#include <vector>

namespace warplab::app {

class OpaqueRuns {
 public:
  static constexpr float kMinArea = 2048;  // pixels: smaller runs are not worth a state change
  // `blend_off` is the callback begin_opaque() records (frame_damage.cpp).
  void split(ImDrawData* dd, ImDrawCallback blend_off, ImVec2 white_uv);
  void restore();

 private:
  std::vector<ImDrawList*> lists_;
  std::vector<ImVector<ImDrawCmd>> saved_;
};

}  // namespace warplab::app
