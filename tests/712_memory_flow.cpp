// Memory traffic over time (ui/app/model/memory_flow.h) on a hand-built trace: what is in flight
// on each link at a cycle and the bytes each link delivered over a window, exactly.
#include <doctest/doctest.h>

#include "ui/app/model/memory_flow.h"

using namespace warplab;
using Kind = timing::AccessRecord::Kind;

namespace {

timing::AccessRecord access(Kind k, uint32_t mask, uint64_t issue, uint64_t tag, uint64_t ready,
                            int sectors, int hit, int miss, int dram) {
  timing::AccessRecord a;
  a.kind = k;
  a.exec_mask = mask;
  a.access_bytes = 4;
  a.issue = issue;
  a.tag_stage = tag;
  a.ready = ready;
  a.sectors = sectors;
  a.l1_hit_sectors = hit;
  a.l1_miss_sectors = miss;
  a.dram_sectors = dram;
  return a;
}

timing::Trace flow_trace() {
  timing::Trace t;
  t.clock_mhz = 1000;  // 1 byte per cycle = 1 GB/s
  // A0: a coalesced load, 4 sectors, all from DRAM. A1: a strided load, 32 sectors: 8 L1 hits,
  // 8 from the L2, 16 from DRAM. A2: a store of 16 lanes (2 sectors). A3: shared (not on these
  // links).
  t.accesses.push_back(access(Kind::GlobalLoad, 0xffffffffu, 0, 10, 110, 4, 0, 4, 4));
  t.accesses.push_back(access(Kind::GlobalLoad, 0xffffffffu, 5, 40, 240, 32, 8, 24, 16));
  t.accesses.push_back(access(Kind::GlobalStore, 0x0000ffffu, 20, 20, 60, 2, 0, 0, 0));
  t.accesses.push_back(access(Kind::SharedLoad, 0xffffffffu, 25, 25, 55, 0, 0, 0, 0));
  for (uint64_t c : {100, 200, 300}) {
    timing::CounterSample s;
    s.cycle = c;
    s.dram_bytes = c == 100 ? 1000 : c == 200 ? 3000 : 500;
    t.counters.push_back(s);
  }
  return t;
}

}  // namespace

TEST_CASE("712 memory flow: in flight on each link at a cycle") {
  const timing::Trace t = flow_trace();
  const app::FlowIndex ix = app::build_flow_index(t);
  CHECK(ix.by_issue == std::vector<uint32_t>{0, 1, 2});  // the shared access is not on the path
  CHECK(ix.longest == 235);
  CHECK(ix.first_cycle == 0);
  CHECK(ix.last_cycle == 240);

  const app::FlowState a = ix.at(t, 30);
  CHECK(a.accesses == std::array<int, 3>{1, 1, 1});
  CHECK(a.sectors == std::array<int, 3>{32, 2, 4});  // A1 queued; A2 to the L2; A0 in DRAM
  CHECK(a.l1_hit_sectors == 0);
  REQUIRE(a.items.size() == 3);
  CHECK(a.items[0].access == 0);
  CHECK(a.items[0].stage == app::FlowItem::Stage::BelowL1);
  CHECK(a.items[0].progress == doctest::Approx(0.2));
  CHECK(a.items[1].stage == app::FlowItem::Stage::ToL1);
  CHECK(a.items[1].progress == doctest::Approx(25.0 / 35.0));
  CHECK(a.items[2].store);
  CHECK(a.items[2].from_l2 == 2);

  const app::FlowState b = ix.at(t, 50);
  CHECK(b.accesses == std::array<int, 3>{0, 2, 2});  // A1 and the store; A0 and A1
  CHECK(b.sectors == std::array<int, 3>{0, 10, 20});
  CHECK(b.l1_hit_sectors == 8);

  const app::FlowState c = ix.at(t, 110);  // A0's data is back at 110, A2 completed at 60
  REQUIRE(c.items.size() == 1);
  CHECK(c.items[0].access == 1);
  CHECK(ix.at(t, 240).items.empty());
  CHECK(ix.at(t, 30, 2).items.size() == 2);  // capped, the counts are not
  CHECK(ix.at(t, 30, 2).sectors[0] == 32);
  // A strided miss whose L2 fetched sector pairs: 1 sector asked for, 2 moved by DRAM.
  timing::Trace pair;
  pair.accesses.push_back(access(Kind::GlobalLoad, 1u, 0, 4, 500, 1, 0, 1, 2));
  const app::FlowState p = app::build_flow_index(pair).at(pair, 100);
  CHECK(p.sectors == std::array<int, 3>{0, 0, 2});
  REQUIRE(p.items.size() == 1);
  CHECK(p.items[0].from_dram == 1);
  CHECK(p.items[0].from_l2 == 0);
  CHECK(p.items[0].dram_fetched == 2);
  // Over the launch, 5 samples at cycles 0, 60, 120, 180, 240.
  const auto occ = ix.occupancy(t, 5);
  CHECK(occ[0] == std::vector<int>{4, 0, 0, 0, 0});  // A0 queued before the L1 at cycle 0
  CHECK(occ[1] == std::vector<int>{0, 8, 8, 8, 0});  // A1's L2 sectors; A2 done at 60
  CHECK(occ[2] == std::vector<int>{0, 20, 16, 16, 0});
  CHECK(ix.occupancy(t, 1)[0].empty());
}

TEST_CASE("712 memory flow: bytes delivered per link over a window, and GB/s") {
  const timing::Trace t = flow_trace();
  const app::FlowIndex ix = app::build_flow_index(t);
  // Each access's bytes spread over [tag stage, data back): A0 128 B a link over [10, 110),
  // A1 1024 / 768 / 512 B over [40, 240), the store A2 64 / 64 / 0 B over [20, 60).
  using A3 = std::array<double, 3>;
  auto near = [](const A3& x, const A3& y) {
    for (int k = 0; k < 3; ++k)
      if (x[k] != doctest::Approx(y[k])) return false;
    return true;
  };
  // [0, 120): all of A0 and A2, 80 of A1's 200 cycles.
  const app::FlowRates r = ix.rates(t, 0, 120);
  CHECK(near(r.bytes, A3{128 + 409.6 + 64, 128 + 307.2 + 64, 128 + 204.8}));
  CHECK(r.useful_bytes == doctest::Approx(128 + 51.2 + 64));  // 32 lanes x 4, 32 x 4, 16 x 4
  CHECK(r.moved_bytes == doctest::Approx(601.6));
  CHECK(r.gpu_dram_bytes == 1000);  // the sample [0, 100)
  CHECK(r.gpu_begin == 0);
  CHECK(r.gpu_end == 100);
  // [100, 300): 10 of A0's 100 cycles and 140 of A1's 200; the strided load moves 1024 bytes
  // for 128 useful ones.
  const app::FlowRates s = ix.rates(t, 100, 300);
  CHECK(near(s.bytes, A3{12.8 + 716.8, 12.8 + 537.6, 12.8 + 358.4}));
  CHECK(s.useful_bytes == doctest::Approx(12.8 + 89.6));
  CHECK(s.moved_bytes == doctest::Approx(729.6));
  CHECK(s.gpu_dram_bytes == 3500);
  CHECK(app::flow_gbps(s.bytes[0], 200, t.clock_mhz) == doctest::Approx(3.648));
  // By the end every byte is delivered, once.
  const app::FlowRates all = ix.rates(t, 0, 1000);
  CHECK(near(all.bytes, A3{1216, 960, 640}));
  CHECK(all.useful_bytes == doctest::Approx(320));
  // A window shorter than a sample: no GPU-wide figure rather than a wrong one.
  const app::FlowRates w = ix.rates(t, 150, 180);
  CHECK(w.gpu_dram_bytes == 0);
  CHECK(w.gpu_end == 0);
  CHECK(near(w.bytes, A3{153.6, 115.2, 76.8}));
  CHECK(app::flow_gbps(100, 0, 1000) == 0);
  // An access whose data is back at its tag stage counts whole at that cycle.
  timing::Trace u = flow_trace();
  u.accesses[2].ready = u.accesses[2].tag_stage;  // the store: 64 B at cycle 20
  const app::FlowIndex iu = app::build_flow_index(u);
  CHECK(iu.rates(u, 0, 20).bytes[0] == doctest::Approx(128 * 0.1 + 0));
  CHECK(iu.rates(u, 20, 21).bytes[0] == doctest::Approx(64 + 1.28));
}
