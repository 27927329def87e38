// One written style for the whole app: colours, spacing and fonts are set here and nowhere else.
#pragma once

#include <imgui.h>

#include <vector>

#include "sim/timing/warp_state.h"
#include "ui/app/app_state.h"

namespace warplab::app {

// Loads DejaVu fonts when installed (else ImGui's built-in font at every role).
Fonts load_fonts(ImGuiIO& io);
void apply_style();

// Palette.
namespace color {
constexpr ImU32 kText = IM_COL32(220, 223, 228, 255);
constexpr ImU32 kDim = IM_COL32(140, 146, 156, 255);
constexpr ImU32 kAccent = IM_COL32(118, 185, 0, 255);  // NVIDIA-ish green, used sparingly
constexpr ImU32 kCursor = IM_COL32(255, 214, 64, 255);
constexpr ImU32 kLink = IM_COL32(110, 170, 255, 255);
constexpr ImU32 kCodeBg = IM_COL32(30, 33, 39, 255);
constexpr ImU32 kGrid = IM_COL32(255, 255, 255, 22);
constexpr ImU32 kHit = IM_COL32(80, 190, 120, 255);
constexpr ImU32 kL2 = IM_COL32(90, 150, 230, 255);
constexpr ImU32 kDram = IM_COL32(230, 110, 80, 255);
constexpr ImU32 kFail = IM_COL32(235, 90, 80, 255);
// The code view's column-80 guide (tests/710 looks for this exact colour).
constexpr ImU32 kColumnGuide = IM_COL32(58, 92, 150, 255);
}  // namespace color

ImU32 warp_state_color(timing::WarpState s);
// One sentence: what the state means on real hardware.
const char* warp_state_meaning(timing::WarpState s);
// A legend of every warp state (one line, wrapping).
void draw_warp_state_legend();
// Bars standing on y_base, one per pixel column from x0 (heights in pixels, upwards); neighbouring
// columns of equal height are one rectangle. Series with more samples than pixels are reduced to
// a column each first (column_max), so a chart costs triangles by the pixel, not by the sample:
// on Mesa's software renderer every triangle costs about a microsecond.
void draw_column_bars(ImDrawList* dl, float x0, float y_base, const std::vector<float>& heights,
                      ImU32 col);
// The largest of v's samples that fall in each of `columns` equal columns.
std::vector<float> column_max(const std::vector<int>& v, int columns);
// "(?)" with a tooltip.
void help_marker(const char* text);
// `over` blended onto the opaque `under` as the renderer's alpha blending would: an opaque colour
// for shapes drawn without blending (frame_damage.h begin_opaque).
ImU32 blend_over(ImU32 under, ImU32 over);
// A section title in the panel's body.
void section_title(const Fonts& f, const char* text);

}  // namespace warplab::app
