// Keyboard shortcuts (active when no text field has focus) and the overlay that lists them
// (F1 or ?). One table drives both, so the overlay never goes stale.
#include <GLFW/glfw3.h>

#include <algorithm>

#include "ui/app/app_state.h"
#include "ui/app/style.h"

namespace warplab::app {
namespace {

struct Shortcut {
  const char* keys;
  const char* what;
};
constexpr Shortcut kShortcuts[] = {
    {"Space", "play / pause the warp timeline"},
    {"Home", "cursor to the first cycle"},
    {"End", "cursor to the last cycle"},
    {"Left / Right", "cursor to the previous / next instruction of the selected warp slot"},
    {"Up / Down", "select the warp slot above / below"},
    {"+ / -", "zoom the timeline in / out around the cursor"},
    {"F", "fit the whole launch in the timeline"},
    {"R", "run the selected experiment"},
    {"S", "run its sweep (experiments with a [sweep])"},
    {"1 / 2", "lesson page / kernel source"},
    {"3 / 4 / 5", "warp timeline / buffers / whole GPU"},
    {"6 / 7 / 8 / 9", "memory access / lanes / memory flow / shared-memory banks"},
    {"F1 or ?", "this help"},
    {"Wheel, drag", "zoom, pan the timeline; Shift+wheel scrolls its rows"},
};

}  // namespace

void handle_shortcuts(AppState& s) {
  const ImGuiIO& io = ImGui::GetIO();
  if (io.WantTextInput) return;
  // ImGui 1.86 indexes keys by the backend's codes (GLFW_KEY_*).
  auto pressed = [](int k) { return ImGui::IsKeyPressed(k, false); };
  auto held = [](int k) { return ImGui::IsKeyPressed(k, true); };
  bool question = false;
  for (int i = 0; i < io.InputQueueCharacters.Size; ++i)
    question |= io.InputQueueCharacters[i] == '?';
  if (pressed(GLFW_KEY_F1) || question) s.show_help = !s.show_help;
  if (pressed(GLFW_KEY_ESCAPE)) s.show_help = false;
  if (pressed(GLFW_KEY_R) && !s.worker.busy()) s.start_run();
  if (pressed(GLFW_KEY_S) && !s.worker.busy()) s.start_sweep();
  if (pressed(GLFW_KEY_1)) s.center_tab = 0;
  if (pressed(GLFW_KEY_2)) s.center_tab = 1;
  for (int k = 0; k < 3; ++k)
    if (pressed(GLFW_KEY_3 + k)) s.left_tab = k;
  for (int k = 0; k < 4; ++k)
    if (pressed(GLFW_KEY_6 + k)) s.lower_tab = k;
  const timing::Trace* t = s.trace();
  if (!t || s.index.rows.empty()) return;
  const double first = double(s.index.first_cycle), last = double(s.index.last_cycle);
  if (pressed(GLFW_KEY_SPACE)) s.playing = !s.playing;
  if (pressed(GLFW_KEY_HOME)) s.cursor = first;
  if (pressed(GLFW_KEY_END)) s.cursor = last;
  if (pressed(GLFW_KEY_F)) s.view_fitted = false;
  const auto zoom = [&](double f) {
    s.view.zoom_at(s.view.x_of(s.cursor), f, 0.02,
                   std::max(1.0, (last - first) / std::max(1.0, double(s.view.width_px)) * 4));
  };
  if (held(GLFW_KEY_EQUAL) || held(GLFW_KEY_KP_ADD)) zoom(0.8);
  if (held(GLFW_KEY_MINUS) || held(GLFW_KEY_KP_SUBTRACT)) zoom(1.25);
  const int rows = static_cast<int>(s.index.rows.size());
  if (held(GLFW_KEY_UP)) s.selected_row = std::max(0, s.selected_row - 1);
  if (held(GLFW_KEY_DOWN)) s.selected_row = std::min(rows - 1, s.selected_row + 1);
  const bool left = held(GLFW_KEY_LEFT);
  const bool right = held(GLFW_KEY_RIGHT);
  if ((left || right) && s.selected_row >= 0 && s.selected_row < rows) {
    const auto& issues = s.index.rows[s.selected_row].issues;
    auto it = std::upper_bound(issues.begin(), issues.end(), s.cursor, [&](double c, uint32_t i) {
      return c < double(t->issues[i].cycle);
    });
    if (right && it != issues.end()) s.cursor = double(t->issues[*it].cycle);
    if (left) {
      // The last issue strictly before the cursor.
      auto at = std::lower_bound(issues.begin(), issues.end(), s.cursor, [&](uint32_t i, double c) {
        return double(t->issues[i].cycle) < c;
      });
      if (at != issues.begin()) s.cursor = double(t->issues[*(at - 1)].cycle);
    }
    s.playing = false;
  }
}

void draw_help_overlay(AppState& s) {
  if (!s.show_help) return;
  const ImGuiIO& io = ImGui::GetIO();
  ImGui::SetNextWindowPos(ImVec2(io.DisplaySize.x * 0.5f, io.DisplaySize.y * 0.35f),
                          ImGuiCond_Always, ImVec2(0.5f, 0.5f));
  if (ImGui::Begin("Keyboard shortcuts", &s.show_help,
                   ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoSavedSettings |
                       ImGuiWindowFlags_AlwaysAutoResize)) {
    if (ImGui::BeginTable("keys", 2, ImGuiTableFlags_RowBg)) {
      ImGui::TableSetupColumn("keys", ImGuiTableColumnFlags_WidthFixed, 130);
      for (const Shortcut& k : kShortcuts) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::PushFont(s.fonts.mono);
        ImGui::TextUnformatted(k.keys);
        ImGui::PopFont();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(k.what);
      }
      ImGui::EndTable();
    }
    ImGui::TextDisabled("Esc or F1 closes this.");
  }
  ImGui::End();
}

}  // namespace warplab::app
