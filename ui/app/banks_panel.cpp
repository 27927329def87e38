// Shared-memory banks: one shared access of the selected warp slot (the last one at or before the
// cursor), drawn as its 32 lanes above the 32 banks, a line from each lane to the bank of its
// word, and under each bank the distinct words it must deliver, one pass (wavefront) each. A
// column of a 32-float tile piles every lane onto bank 0 (32 passes); padding the row to 33
// floats spreads them over all 32 banks (1 pass). The count is the timing model's own
// (ui/app/model/bank_view.h); which lane goes in which pass is this view's choice.
#include <algorithm>
#include <bit>
#include <cstdio>

#include "ui/app/app_state.h"
#include "ui/app/model/bank_view.h"
#include "ui/app/style.h"

namespace warplab::app {

namespace {

bool is_shared(const timing::AccessRecord& a) {
  return a.kind == timing::AccessRecord::Kind::SharedLoad ||
         a.kind == timing::AccessRecord::Kind::SharedStore;
}

// The row's shared accesses issued at or before the cursor (last) and after it (next).
void shared_around(const timing::Trace& t, const TraceRow& r, double cursor,
                   std::optional<uint32_t>& last, std::optional<uint32_t>& next) {
  for (uint32_t i : r.accesses) {
    const timing::AccessRecord& a = t.accesses[i];
    if (!is_shared(a)) continue;
    if (double(a.issue) <= cursor) {
      last = i;
    } else {
      next = i;
      break;
    }
  }
}

ImU32 pass_color(int wavefront, int wavefronts) {
  if (wavefronts <= 1) return color::kHit;
  const float f = float(wavefront) / float(std::max(1, wavefronts - 1));
  return ImGui::ColorConvertFloat4ToU32(ImVec4(0.35f + 0.55f * f, 0.75f - 0.45f * f, 0.45f, 1));
}

}  // namespace

void draw_banks_panel(AppState& s) {
  const timing::Trace* t = s.trace();
  if (!t || s.index.rows.empty()) {
    ImGui::TextDisabled("run an experiment with shared memory (lesson 9), then pick a warp slot");
    return;
  }
  const size_t row = s.selected_row >= 0 ? static_cast<size_t>(s.selected_row) : 0;
  if (row >= s.index.rows.size()) return;
  const TraceRow& r = s.index.rows[row];
  std::optional<uint32_t> last, next;
  shared_around(*t, r, s.cursor, last, next);
  const std::optional<uint32_t> shown = last ? last : next;
  if (!shown) {
    ImGui::TextDisabled("SM %d slot %d made no shared-memory access in the trace", r.sm, r.slot);
    return;
  }
  const timing::AccessRecord& a = t->accesses[*shown];
  const BankView v = bank_view(*t, a);
  ImGui::Text("SM %d slot %d, cycle %llu: shared %s of %d lanes, %u bytes each (PTX line %d)", r.sm,
              r.slot, static_cast<unsigned long long>(a.issue),
              a.kind == timing::AccessRecord::Kind::SharedStore ? "store" : "load",
              std::popcount(a.exec_mask), a.access_bytes, a.ptx_line);
  ImGui::SameLine();
  help_marker(
      "Shared memory has 32 banks of 4 bytes: word w (address / 4) is in bank w % 32. A bank "
      "delivers one word per pass (wavefront); lanes reading the same word share it "
      "(broadcast), lanes reading different words of one bank wait for a pass each. The "
      "busiest bank sets the wavefront count, which is what the timing model charges. 8- and "
      "16-byte accesses are served in groups of 16 and 8 lanes (128 bytes a group). Which "
      "lane is served in which pass is drawn in ascending word order: real hardware documents "
      "the count, not the order.");
  if (next && ImGui::SmallButton("next shared access >")) {
    s.cursor = double(t->accesses[*next].issue);
    s.playing = false;
  }
  if (!v.complete) {
    ImGui::TextDisabled("%d wavefronts, %d bank conflicts (the trace has no lane addresses for it)",
                        a.wavefronts, a.bank_conflicts);
    return;
  }
  if (v.wavefronts == v.ideal_wavefronts)
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(color::kHit),
                       "%d wavefront%s: no bank conflict", v.wavefronts,
                       v.wavefronts > 1 ? "s" : "");
  else
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(color::kDram),
                       "%d wavefronts where %d would do: %d extra passes (%.0f-way conflict)",
                       v.wavefronts, v.ideal_wavefronts, v.bank_conflicts(),
                       double(v.wavefronts) / double(std::max(1, v.ideal_wavefronts)));
  if (a.wavefronts != v.wavefronts)
    ImGui::TextDisabled("the model charged %d: an atomic takes a pass per lane on one word",
                        a.wavefronts);

  // Lanes on top, banks below, words stacked under each bank (one row per pass).
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 p = ImGui::GetCursorScreenPos();
  const float avail_w = ImGui::GetContentRegionAvail().x;
  const float cell = std::max(8.0f, std::min(18.0f, (avail_w - 40) / 32));
  const float lane_y = p.y + 12, bank_y = p.y + 62, x0 = p.x + 36;
  ImGui::PushFont(s.fonts.small);
  dl->AddText(ImVec2(p.x, lane_y), color::kDim, "lane");
  dl->AddText(ImVec2(p.x, bank_y), color::kDim, "bank");
  for (int i = 0; i < 32; i += 8) {
    char b[8];
    std::snprintf(b, sizeof b, "%d", i);
    dl->AddText(ImVec2(x0 + i * cell, p.y), color::kDim, b);
    dl->AddText(ImVec2(x0 + i * cell, bank_y + cell + 2), color::kDim, b);
  }
  ImGui::PopFont();
  for (int l = 0; l < 32; ++l) {
    const BankView::Lane& ln = v.lanes[l];
    const ImVec2 a0(x0 + l * cell, lane_y), a1(a0.x + cell - 2, a0.y + cell - 2);
    dl->AddRectFilled(
        a0, a1, ln.active ? pass_color(ln.wavefront, v.wavefronts) : IM_COL32(38, 40, 46, 255));
    if (!ln.active) continue;
    const float bx = x0 + ln.bank * cell + cell / 2 - 1;
    dl->AddLine(ImVec2(a0.x + cell / 2 - 1, a1.y), ImVec2(bx, bank_y),
                (pass_color(ln.wavefront, v.wavefronts) & 0x00ffffffu) | 0x90000000u, 1);
  }
  for (int b = 0; b < 32; ++b) {
    const ImVec2 b0(x0 + b * cell, bank_y), b1(b0.x + cell - 2, b0.y + cell - 2);
    dl->AddRectFilled(b0, b1, IM_COL32(70, 76, 88, 255));
  }
  // Each group's words: pass k of group g in row (group base + k).
  const float word_y = bank_y + cell + 16;
  const float rows_h = std::max(1.0f, ImGui::GetContentRegionAvail().y - (word_y - p.y) - 4);
  const float word_h =
      std::max(2.0f, std::min(cell - 2, rows_h / float(std::max(1, v.wavefronts))));
  int base = 0;
  for (const auto& g : v.groups) {
    int busiest = 1;
    for (int b = 0; b < 32; ++b) {
      busiest = std::max(busiest, int(g[b].size()));
      for (size_t k = 0; k < g[b].size(); ++k) {
        const float y = word_y + float(base + int(k)) * word_h;
        dl->AddRectFilled(ImVec2(x0 + b * cell, y),
                          ImVec2(x0 + b * cell + cell - 2, y + word_h - 1),
                          pass_color(base + int(k), v.wavefronts));
      }
    }
    base += busiest;
  }
  ImGui::Dummy(ImVec2(32 * cell + 40, word_y - p.y + float(v.wavefronts) * word_h + 2));
  if (ImGui::IsItemHovered()) {
    const ImVec2 m = ImGui::GetIO().MousePos;
    const int b = int((m.x - x0) / cell);
    if (b >= 0 && b < 32) {
      ImGui::BeginTooltip();
      ImGui::Text("bank %d", b);
      for (size_t gi = 0; gi < v.groups.size(); ++gi)
        for (uint32_t word : v.groups[gi][b]) {
          std::string lanes;
          for (int l = 0; l < 32; ++l)
            if (v.lanes[l].active && v.lanes[l].group == int(gi) &&
                v.lanes[l].address / BankView::kBankBytes == word)
              lanes += (lanes.empty() ? "" : " ") + std::to_string(l);
          ImGui::Text("word at byte %u: lanes %s", word * BankView::kBankBytes,
                      lanes.empty() ? "(a wide lane's next word)" : lanes.c_str());
        }
      ImGui::EndTooltip();
    }
  }
}

}  // namespace warplab::app
