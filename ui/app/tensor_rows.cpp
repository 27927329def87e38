// What is new in a tensor-core kernel, drawn: above the warp rows of the timeline, one row per
// sub-partition's tensor pipe (held while an mma.sync issues into it or a warpgroup MMA runs on
// the SM's tensor cores, with its occupancy over the launch), a row of the TMA unit's copies
// (from issue to the last byte landed), one of cp.async fills and one of mbarrier phases (each
// answered wait from the try_wait to the warp's release, a diamond where the phase completed).
// In the lanes view, an mma.sync's fragments: which lane holds which element of A, B and C/D.
// The data is model/tensor_activity.h's, from the trace's issues and the units' AsyncRecords.
#include <algorithm>
#include <cstdio>

#include "ui/app/app_state.h"
#include "ui/app/model/axis.h"
#include "ui/app/style.h"

namespace warplab::app {

namespace {

constexpr float kBandRowH = 14.0f;
// Opaque colours of their own (no warp state uses them; tests/710 counts them).
constexpr ImU32 kTensor = IM_COL32(96, 236, 176, 255);   // mma.sync holding a tensor pipe
constexpr ImU32 kWgmma = IM_COL32(40, 210, 240, 255);    // a warpgroup MMA on all four
constexpr ImU32 kTmaLoad = IM_COL32(70, 130, 250, 255);  // global -> shared
constexpr ImU32 kTmaStore = IM_COL32(250, 130, 70, 255); // shared -> global, prefetch
constexpr ImU32 kCpAsync = IM_COL32(250, 190, 60, 255);
constexpr ImU32 kMbar = IM_COL32(210, 120, 230, 255);

int band_rows(const TensorActivity& a) {
  if (!a.any()) return 0;
  int n = a.sub_partitions;
  n += !a.tma.empty();
  n += !a.cp_async.empty();
  n += !a.mbarrier.empty();
  return n;
}

// Intervals as bars, merged per pixel (phase 1), then painted (phase 2).
template <class Get>
void bars(ImDrawList* dl, const TimelineView& v, float x0, float track_w, float y, size_t n,
          Get get, ImU32 color) {
  float run0 = -1, run1 = -1;
  auto flush = [&] {
    if (run1 >= run0 && run0 >= 0)
      dl->AddRectFilled(ImVec2(x0 + run0, y + 2), ImVec2(x0 + std::max(run1, run0 + 1), y + kBandRowH - 2),
                        color);
  };
  for (size_t i = 0; i < n; ++i) {
    const auto [b, e] = get(i);
    const float xa = float(v.x_of(double(b))), xb = float(v.x_of(double(e)));
    if (xb < 0 || xa > track_w) continue;
    const float ca = std::max(0.0f, xa), cb = std::min(track_w, xb);
    if (run0 >= 0 && ca <= run1 + 1) {
      run1 = std::max(run1, cb);
    } else {
      flush();
      run0 = ca;
      run1 = cb;
    }
  }
  flush();
}

const char* kind_name(timing::AsyncRecord::Kind k) {
  using K = timing::AsyncRecord::Kind;
  switch (k) {
    case K::TmaLoad: return "TMA copy to shared memory";
    case K::TmaStore: return "TMA copy to global memory";
    case K::TmaPrefetch: return "TMA prefetch into the L2";
    case K::CpAsync: return "cp.async fill";
    case K::MbarrierWait: return "mbarrier wait (answered)";
    case K::Wgmma: return "warpgroup MMA";
  }
  return "?";
}

}  // namespace

float tensor_rows_height(const AppState& s) { return float(band_rows(s.tensor)) * kBandRowH; }

void draw_tensor_rows(AppState& s, ImVec2 top, float label_w, float track_w) {
  const TensorActivity& a = s.tensor;
  const int rows = band_rows(a);
  if (rows == 0) return;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float tx0 = top.x + label_w;
  dl->AddRectFilled(top, ImVec2(tx0 + track_w, top.y + rows * kBandRowH), IM_COL32(24, 27, 32, 255));
  dl->PushClipRect(top, ImVec2(tx0 + track_w, top.y + rows * kBandRowH), true);
  ImGui::PushFont(s.fonts.small);
  const uint64_t first = s.index.first_cycle, last = s.index.last_cycle;
  float y = top.y;
  struct Hit {
    const timing::AsyncRecord* rec = nullptr;
    int sp = -1;
  } hit;
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  const bool in_band = mouse.x >= tx0 && mouse.x < tx0 + track_w && mouse.y >= top.y &&
                       mouse.y < top.y + rows * kBandRowH;
  const double mc = s.view.cycle_at(mouse.x - tx0);
  const double slack = 2 * s.view.cycles_per_px;
  // 1. The tensor pipe of each sub-partition, its occupancy over the launch.
  for (int sp = 0; sp < a.sub_partitions; ++sp, y += kBandRowH) {
    char label[40];
    std::snprintf(label, sizeof label, "tensor%d %3.0f%%", sp, 100 * a.occupancy(sp, first, last + 1));
    dl->AddText(ImVec2(top.x + 2, y + 1), color::kDim, label);
    const auto& busy = a.pipe_busy[size_t(sp)];
    bars(dl, s.view, tx0, track_w, y, busy.size(),
         [&](size_t i) { return std::pair{busy[i].begin, busy[i].end}; },
         a.wgmma.empty() ? kTensor : kWgmma);
    if (in_band && mouse.y >= y && mouse.y < y + kBandRowH) hit.sp = sp;
  }
  // 2. The asynchronous units' rows.
  auto async_row = [&](const std::vector<timing::AsyncRecord>& v, const char* name) {
    if (v.empty()) return;
    dl->AddText(ImVec2(top.x + 2, y + 1), color::kDim, name);
    for (const timing::AsyncRecord& r : v) {
      const float xa = float(s.view.x_of(double(r.begin))), xb = float(s.view.x_of(double(r.end)));
      if (xb < 0 || xa > track_w) continue;
      using K = timing::AsyncRecord::Kind;
      const ImU32 c = r.kind == K::TmaStore ? kTmaStore
                      : r.kind == K::CpAsync ? kCpAsync
                      : r.kind == K::MbarrierWait ? kMbar
                                                  : kTmaLoad;
      if (r.kind == K::MbarrierWait) {
        dl->AddLine(ImVec2(tx0 + xa, y + kBandRowH / 2), ImVec2(tx0 + std::max(xb, xa + 1), y + kBandRowH / 2), c, 1.0f);
        if (r.done > 0) {
          const float xd = tx0 + float(s.view.x_of(double(r.done)));
          const float cy = y + kBandRowH / 2;
          dl->AddQuadFilled(ImVec2(xd, cy - 4), ImVec2(xd + 4, cy), ImVec2(xd, cy + 4),
                            ImVec2(xd - 4, cy), c);
        }
      } else {
        dl->AddRectFilled(ImVec2(tx0 + xa, y + 3), ImVec2(tx0 + std::max(xb, xa + 1), y + kBandRowH - 3), c);
      }
      if (in_band && mouse.y >= y && mouse.y < y + kBandRowH && mc + slack >= double(r.begin) &&
          mc - slack <= double(r.end))
        hit.rec = &r;
    }
    y += kBandRowH;
  };
  async_row(a.tma, "TMA");
  async_row(a.cp_async, "cp.async");
  async_row(a.mbarrier, "mbarrier");
  ImGui::PopFont();
  dl->PopClipRect();
  // 3. Hover: what the row shows.
  if (hit.rec) {
    const timing::AsyncRecord& r = *hit.rec;
    ImGui::BeginTooltip();
    ImGui::TextUnformatted(kind_name(r.kind));
    if (r.slot >= 0) ImGui::Text("SM %d, warp slot %d", r.sm, r.slot);
    ImGui::Text("cycles %llu - %llu (%llu cycles)", (unsigned long long)r.begin,
                (unsigned long long)r.end, (unsigned long long)(r.end - r.begin));
    if (r.bytes && r.kind != timing::AsyncRecord::Kind::Wgmma && r.kind != timing::AsyncRecord::Kind::MbarrierWait)
      ImGui::Text("%s moved", format_si(double(r.bytes), "B").c_str());
    if (r.kind == timing::AsyncRecord::Kind::MbarrierWait)
      ImGui::TextUnformatted(r.done > 0 ? "diamond: the phase completed (its asynchronous copies landed)"
                                        : "the phase had completed before the wait");
    if (s.run)
      if (auto it = s.run->ptx_text.find(r.ptx_line); it != s.run->ptx_text.end())
        ImGui::Text("PTX line %d: %s", r.ptx_line, it->second.c_str());
    ImGui::EndTooltip();
  } else if (hit.sp >= 0) {
    ImGui::BeginTooltip();
    ImGui::Text("sub-partition %d's tensor pipe: %.0f%% held over the launch", hit.sp,
                100 * a.occupancy(hit.sp, first, last + 1));
    ImGui::TextUnformatted(
        "Held from an mma.sync's issue for its issue interval (the next mma of this sub-partition "
        "waits for it), and by a warpgroup MMA on all four for its interval (tensor_pipe.h, "
        "wgmma_pipe.h).");
    ImGui::Text("%llu mma.sync issued on the traced SM, %zu warpgroup MMAs",
                (unsigned long long)a.mma_sync_issues, a.wgmma.size());
    ImGui::EndTooltip();
  }
}

void draw_fragments(AppState& s, const MmaLine& mma, int highlight_lane) {
  ImGui::TextDisabled("fragments of mma.m%dn%dk%d .%s: the lane holding each element", mma.m, mma.n,
                      mma.k, mma.type.c_str());
  help_marker(
      "An mma.sync multiplies a 16xK tile A by a Kx8 tile B into a 16x8 tile C/D, but no lane "
      "holds a whole tile: each of the warp's 32 lanes holds a few elements of each (its "
      "fragment), in registers. A cell's colour is its lane's group (lane / 4, the PTX ISA's "
      "groupID), its number the lane; the lane under the cursor in the rows above is outlined. "
      "The layout is the PTX ISA's (Matrix Fragments for mma.m16n8k*).");
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float avail = ImGui::GetContentRegionAvail().x;
  const int cols_total = fragment_cols(mma, FragmentOperand::A) + fragment_cols(mma, FragmentOperand::B) +
                         fragment_cols(mma, FragmentOperand::C);
  const float cell = std::clamp((avail - 60) / float(cols_total), 6.0f, 18.0f);
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  float x = p0.x;
  float h = 0;
  ImGui::PushFont(s.fonts.small);
  for (FragmentOperand op : {FragmentOperand::A, FragmentOperand::B, FragmentOperand::C}) {
    const int rows = fragment_rows(mma, op), cols = fragment_cols(mma, op);
    const char* name = op == FragmentOperand::A ? "A" : op == FragmentOperand::B ? "B" : "C/D";
    dl->AddText(ImVec2(x, p0.y), color::kDim, name);
    const float y0 = p0.y + 14;
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < cols; ++c) {
        const FragmentCell f = fragment_cell(mma, op, r, c);
        if (f.lane < 0) continue;
        const float hue = float(f.lane / 4) / 8.0f;
        float cr, cg, cb;
        ImGui::ColorConvertHSVtoRGB(hue, 0.55f, 0.55f + 0.1f * float(f.lane % 4), cr, cg, cb);
        const ImVec2 a(x + c * cell, y0 + r * cell), b(a.x + cell - 1, a.y + cell - 1);
        dl->AddRectFilled(a, b, ImGui::ColorConvertFloat4ToU32(ImVec4(cr, cg, cb, 1)));
        if (f.lane == highlight_lane) dl->AddRect(a, b, color::kCursor, 0, 0, 2.0f);
        if (cell >= 14) {
          char t[4];
          std::snprintf(t, sizeof t, "%d", f.lane);
          dl->AddText(ImVec2(a.x + 1, a.y), IM_COL32(255, 255, 255, 220), t);
        }
      }
    x += cols * cell + 20;
    h = std::max(h, 14 + rows * cell);
  }
  ImGui::PopFont();
  ImGui::Dummy(ImVec2(x - p0.x, h + 2));
}

}  // namespace warplab::app
