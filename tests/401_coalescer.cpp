// Coalescer: warp accesses -> lines and 32-byte sectors (sim/timing/coalescer.h).
#include <doctest/doctest.h>

#include <random>
#include <string>
#include <vector>

#include "sim/timing/coalescer.h"

using namespace warplab::timing;

namespace {
std::array<uint64_t, 32> strided(uint64_t base, uint64_t stride_bytes) {
  std::array<uint64_t, 32> a{};
  for (int l = 0; l < 32; ++l) a[l] = base + l * stride_bytes;
  return a;
}
}  // namespace

TEST_CASE("401 a fully coalesced f32 warp load is 1 line and 4 sectors") {
  CoalescedAccess c;
  coalesce(strided(0x7f0000000000ull, 4), 0xffffffffu, 4, 128, 32, c);
  CHECK(c.line_count == 1);
  CHECK(c.sectors == 4);
  CHECK(c.lines[0].sector_mask == 0xfu);
  CHECK(c.lines[0].lane_mask == 0xffffffffu);
}

TEST_CASE("401 a stride-32 f32 warp load is 32 lines and 32 sectors") {
  CoalescedAccess c;
  coalesce(strided(0x7f0000000000ull, 128), 0xffffffffu, 4, 128, 32, c);
  CHECK(c.line_count == 32);
  CHECK(c.sectors == 32);
}

TEST_CASE("401 strides 2, 4 and 8 floats touch 8, 16 and 32 sectors") {
  CoalescedAccess c;
  coalesce(strided(0x1000, 8), 0xffffffffu, 4, 128, 32, c);
  CHECK(c.sectors == 8);
  coalesce(strided(0x1000, 16), 0xffffffffu, 4, 128, 32, c);
  CHECK(c.sectors == 16);
  coalesce(strided(0x1000, 32), 0xffffffffu, 4, 128, 32, c);
  CHECK(c.sectors == 32);
  CHECK(c.line_count == 8);
}

TEST_CASE("401 ld.v4.f32 by a warp: 4 lines, 16 sectors; inactive lanes cost nothing") {
  CoalescedAccess c;
  coalesce(strided(0x2000, 16), 0xffffffffu, 16, 128, 32, c);
  CHECK(c.line_count == 4);
  CHECK(c.sectors == 16);
  coalesce(strided(0x2000, 4), 0x1u, 4, 128, 32, c);
  CHECK(c.sectors == 1);
  coalesce(strided(0x2000, 4), 0u, 4, 128, 32, c);
  CHECK(c.sectors == 0);
  CHECK(c.line_count == 0);
}

TEST_CASE("401 a misaligned 8-byte access straddling a line touches two lines") {
  std::array<uint64_t, 32> a{};
  a[0] = 124;
  CoalescedAccess c;
  coalesce(a, 1u, 8, 128, 32, c);
  CHECK(c.line_count == 2);
  CHECK(c.lines[0].sector_mask == 0x8u);
  CHECK(c.lines[1].sector_mask == 0x1u);
}

TEST_CASE("401 all lanes on one address: one sector (broadcast)") {
  std::array<uint64_t, 32> a{};
  a.fill(0x4000);
  CoalescedAccess c;
  coalesce(a, 0xffffffffu, 4, 128, 32, c);
  CHECK(c.sectors == 1);
}

// A byte-by-byte reference: which bytes of each line the lanes touch, then every field of
// LineRequest from those bytes (lines in first-touch lane order).
namespace {
CoalescedAccess reference(const std::array<uint64_t, 32>& addr, uint32_t exec, uint32_t bytes,
                          uint32_t line_bytes, uint32_t sector_bytes) {
  CoalescedAccess c;
  std::vector<std::vector<bool>> touched;
  for (int lane = 0; lane < 32; ++lane) {
    if (!(exec >> lane & 1u)) continue;
    for (uint64_t b = addr[lane]; b < addr[lane] + bytes; ++b) {
      const uint64_t line = b / line_bytes;
      int i = 0;
      while (i < c.line_count && c.lines[i].line != line) ++i;
      if (i == c.line_count) {
        c.lines[c.line_count++] = LineRequest{line, 0, 0, 0, 0};
        touched.emplace_back(line_bytes, false);
      }
      touched[i][b % line_bytes] = true;
      c.lines[i].lane_mask |= 1u << lane;
      c.lines[i].sector_mask |= 1u << (b % line_bytes / sector_bytes);
    }
  }
  for (int i = 0; i < c.line_count; ++i) {
    LineRequest& r = c.lines[i];
    auto whole = [&](uint32_t from, uint32_t n) {
      for (uint32_t b = from; b < from + n; ++b)
        if (!touched[i][b]) return false;
      return true;
    };
    for (uint32_t s = 0; s < line_bytes / sector_bytes; ++s)
      if (whole(s * sector_bytes, sector_bytes)) r.full_mask |= 1u << s;
    for (uint32_t w = 0; w < 32; ++w)
      if (whole(w * (line_bytes / 32), line_bytes / 32)) r.word_mask |= 1u << w;
    c.sectors += __builtin_popcount(r.sector_mask);
  }
  return c;
}

// coalesce() against the reference: "" when every field of every line request is the same, else
// the first that differs.
std::string differs_from_reference(const std::array<uint64_t, 32>& a, uint32_t exec,
                                   uint32_t bytes, uint32_t line_bytes) {
  CoalescedAccess got;
  coalesce(a, exec, bytes, line_bytes, 32, got);
  const CoalescedAccess want = reference(a, exec, bytes, line_bytes, 32);
  auto say = [](const char* what, int line, uint64_t g, uint64_t w) {
    return std::string(what) + " of line request " + std::to_string(line) + ": " +
           std::to_string(g) + ", expected " + std::to_string(w);
  };
  if (got.line_count != want.line_count) return say("count", -1, got.line_count, want.line_count);
  if (got.sectors != want.sectors) return say("sectors", -1, got.sectors, want.sectors);
  for (int i = 0; i < want.line_count; ++i) {
    const LineRequest &g = got.lines[i], &w = want.lines[i];
    if (g.line != w.line) return say("line", i, g.line, w.line);
    if (g.lane_mask != w.lane_mask) return say("lane_mask", i, g.lane_mask, w.lane_mask);
    if (g.sector_mask != w.sector_mask) return say("sector_mask", i, g.sector_mask, w.sector_mask);
    if (g.full_mask != w.full_mask) return say("full_mask", i, g.full_mask, w.full_mask);
    if (g.word_mask != w.word_mask) return say("word_mask", i, g.word_mask, w.word_mask);
  }
  return "";
}
}  // namespace

TEST_CASE("401 a warp's contiguous run: lines, lanes, sectors, whole sectors and words") {
  // Every element size and start offset within two lines, lines of 32 to 128 bytes (longer
  // lines count every sector as whole: the other case below); a full warp (the run's own
  // path) and one without lane 0 (the per-lane path).
  for (uint32_t exec : {0xffffffffu, 0xfffffffeu})
    for (uint32_t line_bytes : {32u, 64u, 128u})
      for (uint32_t bytes : {1u, 2u, 4u, 8u, 16u})
        for (uint64_t start = 0; start < 2 * line_bytes; ++start) {
          CAPTURE(line_bytes);
          CAPTURE(bytes);
          CAPTURE(start);
          CAPTURE(exec);
          const std::string diff =
              differs_from_reference(strided(0x10000 + start, bytes), exec, bytes, line_bytes);
          CHECK_MESSAGE(diff.empty(), diff);
        }
  // 256-byte lines: sectors count as whole and every word as written.
  CoalescedAccess c;
  coalesce(strided(0x10004, 4), 0xffffffffu, 4, 256, 32, c);
  REQUIRE(c.line_count == 1);
  CHECK(c.lines[0].sector_mask == 0x1fu);
  CHECK(c.lines[0].full_mask == 0x1fu);
  CHECK(c.lines[0].word_mask == ~0u);
}

TEST_CASE("401 lanes in runs (tile rows, partial warps, repeats, gaps) match the byte reference") {
  // Warps made of pieces: rows of consecutive lanes at consecutive addresses (the runs the
  // coalescer takes together), rows starting anywhere (straddling lines), repeated rows (a
  // broadcast), single lanes, descending addresses; any exec mask; lines of 32 to 128 bytes.
  std::mt19937_64 rng(401);
  auto pick = [&](uint64_t n) { return static_cast<uint64_t>(rng() % n); };
  int runs_seen = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    const uint32_t line_bytes = 32u << pick(3);
    const uint32_t bytes = 1u << pick(5);
    std::array<uint64_t, 32> a{};
    for (int l = 0; l < 32;) {
      const int len = 1 + static_cast<int>(pick(pick(2) ? 32 : 4));
      const uint64_t start = 0x40000 + pick(4096) * (pick(3) ? bytes : 1);
      const int kind = static_cast<int>(pick(4));  // 0, 1: ascending run; 2: repeat; 3: descending
      for (int k = 0; k < len && l < 32; ++k, ++l)
        a[l] = kind == 2 ? start : kind == 3 ? start + 4096 - k * bytes : start + k * bytes;
    }
    const uint32_t exec = pick(3) ? static_cast<uint32_t>(rng()) : pick(2) ? ~0u : ~0u << pick(32);
    for (int l = 0; l + 1 < 32; ++l)
      runs_seen += (exec >> l & 3u) == 3u && a[l + 1] == a[l] + bytes;
    CAPTURE(trial);
    CAPTURE(line_bytes);
    CAPTURE(bytes);
    CAPTURE(exec);
    const std::string diff = differs_from_reference(a, exec, bytes, line_bytes);
    REQUIRE_MESSAGE(diff.empty(), diff);  // (the first trial that differs stops the case)
  }
  CHECK(runs_seen > 100000);  // the pieces did make runs of neighbouring lanes
}
