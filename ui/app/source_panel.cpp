// The kernel's CUDA source with, per line, the warp instructions the last run issued there and the
// warp-cycles its warps spent stalled on it (every state but "selected"), from the timing model.
// The line under the timeline's cursor or hover is highlighted. "Edit kernel" opens an editor;
// "Compile and run" runs the edit (ui/app/model/kernel_edit.h) and shows it here with its counts,
// or with NVRTC's errors in red under their lines; the lesson's original is one click away.
#include <algorithm>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "ui/app/app_state.h"
#include "ui/app/model/axis.h"
#include "ui/app/model/lesson_catalog.h"
#include "ui/app/style.h"

namespace warplab::app {

namespace {

// The PTX the simulator ran, for the CUDA line picked on the left (every line when none is
// picked), with warp instructions and stall warp-cycles per PTX line over the run's launches.
// Clicking a PTX line marks its issues on the warp timeline.
void draw_ptx_beside(AppState& s) {
  const RunSnapshot& run = *s.run;
  std::map<int32_t, std::pair<uint64_t, uint64_t>> per_line;  // PTX line -> (warp inst, stalls)
  for (const LaunchView& l : run.launches) {
    if (!l.timing) continue;
    for (const auto& [line, c] : l.timing->stats.by_ptx_line)
      per_line[line].first += c.warp_instructions;
    for (const auto& [line, st] : l.timing->warp_states_by_ptx_line)
      for (int i = 0; i < timing::kWarpStateCount; ++i)
        if (i != static_cast<int>(timing::WarpState::Selected)) per_line[line].second += st[i];
  }
  if (s.pick_src_line > 0)
    ImGui::TextDisabled("PTX of CUDA line %d (click a PTX line to mark it on the timeline)",
                        s.pick_src_line);
  else
    ImGui::TextDisabled("PTX (click a CUDA line to list only its instructions)");
  help_marker(
      "This is the PTX that NVRTC produced and the simulator executed, in program order. A real "
      "GPU runs SASS that ptxas makes from it (it unrolls, reorders and allocates registers), so "
      "instruction counts and order on the hardware differ.");
  const ImGuiTableFlags flags = ImGuiTableFlags_ScrollY | ImGuiTableFlags_RowBg |
                                ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingFixedFit;
  if (!ImGui::BeginTable("ptx", 4, flags)) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("ptx", ImGuiTableColumnFlags_WidthFixed, 28);
  ImGui::TableSetupColumn("inst", ImGuiTableColumnFlags_WidthFixed, 44);
  ImGui::TableSetupColumn("stall", ImGuiTableColumnFlags_WidthFixed, 44);
  ImGui::TableSetupColumn("instruction", ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableHeadersRow();
  ImGui::PushFont(s.fonts.mono);
  for (const auto& [line, text] : run.ptx_text) {
    if (s.pick_src_line > 0) {
      auto m = run.ptx_to_src.find(line);
      if (m == run.ptx_to_src.end() || m->second != s.pick_src_line) continue;
    }
    ImGui::TableNextRow();
    if (line == s.focus_ptx_line)
      ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg0, IM_COL32(90, 80, 20, 160));
    ImGui::TableSetColumnIndex(0);
    ImGui::TextDisabled("%d", line);
    auto c = per_line.find(line);
    ImGui::TableSetColumnIndex(1);
    if (c != per_line.end() && c->second.first)
      ImGui::TextUnformatted(format_si(double(c->second.first), "").c_str());
    ImGui::TableSetColumnIndex(2);
    if (c != per_line.end() && c->second.second)
      ImGui::TextUnformatted(format_si(double(c->second.second), "").c_str());
    ImGui::TableSetColumnIndex(3);
    ImGui::PushID(line);
    if (ImGui::Selectable(text.c_str(), s.pick_ptx_line == line,
                          ImGuiSelectableFlags_SpanAllColumns))
      s.pick_ptx_line = s.pick_ptx_line == line ? 0 : line;
    ImGui::PopID();
  }
  ImGui::PopFont();
  ImGui::EndTable();
}

int resize_string(ImGuiInputTextCallbackData* d) {
  if (d->EventFlag == ImGuiInputTextFlags_CallbackResize) {
    auto* text = static_cast<std::string*>(d->UserData);
    text->resize(static_cast<size_t>(d->BufTextLen));
    d->Buf = text->data();
  }
  return 0;
}

// The edit buttons above the source; with the editor open, the editor fills the panel and this
// returns true.
bool draw_edit_bar(AppState& s, const lab::Experiment& exp,
                   const std::map<int, std::vector<std::string>>& errors) {
  s.load_edit_buffer();
  const bool edited = s.edits.count(exp.source) > 0;
  if (ImGui::SmallButton(s.editing ? "Show counts" : "Edit kernel")) s.editing = !s.editing;
  ImGui::SameLine();
  ImGui::BeginDisabled(!s.editing || s.worker.busy());
  if (ImGui::SmallButton("Compile and run")) s.compile_edit();
  ImGui::EndDisabled();
  ImGui::SameLine();
  ImGui::BeginDisabled(!edited && (!s.editing || s.edit_buffer == read_file_text(exp.source)));
  if (ImGui::SmallButton("Revert to lesson original")) s.revert_edit();
  ImGui::EndDisabled();
  ImGui::SameLine();
  if (edited)
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(color::kCursor),
                       "your edit: runs compile it");
  else
    ImGui::TextDisabled(s.editing ? "editing (the lesson's file is never changed)"
                                  : "the lesson's file");
  if (!s.editing) return false;
  for (const auto& [line, msgs] : errors)
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(color::kFail), "line %d: %s", line,
                       msgs.front().c_str());
  ImGui::PushFont(s.fonts.mono);
  ImGui::InputTextMultiline("##kernel", s.edit_buffer.data(), s.edit_buffer.capacity() + 1,
                            ImVec2(-1, -1),
                            ImGuiInputTextFlags_CallbackResize | ImGuiInputTextFlags_AllowTabInput,
                            resize_string, &s.edit_buffer);
  ImGui::PopFont();
  return true;
}

}  // namespace

void draw_source_view(AppState& s) {
  // The file picked under "Kernels", else the selected experiment's source (the student's edit of
  // it when there is one). The counts are the selected experiment's last run, shown only when that
  // run executed this very file.
  std::string path = s.source_file;
  const lab::Experiment* exp = path.empty() && s.experiment >= 0 &&
                                       s.experiment < static_cast<int>(s.experiments.size()) &&
                                       s.experiments[s.experiment].exp
                                   ? &*s.experiments[s.experiment].exp
                                   : nullptr;
  const bool editable = exp && exp->source_kind == lab::Experiment::SourceKind::Cuda;
  if (exp) path = s.edits.count(exp->source) ? edit_path(s.edit_root, exp->source) : exp->source;
  if (path.empty()) {
    ImGui::TextDisabled("No kernel source: pick an experiment.");
    return;
  }
  // The last run's compile errors in this file, by line.
  std::map<int, std::vector<std::string>> errors;
  if (exp && s.run && !s.run->ok() && same_file(s.run->experiment_path, exp->path) &&
      same_file(s.run->source_path, path))
    errors = messages_by_line(s.run->error, path);
  if (editable && draw_edit_bar(s, *exp, errors)) return;
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
  // CUDA on the left, the PTX of the picked line (or of every line) on the right.
  const float avail = ImGui::GetContentRegionAvail().x;
  const bool have_ptx = run_of_this_file && !s.run->ptx_text.empty();
  if (have_ptx) ImGui::BeginChild("cuda", ImVec2(avail * 0.5f, 0));
  const ImGuiTableFlags flags = ImGuiTableFlags_ScrollY | ImGuiTableFlags_RowBg |
                                ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingFixedFit;
  if (!ImGui::BeginTable("source", 4, flags, ImVec2(0, 0))) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("line", ImGuiTableColumnFlags_WidthFixed, 28);
  ImGui::TableSetupColumn("inst", ImGuiTableColumnFlags_WidthFixed, 44);
  ImGui::TableSetupColumn("stall", ImGuiTableColumnFlags_WidthFixed, 52);
  ImGui::TableSetupColumn("source", ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableHeadersRow();
  ImGui::PushFont(s.fonts.mono);
  auto draw_line = [&](int i) {
    const int line = i + 1;
    ImGui::TableNextRow();
    const auto err = errors.find(line);
    if (line == focus_line)
      ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg0, IM_COL32(90, 80, 20, 160));
    if (err != errors.end())
      ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg0, IM_COL32(150, 50, 40, 120));
    ImGui::TableSetColumnIndex(0);
    ImGui::TextDisabled("%d", line);
    auto it = stats.find(line);
    ImGui::TableSetColumnIndex(1);
    if (it != stats.end() && it->second.warp_instructions)
      ImGui::TextUnformatted(format_si(double(it->second.warp_instructions), "").c_str());
    ImGui::TableSetColumnIndex(2);
    if (it != stats.end() && it->second.stall_cycles) {
      const ImVec2 p = ImGui::GetCursorScreenPos();
      const float w =
          50.0f * static_cast<float>(it->second.stall_cycles) / static_cast<float>(max_stall);
      ImGui::GetWindowDrawList()->AddRectFilled(
          p, ImVec2(p.x + w, p.y + ImGui::GetTextLineHeight()), IM_COL32(228, 92, 62, 90));
      ImGui::TextUnformatted(format_si(double(it->second.stall_cycles), "").c_str());
    }
    ImGui::TableSetColumnIndex(3);
    ImGui::PushID(i);
    if (ImGui::Selectable((*lines)[i].c_str(), s.pick_src_line == line,
                          ImGuiSelectableFlags_SpanAllColumns)) {
      s.pick_src_line = s.pick_src_line == line ? 0 : line;
      s.pick_ptx_line = 0;
    }
    ImGui::PopID();
    if (err == errors.end()) return;
    for (const std::string& m : err->second) {  // NVRTC's messages, under their line
      ImGui::TableNextRow();
      ImGui::TableSetColumnIndex(3);
      ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(color::kFail), "%s", m.c_str());
    }
  };
  // Rows of one height let the clipper skip those out of view; with error lines under some
  // lines every line is drawn (a kernel is a few hundred lines at most).
  if (errors.empty()) {
    ImGuiListClipper clip;
    clip.Begin(static_cast<int>(lines->size()));
    while (clip.Step())
      for (int i = clip.DisplayStart; i < clip.DisplayEnd; ++i) draw_line(i);
  } else {
    for (int i = 0; i < static_cast<int>(lines->size()); ++i) draw_line(i);
  }
  ImGui::PopFont();
  ImGui::EndTable();
  if (!have_ptx) return;
  ImGui::EndChild();
  ImGui::SameLine();
  ImGui::BeginChild("ptx", ImVec2(0, 0));
  draw_ptx_beside(s);
  ImGui::EndChild();
}

}  // namespace warplab::app
