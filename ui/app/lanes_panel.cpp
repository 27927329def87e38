// Divergence, lane by lane: the instructions one warp slot issued around the cursor, each with its
// 32 lanes drawn as cells: lit when the lane executed it, dim when the lane was on the warp's
// active path but its guard predicate was false, dark when the lane was not on the path (the
// other side of a branch, or exited). A divergent branch shows as the mask narrowing to one side,
// the other side's instructions issuing afterwards with the complementary lanes, and the full
// mask returning where the paths reconverge (the SIMT stack's immediate post-dominator).
#include <algorithm>

#include "ui/app/app_state.h"
#include "ui/app/style.h"

namespace warplab::app {

void draw_lanes_panel(AppState& s) {
  const timing::Trace* t = s.trace();
  if (!t || s.index.rows.empty()) {
    ImGui::TextDisabled(t ? "no warp slot traced" : "run an experiment, then pick a warp slot");
    return;
  }
  const size_t row = s.selected_row >= 0 ? static_cast<size_t>(s.selected_row) : 0;
  if (row >= s.index.rows.size()) return;
  const TraceRow& r = s.index.rows[row];
  ImGui::TextDisabled("SM %d slot %d: the last instructions issued up to the cursor", r.sm, r.slot);
  help_marker(
      "Each row is one issued warp instruction; each cell one lane (0 left, 31 right). Green: "
      "the lane executed it. Grey: on the active path but its predicate was false. Dark: not on "
      "the active path (the other side of a divergent branch, or exited). The simulator uses a "
      "SIMT stack with reconvergence at the immediate post-dominator (pre-Volta style); Volta and "
      "later GPUs schedule threads independently but reconverge the same way for code like this.");
  const auto last = s.index.issue_at_or_before(*t, row, s.cursor);
  if (!last) {
    ImGui::TextDisabled("nothing issued yet at the cursor");
    return;
  }
  // Issues of this row up to and including `last`, newest last.
  const auto& list = r.issues;
  const auto end = std::find(list.begin(), list.end(), *last);
  const float row_h = ImGui::GetTextLineHeight() + 2;
  // A tensor-core kernel: the fragments of the last mma.sync this slot issued up to the cursor
  // are drawn under the rows (tensor_rows.cpp), which give them their room.
  const MmaLine* mma = nullptr;
  if (s.run && !s.run->mma_lines.empty())
    for (auto it = end + 1; it != list.begin() && !mma;) {
      --it;
      if (auto m = s.run->mma_lines.find(t->issues[*it].ptx_line); m != s.run->mma_lines.end())
        mma = &m->second;
    }
  const float frag_h = mma ? 16 * std::clamp((ImGui::GetContentRegionAvail().x - 60) / 40, 6.0f, 18.0f) + 40
                           : 0;
  const int fit = std::max(
      1, static_cast<int>((ImGui::GetContentRegionAvail().y - frag_h) / row_h) - 1);
  const auto begin = end - std::min<ptrdiff_t>(fit - 1, end - list.begin());
  ImDrawList* dl = ImGui::GetWindowDrawList();
  ImGui::PushFont(s.fonts.small);
  const float cell = std::max(4.0f, std::min(9.0f, (ImGui::GetContentRegionAvail().x - 330) / 32));
  for (auto it = begin; it != end + 1 && it != list.end(); ++it) {
    const timing::IssueRecord& is = t->issues[*it];
    const ImVec2 p = ImGui::GetCursorScreenPos();
    for (int l = 0; l < 32; ++l) {
      const bool on = (is.active_mask >> l) & 1u, ex = (is.exec_mask >> l) & 1u;
      const ImU32 c = ex   ? color::kHit
                      : on ? IM_COL32(110, 114, 122, 255)
                           : IM_COL32(38, 40, 46, 255);
      const float x = p.x + l * cell + (l / 8) * 2;  // a gap every 8 lanes
      dl->AddRectFilled(ImVec2(x, p.y + 1), ImVec2(x + cell - 1, p.y + row_h - 2), c);
    }
    ImGui::Dummy(ImVec2(32 * cell + 8, row_h - 2));
    ImGui::SameLine();
    const char* text = is.text >= 0 && is.text < static_cast<int32_t>(t->strings.size())
                           ? t->strings[is.text].c_str()
                           : "?";
    ImGui::Text("%6llu  %2d/32  %s", static_cast<unsigned long long>(is.cycle),
                __builtin_popcount(is.exec_mask), text);
  }
  ImGui::PopFont();
  if (mma) {
    // The lane under the mouse in the rows above is outlined in the tiles.
    int lane = -1;
    const ImVec2 m = ImGui::GetIO().MousePos;
    const ImVec2 w0 = ImGui::GetWindowPos();
    if (m.x >= w0.x && m.x < w0.x + 32 * cell + 6) lane = std::clamp(int((m.x - ImGui::GetWindowContentRegionMin().x - w0.x) / cell), 0, 31);
    ImGui::Separator();
    draw_fragments(s, *mma, lane);
  }
}

}  // namespace warplab::app
