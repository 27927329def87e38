// The kernel's CUDA source with, per line, the warp instructions the last run issued there and the
// warp-cycles its warps spent stalled on it (every state but "selected"), from the timing model.
// The line under the timeline's cursor or hover is highlighted.
#include <algorithm>
#include <sstream>

#include "ui/app/app_state.h"
#include "ui/app/model/lesson_catalog.h"
#include "ui/app/style.h"

namespace warplab::app {

void draw_source_view(AppState& s) {
  // The file picked under "Kernels", else the selected experiment's source. The counts are the
  // selected experiment's last run, shown only when that run executed this very file.
  std::string path = s.source_file;
  if (path.empty() && s.experiment >= 0 && s.experiment < static_cast<int>(s.experiments.size()) &&
      s.experiments[s.experiment].exp)
    path = s.experiments[s.experiment].exp->source;
  if (path.empty()) {
    ImGui::TextDisabled("No kernel source: pick an experiment.");
    return;
  }
  if (s.source_cache_path != path) {
    s.source_cache_path = path;
    s.source_cache_lines.clear();
    std::istringstream in(read_file_text(path));
    for (std::string line; std::getline(in, line);) s.source_cache_lines.push_back(line);
  }
  const std::vector<std::string>* lines = &s.source_cache_lines;
  const bool run_of_this_file = s.run && same_file(s.run->source_path, path);
  const auto stats = run_of_this_file ? s.run->source_line_stats()
                                      : std::map<int32_t, RunSnapshot::SourceLineStat>{};
  uint64_t max_stall = 1;
  for (const auto& [line, st] : stats) max_stall = std::max(max_stall, st.stall_cycles);
  int focus_line = 0;
  if (run_of_this_file && s.focus_ptx_line > 0)
    if (auto it = s.run->ptx_to_src.find(s.focus_ptx_line); it != s.run->ptx_to_src.end())
      focus_line = it->second;

  ImGui::TextDisabled("%s", path.c_str());
  if (!run_of_this_file) {
    ImGui::SameLine();
    ImGui::TextDisabled(s.run ? "(no counts: the run shown used another file)"
                              : "(no counts: not run yet)");
  }
  help_marker(
      "Counts come from the simulator's last run, summed over its launches. 'warp inst' counts "
      "PTX instructions issued per warp (the simulator executes PTX, not the SASS a real GPU "
      "runs, so real instruction counts differ). 'stall' is warp-cycles spent on the line in "
      "any state but selected.");
  const ImGuiTableFlags flags = ImGuiTableFlags_ScrollY | ImGuiTableFlags_RowBg |
                                ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingFixedFit;
  if (!ImGui::BeginTable("source", 4, flags, ImVec2(0, 0))) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("line", ImGuiTableColumnFlags_WidthFixed, 38);
  ImGui::TableSetupColumn("warp inst", ImGuiTableColumnFlags_WidthFixed, 80);
  ImGui::TableSetupColumn("stall cycles", ImGuiTableColumnFlags_WidthFixed, 110);
  ImGui::TableSetupColumn("source", ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableHeadersRow();
  ImGui::PushFont(s.fonts.mono);
  ImGuiListClipper clip;
  clip.Begin(static_cast<int>(lines->size()));
  while (clip.Step()) {
    for (int i = clip.DisplayStart; i < clip.DisplayEnd; ++i) {
      const int line = i + 1;
      ImGui::TableNextRow();
      if (line == focus_line)
        ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg0, IM_COL32(90, 80, 20, 160));
      ImGui::TableSetColumnIndex(0);
      ImGui::TextDisabled("%d", line);
      auto it = stats.find(line);
      ImGui::TableSetColumnIndex(1);
      if (it != stats.end() && it->second.warp_instructions)
        ImGui::Text("%llu", static_cast<unsigned long long>(it->second.warp_instructions));
      ImGui::TableSetColumnIndex(2);
      if (it != stats.end() && it->second.stall_cycles) {
        const ImVec2 p = ImGui::GetCursorScreenPos();
        const float w =
            104.0f * static_cast<float>(it->second.stall_cycles) / static_cast<float>(max_stall);
        ImGui::GetWindowDrawList()->AddRectFilled(
            p, ImVec2(p.x + w, p.y + ImGui::GetTextLineHeight()), IM_COL32(228, 92, 62, 90));
        ImGui::Text("%llu", static_cast<unsigned long long>(it->second.stall_cycles));
      }
      ImGui::TableSetColumnIndex(3);
      ImGui::TextUnformatted((*lines)[i].c_str());
    }
  }
  ImGui::PopFont();
  ImGui::EndTable();
}

}  // namespace warplab::app
