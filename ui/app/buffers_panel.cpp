// A run's buffers, as numbers or as a heat map: the simulator's final contents of each buffer the
// experiment declares. A heat map lays the elements out row by row, `width` per row (32 by default,
// so a row is one warp's lanes when thread i writes element i), coloured from the smallest value
// (dark blue) to the largest (yellow); hover reads out index and value. Lesson 1's warp_id and
// lane_id buffers are meant to be looked at this way.
#include <algorithm>
#include <cmath>

#include "ui/app/app_state.h"
#include "ui/app/frame_damage.h"
#include "ui/app/model/axis.h"
#include "ui/app/style.h"

namespace warplab::app {
namespace {

ImU32 heat(double t) {  // t in [0, 1]: dark blue -> teal -> yellow
  t = std::clamp(t, 0.0, 1.0);
  const float r = float(std::clamp(1.6 * t - 0.4, 0.0, 1.0));
  const float g = float(std::clamp(0.15 + 0.85 * t, 0.0, 1.0));
  const float b = float(std::clamp(0.55 - 0.45 * t, 0.0, 1.0));
  return ImGui::ColorConvertFloat4ToU32(ImVec4(r, g, b, 1));
}

std::string show(const BufferView& b, double v) {
  char buf[48];
  if (b.is_integer)
    std::snprintf(buf, sizeof buf, "%.0f", v);
  else
    std::snprintf(buf, sizeof buf, "%.7g", v);
  return buf;
}

}  // namespace

void draw_buffers_panel(AppState& s) {
  if (!s.run || s.run->buffers.empty()) {
    ImGui::TextDisabled(s.run ? "this run kept no buffers"
                              : "run the experiment to see its buffers");
    return;
  }
  const auto& bufs = s.run->buffers;
  int& sel = s.buffer_view.selected;
  int& mode = s.buffer_view.mode;
  int& width = s.buffer_view.width;
  sel = std::clamp(sel, 0, static_cast<int>(bufs.size()) - 1);
  ImGui::SetNextItemWidth(160);
  if (ImGui::BeginCombo("buffer", bufs[sel].name.c_str())) {
    for (int i = 0; i < static_cast<int>(bufs.size()); ++i)
      if (ImGui::Selectable(bufs[i].name.c_str(), i == sel)) sel = i;
    ImGui::EndCombo();
  }
  const BufferView& b = bufs[sel];
  ImGui::SameLine();
  ImGui::RadioButton("heat map", &mode, 1);
  ImGui::SameLine();
  ImGui::RadioButton("numbers", &mode, 0);
  ImGui::SameLine();
  ImGui::SetNextItemWidth(90);
  ImGui::InputInt("per row", &width);
  width = std::clamp(width, 1, 4096);
  ImGui::SameLine();
  ImGui::TextDisabled("%s, %s elements%s", b.type.c_str(), format_si(double(b.count), "").c_str(),
                      b.values.size() < b.count ? " (first 4M shown)" : "");
  if (b.values.empty()) return;
  const int n = static_cast<int>(b.values.size());
  const int rows = (n + width - 1) / width;

  if (mode == 0) {
    const ImGuiTableFlags flags =
        ImGuiTableFlags_ScrollY | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit;
    const int cols = std::min(width, 16);
    const int nrows = (n + cols - 1) / cols;
    if (!ImGui::BeginTable("nums", cols + 1, flags)) return;
    ImGui::PushFont(s.fonts.mono);
    ImGuiListClipper clip;
    clip.Begin(nrows);
    while (clip.Step())
      for (int r = clip.DisplayStart; r < clip.DisplayEnd; ++r) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextDisabled("%d", r * cols);
        for (int c = 0; c < cols && r * cols + c < n; ++c) {
          ImGui::TableNextColumn();
          ImGui::TextUnformatted(show(b, b.values[r * cols + c]).c_str());
        }
      }
    ImGui::PopFont();
    ImGui::EndTable();
    return;
  }

  auto [lo_it, hi_it] = std::minmax_element(b.values.begin(), b.values.end());
  const double lo = *lo_it, hi = *hi_it;
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float cell = std::max(1.0f, std::min(avail.x / float(width), 14.0f));
  // No background of its own: the window's (the frame starts cleared to it) shows through.
  ImGui::BeginChild("heat", ImVec2(0, 0), false,
                    ImGuiWindowFlags_HorizontalScrollbar | ImGuiWindowFlags_NoBackground);
  const ImVec2 o = ImGui::GetCursorScreenPos();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  // Only the rows in view are drawn.
  const float scroll = ImGui::GetScrollY();
  const int r0 = std::max(0, int(scroll / cell)), r1 = std::min(rows, r0 + int(avail.y / cell) + 2);
  // Cells of one colour side by side are one rectangle, and the 1-pixel gaps between cells
  // (when cells are wide enough to show them) are drawn over them as grid lines: a rectangle per
  // run and per grid line instead of one per element (the software renderer pays per triangle).
  auto cell_color = [&](int i) {
    const double t = hi > lo ? (b.values[i] - lo) / (hi - lo) : 0.5;
    return std::isfinite(b.values[i]) ? heat(t) : IM_COL32(255, 0, 255, 255);
  };
  begin_opaque(dl);  // opaque cells and gaps: no blending (frame_damage.h)
  for (int r = r0; r < r1; ++r) {
    const int row_n = std::min(width, n - r * width);  // elements in this row
    for (int c = 0; c < row_n;) {
      const ImU32 col = cell_color(r * width + c);
      int e = c + 1;
      while (e < row_n && cell_color(r * width + e) == col) ++e;
      const ImVec2 p(o.x + c * cell, o.y + r * cell);
      dl->AddRectFilled(p, ImVec2(o.x + e * cell, p.y + cell), col);
      c = e;
    }
  }
  if (cell > 4 && r1 > r0) {  // the gaps: a column line right of each cell, a row line under
    const ImU32 gap = ImGui::GetColorU32(ImGuiCol_WindowBg);
    const float top = o.y + r0 * cell, bottom = o.y + r1 * cell;
    for (int c = 1; c <= width; ++c)
      dl->AddRectFilled(ImVec2(o.x + c * cell - 1, top), ImVec2(o.x + c * cell, bottom), gap);
    for (int r = r0 + 1; r <= r1; ++r)
      dl->AddRectFilled(ImVec2(o.x, o.y + r * cell - 1), ImVec2(o.x + width * cell, o.y + r * cell),
                        gap);
  }
  end_opaque(dl);
  ImGui::Dummy(ImVec2(width * cell, rows * cell));
  if (ImGui::IsWindowHovered()) {
    const ImVec2 m = ImGui::GetIO().MousePos;
    const int c = int((m.x - o.x) / cell), r = int((m.y - o.y) / cell);
    if (c >= 0 && c < width && r >= 0 && r * width + c < n) {
      const int i = r * width + c;
      ImGui::SetTooltip("%s[%d] = %s\nrow %d, column %d\nrange %s .. %s", b.name.c_str(), i,
                        show(b, b.values[i]).c_str(), r, c, show(b, lo).c_str(),
                        show(b, hi).c_str());
    }
  }
  ImGui::EndChild();
}

}  // namespace warplab::app
