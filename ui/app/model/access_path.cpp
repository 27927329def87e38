#include "ui/app/model/access_path.h"

#include <bit>

namespace warplab::app {

namespace {
bool is_shared(timing::AccessRecord::Kind k) {
  return k == timing::AccessRecord::Kind::SharedLoad ||
         k == timing::AccessRecord::Kind::SharedStore;
}
}  // namespace

int AccessPath::lanes_into(int line, int s) const {
  int n = 0;
  for (const Lane& l : lanes) n += l.active && l.line == line && l.sector == s;
  return n;
}

AccessPath access_path(const timing::Trace& t, const timing::AccessRecord& a) {
  AccessPath p;
  for (int l = 0; l < 32; ++l) p.lanes[l].active = (a.exec_mask >> l) & 1u;
  // Shared memory is banked, not cached in lines; old or truncated traces have no slice.
  if (is_shared(a.kind) || a.line_count == 0 ||
      uint64_t(a.line_begin) + a.line_count > t.access_lines.size())
    return p;
  auto fail = [&p]() {
    p.lines.clear();
    p.sectors = p.l1_sectors = p.l2_sectors = p.dram_sectors = 0;
    for (AccessPath::Lane& l : p.lanes) l.line = l.sector = -1;
    return p;
  };
  p.lines.reserve(a.line_count);
  for (uint32_t i = 0; i < a.line_count; ++i) {
    const timing::AccessLine& src = t.access_lines[a.line_begin + i];
    // Only 4 sectors per line fit the trace's 2-bit sector indices and 8-bit source field.
    if (src.sector_mask >> AccessPath::kSectorsPerLine) return fail();
    AccessPath::Line line;
    line.address = src.address;
    line.lane_mask = src.lane_mask;
    line.sector_mask = src.sector_mask;
    line.sectors_needed = std::popcount(static_cast<unsigned>(src.sector_mask));
    for (int s = 0; s < AccessPath::kSectorsPerLine; ++s) {
      line.source[s] = line.needed(s) ? src.source(s) : timing::SectorSource::None;
      if (!line.needed(s)) continue;
      ++p.sectors;
      switch (line.source[s]) {
        case timing::SectorSource::L1:
          ++p.l1_sectors;
          break;
        case timing::SectorSource::L2:
          ++p.l2_sectors;
          break;
        case timing::SectorSource::Dram:
          ++p.dram_sectors;
          break;
        case timing::SectorSource::None:
          break;
      }
    }
    p.lines.push_back(line);
  }
  // Lane L: the line of its first byte, at the sector of that byte. Only a lane straddling two
  // lines has bit L in more than one; its first byte is in the lower one. (Usually also the
  // first in the coalescer's first-touch order, but not when an earlier lane opened the upper
  // line. Natural alignment, which the functional model enforces, means no lane straddles.)
  for (int l = 0; l < 32; ++l) {
    AccessPath::Lane& lane = p.lanes[l];
    if (!lane.active) continue;
    for (size_t i = 0; i < p.lines.size(); ++i)
      if (((p.lines[i].lane_mask >> l) & 1u) &&
          (lane.line < 0 || p.lines[i].address < p.lines[lane.line].address))
        lane.line = static_cast<int>(i);
    lane.sector = static_cast<int>((a.lane_sectors >> (2 * l)) & 3u);
    if (lane.line < 0 || !p.lines[lane.line].needed(lane.sector)) return fail();
  }
  p.complete = true;
  return p;
}

const char* sector_source_name(timing::SectorSource s) {
  switch (s) {
    case timing::SectorSource::L1:
      return "L1 hit";
    case timing::SectorSource::L2:
      return "L2";
    case timing::SectorSource::Dram:
      return "DRAM";
    case timing::SectorSource::None:
      break;
  }
  return "not needed";
}

}  // namespace warplab::app
