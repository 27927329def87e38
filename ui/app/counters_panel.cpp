// GPU-wide traffic over time from the trace's counter samples (all SMs, not only the traced one):
// L1 and L2 sectors, DRAM bandwidth and warp instructions issued per interval, with the cycle
// cursor drawn across each plot.
#include <algorithm>
#include <string>
#include <vector>

#include "ui/app/app_state.h"
#include "ui/app/style.h"

namespace warplab::app {

void draw_counters_panel(AppState& s) {
  section_title(s.fonts, "GPU counters over time");
  const timing::Trace* t = s.trace();
  if (!t || t->counters.size() < 2) {
    ImGui::SameLine();
    ImGui::TextDisabled("no counter samples yet");
    return;
  }
  const auto& cs = t->counters;
  const double interval = double(cs[1].cycle - cs[0].cycle);
  ImGui::SameLine();
  ImGui::TextDisabled("all %d SMs, one sample per %s cycles", t->sm_count,
                      std::to_string(static_cast<long long>(interval)).c_str());
  const size_t n = cs.size();
  std::vector<float> l1(n), l2(n), dram(n), issued(n);
  for (size_t i = 0; i < n; ++i) {
    const double dt = i ? double(cs[i].cycle - cs[i - 1].cycle) : interval;
    l1[i] = float(cs[i].l1_sectors);
    l2[i] = float(cs[i].l2_sectors);
    // bytes per interval -> GB/s: bytes / (dt cycles / clock MHz) us.
    dram[i] = dt > 0 && t->clock_mhz > 0 ? float(double(cs[i].dram_bytes) * t->clock_mhz / dt / 1e3)
                                         : 0.0f;
    issued[i] = float(cs[i].warps_issued);
  }
  const double c_first = double(cs.front().cycle), c_last = double(cs.back().cycle);
  const float plot_h = std::max(
      28.0f, (ImGui::GetContentRegionAvail().y - 8) / 4.0f - ImGui::GetStyle().ItemSpacing.y);
  auto plot = [&](const char* label, const std::vector<float>& v, const char* unit, ImU32 col) {
    const float mx = *std::max_element(v.begin(), v.end());
    char overlay[96];
    std::snprintf(overlay, sizeof overlay, "%s  (max %.4g %s)", label, mx, unit);
    ImGui::PushStyleColor(ImGuiCol_PlotLines, col);
    ImGui::PlotLines("##p", v.data(), static_cast<int>(v.size()), 0, overlay, 0.0f,
                     mx * 1.1f + 1e-6f, ImVec2(ImGui::GetContentRegionAvail().x, plot_h));
    ImGui::PopStyleColor();
    const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
    if (c_last > c_first) {
      const float x = a.x + float((s.cursor - c_first) / (c_last - c_first)) * (b.x - a.x);
      if (x >= a.x && x <= b.x)
        ImGui::GetWindowDrawList()->AddLine(ImVec2(x, a.y), ImVec2(x, b.y), color::kCursor);
    }
  };
  ImGui::PushID("counters");
  ImGui::PushID(0);
  plot("L1 sectors / interval", l1, "sectors", color::kHit);
  ImGui::PopID();
  ImGui::PushID(1);
  plot("L2 sectors / interval", l2, "sectors", color::kL2);
  ImGui::PopID();
  ImGui::PushID(2);
  plot("DRAM bandwidth", dram, "GB/s", color::kDram);
  ImGui::PopID();
  ImGui::PushID(3);
  plot("warp instructions issued / interval", issued, "", IM_COL32(200, 200, 210, 255));
  ImGui::PopID();
  ImGui::PopID();
}

}  // namespace warplab::app
