// The shared-memory banks view (ui/app/model/bank_view.h): lanes to banks and exact wavefront
// counts for a row, a column, a padded column, a broadcast, a 2-way conflict and 8-byte loads.
#include <doctest/doctest.h>

#include <functional>

#include "ui/app/model/bank_view.h"

using namespace warplab;

namespace {

// A trace with one shared load whose lane L reads address addr(L) (lanes in `mask`).
timing::Trace shared_trace(const std::function<uint32_t(int)>& addr, uint32_t mask = 0xffffffffu,
                           uint32_t bytes = 4) {
  timing::Trace t;
  timing::AccessRecord a;
  a.kind = timing::AccessRecord::Kind::SharedLoad;
  a.exec_mask = mask;
  a.access_bytes = bytes;
  a.line_begin = 0;
  for (int lane = 0; lane < 32; ++lane)
    if (mask >> lane & 1u) t.shared_addresses.push_back(addr(lane));
  a.line_count = uint32_t(t.shared_addresses.size());
  t.accesses.push_back(a);
  return t;
}

app::BankView view(const timing::Trace& t) { return app::bank_view(t, t.accesses[0]); }

}  // namespace

TEST_CASE("713 bank view: a row, a column, a padded column") {
  // A row of floats: lane L in bank L, one wavefront.
  const auto row = view(shared_trace([](int l) { return uint32_t(l * 4); }));
  REQUIRE(row.complete);
  CHECK(row.wavefronts == 1);
  CHECK(row.bank_conflicts() == 0);
  for (int l = 0; l < 32; ++l) {
    CHECK(row.lanes[l].bank == l);
    CHECK(row.lanes[l].wavefront == 0);
  }
  // A column of a 32x32 float tile (tile[lane][0]): every lane in bank 0, 32 words, 32 passes.
  const auto col = view(shared_trace([](int l) { return uint32_t(l * 32 * 4); }));
  CHECK(col.wavefronts == 32);
  CHECK(col.bank_conflicts() == 31);
  REQUIRE(col.groups.size() == 1);
  CHECK(col.groups[0][0].size() == 32);
  CHECK(col.groups[0][1].empty());
  CHECK(col.lanes[7].bank == 0);
  CHECK(col.lanes[7].wavefront == 7);
  // Padded to 33 floats a row: lane L's word is 33 L, in bank L: one pass again.
  const auto pad = view(shared_trace([](int l) { return uint32_t(l * 33 * 4); }));
  CHECK(pad.wavefronts == 1);
  CHECK(pad.lanes[5].bank == 5);
  // Only 4 lanes active in the column: 4 passes.
  CHECK(view(shared_trace([](int l) { return uint32_t(l * 128); }, 0xfu)).wavefronts == 4);
}

TEST_CASE("713 bank view: broadcast, 2-way, 8-byte groups, incomplete data") {
  const auto same = view(shared_trace([](int) { return 256u; }));
  CHECK(same.wavefronts == 1);
  CHECK(same.groups[0][0] == std::vector<uint32_t>{64});
  // Stride 2 words: banks 0, 2, ..., 30 each hold two words: 2 passes.
  const auto two = view(shared_trace([](int l) { return uint32_t(l * 8); }));
  CHECK(two.wavefronts == 2);
  CHECK(two.bank_conflicts() == 1);
  CHECK(two.lanes[16].bank == 0);
  CHECK(two.lanes[16].wavefront == 1);
  CHECK(two.lanes[15].wavefront == 0);
  CHECK(two.groups[0][1].empty());
  // Consecutive doubles: two groups of 16 lanes, one pass each, no conflict.
  const auto dbl = view(shared_trace([](int l) { return uint32_t(l * 8); }, 0xffffffffu, 8));
  CHECK(dbl.wavefronts == 2);
  CHECK(dbl.ideal_wavefronts == 2);
  CHECK(dbl.groups.size() == 2);
  CHECK(dbl.lanes[16].group == 1);
  CHECK(dbl.lanes[16].wavefront == 1);
  // The trace without the lanes' addresses (an older trace, or a global access): not complete.
  timing::Trace t = shared_trace([](int l) { return uint32_t(l * 4); });
  t.accesses[0].line_count = 3;
  CHECK_FALSE(view(t).complete);
  t.accesses[0].kind = timing::AccessRecord::Kind::GlobalLoad;
  t.accesses[0].line_count = 32;
  CHECK_FALSE(view(t).complete);
}
