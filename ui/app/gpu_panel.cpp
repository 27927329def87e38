// The whole GPU: every SM a row, time to the right, each block a band from its dispatch until its
// last warp freed its slot, as tall as its share of the SM's warp slots and coloured by wave.
// Below, the warps resident on the whole GPU over time against the occupancy limit (every SM
// full). A grid of many waves keeps the SMs full until the last blocks; then SMs fall idle one by
// one (the tail, from a red line), which is why a grid of 1.1 waves costs nearly as much as 2.
// ui/app/model/gpu_waves.h says what is drawn from what.
#include <algorithm>
#include <cstdio>
#include <vector>

#include "ui/app/app_state.h"
#include "ui/app/frame_damage.h"
#include "ui/app/style.h"

namespace warplab::app {

void draw_gpu_panel(AppState& s) {
  const timing::Trace* t = s.trace();
  const timing::TimingResult* r = s.timing();
  if (!t || !r) {
    ImGui::TextDisabled("run an experiment: every SM's blocks appear here");
    return;
  }
  if (s.gpu_zoom_sm >= 0) {
    draw_scheduler_panel(s);
    return;
  }
  const GpuWaves& g = s.waves;
  if (g.blocks == 0 || g.last_cycle <= g.first_cycle) {
    ImGui::TextDisabled("the trace of this launch has no block records");
    return;
  }
  const timing::Occupancy& o = r->occupancy;
  const double limit = double(g.sm_count) * g.blocks_per_sm * g.warps_per_block;
  const double tail = g.idle_fraction(g.last_dispatch, g.last_cycle);
  // Under one wave in words ("under one wave (0.0076)", not "0.00 waves").
  char waves[64];
  if (r->waves < 1)
    std::snprintf(waves, sizeof waves, "under one wave (%.2g)", r->waves);
  else
    std::snprintf(waves, sizeof waves, "%.2f waves", r->waves);
  ImGui::Text("%zu blocks on %d SMs: %s of %d blocks (%d per SM, limited by %s)", g.blocks,
              g.sm_count, waves, g.sm_count * g.blocks_per_sm, g.blocks_per_sm, o.limiter.c_str());
  ImGui::SameLine();
  help_marker(
      "Each row is one SM; each band one block, from when the block scheduler placed it until "
      "its last warp left, as tall as its warps' share of the SM's warp slots (the band's "
      "position is a block slot: a real SM gives a block any free warp slots). Colours "
      "alternate by wave: the blocks that fit the whole GPU at once (grey: blocks too short to "
      "draw apart, of several waves). The occupancy limit is the "
      "smallest of four: warp slots, blocks per SM, registers and shared memory. After the last "
      "block is placed (the tail, from the red line) SMs fall idle as their last blocks finish. "
      "Click an SM to see its four warp schedulers pick warps cycle by cycle. Simulated: "
      "the block scheduler places blocks round-robin at a fixed dispatch rate.");
  ImGui::TextDisabled(
      "tail from cycle %llu: %.0f%% of SM time idle there; occupancy %.0f%% "
      "theoretical, %.0f%% achieved",
      static_cast<unsigned long long>(g.last_dispatch), 100 * tail, 100 * o.theoretical,
      100 * r->achieved_occupancy);
  if (g.truncated) ImGui::TextDisabled("the trace kept only the first blocks (max_events)");

  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 p = ImGui::GetCursorScreenPos();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float label_w = 44, plot_w = std::max(100.0f, avail.x - label_w - 8);
  const float graph_h = 60;
  const float rows_h = std::max(40.0f, avail.y - graph_h - 40);
  const float row_h = rows_h / float(std::max(1, g.sm_count));
  const double t0 = double(g.first_cycle), t1 = double(g.last_cycle);
  auto x_of = [&](double c) {
    return p.x + label_w + static_cast<float>((c - t0) / (t1 - t0)) * plot_w;
  };
  static constexpr ImU32 kWave[] = {IM_COL32(96, 200, 120, 255), IM_COL32(110, 170, 240, 255)};
  // 1. Where the tail starts: a line through the rows (the software renderer pays for every
  //    shaded pixel, so the tail is shaded only under the warps graph below).
  const float tail_x = x_of(double(g.last_dispatch));
  dl->AddLine(ImVec2(tail_x, p.y), ImVec2(tail_x, p.y + rows_h), color::kDram, 1);
  // 2. Every SM's blocks. Bands narrower than a pixel still draw one pixel wide; a run of
  //    blocks in one slot each narrower than 2 pixels, back to back, draws as one band (grey
  //    when it spans waves), so a grid of 65536 blocks costs rectangles by the pixel, not by
  //    the block.
  const float slot_h = g.max_warps_per_sm > 0 ? row_h / float(g.max_warps_per_sm) : row_h;
  constexpr ImU32 kMixed = IM_COL32(150, 156, 166, 255);
  struct Run {
    float x0 = 0, x1 = -1e9f, y0 = 0, y1 = 0;
    ImU32 color = 0;
    bool open = false;
  };
  std::vector<Run> runs;
  auto flush = [&](Run& r) {
    if (r.open) dl->AddRectFilled(ImVec2(r.x0, r.y0), ImVec2(r.x1, r.y1), r.color);
    r.open = false;
  };
  begin_opaque(dl);  // opaque blocks: no blending (frame_damage.h)
  for (int sm = 0; sm < g.sm_count; ++sm) {
    const float y = p.y + sm * row_h;
    runs.assign(size_t(std::max(1, g.blocks_per_sm)), Run{});
    for (const GpuBlock& b : g.sms[sm]) {
      const float x0 = x_of(double(b.begin)), x1 = std::max(x0 + 1, x_of(double(b.end)));
      const float y0 = y + float(b.slot * b.warps) * slot_h;
      const float y1 = std::max(y0 + 1, y0 + float(b.warps) * slot_h - (row_h > 6 ? 1 : 0));
      const ImU32 c = kWave[b.wave % 2];
      if (size_t(b.slot) >= runs.size()) runs.resize(size_t(b.slot) + 1);
      Run& r = runs[size_t(b.slot)];
      const bool narrow = x_of(double(b.end)) - x0 < 2;
      if (r.open && narrow && x0 - r.x1 < 1) {
        r.x1 = std::max(r.x1, x1);
        if (r.color != c) r.color = kMixed;
        continue;
      }
      flush(r);
      r = Run{x0, x1, y0, y1, c, true};
      if (!narrow) flush(r);
    }
    for (Run& r : runs) flush(r);
  }
  end_opaque(dl);
  ImGui::PushFont(s.fonts.small);
  for (int sm = 0; sm < g.sm_count; sm += std::max(1, int(14 / std::max(1.0f, row_h)))) {
    char b[16];
    std::snprintf(b, sizeof b, "SM %d", sm);
    dl->AddText(ImVec2(p.x, p.y + sm * row_h), color::kDim, b);
  }
  ImGui::PopFont();
  // 3. Resident warps on the whole GPU against the limit.
  const float gy = p.y + rows_h + 8;
  dl->AddRectFilled(ImVec2(tail_x, gy), ImVec2(x_of(t1), gy + graph_h), IM_COL32(230, 110, 80, 60));
  const double top = std::max(limit, 1.0);
  auto y_of = [&](double warps) {
    return gy + graph_h - static_cast<float>(warps / top) * (graph_h - 4);
  };
  {  // the step function, as the most warps resident in each pixel column
    std::vector<float> bars(size_t(std::max(1.0f, plot_w)), 0.0f);
    for (size_t i = 0; i < g.step_cycle.size(); ++i) {
      const double c0 = double(g.step_cycle[i]);
      const double c1 = i + 1 < g.step_cycle.size() ? double(g.step_cycle[i + 1]) : t1;
      if (c1 <= c0) continue;
      const float hgt = gy + graph_h - y_of(g.step_warps[i]);
      const float x0 = x_of(c0) - x_of(t0), x1 = std::max(x0 + 1, x_of(c1) - x_of(t0));
      for (size_t col = size_t(std::max(0.0f, x0)); col < bars.size() && float(col) < x1; ++col)
        bars[col] = std::max(bars[col], hgt);
    }
    draw_column_bars(dl, x_of(t0), gy + graph_h, bars, color::kL2);
  }
  for (float x = x_of(t0); x < x_of(t1); x += 8)  // the limit, dashed (rectangles: 2 triangles)
    dl->AddRectFilled(ImVec2(x, y_of(limit) - 0.75f),
                      ImVec2(std::min(x + 4, x_of(t1)), y_of(limit) + 0.75f), color::kCursor);
  char lim[96];
  std::snprintf(lim, sizeof lim, "occupancy limit: %.0f warps (%d SMs x %d)", limit, g.sm_count,
                g.blocks_per_sm * g.warps_per_block);
  ImGui::PushFont(s.fonts.small);
  dl->AddText(ImVec2(p.x, gy), color::kDim, "warps");
  char span[64];
  std::snprintf(span, sizeof span, "cycle %.0f", t0);
  dl->AddText(ImVec2(x_of(t0), gy + graph_h + 1), color::kDim, span);
  std::snprintf(span, sizeof span, "cycle %.0f", t1);
  dl->AddText(ImVec2(x_of(t1) - ImGui::CalcTextSize(span).x, gy + graph_h + 1), color::kDim, span);
  dl->AddText(ImVec2(x_of(t0) + 4, y_of(limit) + 1), color::kCursor, lim);
  dl->AddText(ImVec2(tail_x + 3, gy + graph_h - ImGui::GetTextLineHeight()), color::kDram, "tail");
  ImGui::PopFont();
  // 4. The cursor, shared with the timeline.
  if (s.cursor >= t0 && s.cursor <= t1)
    dl->AddLine(ImVec2(x_of(s.cursor), p.y), ImVec2(x_of(s.cursor), gy + graph_h), color::kCursor);
  ImGui::Dummy(ImVec2(avail.x, rows_h + graph_h + 24));
  if (ImGui::IsItemHovered()) {
    const ImVec2 m = ImGui::GetIO().MousePos;
    const double c = t0 + double(m.x - p.x - label_w) / plot_w * (t1 - t0);
    const int sm = int((m.y - p.y) / row_h);
    ImGui::BeginTooltip();
    ImGui::Text("cycle %.0f: %d warps resident on the GPU", c, g.total_resident_warps(c));
    if (sm >= 0 && sm < g.sm_count) {
      ImGui::Text("SM %d: %d of %d warp slots", sm, g.resident_warps(sm, c), g.max_warps_per_sm);
      for (const GpuBlock& b : g.sms[sm])
        if (double(b.begin) <= c && c < double(b.end))
          ImGui::TextDisabled("block %llu (wave %d): cycles %llu to %llu, %d warps",
                              static_cast<unsigned long long>(b.block), b.wave,
                              static_cast<unsigned long long>(b.begin),
                              static_cast<unsigned long long>(b.end), b.warps);
    }
    if (sm >= 0 && sm < g.sm_count)
      ImGui::TextDisabled("click: zoom into SM %d's warp schedulers (cursor here)", sm);
    ImGui::EndTooltip();
    if (ImGui::IsMouseClicked(ImGuiMouseButton_Left) && c >= t0 && c <= t1) {
      s.cursor = c;
      s.playing = false;
      if (sm >= 0 && sm < g.sm_count) {
        s.gpu_zoom_sm = sm;
        s.sched_fitted = false;
      }
    }
  }
}

}  // namespace warplab::app
