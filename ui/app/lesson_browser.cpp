// The lesson browser: lessons in README order (by directory number), then the selected lesson's
// pages, experiments and kernel sources.
#include "ui/app/app_state.h"
#include "ui/app/style.h"

namespace warplab::app {

void draw_lesson_browser(AppState& s) {
  section_title(s.fonts, "Lessons");
  ImGui::Separator();
  for (int i = 0; i < static_cast<int>(s.lessons.size()); ++i) {
    const LessonEntry& l = s.lessons[i];
    ImGui::PushID(i);
    if (ImGui::Selectable(l.title.c_str(), s.lesson == i)) s.select_lesson(i);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", l.dir.c_str());
    ImGui::PopID();
  }
  if (s.lesson < 0) return;
  const LessonEntry& l = s.lessons[s.lesson];
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
