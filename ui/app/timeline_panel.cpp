// The warp timeline: one row per warp slot of the traced SM, x = SM cycles, a coloured span per
// warp state (Nsight Compute's names), memory accesses as ticks. Wheel zooms around the mouse,
// drag pans, click places the cycle cursor and selects the row's access there; Play animates the
// cursor. Drawing is two-phase: prepare_row() (model/timeline_view.h) culls and merges the spans
// of each visible row into boxes, then this file paints them.
#include <algorithm>
#include <cmath>
#include <string>

#include "ui/app/app_state.h"
#include "ui/app/frame_damage.h"
#include "ui/app/model/ab_cursor.h"
#include "ui/app/style.h"

namespace warplab::app {

namespace {

constexpr float kLabelW = 78.0f;
constexpr float kRowH = 14.0f;
constexpr float kRulerH = 20.0f;
constexpr float kAbHeadH = 18.0f;  // the A/B strip's heading

std::string lab_cycles(double c) {
  // "12,345" for the cursor readout.
  std::string digits = std::to_string(static_cast<long long>(std::llround(c)));
  std::string out;
  int n = 0;
  for (auto it = digits.rbegin(); it != digits.rend(); ++it) {
    if (n && n % 3 == 0 && *it != '-') out.insert(out.begin(), ',');
    out.insert(out.begin(), *it);
    ++n;
  }
  return out;
}

void toolbar(AppState& s) {
  section_title(s.fonts, "Warp timeline");
  ImGui::SameLine(0, 16);
  if (ImGui::Button(s.playing ? "Pause" : "Play", ImVec2(56, 0))) {
    if (!s.playing && s.cursor >= static_cast<double>(s.index.last_cycle))
      s.cursor = static_cast<double>(s.index.first_cycle);
    s.playing = !s.playing;
  }
  ImGui::SameLine();
  if (ImGui::Button("|<")) s.cursor = static_cast<double>(s.index.first_cycle);
  ImGui::SameLine();
  if (ImGui::Button("Fit")) s.view_fitted = false;
  ImGui::SameLine();
  ImGui::SetNextItemWidth(150);
  ImGui::SliderFloat("##speed", &s.play_speed, 10.0f, 1e6f, "%.0f cycles/s",
                     ImGuiSliderFlags_Logarithmic);
  ImGui::SameLine();
  ImGui::Text("cycle %s", lab_cycles(s.cursor).c_str());
  ImGui::SameLine();
  ImGui::TextDisabled("of %s", format_cycles(static_cast<double>(s.index.last_cycle)).c_str());
  if (s.run && s.run->launches.size() > 1) {
    ImGui::SameLine();
    ImGui::SetNextItemWidth(180);
    const std::string cur = std::to_string(s.launch) + ": " + s.run->launches[s.launch].kernel;
    if (ImGui::BeginCombo("##launch", cur.c_str())) {
      for (int i = 0; i < static_cast<int>(s.run->launches.size()); ++i) {
        const std::string l = std::to_string(i) + ": " + s.run->launches[i].kernel;
        if (ImGui::Selectable(l.c_str(), i == s.launch)) s.select_launch(i);
      }
      ImGui::EndCombo();
    }
  }
  const timing::Trace* t = s.trace();
  if (t) {
    char info[128];
    std::snprintf(info, sizeof info, "SM %d in detail, %zu warp slots%s",
                  t->options.sms.empty() ? 0 : t->options.sms[0], s.index.rows.size(),
                  t->truncated ? ", trace truncated (event limit)" : "");
    ImGui::SameLine();
    if (ImGui::GetContentRegionAvail().x < ImGui::CalcTextSize(info).x + 40) ImGui::NewLine();
    ImGui::TextDisabled("%s", info);
    help_marker(
        "Simulated: each row is one warp slot of the traced SM; a slot holds many warps over the "
        "kernel as blocks retire and new ones arrive. Instructions are PTX, not the SASS a real "
        "GPU runs. Wheel: zoom. Drag: pan. Shift+wheel: scroll rows. Click: move the cursor and "
        "pick the access shown in the memory panel.");
  }
}

// A/B: the pinned run's rows (A) below the shown run's (B) from `top` down `height` pixels: the
// same zoom with each launch's first cycle at the same x, the same rows scrolled, and A's cursor
// at the same fraction of its launch as B's (model/ab_cursor.h).
void draw_pinned_rows(AppState& s, ImVec2 top, float tx0, float track_w, float height,
                      float scroll_y) {
  const TraceIndex& ia = s.pinned_index;
  const TimelineView va = aligned_view(s.view, s.index.first_cycle, ia.first_cycle);
  const double ca = relative_cycle(s.cursor, s.index.first_cycle, s.index.last_cycle,
                                   ia.first_cycle, ia.last_cycle);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float x1 = tx0 + track_w;
  dl->AddRectFilled(top, ImVec2(x1, top.y + kAbHeadH), IM_COL32(28, 31, 36, 255));
  std::string params;
  for (const auto& [k, v] : s.pinned->params) params += (params.empty() ? "" : " ") + k + "=" + v;
  const double a_cycles = double(ia.last_cycle - ia.first_cycle);
  const double b_cycles = double(s.index.last_cycle - s.index.first_cycle);
  char head[256];
  std::snprintf(head, sizeof head,
                "A, pinned (%s): %s cycles, B above: %s (%.2gx).  Both cursors at %.0f%% of "
                "their launch",
                params.c_str(), format_cycles(a_cycles).c_str(), format_cycles(b_cycles).c_str(),
                a_cycles > 0 ? b_cycles / a_cycles : 0.0,
                100.0 * launch_fraction(s.cursor, s.index.first_cycle, s.index.last_cycle));
  ImGui::PushFont(s.fonts.small);
  dl->AddText(ImVec2(top.x + 4, top.y + 3), color::kText, head);
  const float y0 = top.y + kAbHeadH, y1 = top.y + height;
  dl->PushClipRect(ImVec2(top.x, y0), ImVec2(x1, y1), true);
  const int first_row = static_cast<int>(scroll_y / kRowH);
  const int last_row = std::min(static_cast<int>(ia.rows.size()),
                                static_cast<int>((scroll_y + (y1 - y0)) / kRowH) + 1);
  for (int r = first_row; r < last_row; ++r) {
    const TraceRow& row = ia.rows[size_t(r)];
    const float y = y0 + float(r) * kRowH - scroll_y;
    char label[32];
    std::snprintf(label, sizeof label, "A SM%d w%02d", row.sm, row.slot);
    dl->AddText(ImVec2(top.x + 4, y + 1), color::kDim, label);
    for (const SpanBox& b : prepare_row(row.spans, va, 2.0f)) {
      ImU32 c = warp_state_color(b.state);
      if (b.merged()) c = (c & 0x00FFFFFF) | 0xB0000000;
      dl->AddRectFilled(ImVec2(tx0 + b.x0, y + 2),
                        ImVec2(tx0 + std::max(b.x1, b.x0 + 1.0f), y + kRowH - 1), c);
    }
  }
  ImGui::PopFont();
  // A's launch ends here (B's goes on when it is the longer one).
  const float xe = tx0 + float(va.x_of(double(ia.last_cycle)));
  if (xe >= tx0 && xe <= x1) dl->AddLine(ImVec2(xe, y0), ImVec2(xe, y1), color::kDim);
  const float cx = tx0 + float(va.x_of(ca));
  dl->AddLine(ImVec2(cx, y0), ImVec2(cx, y1), color::kCursor, 1.5f);
  dl->PopClipRect();
}

}  // namespace

void draw_timeline_panel(AppState& s) {
  const timing::Trace* t = s.trace();
  if (!t || s.index.rows.empty()) {
    section_title(s.fonts, "Warp timeline");
    ImGui::TextDisabled(s.worker.busy() ? "Simulating..."
                                        : "Run an experiment to record a trace (timing model).");
    draw_warp_state_legend();
    return;
  }
  toolbar(s);
  draw_warp_state_legend();

  // Animation: the cursor advances with wall time.
  const double first = static_cast<double>(s.index.first_cycle);
  const double last = static_cast<double>(s.index.last_cycle);
  if (s.playing) {
    s.cursor += s.play_speed * ImGui::GetIO().DeltaTime;
    if (s.cursor >= last) {
      s.cursor = last;
      s.playing = false;
    }
  }

  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const float kScrollW = 10;  // the rows' scrollbar on the right
  const float track_w = std::max(50.0f, avail.x - kLabelW - kScrollW);
  // A tensor-core kernel's rows (tensor_rows.cpp) sit between the ruler and the warps' rows.
  const float band_h = tensor_rows_height(s);
  const float tracks_h = std::max(40.0f, avail.y - kRulerH - band_h);
  const float tracks_top = origin.y + kRulerH + band_h;
  s.view.width_px = track_w;
  // A/B: the pinned run's rows (A) under the shown run's (B), on one relative cursor
  // (model/ab_cursor.h); B keeps the upper half.
  const timing::Trace* ta =
      s.pinned && s.pinned != s.run && !s.pinned_index.rows.empty() ? s.pinned_trace() : nullptr;
  const float b_h = ta ? std::floor((tracks_h - kAbHeadH) * 0.5f) : tracks_h;
  if (!s.view_fitted) {
    s.view.fit(s.index.first_cycle, s.index.last_cycle, track_w);
    s.view_fitted = true;
  }
  if (s.playing) {  // keep the cursor on screen
    const double x = s.view.x_of(s.cursor);
    const double span = track_w * s.view.cycles_per_px;
    if (x < 0 || x > track_w * 0.9)  // a page on, but never past the kernel's last cycle
      s.view.first_cycle = std::max(first, std::min(s.cursor - 0.1 * span, last - span));
  }

  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float tx0 = origin.x + kLabelW;  // track area left edge

  // Interaction over the ruler and tracks.
  ImGui::InvisibleButton("timeline_area", ImVec2(avail.x - kScrollW, kRulerH + band_h + tracks_h),
                         ImGuiButtonFlags_MouseButtonLeft);
  const bool hovered = ImGui::IsItemHovered();
  ImGuiIO& io = ImGui::GetIO();
  static_assert(kRowH > 0);
  // Kept in AppState: ImGuiStorage references are invalidated when another key is added.
  float& scroll_y = s.timeline_scroll_y;
  const float content_h = static_cast<float>(s.index.rows.size()) * kRowH;
  if (hovered && io.MouseWheel != 0) {
    if (io.KeyShift)
      scroll_y -= io.MouseWheel * kRowH * 3;
    else
      s.view.zoom_at(io.MousePos.x - tx0, std::pow(0.8, io.MouseWheel), 0.02,
                     std::max(1.0, (last - first) / track_w * 4));
  }
  scroll_y = std::clamp(scroll_y, 0.0f, std::max(0.0f, content_h - b_h));
  bool& dragged = s.timeline_dragged;
  const bool released = ImGui::IsItemDeactivated();
  const bool was_click = released && !dragged;
  if (released) dragged = false;
  if (ImGui::IsItemActive() && ImGui::IsMouseDragging(ImGuiMouseButton_Left, 3.0f)) {
    dragged = true;
    s.view.pan_px(io.MouseDelta.x);
    scroll_y = std::clamp(scroll_y - io.MouseDelta.y, 0.0f, std::max(0.0f, content_h - b_h));
  }
  s.view.clamp_to(s.index.first_cycle, s.index.last_cycle);

  // Ruler.
  const ImVec2 rul0(tx0, origin.y), rul1(tx0 + track_w, origin.y + kRulerH);
  dl->AddRectFilled(ImVec2(origin.x, origin.y), rul1, IM_COL32(28, 31, 36, 255));
  const double step = tick_step(s.view.cycles_per_px, 90.0);
  const double c0 = std::floor(s.view.first_cycle / step) * step;
  ImGui::PushFont(s.fonts.small);
  float label_end = tx0;  // right edge of the last label drawn
  for (double c = c0; c < s.view.last_cycle(); c += step) {
    const float x = tx0 + static_cast<float>(s.view.x_of(c));
    if (x < tx0) continue;
    dl->AddLine(ImVec2(x, rul1.y - 6), ImVec2(x, rul1.y), color::kDim);
    dl->AddLine(ImVec2(x, rul1.y), ImVec2(x, tracks_top + tracks_h), color::kGrid);
    // Right of its tick; left of it where it would pass the ruler's end (never clipped), and
    // left out where it would then touch the label before it.
    const std::string label = format_cycles(c);
    const float w = ImGui::CalcTextSize(label.c_str()).x;
    float lx = x + 3;
    if (lx + w > rul1.x) lx = x - 3 - w;
    if (lx < label_end + 6) continue;
    dl->AddText(ImVec2(lx, origin.y + 2), color::kDim, label.c_str());
    label_end = lx + w;
  }
  dl->AddText(ImVec2(origin.x + 4, origin.y + 2), color::kDim, "cycle");
  ImGui::PopFont();

  if (band_h > 0) {
    draw_tensor_rows(s, ImVec2(origin.x, rul1.y), kLabelW, track_w);
    const float bx = tx0 + static_cast<float>(s.view.x_of(s.cursor));
    if (bx >= tx0 && bx <= tx0 + track_w)
      dl->AddLine(ImVec2(bx, rul1.y), ImVec2(bx, tracks_top), color::kCursor, 1.5f);
  }
  // Tracks (clipped).
  const ImVec2 trk0(origin.x, tracks_top), trk1(tx0 + track_w, tracks_top + b_h);
  dl->PushClipRect(trk0, trk1, true);
  const int first_row = static_cast<int>(scroll_y / kRowH);
  const int last_row = std::min(static_cast<int>(s.index.rows.size()),
                                static_cast<int>((scroll_y + b_h) / kRowH) + 1);
  int hover_row = -1;
  if (hovered && io.MousePos.y >= trk0.y && io.MousePos.y < trk1.y) {
    hover_row = static_cast<int>((io.MousePos.y - trk0.y + scroll_y) / kRowH);
    if (hover_row >= static_cast<int>(s.index.rows.size())) hover_row = -1;
  }
  // Pass 1, opaque (drawn without blending, frame_damage.h): the selected row's band and the
  // span boxes, their translucent colours blended here over what lies beneath them.
  const ImU32 bg = ImGui::GetColorU32(ImGuiCol_WindowBg);
  const ImU32 selected_bg = blend_over(bg, IM_COL32(255, 255, 255, 18));
  begin_opaque(dl);
  for (int r = first_row; r < last_row; ++r) {
    const TraceRow& row = s.index.rows[r];
    const float y = trk0.y + r * kRowH - scroll_y;
    const ImU32 under = r == s.selected_row ? selected_bg : bg;
    if (r == s.selected_row)
      dl->AddRectFilled(ImVec2(origin.x, y), ImVec2(trk1.x, y + kRowH), selected_bg);
    // Phase 1: prepare (cull + merge); phase 2: paint.
    const std::vector<SpanBox> boxes = prepare_row(row.spans, s.view, 2.0f);
    for (const SpanBox& b : boxes) {
      ImU32 c = warp_state_color(b.state);
      if (b.merged()) c = blend_over(under, (c & 0x00FFFFFF) | 0xB0000000);
      dl->AddRectFilled(ImVec2(tx0 + b.x0, y + 2),
                        ImVec2(tx0 + std::max(b.x1, b.x0 + 1.0f), y + kRowH - 1), c);
    }
  }
  end_opaque(dl);
  // Pass 2, blended: labels, the picked line's marks, access ticks.
  ImGui::PushFont(s.fonts.small);
  for (int r = first_row; r < last_row; ++r) {
    const TraceRow& row = s.index.rows[r];
    const float y = trk0.y + r * kRowH - scroll_y;
    char label[32];
    std::snprintf(label, sizeof label, "SM%d  w%02d", row.sm, row.slot);
    dl->AddText(ImVec2(origin.x + 4, y + 1), r == s.selected_row ? color::kText : color::kDim,
                label);
    // The PTX line picked in the source view: a mark at each of its issues on this row.
    if (!s.marked_ptx.empty()) {
      auto it = std::partition_point(row.issues.begin(), row.issues.end(), [&](uint32_t i) {
        return static_cast<double>(t->issues[i].cycle) < s.view.first_cycle;
      });
      for (; it != row.issues.end(); ++it) {
        const timing::IssueRecord& is = t->issues[*it];
        const double x = s.view.x_of(static_cast<double>(is.cycle));
        if (x > track_w) break;
        if (!std::binary_search(s.marked_ptx.begin(), s.marked_ptx.end(), is.ptx_line)) continue;
        dl->AddRectFilled(ImVec2(tx0 + float(x) - 1, y), ImVec2(tx0 + float(x) + 2, y + kRowH),
                          color::kCursor);
      }
    }
    // Memory accesses: a tick at each issue, when there is room to tell them apart.
    if (s.view.cycles_per_px < 8.0) {
      auto& acc = row.accesses;
      auto it = std::partition_point(acc.begin(), acc.end(), [&](uint32_t a) {
        return static_cast<double>(t->accesses[a].issue) < s.view.first_cycle;
      });
      for (; it != acc.end(); ++it) {
        const timing::AccessRecord& a = t->accesses[*it];
        const double x = s.view.x_of(static_cast<double>(a.issue));
        if (x > track_w) break;
        dl->AddTriangleFilled(ImVec2(tx0 + float(x) - 3, y), ImVec2(tx0 + float(x) + 3, y),
                              ImVec2(tx0 + float(x), y + 5), IM_COL32(255, 255, 255, 200));
      }
    }
  }
  ImGui::PopFont();
  // The selected access: its lifetime bracketed on its row.
  if (s.selected_access && *s.selected_access < t->accesses.size()) {
    const timing::AccessRecord& a = t->accesses[*s.selected_access];
    const int r = s.index.row_of(a.sm, a.slot);
    if (r >= 0) {
      const float y = trk0.y + r * kRowH - scroll_y;
      const float x0 = tx0 + float(s.view.x_of(double(a.issue)));
      const float x1 = tx0 + float(s.view.x_of(double(a.ready)));
      dl->AddRect(ImVec2(x0, y), ImVec2(std::max(x1, x0 + 2), y + kRowH),
                  IM_COL32(255, 255, 255, 230), 0, 0, 2.0f);
    }
  }
  // Cursor.
  const float cx = tx0 + static_cast<float>(s.view.x_of(s.cursor));
  dl->AddLine(ImVec2(cx, trk0.y), ImVec2(cx, trk1.y), color::kCursor, 1.5f);
  dl->PopClipRect();
  if (cx >= tx0 && cx <= trk1.x)
    dl->AddTriangleFilled(ImVec2(cx - 5, rul1.y - 7), ImVec2(cx + 5, rul1.y - 7),
                          ImVec2(cx, rul1.y), color::kCursor);
  dl->AddLine(ImVec2(tx0, trk0.y), ImVec2(tx0, trk1.y), IM_COL32(255, 255, 255, 40));
  if (ta)
    draw_pinned_rows(s, ImVec2(origin.x, trk1.y), tx0, track_w, tracks_top + tracks_h - trk1.y,
                     scroll_y);

  // The rows' scrollbar: the thumb shows which rows are in view; drag it to scroll.
  if (content_h > b_h) {
    const ImVec2 sb0(tx0 + track_w, tracks_top), sb1(sb0.x + kScrollW, tracks_top + b_h);
    ImGui::SetCursorScreenPos(sb0);
    ImGui::InvisibleButton("rows_scrollbar", ImVec2(kScrollW, b_h));
    if (ImGui::IsItemActive())
      scroll_y = std::clamp(scroll_y + io.MouseDelta.y * content_h / b_h, 0.0f, content_h - b_h);
    const float th0 = sb0.y + b_h * scroll_y / content_h;
    const float th1 = sb0.y + b_h * (scroll_y + b_h) / content_h;
    dl->AddRectFilled(sb0, sb1, IM_COL32(30, 32, 38, 255));
    dl->AddRectFilled(ImVec2(sb0.x + 2, th0), ImVec2(sb1.x - 2, std::max(th1, th0 + 8)),
                      ImGui::IsItemHovered() || ImGui::IsItemActive()
                          ? IM_COL32(160, 165, 175, 255)
                          : IM_COL32(100, 104, 112, 255),
                      3.0f);
  }

  // Click: cursor, row and access selection.
  if (was_click && io.MousePos.x >= tx0 && io.MousePos.y < trk1.y) {
    s.cursor = std::clamp(s.view.cycle_at(io.MousePos.x - tx0), first, last);
    if (hover_row >= 0) {
      s.selected_row = hover_row;
      s.selected_access = s.index.access_near(*t, hover_row, s.cursor);
    }
  }

  // Focus line for the source panel: the span under the mouse, else under the cursor.
  s.focus_ptx_line = 0;
  if (s.selected_row >= 0)
    if (const timing::WarpSpan* sp = s.index.span_at(s.selected_row, s.cursor))
      s.focus_ptx_line = sp->ptx_line;

  // Hover tooltip.
  if (hover_row >= 0 && io.MousePos.x >= tx0) {
    const double hc = s.view.cycle_at(io.MousePos.x - tx0);
    // Within a couple of pixels, so that thin spans can be hovered when zoomed out.
    const timing::WarpSpan* sp = s.index.span_at(hover_row, hc);
    if (!sp) sp = s.index.span_at(hover_row, hc - 2 * s.view.cycles_per_px);
    if (sp) {
      s.focus_ptx_line = sp->ptx_line;
      const TraceRow& row = s.index.rows[hover_row];
      ImGui::BeginTooltip();
      ImGui::PushFont(s.fonts.bold);
      ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(warp_state_color(sp->state)), "%s",
                         timing::warp_state_name(sp->state).data());
      ImGui::PopFont();
      ImGui::TextUnformatted(warp_state_meaning(sp->state));
      ImGui::Text("SM %d, warp slot %d", row.sm, row.slot);
      ImGui::Text("cycles %s - %s  (%s cycles)", lab_cycles(double(sp->begin)).c_str(),
                  lab_cycles(double(sp->end)).c_str(),
                  lab_cycles(double(sp->end - sp->begin)).c_str());
      if (auto is = s.index.issue_at_or_before(*t, hover_row, double(sp->end))) {
        const timing::IssueRecord& ir = t->issues[*is];
        ImGui::Text("block %u, warp %d of the block", ir.block, ir.warp_in_block);
      }
      if (s.run && sp->ptx_line > 0) {
        auto it = s.run->ptx_text.find(sp->ptx_line);
        ImGui::Separator();
        ImGui::Text("PTX line %d:", sp->ptx_line);
        ImGui::PushFont(s.fonts.mono);
        ImGui::TextUnformatted(it != s.run->ptx_text.end() ? it->second.c_str() : "?");
        ImGui::PopFont();
        if (auto src = s.run->ptx_to_src.find(sp->ptx_line); src != s.run->ptx_to_src.end()) {
          const int line = src->second;
          ImGui::Text("%s:%d", file_name(s.run->source_path).c_str(), line);
          if (line >= 1 && line <= static_cast<int>(s.run->source_lines.size())) {
            ImGui::PushFont(s.fonts.mono);
            ImGui::TextUnformatted(s.run->source_lines[line - 1].c_str());
            ImGui::PopFont();
          }
        }
      }
      ImGui::TextDisabled("simulated: PTX instructions, not SASS");
      ImGui::EndTooltip();
    }
  }
}

}  // namespace warplab::app
