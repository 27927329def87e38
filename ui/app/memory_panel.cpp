// The memory panel: one warp memory access's journey, drawn. The 32 lanes (active ones lit), the
// coalescer that turns their addresses into 128-byte lines and 32-byte sectors, where each sector
// was served (L1 hit, L2, DRAM) and the cycles at which the request was issued, reached the L1
// tags and got its data back.
//
// Traces with the per-line data (timing::Trace::access_lines) show the real path: every line
// the coalescer formed, each sector coloured by where it was served, and a connector from each
// active lane to the sector of its first byte (ui/app/model/access_path.h), so the lanes visibly
// fan into few sectors (coalesced) or many lines (strided). Traces without it (or a bad slice)
// fall back to the counts: sectors spread evenly over the lines, coloured by level in order, with
// that simplification said on screen.
#include <algorithm>
#include <bit>
#include <cstdio>
#include <string>

#include "ui/app/app_state.h"
#include "ui/app/model/ab_cursor.h"
#include "ui/app/model/access_path.h"
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

constexpr ImU32 kSectorUnused = IM_COL32(45, 48, 55, 255);     // a sector the access does not need
constexpr ImU32 kSectorUnknown = IM_COL32(95, 100, 110, 255);  // needed, source not recorded

ImU32 source_color(timing::SectorSource src) {
  switch (src) {
    case timing::SectorSource::L1:
      return color::kHit;
    case timing::SectorSource::L2:
      return color::kL2;
    case timing::SectorSource::Dram:
      return color::kDram;
    case timing::SectorSource::None:
      break;
  }
  return kSectorUnknown;
}

ImU32 with_alpha(ImU32 c, int alpha) {
  return (c & ~IM_COL32_A_MASK) | (static_cast<ImU32>(alpha) << IM_COL32_A_SHIFT);
}

// Where a sector was served, worded for the access's kind: stores and atomics never hit in L1
// (write-through, no allocate), they are done at the L2.
const char* source_words(timing::SectorSource src, timing::AccessRecord::Kind k) {
  if (src == timing::SectorSource::L2 && is_store(k)) return "written into L2";
  if (src == timing::SectorSource::L2 && k == timing::AccessRecord::Kind::Atomic)
    return "performed at L2";
  return sector_source_name(src);
}

// "0-15, 20, 22-23": the lanes of a mask as ranges.
std::string lane_list(uint32_t mask) {
  std::string s;
  for (int l = 0; l < 32;) {
    if (!((mask >> l) & 1u)) {
      ++l;
      continue;
    }
    int e = l;
    while (e + 1 < 32 && ((mask >> (e + 1)) & 1u)) ++e;
    if (!s.empty()) s += ", ";
    s += std::to_string(l);
    if (e > l) s += "-" + std::to_string(e);
    l = e + 1;
  }
  return s.empty() ? "none" : s;
}

unsigned long long ull(uint64_t v) { return static_cast<unsigned long long>(v); }

// Section 3 from the per-line data: connectors from each active lane's cell (the lanes row, at
// lanes_y) down to the sector its first byte falls in, then the line boxes with their sectors
// coloured by source and their offsets from the lowest line. x0, lanes_w, lane_w: the lanes
// row's geometry. Returns the y below what it drew.
float draw_path(ImDrawList* dl, const AccessPath& p, const timing::AccessRecord& a, float label_x,
                float x0, float lanes_w, float lane_w, float lanes_y, float y) {
  const int n = static_cast<int>(p.lines.size());
  // 1. Geometry: the lines in rows under the lanes, cells at least 8 px wide, rows balanced.
  const float gap = 6, pad = 1.5f, cell_h = 10, label_h = 13, fan_h = 38;
  const float row_h = cell_h + 2 * pad + label_h + 4;
  int per_row = std::clamp(static_cast<int>((lanes_w + gap) / (4 * 8.0f + 2 * pad + gap)), 1, n);
  const int rows = (n + per_row - 1) / per_row;
  per_row = (n + rows - 1) / rows;
  const float cell_w = std::clamp(((lanes_w + gap) / per_row - gap - 2 * pad) / 4, 3.0f, 22.0f);
  const float line_w = 4 * cell_w + 2 * pad;
  const float row_w = per_row * line_w + (per_row - 1) * gap;
  const float bx0 = x0 + std::max(0.0f, (lanes_w - row_w) * 0.5f);
  const float lines_y = y + fan_h;
  auto box_min = [&](int i) {
    return ImVec2(bx0 + (i % per_row) * (line_w + gap), lines_y + (i / per_row) * row_h);
  };
  auto cell_min = [&](int i, int s) {
    const ImVec2 b = box_min(i);
    return ImVec2(b.x + pad + s * cell_w, b.y + pad);
  };
  uint64_t base = p.lines[0].address;
  for (const AccessPath::Line& l : p.lines) base = std::min(base, l.address);
  char buf[160];

  // 2. Hover: a line box (with its label) or a lane cell.
  int hover_line = -1, hover_lane = -1;
  if (ImGui::IsWindowHovered()) {
    for (int i = 0; i < n && hover_line < 0; ++i) {
      const ImVec2 b = box_min(i);
      if (ImGui::IsMouseHoveringRect(b, ImVec2(b.x + line_w, b.y + row_h - 4))) hover_line = i;
    }
    for (int l = 0; l < 32 && hover_lane < 0; ++l)
      if (p.lanes[l].active &&
          ImGui::IsMouseHoveringRect(ImVec2(x0 + l * lane_w, lanes_y),
                                     ImVec2(x0 + (l + 1) * lane_w, lanes_y + 16)))
        hover_lane = l;
  }

  // 3. Connectors, coloured by the sector's source; fainter the more lines there are (32 lanes
  // into 32 lines is a dense fan). Highlighted ones (hovered lane or line) are drawn last.
  dl->AddText(ImVec2(label_x, y + fan_h * 0.5f - 7), color::kDim, "coalescer");
  const bool any_hover = hover_line >= 0 || hover_lane >= 0;
  const int base_alpha = n <= 2 ? 170 : n <= 8 ? 120 : 70;
  for (int pass = 0; pass < 2; ++pass)
    for (int l = 0; l < 32; ++l) {
      const AccessPath::Lane& lane = p.lanes[l];
      if (!lane.active) continue;
      const bool lit = l == hover_lane || lane.line == hover_line;
      if (lit != (pass == 1)) continue;
      const ImVec2 c = cell_min(lane.line, lane.sector);
      const ImVec2 from(x0 + (l + 0.5f) * lane_w, lanes_y + 16);
      const ImVec2 to(c.x + (cell_w - 1) * 0.5f, c.y);
      const float dy = (to.y - from.y) * 0.5f;
      const ImU32 col = with_alpha(source_color(p.lines[lane.line].source[lane.sector]),
                                   lit         ? 235
                                   : any_hover ? 22
                                               : base_alpha);
      // 12 segments draw the S smoothly; whole-pixel widths take ImGui's cheapest anti-aliased
      // line (a textured quad per segment instead of three).
      dl->AddBezierCubic(from, ImVec2(from.x, from.y + dy), ImVec2(to.x, to.y - dy), to, col,
                         lit ? 2.0f : 1.0f, 12);
    }
  // The hovered line's lanes, outlined in the lanes row.
  if (hover_line >= 0)
    for (int l = 0; l < 32; ++l)
      if ((p.lines[hover_line].lane_mask >> l) & 1u)
        dl->AddRect(ImVec2(x0 + l * lane_w, lanes_y - 1),
                    ImVec2(x0 + (l + 1) * lane_w, lanes_y + 17), IM_COL32(255, 255, 255, 200));

  // 4. Line boxes: opaque, so connectors to a lower row pass behind the row above; sector cells
  // coloured by source, with the number of lanes whose first byte is in them when it fits.
  dl->AddText(ImVec2(label_x, lines_y - 1), color::kDim, "lines");
  for (int i = 0; i < n; ++i) {
    const AccessPath::Line& line = p.lines[i];
    const ImVec2 b = box_min(i);
    const ImVec2 b1(b.x + line_w, b.y + cell_h + 2 * pad);
    dl->AddRectFilled(b, b1, color::kCodeBg);
    dl->AddRect(b, b1,
                i == hover_line ? IM_COL32(255, 255, 255, 220) : IM_COL32(255, 255, 255, 70));
    for (int s = 0; s < AccessPath::kSectorsPerLine; ++s) {
      const ImVec2 c = cell_min(i, s);
      const ImVec2 c1(c.x + cell_w - 1, c.y + cell_h);
      dl->AddRectFilled(c, c1, line.needed(s) ? source_color(line.source[s]) : kSectorUnused);
      const int k = p.lanes_into(i, s);
      if (k > 0) {
        std::snprintf(buf, sizeof buf, "%d", k);
        const ImVec2 ts = ImGui::CalcTextSize(buf);
        if (ts.x <= cell_w - 2 && ts.y <= cell_h + 4)
          dl->AddText(ImVec2(c.x + (cell_w - 1 - ts.x) * 0.5f, c.y + (cell_h - ts.y) * 0.5f),
                      IM_COL32(10, 10, 10, 255), buf);
      }
    }
    // Its offset from the lowest line (the full address is in the caption and the tooltip).
    std::snprintf(buf, sizeof buf, "+0x%llx", ull(line.address - base));
    const float tw = ImGui::CalcTextSize(buf).x;
    if (tw <= line_w + gap - 2)
      dl->AddText(ImVec2(b.x + (line_w - tw) * 0.5f, b1.y + 1),
                  i == hover_line ? color::kText : color::kDim, buf);
  }
  float yy = lines_y + rows * row_h;
  if (n == 1)
    std::snprintf(buf, sizeof buf, "1 line of 128 B at 0x%llx, %d sector(s) of 32 B", ull(base),
                  p.sectors);
  else
    std::snprintf(buf, sizeof buf, "%d lines of 128 B (labels: offset from 0x%llx), %d sectors", n,
                  ull(base), p.sectors);
  dl->AddText(ImVec2(x0, yy), color::kText, buf);
  yy += 18;

  // 5. Tooltips.
  if (hover_line >= 0) {
    const AccessPath::Line& line = p.lines[hover_line];
    std::string tip;
    std::snprintf(buf, sizeof buf, "line 0x%llx (+0x%llx), 128 B\nlanes %s (%d)\n",
                  ull(line.address), ull(line.address - base), lane_list(line.lane_mask).c_str(),
                  std::popcount(line.lane_mask));
    tip += buf;
    for (int s = 0; s < AccessPath::kSectorsPerLine; ++s) {
      std::snprintf(buf, sizeof buf, "\nsector %d (bytes %3d-%3d): %s", s, 32 * s, 32 * s + 31,
                    line.needed(s) ? source_words(line.source[s], a.kind) : "not needed");
      tip += buf;
      if (const int k = p.lanes_into(hover_line, s); k > 0) {
        std::snprintf(buf, sizeof buf, ", first byte of %d lane(s)", k);
        tip += buf;
      }
    }
    ImGui::SetTooltip("%s", tip.c_str());
  } else if (hover_lane >= 0) {
    const AccessPath::Lane& lane = p.lanes[hover_lane];
    const AccessPath::Line& line = p.lines[lane.line];
    ImGui::SetTooltip("lane %d: line 0x%llx (+0x%llx), sector %d (bytes %d-%d): %s", hover_lane,
                      ull(line.address), ull(line.address - base), lane.sector, 32 * lane.sector,
                      32 * lane.sector + 31, source_words(line.source[lane.sector], a.kind));
  }
  return yy;
}

// One access's fan-out (lanes -> coalescer -> lines and sectors -> cycles) in [o.x, o.x + w) from
// o.y down, the cursor at `cursor`; returns the y below it.
float draw_fanout(const timing::Trace& t, const timing::AccessRecord& a, ImVec2 o, float w,
                  double cursor) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->PushClipRect(o, ImVec2(o.x + w, o.y + 4000), true);  // the A/B halves keep to their own
  const float label_w = 58;
  const float lanes_w = w - label_w - 4;
  const AccessPath path = access_path(t, a);
  char buf[256];
  float y = o.y;
  if (path.complete) {  // the lanes' summary goes above them, so the connectors run free below
    std::snprintf(buf, sizeof buf, "%d active lanes x %u B; lowest lane's address 0x%llx",
                  std::popcount(a.exec_mask), a.access_bytes, ull(a.first_address));
    dl->AddText(ImVec2(o.x + label_w, y), color::kDim, buf);
    y += 16;
  }

  // 1. Lanes.
  const float lanes_y = y;
  dl->AddText(ImVec2(o.x, y + 2), color::kDim, "lanes");
  const float lane_w = lanes_w / 32.0f;
  int active = 0;
  for (int l = 0; l < 32; ++l) {
    const bool on = (a.exec_mask >> l) & 1u;
    active += on;
    const float x = o.x + label_w + l * lane_w;
    dl->AddRectFilled(ImVec2(x + 1, y), ImVec2(x + lane_w - 1, y + 16),
                      on ? IM_COL32(118, 185, 0, 220) : IM_COL32(60, 64, 72, 255));
    if (lane_w > 14 && (l % 4 == 0)) {
      const std::string n = std::to_string(l);
      dl->AddText(ImVec2(x + 3, y + 1), IM_COL32(10, 10, 10, 255), n.c_str());
    }
  }
  y += 20;
  const float fx0 = o.x + label_w, fx1 = o.x + label_w + lanes_w;
  if (path.complete) {
    // 2 and 3 from the per-line data: lanes -> sectors -> lines.
    y = draw_path(dl, path, a, o.x, fx0, lanes_w, lane_w, lanes_y, y - 2);
  } else {
    std::snprintf(buf, sizeof buf, "%d active lanes x %u B; lowest lane's address 0x%llx", active,
                  a.access_bytes, ull(a.first_address));
    dl->AddText(ImVec2(o.x + label_w, y), color::kDim, buf);
    y += 16;

    // 2. The coalescer funnel.
    const float mid = (fx0 + fx1) * 0.5f;
    dl->AddQuadFilled(ImVec2(fx0, y), ImVec2(fx1, y), ImVec2(mid + 60, y + 16),
                      ImVec2(mid - 60, y + 16), IM_COL32(255, 255, 255, 18));
    if (is_shared(a.kind))
      std::snprintf(buf, sizeof buf, "shared memory: %d wavefront(s), %d bank conflict(s)",
                    a.wavefronts, a.bank_conflicts);
    else
      std::snprintf(buf, sizeof buf, "coalescer: %d line(s) of 128 B, %d sector(s) of 32 B",
                    a.lines, a.sectors);
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
        dl->AddRect(ImVec2(x, yy), ImVec2(x + line_w, yy + cell + 2), IM_COL32(255, 255, 255, 70));
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
  }

  // 4. The journey in time: issue -> L1 tag stage -> data back.
  dl->AddText(ImVec2(o.x, y + 4), color::kDim, "cycles");
  const double span = std::max<double>(1, double(a.ready - a.issue));
  auto xat = [&](uint64_t c) { return fx0 + float(double(c - a.issue) / span) * (lanes_w - 2); };
  const float by = y + 6;
  dl->AddRectFilled(ImVec2(xat(a.issue), by),
                    ImVec2(std::max(xat(a.tag_stage), xat(a.issue) + 2), by + 10),
                    IM_COL32(200, 60, 130, 200));
  const bool from_dram = path.complete ? path.dram_sectors > 0 : a.dram_sectors > 0;
  const bool from_l2 = path.complete ? path.l2_sectors > 0 : a.l1_miss_sectors > 0;
  dl->AddRectFilled(ImVec2(xat(a.tag_stage), by), ImVec2(xat(a.ready), by + 10),
                    from_dram ? color::kDram
                    : from_l2 ? color::kL2
                              : color::kHit);
  const float cur =
      xat(static_cast<uint64_t>(std::clamp(cursor, double(a.issue), double(a.ready))));
  if (cursor >= double(a.issue) && cursor <= double(a.ready))
    dl->AddLine(ImVec2(cur, by - 3), ImVec2(cur, by + 13), color::kCursor, 2);
  y += 20;
  // Three labels on one line where they fit apart, else "L1 tags" on a line of its own.
  std::snprintf(buf, sizeof buf, "issued %llu", static_cast<unsigned long long>(a.issue));
  dl->AddText(ImVec2(xat(a.issue), y), color::kText, buf);
  const float issued_end = xat(a.issue) + ImGui::CalcTextSize(buf).x;
  char back[96];
  std::snprintf(back, sizeof back, "data back %llu (%llu cycles)",
                static_cast<unsigned long long>(a.ready),
                static_cast<unsigned long long>(a.ready - a.issue));
  const float back_x = fx1 - ImGui::CalcTextSize(back).x;
  dl->AddText(ImVec2(back_x, y), color::kText, back);
  std::snprintf(buf, sizeof buf, "L1 tags %llu", static_cast<unsigned long long>(a.tag_stage));
  const float tw = ImGui::CalcTextSize(buf).x;
  float tx = std::clamp(xat(a.tag_stage) - tw * 0.5f, issued_end + 10, back_x - tw - 10);
  if (tx < issued_end + 10 || back_x < issued_end) {  // no room between them
    y += 15;
    tx = std::clamp(xat(a.tag_stage) - tw * 0.5f, fx0, std::max(fx0, fx1 - tw));
  }
  dl->AddText(ImVec2(tx, y), color::kText, buf);
  y += 18;
  dl->PopClipRect();
  return y;
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
  const AccessPath path = access_path(*t, a);
  char buf[256];
  float y = o.y;
  // A/B: the pinned run's access on the same warp slot at the same fraction of its launch
  // (model/ab_cursor.h), its fan-out on the left, the shown run's on the right.
  const timing::Trace* ta = s.pinned && s.pinned != s.run ? s.pinned_trace() : nullptr;
  std::optional<uint32_t> wa;
  double ca = 0;
  if (ta) {
    const TraceIndex& ia = s.pinned_index;
    ca = relative_cycle(s.cursor, s.index.first_cycle, s.index.last_cycle, ia.first_cycle,
                        ia.last_cycle);
    if (const int row = ia.row_of(a.sm, a.slot); row >= 0)
      wa = ia.access_near(*ta, size_t(row), ca);
  }
  if (wa && *wa < ta->accesses.size()) {
    const float half = std::floor((w - 14) * 0.5f);
    std::string params;
    for (const auto& [k, v] : s.pinned->params) params += (params.empty() ? "" : " ") + k + "=" + v;
    std::snprintf(buf, sizeof buf, "A, pinned (%s): cycle %.0f", params.c_str(), ca);
    dl->AddText(ImVec2(o.x, y), color::kCursor, buf);
    std::snprintf(buf, sizeof buf, "B, shown: cycle %.0f (the same fraction of its launch)",
                  s.cursor);
    dl->AddText(ImVec2(o.x + half + 14, y), color::kText, buf);
    y += 16;
    const float ya = draw_fanout(*ta, ta->accesses[*wa], ImVec2(o.x, y), half, ca);
    const float yb = draw_fanout(*t, a, ImVec2(o.x + half + 14, y), half, s.cursor);
    dl->AddLine(ImVec2(o.x + half + 7, y), ImVec2(o.x + half + 7, std::max(ya, yb)),
                IM_COL32(255, 255, 255, 40));
    y = std::max(ya, yb);
  } else {
    y = draw_fanout(*t, a, ImVec2(o.x, y), w, s.cursor);
  }
  ImGui::PopFont();
  ImGui::SetCursorScreenPos(ImVec2(o.x, y));
  ImGui::Dummy(ImVec2(w, 2));

  if (path.complete) {
    // Counts from the per-sector sources.
    std::snprintf(buf, sizeof buf, "L1 hit: %d", path.l1_sectors);
    legend_chip(color::kHit, buf);
    std::snprintf(buf, sizeof buf, "L2: %d", path.l2_sectors);
    legend_chip(color::kL2, buf);
    std::snprintf(buf, sizeof buf, "DRAM: %d sectors", path.dram_sectors);
    legend_chip(color::kDram, buf);
    legend_chip(kSectorUnused, "not needed");
    ImGui::NewLine();
  } else if (!is_shared(a.kind)) {
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
  if (path.complete)
    ImGui::TextWrapped(
        "Simulated: the model's lines and sectors, each coloured by where the model served it "
        "(an L1 hit includes joining a miss in flight in this SM's L1; DRAM, a DRAM fetch in "
        "flight at the L2). Lanes are drawn to the sector of their first byte (a misaligned lane "
        "also needs the next). Hover a line or lane for details.%s",
        is_store(a.kind)
            ? " Stores write through to the L2 (no L1 allocate; L1 copies invalidated)."
        : a.kind == timing::AccessRecord::Kind::Atomic
            ? " Atomics are done at the L2 (L1 copies invalidated)."
            : "");
  else
    ImGui::TextWrapped(
        "Simulated. The trace keeps counts per access, not each lane's address: sectors are drawn "
        "spread evenly over the lines, coloured in order L1, L2, DRAM.%s",
        is_store(a.kind) ? " Stores go through L1 to L2 (write-through, no L1 allocate)." : "");
  ImGui::PopStyleColor();
}

}  // namespace warplab::app
