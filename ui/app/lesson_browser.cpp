// The lesson browser: lessons in README order (by directory number), then the selected lesson's
// pages, experiments and kernel sources.
#include <algorithm>

#include "ui/app/app_state.h"
#include "ui/app/style.h"

namespace warplab::app {

void draw_lesson_browser(AppState& s) {
  section_title(s.fonts, "Lessons");
  ImGui::Separator();
  // The lessons scroll in at most half the column, so the selected lesson's steps, pages and
  // experiments stay above the fold (at 1280x800 twenty lessons would fill it).
  const float row = ImGui::GetTextLineHeightWithSpacing();
  const float list_h = float(s.lessons.size()) * row + 4;
  const float room = std::max(6 * row, ImGui::GetContentRegionAvail().y * 0.5f);
  ImGui::BeginChild("lesson_list", ImVec2(0, std::min(list_h, room)), false,
                    ImGuiWindowFlags_NoBackground);
  for (int i = 0; i < static_cast<int>(s.lessons.size()); ++i) {
    const LessonEntry& l = s.lessons[i];
    ImGui::PushID(i);
    if (ImGui::Selectable(l.title.c_str(), s.lesson == i)) s.select_lesson(i);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", l.dir.c_str());
    if (s.lesson == i && s.browser_scrolled_to != i) {  // a lesson picked elsewhere: show it
      ImGui::SetScrollHereY(0.5f);
      s.browser_scrolled_to = i;
    }
    ImGui::PopID();
  }
  ImGui::EndChild();
  if (s.lesson < 0) return;
  const LessonEntry& l = s.lessons[s.lesson];
  if (s.steps) {  // lesson.toml: pages and experiments in order, with questions and claims
    ImGui::Dummy(ImVec2(0, 6));
    section_title(s.fonts, "Steps");
    ImGui::Separator();
    for (int i = 0; i < static_cast<int>(s.steps->steps.size()); ++i) {
      const lab::LessonStep& st = s.steps->steps[size_t(i)];
      // The page's title and the experiment's name, not their file names.
      std::string label = std::to_string(i + 1) + ". ";
      label += size_t(i) < s.step_titles.size() ? s.step_titles[size_t(i)] : "";
      if (auto c = s.step_checks.find(i); c != s.step_checks.end() && c->second.error.empty()) {
        int held = 0, failed = 0;
        for (const StepCheck::Claim& v : c->second.claims)
          if (v.value) (v.value->holds ? held : failed)++;
        if (held + failed > 0)
          label += "  (" + std::to_string(held) + "/" + std::to_string(held + failed) + " hold)";
      }
      ImGui::PushID(500 + i);
      if (ImGui::Selectable(label.c_str(), s.step == i)) {
        s.select_step(i);
        s.center_tab = st.questions.empty() && st.claims.empty() ? 0 : 2;
      }
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip("%zu question(s), %zu claim(s)", st.questions.size(), st.claims.size());
      ImGui::PopID();
    }
  } else if (!s.steps_error.empty()) {
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(color::kFail), "lesson.toml: %s",
                       s.steps_error.c_str());
  }
  ImGui::Dummy(ImVec2(0, 6));
  section_title(s.fonts, "Pages");
  ImGui::Separator();
  for (int p = 0; p < static_cast<int>(l.pages.size()); ++p) {
    ImGui::PushID(1000 + p);
    const std::string label = file_name(l.pages[p]);
    if (ImGui::Selectable(label.c_str(), s.page == p && s.center_tab == 0)) {
      s.select_page(p);
      s.center_tab = 0;
    }
    ImGui::PopID();
  }
  ImGui::Dummy(ImVec2(0, 6));
  section_title(s.fonts, "Experiments");
  ImGui::Separator();
  for (int e = 0; e < static_cast<int>(s.experiments.size()); ++e) {
    ImGui::PushID(2000 + e);
    const std::string label = file_name(s.experiments[e].path);
    if (ImGui::Selectable(label.c_str(), s.experiment == e)) s.select_experiment(e);
    if (ImGui::IsItemHovered() && s.experiments[e].exp)
      ImGui::SetTooltip("%s", s.experiments[e].exp->description.c_str());
    ImGui::PopID();
  }
  ImGui::Dummy(ImVec2(0, 6));
  section_title(s.fonts, "Kernels");
  ImGui::Separator();
  for (const std::string& src : l.sources) {
    ImGui::PushFont(s.fonts.mono);
    const std::string label = file_name(src);
    const bool shown = s.center_tab == 1 && s.source_file == src;
    if (ImGui::Selectable(label.c_str(), shown)) {
      s.source_file = src;
      s.center_tab = 1;
      // Show the run of an experiment that uses this kernel file, if the current one does not.
      const auto uses = [&](int e) {
        return e >= 0 && e < static_cast<int>(s.experiments.size()) && s.experiments[e].exp &&
               same_file(s.experiments[e].exp->source, src);
      };
      if (!uses(s.experiment))
        for (int e = 0; e < static_cast<int>(s.experiments.size()); ++e)
          if (uses(e)) {
            s.select_experiment(e);
            break;
          }
    }
    ImGui::PopFont();
  }
}

}  // namespace warplab::app
