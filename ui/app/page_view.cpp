// The centre panel: the lesson page (Markdown) and, in a second tab, the kernel source with the
// last run's per-line counts (source_panel.cpp); for a lesson with steps, a third with the
// selected step's questions and claims (step_panel.cpp).
#include "ui/app/app_state.h"
#include "ui/app/style.h"

namespace warplab::app {

void draw_page_view(AppState& s) {
  if (!ImGui::BeginTabBar("center_tabs")) return;
  const int want = s.center_tab;
  if (ImGui::BeginTabItem("Lesson page", nullptr, want == 0 ? ImGuiTabItemFlags_SetSelected : 0)) {
    // No background of its own: the page reads on the panel's (a pixel less to shade each).
    ImGui::BeginChild("page_scroll", ImVec2(0, 0), false, ImGuiWindowFlags_NoBackground);
    ImGui::PushTextWrapPos(0.0f);
    draw_markdown(s.doc, s.fonts);
    ImGui::PopTextWrapPos();
    ImGui::EndChild();
    ImGui::EndTabItem();
  }
  s.code_tab_open = false;
  if (ImGui::BeginTabItem("Code", nullptr, want == 1 ? ImGuiTabItemFlags_SetSelected : 0)) {
    s.code_tab_open = true;
    draw_source_view(s);
    ImGui::EndTabItem();
  }
  bool steps_open = false;
  if (s.steps && ImGui::BeginTabItem("Questions and claims", nullptr,
                                     want == 2 ? ImGuiTabItemFlags_SetSelected : 0)) {
    steps_open = true;
    draw_step_panel(s);
    ImGui::EndTabItem();
  }
  // A request holds until its tab is the one shown (ImGui selects a tab a frame after it is asked
  // to, and the layout follows the request meanwhile: main.cpp widens the code view at once
  // instead of narrow, wide, narrow); then the user's clicks take over.
  const bool shown = (want == 0 && !s.code_tab_open && !steps_open) ||
                     (want == 1 && s.code_tab_open) || (want == 2 && steps_open) ||
                     (want == 2 && !s.steps);
  if (shown) s.center_tab = -1;
  ImGui::EndTabBar();
}

}  // namespace warplab::app
