// The app's code view numbers (ui/app/model/code_profile.h), the memory flow's link use
// (memory_flow.h link_use) and the A/B difference line (run_compare.h), on hand-built inputs
// whose answers are worked out here.
#include <doctest/doctest.h>

#include "ui/app/model/code_profile.h"
#include "ui/app/model/memory_flow.h"
#include "ui/app/model/run_compare.h"

using namespace warplab;
using namespace warplab::app;

TEST_CASE("718 link use: each link against its modelled capacity, the busiest named") {
  LinkCapacities caps;
  caps.tag_lines_per_cycle = 1;      // one 128-byte line looked up per cycle
  caps.bytes_per_cycle = {128, 3072, 1600};  // L2: 96 slices x 32 B; DRAM
  FlowRates r;
  r.begin = 1000;
  r.end = 2000;  // 1000 cycles
  r.tag_lines = 950;               // 950 of 1000 lookups: 95%
  r.bytes = {30400, 7680, 16000};  // L2 share with 4 SMs: 768 B/cycle -> 1%; DRAM 400 -> 4%
  const LinkUse u = link_use(r, caps, 4);
  CHECK(u.fraction[0] == doctest::Approx(0.95));
  CHECK(u.fraction[1] == doctest::Approx(0.01));
  CHECK(u.fraction[2] == doctest::Approx(0.04));
  CHECK(u.busiest == 0);
  // One SM alone has the whole L2 and DRAM: the same bytes are 4x less of it.
  CHECK(link_use(r, caps, 1).fraction[2] == doctest::Approx(0.01));
  // An empty window uses nothing.
  FlowRates empty;
  CHECK(link_use(empty, caps, 4).fraction[1] == 0);
}

TEST_CASE("718 link capacities from a preset") {
  timing::GpuConfig c;  // the defaults are the H100 preset's
  c.l1.tag_lookups_per_cycle = 1;
  c.l1.line_bytes = 128;
  c.l2.slices = 96;
  c.l2.sectors_per_cycle_per_slice = 1.0;
  const LinkCapacities k = link_capacities(c);
  CHECK(k.tag_lines_per_cycle == 1);
  CHECK(k.bytes_per_cycle[0] == 128);
  CHECK(k.bytes_per_cycle[1] == 96 * 32);
  CHECK(k.bytes_per_cycle[2] == doctest::Approx(c.peak_dram_bytes_per_cycle()));
}
