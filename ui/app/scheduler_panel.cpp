// One SM zoomed into from the whole-GPU view: its four warp schedulers over time, a row each.
// Zoomed in, every cycle is a cell: green with the warp slot it issued, or coloured by what most
// of the scheduler's warps were waiting for when none was ready (the warp timeline's colours),
// dark where the scheduler held no warp. Zoomed out, a column shows the share of its cycles that
// issued (green, from the top) over the colour of its most common reason for a lost cycle. Wheel
// zooms, drag pans, click moves the cursor; hover names the warp or each warp's state.
// ui/app/model/scheduler_view.h says what is drawn from what.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <string>
#include <tuple>

#include "ui/app/app_state.h"
#include "ui/app/model/axis.h"
#include "ui/app/style.h"

namespace warplab::app {

namespace {

constexpr float kLabelW = 92;
constexpr ImU32 kIssued = IM_COL32(118, 200, 40, 255);  // warp_state_color(Selected)

ImU32 dim(ImU32 c) {  // a lost cycle's colour, darker than an issue's green
  const int r = int((c >> IM_COL32_R_SHIFT) & 0xFF), g = int((c >> IM_COL32_G_SHIFT) & 0xFF),
            b = int((c >> IM_COL32_B_SHIFT) & 0xFF);
  return IM_COL32(r * 3 / 4, g * 3 / 4, b * 3 / 4, 255);
}

std::string percent(double part, double whole) {
  char b[16];
  std::snprintf(b, sizeof b, "%.0f%%", whole > 0 ? 100.0 * part / whole : 0.0);
  return b;
}

// The untraced SM: say so, and offer the run that traces it.
void not_traced(AppState& s, int traced) {
  ImGui::TextWrapped(
      "This run traced SM %d in detail; the simulator recorded only block arrivals and "
      "departures for SM %d, not its warps' states.",
      traced, s.gpu_zoom_sm);
  ImGui::BeginDisabled(s.worker.busy() || s.experiment < 0 ||
                       s.experiment >= int(s.experiments.size()) ||
                       !s.experiments[size_t(s.experiment)].exp);
  char label[64];
  std::snprintf(label, sizeof label, "Run again, tracing SM %d", s.gpu_zoom_sm);
  if (ImGui::Button(label)) {
    s.trace_sm = s.gpu_zoom_sm;
    s.start_run();
  }
  ImGui::EndDisabled();
  ImGui::SameLine();
  ImGui::TextDisabled("(the same experiment and settings)");
}

void tooltip(const AppState& s, const timing::Trace& t, int sched, uint64_t c) {
  const SchedulerView& v = s.schedulers;
  const SchedulerRun* r = v.run_at(sched, c);
  ImGui::BeginTooltip();
  ImGui::Text("scheduler %d of SM %d, cycle %llu", sched, v.sm, static_cast<unsigned long long>(c));
  if (!r || r->kind == SchedulerRun::Kind::Empty) {
    ImGui::TextDisabled("no warps on this scheduler");
  } else if (r->kind == SchedulerRun::Kind::Issued) {
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(kIssued), "issued from warp slot %d",
                       r->slot);
    const int row = s.index.row_of(v.sm, r->slot);
    if (row >= 0)
      if (auto is = s.index.issue_at_or_before(t, size_t(row), double(c))) {
        const timing::IssueRecord& ir = t.issues[*is];
        ImGui::Text("block %u, warp %d of the block", ir.block, ir.warp_in_block);
        if (ir.text >= 0 && ir.text < int32_t(t.strings.size())) {
          ImGui::PushFont(s.fonts.mono);
          ImGui::TextUnformatted(t.strings[size_t(ir.text)].c_str());
          ImGui::PopFont();
        }
      }
    ImGui::Text("%d of its %d warps were ready; the %s policy picked this one", r->ready, r->warps,
                t.warp_scheduler.c_str());
  } else {
    ImGui::Text("no warp ready: this issue slot is lost");
  }
  // Every warp of the scheduler in this cycle.
  if (sched >= 0 && sched < v.schedulers && r && r->kind != SchedulerRun::Kind::Empty) {
    ImGui::Separator();
    for (int row : v.rows[size_t(sched)])
      if (const timing::WarpSpan* sp = s.index.span_at(size_t(row), double(c))) {
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(warp_state_color(sp->state)),
                           "slot %2d  %s", s.index.rows[size_t(row)].slot,
                           timing::warp_state_name(sp->state).data());
      }
  }
  ImGui::TextDisabled("simulated: PTX instructions, warp slot s on scheduler s %% %d",
                      v.schedulers);
  ImGui::EndTooltip();
}

}  // namespace

void draw_scheduler_panel(AppState& s) {
  const timing::Trace* t = s.trace();
  if (ImGui::Button("< all SMs")) {
    s.gpu_zoom_sm = -1;
    return;
  }
  ImGui::SameLine();
  section_title(s.fonts, ("SM " + std::to_string(s.gpu_zoom_sm) + ": its warp schedulers").c_str());
  if (!t) return;
  const int traced = t->options.sms.empty() ? 0 : t->options.sms[0];
  const SchedulerView& v = s.schedulers;
  if (v.sm != s.gpu_zoom_sm || v.schedulers == 0 || v.last_cycle <= v.first_cycle) {
    if (traced != s.gpu_zoom_sm)
      not_traced(s, traced);
    else
      ImGui::TextDisabled("the trace of this launch has no warp records for SM %d", v.sm);
    return;
  }
  ImGui::SameLine();
  if (ImGui::Button("Fit")) s.sched_fitted = false;
  ImGui::SameLine();
  ImGui::TextDisabled("%d schedulers, policy %s%s", v.schedulers, t->warp_scheduler.c_str(),
                      t->truncated ? "; the trace stops at its event limit" : "");
  help_marker(
      "An SM is four sub-partitions, each with its own warp scheduler; a warp stays on one "
      "for its life. Each cycle a scheduler issues one instruction from one of its warps that "
      "is ready (green, with the warp slot when zoomed in). When none is ready, that cycle's "
      "issue slot is lost: coloured by the state most of its warps were in (the warp "
      "timeline's colours: red, waiting for memory; purple, at a barrier ...). Dark: no warps. "
      "Zoomed out, a column's green part is the share of its cycles that issued. Nsight "
      "Compute reports these as issue slot utilization and 'no eligible'.\n\n"
      "Simulated: the timing model places warp slot s on scheduler s % 4. NVIDIA does not "
      "document how a real SM assigns warps to sub-partitions; microbenchmark studies of Volta "
      "and later observe warp id % 4. Instructions are PTX, not SASS. Wheel: zoom. Drag: pan. "
      "Click: move the cursor.");

  // 0. The legend: issued, the lost cycles' reasons that occur in this launch, no warps.
  {
    std::array<double, timing::kWarpStateCount> lost{};
    for (int sp = 0; sp < v.schedulers; ++sp) {
      const SchedulerColumn k = v.totals(sp, double(v.first_cycle), double(v.last_cycle));
      for (size_t i = 0; i < lost.size(); ++i) lost[i] += k.stalled[i];
    }
    ImDrawList* ldl = ImGui::GetWindowDrawList();
    const float lh = ImGui::GetTextLineHeight();
    auto swatch = [&](ImU32 c, const char* name) {
      const ImVec2 p = ImGui::GetCursorScreenPos();
      const float w = lh + 4 + ImGui::CalcTextSize(name).x;
      if (p.x > ImGui::GetWindowPos().x + 20 &&
          p.x + w > ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x)
        ImGui::NewLine();
      const ImVec2 q = ImGui::GetCursorScreenPos();
      if (c)
        ldl->AddRectFilled(ImVec2(q.x, q.y + 3), ImVec2(q.x + lh - 6, q.y + lh - 3), c);
      else  // nothing drawn: the panel's background
        ldl->AddRect(ImVec2(q.x, q.y + 3), ImVec2(q.x + lh - 6, q.y + lh - 3), color::kDim);
      ImGui::Dummy(ImVec2(lh - 2, lh));
      ImGui::SameLine(0, 2);
      ImGui::TextDisabled("%s", name);
      ImGui::SameLine(0, 12);
    };
    swatch(kIssued, "issued");
    for (size_t i = 0; i < lost.size(); ++i)
      if (lost[i] > 0 && static_cast<timing::WarpState>(i) != timing::WarpState::Selected)
        swatch(dim(warp_state_color(static_cast<timing::WarpState>(i))),
               std::string(timing::warp_state_name(static_cast<timing::WarpState>(i))).c_str());
    swatch(0, "no warps");
    ImGui::NewLine();
  }

  // 1. Geometry and interaction (the same gestures as the warp timeline).
  const ImVec2 o = ImGui::GetCursorScreenPos();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float track_w = std::max(50.0f, avail.x - kLabelW);
  const float sum_h = 2 * ImGui::GetTextLineHeightWithSpacing();
  const float row_h = std::clamp((avail.y - sum_h - 18) / float(v.schedulers), 14.0f, 60.0f);
  const float rows_h = row_h * float(v.schedulers);
  TimelineView& view = s.sched_view;
  view.width_px = track_w;
  if (!s.sched_fitted) {
    view.fit(v.first_cycle, v.last_cycle, track_w);
    s.sched_fitted = true;
  }
  ImGui::InvisibleButton("sched_area", ImVec2(avail.x, rows_h + 16));
  const bool hovered = ImGui::IsItemHovered();
  ImGuiIO& io = ImGui::GetIO();
  const float tx0 = o.x + kLabelW;
  if (hovered && io.MouseWheel != 0)
    view.zoom_at(io.MousePos.x - tx0, std::pow(0.8, io.MouseWheel), 0.02,
                 std::max(1.0, double(v.last_cycle - v.first_cycle) / track_w * 4));
  if (ImGui::IsItemActive() && ImGui::IsMouseDragging(ImGuiMouseButton_Left, 3.0f))
    view.pan_px(io.MouseDelta.x);
  view.clamp_to(v.first_cycle, v.last_cycle);
  const bool was_click =
      ImGui::IsItemDeactivated() &&
      io.MouseDragMaxDistanceSqr[0] < io.MouseDragThreshold * io.MouseDragThreshold;
  if (was_click && io.MousePos.x >= tx0)
    s.cursor =
        std::clamp(view.cycle_at(io.MousePos.x - tx0), double(v.first_cycle), double(v.last_cycle));

  // 2. One row per scheduler.
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->PushClipRect(ImVec2(o.x, o.y), ImVec2(tx0 + track_w, o.y + rows_h + 16), true);
  const double c0 = view.first_cycle, c1 = view.last_cycle();
  const bool cells = view.cycles_per_px <= 1.0 / 6;  // a cycle at least 6 pixels wide
  ImGui::PushFont(s.fonts.small);
  for (int sp = 0; sp < v.schedulers; ++sp) {
    const float y = o.y + float(sp) * row_h, y1 = y + row_h - 2;
    const SchedulerColumn tot = v.totals(sp, c0, c1);
    char label[48];
    std::snprintf(label, sizeof label, "scheduler %d", sp);
    dl->AddText(ImVec2(o.x, y), color::kText, label);
    if (row_h >= 28) {
      std::snprintf(label, sizeof label, "issued %s", percent(tot.issued, tot.cycles).c_str());
      dl->AddText(ImVec2(o.x, y + 13), color::kDim, label);
    }
    if (cells) {
      const auto& runs = v.runs[size_t(sp)];
      auto it = std::partition_point(runs.begin(), runs.end(),
                                     [&](const SchedulerRun& r) { return double(r.end) <= c0; });
      for (; it != runs.end() && double(it->begin) < c1; ++it) {
        if (it->kind == SchedulerRun::Kind::Empty) continue;
        // An issued run is one cell per cycle (the same warp issuing again); a lost one, a box.
        const uint64_t step = it->kind == SchedulerRun::Kind::Issued ? 1 : it->end - it->begin;
        for (uint64_t c = it->begin; c < it->end; c += step) {
          const float x0 = tx0 + float(view.x_of(double(c)));
          const float x1 = tx0 + float(view.x_of(double(c + step))) - 1;
          if (x1 < tx0 || x0 > tx0 + track_w) continue;
          const ImU32 col =
              it->kind == SchedulerRun::Kind::Issued ? kIssued : dim(warp_state_color(it->why));
          dl->AddRectFilled(ImVec2(x0, y), ImVec2(x1, y1), col);
          if (it->kind == SchedulerRun::Kind::Issued && x1 - x0 >= 16) {
            std::snprintf(label, sizeof label, "%d", it->slot);
            dl->AddText(ImVec2(x0 + 2, y + (row_h - 14) / 2), IM_COL32(10, 10, 10, 255), label);
          }
        }
      }
    } else {
      // A column per pixel: issued share from the top, the main reason for lost cycles below;
      // equal neighbours drawn as one box.
      const int n = int(track_w);
      const std::vector<SchedulerColumn> cols = v.columns(sp, c0, view.cycles_per_px, n);
      int from = 0;
      auto key = [&](int i) {
        const SchedulerColumn& k = cols[size_t(i)];
        const float busy = k.cycles > 0 ? float((k.cycles - k.empty) / k.cycles) : 0;
        const float green = k.cycles > 0 ? float(k.issued / k.cycles) : 0;
        return std::make_tuple(std::round(busy * (row_h - 2)), std::round(green * (row_h - 2)),
                               k.main_stall());
      };
      for (int i = 1; i <= n; ++i) {
        if (i < n && key(i) == key(from)) continue;
        const auto [busy, green, why] = key(from);
        const float x0 = tx0 + float(from), x1 = tx0 + float(i);
        if (busy > 0 && why != timing::WarpState::Selected)
          dl->AddRectFilled(ImVec2(x0, y + green), ImVec2(x1, y + busy),
                            dim(warp_state_color(why)));
        if (green > 0) dl->AddRectFilled(ImVec2(x0, y), ImVec2(x1, y + green), kIssued);
        from = i;
      }
    }
  }
  // 3. Cycle labels (the ends, and round cycles between them where they fit), the cursor.
  char span[64];
  std::snprintf(span, sizeof span, "cycle %.0f", c0);
  dl->AddText(ImVec2(tx0, o.y + rows_h + 1), color::kDim, span);
  const float left_end = tx0 + ImGui::CalcTextSize(span).x;
  std::snprintf(span, sizeof span, "cycle %.0f (%s cycles per pixel)", c1,
                view.cycles_per_px >= 1 ? std::to_string(int(view.cycles_per_px)).c_str() : "< 1");
  const float right_start = tx0 + track_w - ImGui::CalcTextSize(span).x;
  dl->AddText(ImVec2(right_start, o.y + rows_h + 1), color::kDim, span);
  float last_right = left_end;
  for (const AxisTick& k : linear_ticks(c0, c1, std::max(2, int(track_w / 90)), "")) {
    const float x = tx0 + float(view.x_of(k.value));
    dl->AddLine(ImVec2(x, o.y + rows_h - 2), ImVec2(x, o.y + rows_h + 2), color::kDim);
    const float w = ImGui::CalcTextSize(k.label.c_str()).x;
    if (x - w * 0.5f < last_right + 10 || x + w * 0.5f > right_start - 10) continue;
    dl->AddText(ImVec2(x - w * 0.5f, o.y + rows_h + 1), color::kDim, k.label.c_str());
    last_right = x + w * 0.5f;
  }
  ImGui::PopFont();
  if (s.cursor >= c0 && s.cursor <= c1) {
    const float cx = tx0 + float(view.x_of(s.cursor));
    dl->AddRectFilled(ImVec2(cx - 0.5f, o.y), ImVec2(cx + 1, o.y + rows_h), color::kCursor);
  }
  dl->PopClipRect();
  if (hovered && io.MousePos.x >= tx0 && io.MousePos.y < o.y + rows_h) {
    const int sp = int((io.MousePos.y - o.y) / row_h);
    const double c = view.cycle_at(io.MousePos.x - tx0);
    if (sp >= 0 && sp < v.schedulers && c >= 0) tooltip(s, *t, sp, uint64_t(c));
  }

  // 4. The whole launch: issue slots used, and where the lost ones went.
  double cycles = 0, issued = 0, empty = 0;
  std::array<double, timing::kWarpStateCount> lost{};
  for (int sp = 0; sp < v.schedulers; ++sp) {
    const SchedulerColumn k = v.totals(sp, double(v.first_cycle), double(v.last_cycle));
    cycles += k.cycles;
    issued += k.issued;
    empty += k.empty;
    for (size_t i = 0; i < lost.size(); ++i) lost[i] += k.stalled[i];
  }
  std::string why;
  for (int pass = 0; pass < 3; ++pass) {  // the three largest reasons
    size_t best = lost.size();
    for (size_t i = 0; i < lost.size(); ++i)
      if (lost[i] > 0 && (best == lost.size() || lost[i] > lost[best])) best = i;
    if (best == lost.size()) break;
    why += (why.empty() ? "" : ", ") + percent(lost[best], cycles) + " " +
           std::string(timing::warp_state_name(static_cast<timing::WarpState>(best)));
    lost[best] = 0;
  }
  ImGui::Text("whole launch on SM %d: %s of issue slots used (%d schedulers x %llu cycles)", v.sm,
              percent(issued, cycles).c_str(), v.schedulers,
              static_cast<unsigned long long>(v.last_cycle - v.first_cycle));
  ImGui::TextDisabled("lost, by what most warps waited for: %s; no warps %s",
                      why.empty() ? "none" : why.c_str(), percent(empty, cycles).c_str());
}

}  // namespace warplab::app
