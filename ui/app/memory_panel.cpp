// The memory panel: one warp memory access's journey, drawn. The 32 lanes (active ones lit), the
// coalescer that turns their addresses into 128-byte lines and 32-byte sectors, where each sector
// was served (L1 hit, L2, DRAM) and the cycles at which the request was issued, reached the L1
// tags and got its data back.
//
// Simplification, said on screen too: the trace records per access the counts (lines, sectors,
// hits, misses, DRAM sectors) and the lowest lane's address, not every lane's address, so the
// sectors are drawn spread evenly over the lines and coloured by level in order.
#include <algorithm>
#include <string>

#include "ui/app/app_state.h"
#include "ui/app/style.h"

namespace warplab::app {

namespace {

const char* kind_name(timing::AccessRecord::Kind k) {
  using K = timing::AccessRecord::Kind;
  switch (k) {
    case K::GlobalLoad:
      return "global load";
    case K::GlobalStore:
      return "global store";
    case K::Atomic:
      return "atomic";
    case K::LocalLoad:
      return "local load";
    case K::LocalStore:
      return "local store";
    case K::SharedLoad:
      return "shared load";
    case K::SharedStore:
      return "shared store";
  }
  return "?";
}

bool is_shared(timing::AccessRecord::Kind k) {
  return k == timing::AccessRecord::Kind::SharedLoad ||
         k == timing::AccessRecord::Kind::SharedStore;
}
bool is_store(timing::AccessRecord::Kind k) {
  return k == timing::AccessRecord::Kind::GlobalStore ||
         k == timing::AccessRecord::Kind::LocalStore;
}

void legend_chip(ImU32 c, const char* text) {
  const ImVec2 p = ImGui::GetCursorScreenPos();
  const float h = ImGui::GetTextLineHeight();
  ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(p.x, p.y + 3), ImVec2(p.x + 10, p.y + h - 3), c,
                                            2);
  ImGui::Dummy(ImVec2(13, h));
  ImGui::SameLine(0, 0);
  ImGui::TextUnformatted(text);
  ImGui::SameLine(0, 14);
}

}  // namespace

void draw_memory_panel(AppState& s) {
  section_title(s.fonts, "Memory access");
  const timing::Trace* t = s.trace();
  const auto which = s.access_for_memory_panel();
  if (!t || !which || *which >= t->accesses.size()) {
    ImGui::SameLine();
    ImGui::TextDisabled(t ? "no memory access on this warp slot near the cursor"
                          : "click a warp slot in the timeline after a run");
    return;
  }
  const timing::AccessRecord& a = t->accesses[*which];
  ImGui::SameLine();
  ImGui::TextDisabled("%s  SM %d slot %d  PTX line %d%s", kind_name(a.kind), a.sm, a.slot,
                      a.ptx_line, s.selected_access ? "  (selected)" : "  (near the cursor)");
  if (s.run)
    if (auto it = s.run->ptx_text.find(a.ptx_line); it != s.run->ptx_text.end()) {
      ImGui::PushFont(s.fonts.mono);
      ImGui::TextColored(ImVec4(0.9f, 0.75f, 0.55f, 1), "%s", it->second.c_str());
      ImGui::PopFont();
    }

  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float w = ImGui::GetContentRegionAvail().x;
  const ImVec2 o = ImGui::GetCursorScreenPos();
  ImGui::PushFont(s.fonts.small);
  const float label_w = 58;
  const float lanes_w = w - label_w - 4;

  // 1. Lanes.
  float y = o.y;
  dl->AddText(ImVec2(o.x, y + 2), color::kDim, "lanes");
  const float lane_w = lanes_w / 32.0f;
  int active = 0;
  for (int l = 0; l < 32; ++l) {
    const bool on = (a.exec_mask >> l) & 1u;
    active += on;
    const float x = o.x + label_w + l * lane_w;
    dl->AddRectFilled(ImVec2(x + 1, y), ImVec2(x + lane_w - 1, y + 16),
                      on ? IM_COL32(118, 185, 0, 220) : IM_COL32(60, 64, 72, 255), 2);
    if (lane_w > 14 && (l % 4 == 0)) {
      const std::string n = std::to_string(l);
      dl->AddText(ImVec2(x + 3, y + 1), IM_COL32(10, 10, 10, 255), n.c_str());
    }
  }
  y += 20;
  char buf[256];
  std::snprintf(buf, sizeof buf, "%d active lanes x %u B; lowest lane's address 0x%llx", active,
                a.access_bytes, static_cast<unsigned long long>(a.first_address));
  dl->AddText(ImVec2(o.x + label_w, y), color::kDim, buf);
  y += 16;

  // 2. The coalescer funnel.
  const float fx0 = o.x + label_w, fx1 = o.x + label_w + lanes_w;
  const float mid = (fx0 + fx1) * 0.5f;
  dl->AddQuadFilled(ImVec2(fx0, y), ImVec2(fx1, y), ImVec2(mid + 60, y + 16),
                    ImVec2(mid - 60, y + 16), IM_COL32(255, 255, 255, 18));
  if (is_shared(a.kind))
    std::snprintf(buf, sizeof buf, "shared memory: %d wavefront(s), %d bank conflict(s)",
                  a.wavefronts, a.bank_conflicts);
  else
    std::snprintf(buf, sizeof buf, "coalescer: %d line(s) of 128 B, %d sector(s) of 32 B", a.lines,
                  a.sectors);
  const ImVec2 ts = ImGui::CalcTextSize(buf);
  dl->AddText(ImVec2(mid - ts.x * 0.5f, y + 1), color::kText, buf);
  y += 22;

  // 3. Lines and sectors, coloured by where each sector was served.
  if (!is_shared(a.kind) && a.lines > 0) {
    dl->AddText(ImVec2(o.x, y + 2), color::kDim, "lines");
    const float cell = 9, line_w = 4 * cell + 3, gap = 5;
    const int per_row = std::max(1, static_cast<int>(lanes_w / (line_w + gap)));
    const int hits = is_store(a.kind) ? 0 : a.l1_hit_sectors;
    const int dram = a.dram_sectors;
    const int l2 = std::max(0, a.sectors - hits - dram);
    int k = 0;  // sectors drawn so far
    for (int li = 0; li < a.lines; ++li) {
      const int in_line = a.sectors / a.lines + (li < a.sectors % a.lines ? 1 : 0);
      const float x = o.x + label_w + (li % per_row) * (line_w + gap);
      const float yy = y + (li / per_row) * (cell + 6);
      dl->AddRect(ImVec2(x, yy), ImVec2(x + line_w, yy + cell + 2), IM_COL32(255, 255, 255, 70), 2);
      for (int sct = 0; sct < 4; ++sct) {
        ImU32 c = IM_COL32(45, 48, 55, 255);
        if (sct < in_line) {
          c = k < hits ? color::kHit : k < hits + l2 ? color::kL2 : color::kDram;
          ++k;
        }
        dl->AddRectFilled(ImVec2(x + 1.5f + sct * cell, yy + 1.5f),
                          ImVec2(x + 1.5f + (sct + 1) * cell - 1, yy + cell + 0.5f), c);
      }
    }
    y += ((a.lines - 1) / per_row + 1) * (cell + 6) + 4;
  }

  // 4. The journey in time: issue -> L1 tag stage -> data back.
  dl->AddText(ImVec2(o.x, y + 4), color::kDim, "cycles");
  const double span = std::max<double>(1, double(a.ready - a.issue));
  auto xat = [&](uint64_t c) { return fx0 + float(double(c - a.issue) / span) * (lanes_w - 2); };
  const float by = y + 6;
  dl->AddRectFilled(ImVec2(xat(a.issue), by),
                    ImVec2(std::max(xat(a.tag_stage), xat(a.issue) + 2), by + 10),
                    IM_COL32(200, 60, 130, 200));
  dl->AddRectFilled(ImVec2(xat(a.tag_stage), by), ImVec2(xat(a.ready), by + 10),
                    a.dram_sectors      ? color::kDram
                    : a.l1_miss_sectors ? color::kL2
                                        : color::kHit);
  const float cur =
      xat(static_cast<uint64_t>(std::clamp(s.cursor, double(a.issue), double(a.ready))));
  if (s.cursor >= double(a.issue) && s.cursor <= double(a.ready))
    dl->AddLine(ImVec2(cur, by - 3), ImVec2(cur, by + 13), color::kCursor, 2);
  y += 20;
  std::snprintf(buf, sizeof buf, "issued %llu", static_cast<unsigned long long>(a.issue));
  dl->AddText(ImVec2(xat(a.issue), y), color::kText, buf);
  std::snprintf(buf, sizeof buf, "L1 tags %llu", static_cast<unsigned long long>(a.tag_stage));
  const float tw = ImGui::CalcTextSize(buf).x;
  float tx = std::clamp(xat(a.tag_stage) - tw * 0.5f, xat(a.issue) + 70, fx1 - 2 * tw - 20);
  dl->AddText(ImVec2(tx, y), color::kText, buf);
  std::snprintf(buf, sizeof buf, "data back %llu (%llu cycles)",
                static_cast<unsigned long long>(a.ready),
                static_cast<unsigned long long>(a.ready - a.issue));
  dl->AddText(ImVec2(fx1 - ImGui::CalcTextSize(buf).x, y), color::kText, buf);
  y += 18;
  ImGui::PopFont();
  ImGui::SetCursorScreenPos(ImVec2(o.x, y));
  ImGui::Dummy(ImVec2(w, 2));

  if (!is_shared(a.kind)) {
    std::snprintf(buf, sizeof buf, "L1 hit: %d", is_store(a.kind) ? 0 : a.l1_hit_sectors);
    legend_chip(color::kHit, buf);
    std::snprintf(
        buf, sizeof buf, "L2: %d",
        std::max(0, a.sectors - (is_store(a.kind) ? 0 : a.l1_hit_sectors) - a.dram_sectors));
    legend_chip(color::kL2, buf);
    std::snprintf(buf, sizeof buf, "DRAM: %d sectors", a.dram_sectors);
    legend_chip(color::kDram, buf);
    ImGui::NewLine();
  }
  ImGui::PushStyleColor(ImGuiCol_Text, color::kDim);
  ImGui::TextWrapped(
      "Simulated. The trace keeps counts per access, not each lane's address: sectors are drawn "
      "spread evenly over the lines, coloured in order L1, L2, DRAM.%s",
      is_store(a.kind) ? " Stores go through L1 to L2 (write-through, no L1 allocate)." : "");
  ImGui::PopStyleColor();
}

}  // namespace warplab::app
