// Asynchronous copies and mbarriers, functionally: cp.async (4/8/16 bytes, src-size and
// ignore-src zero fill, groups), cp.async.mbarrier.arrive, the mbarrier rules, elect.sync,
// cp.async.bulk both ways, and what a kernel that forgets to wait reads. The kernels are in
// 24x_async_ptx.h; every expected value is computed here in C++.
#include "21x_sim.h"
#include "24x_async_ptx.h"

using namespace warplab;
using warplab::test::kAsyncPtx;
using warplab::test::Sim;

namespace {
std::vector<uint8_t> bytes_0_to(size_t n) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(i * 7 + 3);
  return v;
}
}  // namespace

TEST_CASE("246 cp.async: 16/8/4-byte copies, src-size and ignore-src fill with zeros") {
  Sim s(kAsyncPtx, "async.ptx");
  const std::vector<uint8_t> src = bytes_0_to(896);
  const uint64_t S = s.buffer("src", src), O = s.zeros<uint8_t>("out", 896);
  auto r = s.run("cp_sizes", {1, 1, 1}, {32, 1, 1}, {S, O});
  REQUIRE_MESSAGE(!r.fault, (r.fault ? r.fault->message : ""));
  const auto out = s.read<uint8_t>(O, 896);
  for (int l = 0; l < 32; ++l) {
    const int keep = l % 17;  // src-size
    for (int b = 0; b < 16; ++b) REQUIRE(out[16 * l + b] == (b < keep ? src[16 * l + b] : 0));
    for (int b = 0; b < 8; ++b)  // ignore-src on odd lanes
      REQUIRE(out[512 + 8 * l + b] == (l % 2 ? 0 : src[512 + 8 * l + b]));
    for (int b = 0; b < 4; ++b) REQUIRE(out[768 + 4 * l + b] == src[768 + 4 * l + b]);
  }
}

TEST_CASE("246 cp.async: bytes land at wait_group; before it the old contents are read") {
  Sim s(kAsyncPtx, "async.ptx");
  std::vector<uint32_t> src(64);
  for (uint32_t i = 0; i < 64; ++i) src[i] = 0x100 + i * 5;
  const uint64_t S = s.buffer("src", src), O = s.zeros<uint32_t>("out", 192);
  auto r = s.run("groups", {1, 1, 1}, {32, 1, 1}, {S, O});
  REQUIRE(!r.fault);
  const auto out = s.read<uint32_t>(O, 192);
  for (int l = 0; l < 32; ++l) {
    CHECK(out[l] == 0);             // X before any wait
    CHECK(out[32 + l] == 0);        // Y before any wait
    CHECK(out[64 + l] == src[l]);   // wait_group 1: the older group landed
    CHECK(out[96 + l] == 0);        // ... the newest may still be in flight
    CHECK(out[128 + l] == src[l]);  // wait_all
    CHECK(out[160 + l] == src[32 + l]);
  }
}

TEST_CASE("246 cp.async: a double-buffered pipeline, and the same loop that forgets to wait") {
  Sim s(kAsyncPtx, "async.ptx");
  const uint32_t tiles = 9;
  std::vector<uint32_t> src(32 * tiles);
  for (uint32_t i = 0; i < src.size(); ++i) src[i] = i * i + 11;
  const uint64_t S = s.buffer("src", src), O = s.zeros<uint32_t>("out", src.size());
  auto r = s.run("pipeline", {1, 1, 1}, {32, 1, 1}, {S, O, tiles, 1});
  REQUIRE(!r.fault);
  auto out = s.read<uint32_t>(O, src.size());
  for (size_t i = 0; i < src.size(); ++i) REQUIRE(out[i] == 3 * src[i] + 1);
  // wait_group 2 leaves the tile being read in flight: the first two tiles read the zeros
  // shared memory started with, later ones the tile two back.
  const uint64_t O2 = s.zeros<uint32_t>("out2", src.size());
  r = s.run("pipeline", {1, 1, 1}, {32, 1, 1}, {S, O2, tiles, 2});
  REQUIRE(!r.fault);
  out = s.read<uint32_t>(O2, src.size());
  for (uint32_t t = 0; t < tiles; ++t)
    for (uint32_t l = 0; l < 32; ++l) {
      const uint32_t seen = t < 2 ? 0 : src[32 * (t - 2) + l];
      REQUIRE(out[32 * t + l] == 3 * seen + 1);
    }
}

TEST_CASE("246 mbarrier: phases, pending counts, tx-count, arrive_drop, parity waits") {
  Sim s(kAsyncPtx, "async.ptx");
  const uint64_t O = s.buffer("out", std::vector<uint32_t>(16, 77));
  auto r = s.run("mbar_rules", {1, 1, 1}, {1, 1, 1}, {O});
  REQUIRE_MESSAGE(!r.fault, (r.fault ? r.fault->message : ""));
  const auto out = s.read<uint32_t>(O, 16);
  const std::vector<uint32_t> expect = {3, 2, 1, 1, 0, 0, 1, 0, 1, 2, 0};
  for (size_t i = 0; i < expect.size(); ++i) {
    CAPTURE(i);
    CHECK(out[i] == expect[i]);
  }
}

TEST_CASE("246 mbarrier: misuse is a fault naming the rule; a wait nobody ends, a deadlock") {
  Sim s(kAsyncPtx, "async.ptx");
  auto r = s.run("mbar_misuse", {1, 1, 1}, {1, 1, 1}, {0});
  REQUIRE(r.fault);
  CHECK(r.fault->message.find("not initialised") != std::string::npos);
  r = s.run("mbar_misuse", {1, 1, 1}, {1, 1, 1}, {1});
  REQUIRE(r.fault);
  CHECK(r.fault->message.find("more arrivals") != std::string::npos);
  func::FunctionalOptions opts;
  r = s.run("mbar_misuse", {1, 1, 1}, {1, 1, 1}, {2}, 0, opts);
  REQUIRE(r.fault);
  CHECK(r.fault->kind == func::LaunchFault::Kind::Deadlock);
  CHECK(r.fault->message.find("mbarrier deadlock") != std::string::npos);
  CHECK(r.stats.warp_instructions < 100);  // found at once, not at the instruction limit
}

TEST_CASE("246 elect.sync: the lowest executing lane of the member mask leads") {
  Sim s(kAsyncPtx, "async.ptx");
  for (uint32_t mask : {0xFFFFFFFFu, 0xFFFFFF00u, 0x00F00000u}) {
    CAPTURE(mask);
    const uint64_t O = s.buffer("out", std::vector<uint32_t>(64, 99));
    auto r = s.run("elect_lanes", {1, 1, 1}, {32, 1, 1}, {O, mask});
    REQUIRE(!r.fault);
    const auto out = s.read<uint32_t>(O, 64);
    const uint32_t members = mask & 0xFFFFFFE0u;  // lanes 5..31 execute it
    int leader = 0;
    while (!((members >> leader) & 1)) ++leader;
    for (int l = 0; l < 32; ++l) {
      CHECK(out[l] == (l < 5 ? 99u : static_cast<uint32_t>(leader)));
      CHECK(out[32 + l] == (l < 5 ? 99u : (l == leader ? 1u : 0u)));
    }
  }
}

TEST_CASE("246 cp.async.bulk: a producer warp's TMA copy completes the consumers' phase") {
  Sim s(kAsyncPtx, "async.ptx");
  std::vector<uint32_t> src(64);
  for (uint32_t i = 0; i < 64; ++i) src[i] = 0xABC00 + i * 3;
  const uint64_t S = s.buffer("src", src), O = s.zeros<uint32_t>("out", 64);
  func::FunctionalOptions opts;
  auto r = s.run("tma_1d", {2, 1, 1}, {64, 1, 1}, {S, O}, 0, opts);
  REQUIRE_MESSAGE(!r.fault, (r.fault ? r.fault->message : ""));
  const auto out = s.read<uint32_t>(O, 64);
  for (int i = 0; i < 64; ++i) REQUIRE(out[i] == src[i] + 1);
}

TEST_CASE("246 cp.async.mbarrier.arrive: with and without .noinc the phase waits for copies") {
  Sim s(kAsyncPtx, "async.ptx");
  std::vector<uint32_t> src(32);
  for (uint32_t i = 0; i < 32; ++i) src[i] = 500 + 17 * i;
  const uint64_t S = s.buffer("src", src);
  for (uint32_t noinc : {1u, 0u}) {
    CAPTURE(noinc);
    const uint64_t O = s.zeros<uint32_t>("out", 32);
    auto r = s.run("cp_mbar", {1, 1, 1}, {32, 1, 1}, {S, O, noinc});
    REQUIRE_MESSAGE(!r.fault, (r.fault ? r.fault->message : ""));
    const auto out = s.read<uint32_t>(O, 32);
    for (uint32_t l = 0; l < 32; ++l) REQUIRE(out[l] == src[l ^ 1]);
  }
}

TEST_CASE("246 cp.async.bulk: shared->global in a bulk group, read at wait_group.read") {
  Sim s(kAsyncPtx, "async.ptx");
  const uint64_t O = s.zeros<uint32_t>("out", 32), seen = s.zeros<uint32_t>("seen", 1);
  auto r = s.run("bulk_store", {1, 1, 1}, {1, 1, 1}, {O, seen});
  REQUIRE_MESSAGE(!r.fault, (r.fault ? r.fault->message : ""));
  CHECK(s.read<uint32_t>(seen, 1)[0] == 0);  // not there before the wait
  const auto out = s.read<uint32_t>(O, 32);
  for (uint32_t i = 0; i < 32; ++i) REQUIRE(out[i] == 1000 + i);
}

TEST_CASE("246 async: a kernel with a TMA tensor copy loads (tests/248 runs them)") {
  Sim s(kAsyncPtx, "async.ptx");
  CHECK(s.program->check_kernel("tensor_copy").has_value());
  CHECK(s.program->check_kernel("tma_1d").has_value());
}

TEST_CASE("246 clusters of one: %cluster registers, mapa, shared::cluster, barrier.cluster") {
  Sim s(kAsyncPtx, "async.ptx");
  const uint64_t O = s.zeros<uint32_t>("out", 128);
  auto r = s.run("cluster_one", {2, 1, 1}, {64, 1, 1}, {O, 0});
  REQUIRE_MESSAGE(!r.fault, (r.fault ? r.fault->message : ""));
  const auto out = s.read<uint32_t>(O, 128);
  for (uint32_t b = 0; b < 2; ++b)
    for (uint32_t t = 0; t < 64; ++t) {
      const uint32_t expect = 100 * b + (63 - t) + (b << 16) + (0u << 20) + (1u << 24) + (1u << 28);
      REQUIRE(out[64 * b + t] == expect);
    }
  r = s.run("cluster_one", {1, 1, 1}, {64, 1, 1}, {O, 1});
  REQUIRE(r.fault);
  CHECK(r.fault->message.find("cluster of one") != std::string::npos);
}
