// The memory panel's lane -> line -> sector path (ui/app/model/access_path.h), decoded from real
// timing-model traces. The expected lines, lane masks and sectors come from address arithmetic
// here (128-byte lines of 32-byte sectors, lines in first-touch lane order), not from the model.
#include <doctest/doctest.h>

#include <cstring>
#include <vector>

#include "sim/func/executor.h"
#include "sim/ptx/parser.h"
#include "sim/timing/gpu_model.h"
#include "ui/app/model/access_path.h"

using namespace warplab;
using timing::AccessRecord;
using timing::SectorSource;

namespace {

// Lanes with tid < n read in[tid * stride bytes] twice (the second load waits for the first's
// data, so its sectors are in L1 by then) and write the sum to out[tid].
constexpr const char* kPath = R"(.version 9.0
.target sm_90
.address_size 64
.visible .entry path(.param .u64 in, .param .u64 out, .param .u32 stride, .param .u32 n)
{
  .reg .pred %p<2>;
  .reg .f32 %f<5>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<9>;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  ld.param.u32 %r1, [stride];
  ld.param.u32 %r2, [n];
  mov.u32 %r3, %tid.x;
  setp.ge.u32 %p1, %r3, %r2;
  @%p1 bra $L_end;
  cvta.to.global.u64 %rd3, %rd1;
  mul.wide.u32 %rd4, %r3, %r1;
  add.s64 %rd5, %rd3, %rd4;
  ld.global.f32 %f1, [%rd5];
  add.f32 %f2, %f1, %f1;
  ld.global.f32 %f3, [%rd5];
  add.f32 %f4, %f3, %f2;
  cvta.to.global.u64 %rd6, %rd2;
  mul.wide.u32 %rd7, %r3, 4;
  add.s64 %rd8, %rd6, %rd7;
  st.global.f32 [%rd8], %f4;
$L_end:
  ret;
}
)";

template <class T>
void put(std::vector<uint8_t>& p, T v) {
  const size_t at = (p.size() + sizeof(T) - 1) / sizeof(T) * sizeof(T);
  p.resize(at + sizeof(T));
  std::memcpy(p.data() + at, &v, sizeof(T));
}

struct Run {
  timing::Trace trace;
  uint64_t in = 0, out = 0;
};

// One warp of 32 threads; lanes below `n` access in + lane * stride.
Run run_path(uint32_t stride, uint32_t n) {
  auto m = ptx::parse_module(kPath, "706.ptx");
  REQUIRE_MESSAGE(m, (m ? "" : m.error().to_string()));
  auto prog = func::Program::load(std::move(*m));
  REQUIRE_MESSAGE(prog, (prog ? "" : prog.error().to_string()));
  timing::GpuConfig cfg;
  REQUIRE(cfg.l1.line_bytes == 128);
  REQUIRE(cfg.l1.sector_bytes == 32);
  func::DeviceMemory mem;
  Run r;
  r.in = mem.allocate("in", 32 * uint64_t(stride) + 4);
  r.out = mem.allocate("out", 32 * 4);
  func::LaunchConfig launch{"path", {1, 1, 1}, {32, 1, 1}, 0, {}};
  put(launch.params, r.in);
  put(launch.params, r.out);
  put(launch.params, stride);
  put(launch.params, n);
  timing::TimingOptions o;
  o.trace.enabled = true;
  auto res = timing::run_timing(*prog, mem, launch, cfg, o);
  REQUIRE_MESSAGE(res, (res ? "" : res.error().to_string()));
  REQUIRE_FALSE(res->fault);
  r.trace = std::move(res->trace);
  return r;
}

// The path expected for lanes < n each reading 4 bytes at base + lane * stride.
struct Want {
  std::vector<uint64_t> line_address;  // first-touch lane order
  std::vector<uint32_t> lane_mask;
  std::vector<uint8_t> sector_mask;
  int lane_line[32], lane_sector[32];
  int sectors = 0;
};
Want want(uint64_t base, uint32_t stride, uint32_t n) {
  Want e;
  for (int l = 0; l < 32; ++l) {
    e.lane_line[l] = e.lane_sector[l] = -1;
    if (uint32_t(l) >= n) continue;
    const uint64_t addr = base + uint64_t(l) * stride;
    const uint64_t line = addr / 128 * 128;
    size_t i = 0;
    while (i < e.line_address.size() && e.line_address[i] != line) ++i;
    if (i == e.line_address.size()) {
      e.line_address.push_back(line);
      e.lane_mask.push_back(0);
      e.sector_mask.push_back(0);
    }
    e.lane_line[l] = static_cast<int>(i);
    e.lane_sector[l] = static_cast<int>(addr % 128 / 32);
    e.lane_mask[i] |= 1u << l;
    e.sector_mask[i] |= uint8_t(1u << e.lane_sector[l]);
  }
  for (uint8_t m : e.sector_mask)
    for (int s = 0; s < 4; ++s) e.sectors += (m >> s) & 1;
  return e;
}

void check_path(const app::AccessPath& p, const Want& e, SectorSource served) {
  REQUIRE(p.complete);
  REQUIRE(p.lines.size() == e.line_address.size());
  for (size_t i = 0; i < p.lines.size(); ++i) {
    CAPTURE(i);
    CHECK(p.lines[i].address == e.line_address[i]);
    CHECK(p.lines[i].lane_mask == e.lane_mask[i]);
    CHECK(p.lines[i].sector_mask == e.sector_mask[i]);
    for (int s = 0; s < 4; ++s)
      CHECK(p.lines[i].source[s] == (p.lines[i].needed(s) ? served : SectorSource::None));
  }
  for (int l = 0; l < 32; ++l) {
    CAPTURE(l);
    CHECK(p.lanes[l].active == (e.lane_line[l] >= 0));
    CHECK(p.lanes[l].line == e.lane_line[l]);
    CHECK(p.lanes[l].sector == e.lane_sector[l]);
  }
  CHECK(p.sectors == e.sectors);
  CHECK(p.l1_sectors == (served == SectorSource::L1 ? e.sectors : 0));
  CHECK(p.l2_sectors == (served == SectorSource::L2 ? e.sectors : 0));
  CHECK(p.dram_sectors == (served == SectorSource::Dram ? e.sectors : 0));
}

// The per-sector data agrees with the record's own counts.
void check_counts(const app::AccessPath& p, const AccessRecord& a) {
  CHECK(int(p.lines.size()) == a.lines);
  CHECK(p.sectors == a.sectors);
  if (a.kind == AccessRecord::Kind::GlobalLoad) {
    CHECK(p.l1_sectors == a.l1_hit_sectors);
    CHECK(p.dram_sectors == a.dram_sectors);
  }
}

}  // namespace

TEST_CASE("706 coalesced f32 loads: 32 lanes fan into 4 sectors of one line; DRAM, then L1") {
  const Run r = run_path(4, 32);
  const timing::Trace& t = r.trace;
  REQUIRE(t.accesses.size() == 3);  // load, load, store
  const Want e = want(r.in, 4, 32);
  REQUIRE(e.line_address.size() == 1);  // the buffer is 256-byte aligned
  CHECK(e.sector_mask[0] == 0xf);
  CHECK(e.lane_sector[9] == 1);  // lane L: sector L / 8
  // First load: cold, every sector from DRAM.
  const app::AccessPath first = app::access_path(t, t.accesses[0]);
  check_path(first, e, SectorSource::Dram);
  check_counts(first, t.accesses[0]);
  CHECK(first.lanes_into(0, 0) == 8);
  // Second load of the same addresses after the data came back: every sector an L1 hit.
  const app::AccessPath second = app::access_path(t, t.accesses[1]);
  check_path(second, e, SectorSource::L1);
  check_counts(second, t.accesses[1]);
  // The store of out[tid]: written through into the L2.
  REQUIRE(t.accesses[2].kind == AccessRecord::Kind::GlobalStore);
  const app::AccessPath st = app::access_path(t, t.accesses[2]);
  check_path(st, want(r.out, 4, 32), SectorSource::L2);
  check_counts(st, t.accesses[2]);
}

TEST_CASE("706 stride-2 f32 loads: lane L at byte 8L, 2 lines of 4 sectors, 4 lanes a sector") {
  const Run r = run_path(8, 32);
  const timing::Trace& t = r.trace;
  REQUIRE(t.accesses.size() == 3);
  const Want e = want(r.in, 8, 32);
  REQUIRE(e.line_address.size() == 2);
  CHECK(e.lane_mask[0] == 0x0000ffffu);
  CHECK(e.lane_line[17] == 1);
  CHECK(e.lane_sector[17] == 0);  // byte 136: line 1, sector (136 % 128) / 32
  const app::AccessPath p = app::access_path(t, t.accesses[0]);
  check_path(p, e, SectorSource::Dram);
  check_counts(p, t.accesses[0]);
  CHECK(p.lanes_into(1, 3) == 4);
  check_path(app::access_path(t, t.accesses[1]), e, SectorSource::L1);
}

TEST_CASE("706 stride of 128 bytes: every lane into a line of its own, sector 0") {
  const Run r = run_path(128, 32);
  const timing::Trace& t = r.trace;
  REQUIRE(t.accesses.size() == 3);
  const Want e = want(r.in, 128, 32);
  REQUIRE(e.line_address.size() == 32);
  const app::AccessPath p = app::access_path(t, t.accesses[0]);
  check_path(p, e, SectorSource::Dram);
  check_counts(p, t.accesses[0]);
  for (int l = 0; l < 32; ++l) CHECK(p.lines[l].lane_mask == 1u << l);
}

TEST_CASE("706 a partial warp (tid < 20): inactive lanes map nowhere; 3 sectors of one line") {
  const Run r = run_path(4, 20);
  const timing::Trace& t = r.trace;
  REQUIRE(t.accesses.size() == 3);
  CHECK(t.accesses[0].exec_mask == 0x000fffffu);
  const Want e = want(r.in, 4, 20);
  REQUIRE(e.line_address.size() == 1);
  CHECK(e.sector_mask[0] == 0x7);  // bytes 0..79: sectors 0, 1, 2
  const app::AccessPath p = app::access_path(t, t.accesses[0]);
  check_path(p, e, SectorSource::Dram);
  check_counts(p, t.accesses[0]);
  CHECK(p.lanes_into(0, 2) == 4);  // lanes 16..19
  CHECK(p.lines[0].source[3] == SectorSource::None);
  check_path(app::access_path(t, t.accesses[1]), e, SectorSource::L1);
}

TEST_CASE("706 hand-built traces: a decoded slice; no lines or a bad slice is not complete") {
  timing::Trace t;
  timing::AccessLine l0, l1;
  l0.address = 0x1000;
  l0.lane_mask = 0b0011;
  l0.sector_mask = 0b0100;
  l0.sources = uint8_t(uint8_t(SectorSource::L2) << 4);
  l1.address = 0x2080;
  l1.lane_mask = 0b1100;
  l1.sector_mask = 0b1001;
  l1.sources = uint8_t(uint8_t(SectorSource::L1) | uint8_t(SectorSource::Dram) << 6);
  t.access_lines = {timing::AccessLine{}, l0, l1};
  AccessRecord a;
  a.kind = AccessRecord::Kind::GlobalLoad;
  a.exec_mask = 0b1111;
  a.line_begin = 1;
  a.line_count = 2;
  a.lane_sectors = 2u | 2u << 2 | 3u << 4 | 0u << 6;  // lanes 0, 1: sector 2; 2: 3; 3: 0
  const app::AccessPath p = app::access_path(t, a);
  REQUIRE(p.complete);
  REQUIRE(p.lines.size() == 2);
  CHECK(p.lines[1].address == 0x2080);
  CHECK(p.lines[1].sectors_needed == 2);
  CHECK(p.lines[1].source[0] == SectorSource::L1);
  CHECK(p.lines[1].source[3] == SectorSource::Dram);
  CHECK(p.lanes[1].line == 0);
  CHECK(p.lanes[1].sector == 2);
  CHECK(p.lanes[2].line == 1);
  CHECK(p.lanes[2].sector == 3);
  CHECK(p.lanes[4].line == -1);
  CHECK_FALSE(p.lanes[4].active);
  CHECK(p.l1_sectors == 1);
  CHECK(p.l2_sectors == 1);
  CHECK(p.dram_sectors == 1);

  AccessRecord none = a;  // a trace from before the per-line data: counts only
  none.line_count = 0;
  const app::AccessPath q = app::access_path(t, none);
  CHECK_FALSE(q.complete);
  CHECK(q.lines.empty());
  CHECK(q.lanes[0].active);
  CHECK(q.lanes[0].line == -1);

  AccessRecord past = a;  // a slice past the end (a truncated trace)
  past.line_begin = 2;
  CHECK_FALSE(app::access_path(t, past).complete);

  AccessRecord shared = a;  // shared memory: banks, not lines
  shared.kind = AccessRecord::Kind::SharedLoad;
  CHECK_FALSE(app::access_path(t, shared).complete);

  AccessRecord stray = a;  // an active lane in no line
  stray.exec_mask = 0b11111;
  const app::AccessPath s = app::access_path(t, stray);
  CHECK_FALSE(s.complete);
  CHECK(s.lines.empty());
  CHECK(s.sectors == 0);
}

TEST_CASE("706 a lane straddling two lines maps to the lower one, its first byte's") {
  // Lane 0 reads 8 bytes at 0x1080; lane 1 reads 8 bytes at 0x107c, straddling 0x1000 and 0x1080.
  // First-touch order puts 0x1080 (lane 0) first, though lane 1's first byte is in 0x1000.
  timing::Trace t;
  timing::AccessLine upper, lower;
  upper.address = 0x1080;
  upper.lane_mask = 0b11;
  upper.sector_mask = 0b0001;
  upper.sources = uint8_t(SectorSource::L2);
  lower.address = 0x1000;
  lower.lane_mask = 0b10;
  lower.sector_mask = 0b1000;
  lower.sources = uint8_t(uint8_t(SectorSource::L2) << 6);
  t.access_lines = {upper, lower};
  AccessRecord a;
  a.exec_mask = 0b11;
  a.access_bytes = 8;
  a.line_count = 2;
  a.lane_sectors = uint64_t(0x107c % 128 / 32) << 2;  // lane 0: sector 0; lane 1: sector 3
  const app::AccessPath p = app::access_path(t, a);
  REQUIRE(p.complete);
  CHECK(p.lanes[0].line == 0);
  CHECK(p.lanes[0].sector == 0);
  CHECK(p.lanes[1].line == 1);
  CHECK(p.lanes[1].sector == 3);
  CHECK(p.sectors == 2);
  CHECK(p.l2_sectors == 2);
}
