// GPU-wide traffic over time from the trace's counter samples (all SMs, not only the traced one):
// L1 and L2 sectors, DRAM bandwidth and warp instructions issued per interval, with the cycle
// cursor drawn across each plot. The x axis is SM cycles; hovering a plot reads out the sample's
// cycle interval and value with its unit. The DRAM plot draws the preset's peak: the model counts
// DRAM bytes when they cross the bus, so no interval may exceed it.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "ui/app/app_state.h"
#include "ui/app/plot.h"
#include "ui/app/style.h"

namespace warplab::app {

void draw_counters_panel(AppState& s) {
  section_title(s.fonts, "GPU counters over time");
  const timing::Trace* t = s.trace();
  if (!t || t->counters.size() < 2) {
    ImGui::SameLine();
    ImGui::TextDisabled(s.run ? "no counter samples in this launch"
                              : "no run of this experiment yet");
    return;
  }
  const auto& cs = t->counters;
  const double interval = double(cs[1].cycle - cs[0].cycle);
  ImGui::SameLine();
  char note[96];  // wrapped at the panel's edge, not clipped
  std::snprintf(note, sizeof note, "simulator, all %d SMs, one sample per %lld cycles", t->sm_count,
                static_cast<long long>(interval));
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  ImGui::TextWrapped("%s", note);
  ImGui::PopStyleColor();
  const size_t n = cs.size();
  auto series = [](const char* name, ImU32 col) {
    PlotSeries p;
    p.name = name;
    p.color = col;
    return p;
  };
  PlotSeries l1 = series("L1", color::kHit), l2 = series("L2", color::kL2),
             dram = series("DRAM", color::kDram),
             issued = series("issued", IM_COL32(200, 200, 210, 255));
  for (size_t i = 0; i < n; ++i) {
    const double dt = i ? double(cs[i].cycle - cs[i - 1].cycle) : interval;
    const double x = double(cs[i].cycle);
    for (PlotSeries* p : {&l1, &l2, &dram, &issued}) p->x.push_back(x);
    l1.y.push_back(double(cs[i].l1_sectors));
    l2.y.push_back(double(cs[i].l2_sectors));
    // bytes per interval -> bytes per second: bytes / (dt cycles / (clock MHz * 1e6)).
    dram.y.push_back(dt > 0 && t->clock_mhz > 0 ? double(cs[i].dram_bytes) * t->clock_mhz * 1e6 / dt
                                                : 0.0);
    issued.y.push_back(double(cs[i].warps_issued));
  }
  // One plot at a time, filling the panel, picked by tab (DRAM bandwidth first).
  PlotSpec spec;
  spec.x_unit = "cycles";
  spec.x_interval = interval;
  spec.x_cursor = s.cursor;
  const ImVec2 size(0, std::max(60.0f, ImGui::GetContentRegionAvail().y - 34));
  if (ImGui::BeginTabBar("counters")) {
    if (ImGui::BeginTabItem("DRAM")) {
      spec.title = "DRAM bandwidth (read + write)";
      spec.y_unit = "B/s";
      if (t->dram_peak_bytes_per_second > 0) {
        spec.y_limit = t->dram_peak_bytes_per_second;
        spec.y_limit_label = "preset peak";
      }
      draw_plot("dram", spec, {dram}, size);
      ImGui::EndTabItem();
    }
    if (ImGui::BeginTabItem("L2")) {
      spec.title = "L2 sectors per interval";
      spec.y_unit = "sectors";
      draw_plot("l2", spec, {l2}, size);
      ImGui::EndTabItem();
    }
    if (ImGui::BeginTabItem("L1")) {
      spec.title = "L1 sectors looked up per interval";
      spec.y_unit = "sectors";
      draw_plot("l1", spec, {l1}, size);
      ImGui::EndTabItem();
    }
    if (ImGui::BeginTabItem("issued")) {
      spec.title = "warp instructions issued per interval";
      spec.y_unit = "";
      draw_plot("issued", spec, {issued}, size);
      ImGui::EndTabItem();
    }
    ImGui::EndTabBar();
  }
}

}  // namespace warplab::app
