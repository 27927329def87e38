// Thread-block clusters in the functional executor (sim/func/cluster.h): the special registers,
// distributed shared memory through mapa and shared::cluster ld/st/atom, barrier.cluster, the
// launch checks, and setmaxnreg. Expected values are computed here, in plain C++.
#include <doctest/doctest.h>

#include <numeric>

#include "21x_sim.h"
#include "24x_cluster_ptx.h"

using namespace warplab;
using warplab::test::Sim;

namespace {

func::FunctionalResult run_cluster(Sim& s, const std::string& kernel, func::Dim3 grid,
                                   func::Dim3 block, func::Dim3 cluster,
                                   const std::vector<uint64_t>& args, bool nonportable = false) {
  func::LaunchConfig lc{kernel, grid, block, 0, s.params(kernel, args)};
  lc.cluster = cluster;
  lc.cluster_nonportable = nonportable;
  auto r = func::run_functional(*s.program, s.mem, lc);
  if (!r) FAIL("launch: " << r.error().to_string());
  return std::move(*r);
}

std::string launch_error(Sim& s, const std::string& kernel, func::Dim3 grid, func::Dim3 cluster,
                         bool nonportable = false) {
  func::LaunchConfig lc{kernel, grid, {64, 1, 1}, 0, s.params(kernel, {0})};
  lc.cluster = cluster;
  lc.cluster_nonportable = nonportable;
  auto r = func::run_functional(*s.program, s.mem, lc);
  return r ? std::string() : r.error().to_string();
}

}  // namespace

TEST_CASE("248 a cluster reduction through distributed shared memory") {
  for (uint32_t c : {2u, 4u, 8u}) {
    CAPTURE(c);
    Sim s(test::kClusterPtx, "cluster.ptx");
    const uint32_t blocks = 16, n = blocks * 128, clusters = blocks / c;
    std::vector<uint32_t> in(n);
    for (uint32_t i = 0; i < n; ++i) in[i] = (i * 2654435761u) >> 20;
    const uint64_t I = s.buffer("in", in), S = s.zeros<uint32_t>("sums", clusters),
                   C = s.zeros<uint32_t>("count", clusters), F = s.zeros<uint32_t>("info", n);
    auto r = run_cluster(s, "cluster_sum", {blocks, 1, 1}, {128, 1, 1}, {c, 1, 1}, {I, S, C, F});
    REQUIRE_MESSAGE(!r.fault, (r.fault ? r.fault->message : ""));
    const auto sums = s.read<uint32_t>(S, clusters), count = s.read<uint32_t>(C, clusters),
               info = s.read<uint32_t>(F, n);
    for (uint32_t k = 0; k < clusters; ++k) {
      const uint32_t expect =
          std::accumulate(in.begin() + k * c * 128, in.begin() + (k + 1) * c * 128, 0u);
      CHECK(sums[k] == expect);
      CHECK(count[k] == c * 128);
    }
    for (uint32_t b = 0; b < blocks; ++b) {
      const uint32_t rank = b % c;
      const uint32_t expect =
          rank | (b / c) << 4 | clusters << 10 | c << 16 | rank << 21 | c << 25 | 1u << 30;
      CHECK(info[b * 128 + 5] == expect);
    }
  }
}

TEST_CASE("248 a ring through shared::cluster stores in 1D, 2D and 3D clusters") {
  struct Case {
    func::Dim3 grid, cluster;
  };
  for (const Case& k : {Case{{8, 1, 1}, {2, 1, 1}}, Case{{4, 4, 1}, {2, 2, 1}},
                        Case{{2, 2, 4}, {2, 2, 2}}, Case{{16, 1, 1}, {16, 1, 1}}}) {
    Sim s(test::kClusterPtx, "cluster.ptx");
    const uint32_t blocks = static_cast<uint32_t>(k.grid.count());
    const uint32_t n = static_cast<uint32_t>(k.cluster.count());
    const uint64_t O = s.zeros<uint32_t>("out", blocks * 64);
    auto r = run_cluster(s, "ring", k.grid, {64, 1, 1}, k.cluster, {O}, n > 8);
    REQUIRE_MESSAGE(!r.fault, (r.fault ? r.fault->message : ""));
    const auto out = s.read<uint32_t>(O, blocks * 64);
    for (uint32_t z = 0; z < k.grid.z; ++z)
      for (uint32_t y = 0; y < k.grid.y; ++y)
        for (uint32_t x = 0; x < k.grid.x; ++x) {
          const uint32_t b = x + k.grid.x * (y + k.grid.y * z);
          const uint32_t rank = x % k.cluster.x + k.cluster.x * (y % k.cluster.y) +
                                k.cluster.x * k.cluster.y * (z % k.cluster.z);
          const uint32_t from = (rank + n - 1) % n;
          for (uint32_t t = 0; t < 64; t += 9) CHECK(out[b * 64 + t] == from * 1000 + t);
        }
  }
}

TEST_CASE("248 faults: an exited block's shared memory, a rank outside the cluster, a deadlock") {
  Sim s(test::kClusterPtx, "cluster.ptx");
  const uint64_t O = s.zeros<uint32_t>("out", 64);
  auto r = run_cluster(s, "early_exit", {2, 1, 1}, {32, 1, 1}, {2, 1, 1}, {O});
  REQUIRE(r.fault);
  CHECK(r.fault->message.find("which has exited") != std::string::npos);
  r = run_cluster(s, "bad_rank", {4, 1, 1}, {32, 1, 1}, {4, 1, 1}, {O});
  REQUIRE(r.fault);
  CHECK(r.fault->message.find("rank 7 of a cluster of 4 blocks") != std::string::npos);
  r = run_cluster(s, "no_arrive", {2, 1, 1}, {32, 1, 1}, {2, 1, 1}, {O});
  REQUIRE(r.fault);
  CHECK(r.fault->kind == func::LaunchFault::Kind::Deadlock);
  // Without a cluster shape, every block is a cluster of one: mapa to rank 1 faults.
  r = s.run("early_exit", {2, 1, 1}, {32, 1, 1}, {O});
  REQUIRE(r.fault);
  CHECK(r.fault->message.find("each block is a cluster of one") != std::string::npos);
}

TEST_CASE("248 launch checks: divisibility, size limits, .reqnctapercluster") {
  Sim s(test::kClusterPtx, "cluster.ptx");
  std::string e = launch_error(s, "ring", {6, 1, 1}, {4, 1, 1});
  CHECK(e.find("is not a whole number of clusters [4,1,1]") != std::string::npos);
  e = launch_error(s, "ring", {16, 1, 1}, {16, 1, 1});
  CHECK(e.find("the most is 8") != std::string::npos);
  CHECK(launch_error(s, "ring", {16, 1, 1}, {16, 1, 1}, true).empty());
  e = launch_error(s, "ring", {32, 1, 1}, {32, 1, 1}, true);
  CHECK(e.find("the most is 16") != std::string::npos);
  e = launch_error(s, "ring", {4, 1, 1}, {4, 0, 1});
  CHECK(e.find("dimension is 0") != std::string::npos);
  e = launch_error(s, "fixed", {4, 1, 1}, {4, 1, 1});
  CHECK(e.find(".reqnctapercluster [2,1,1]") != std::string::npos);
  CHECK(e.find("cluster.ptx") != std::string::npos);
  e = launch_error(s, "fixed", {3, 1, 1}, {0, 0, 0});
  CHECK(e.find("not a whole number of clusters [2,1,1]") != std::string::npos);
  // The kernel's own shape applies without one from the launch.
  const uint64_t O = s.zeros<uint32_t>("o", 4);
  auto r = run_cluster(s, "fixed", {4, 1, 1}, {32, 1, 1}, {0, 0, 0}, {O});
  REQUIRE(!r.fault);
  for (uint32_t v : s.read<uint32_t>(O, 4)) CHECK(v == 2);
}

TEST_CASE("248 setmaxnreg: a warpgroup's registers move to another through the block's pool") {
  Sim s(test::kClusterPtx, "cluster.ptx");
  const uint64_t O = s.zeros<uint32_t>("out", 256);
  auto r = s.run("regs", {1, 1, 1}, {256, 1, 1}, {O});
  REQUIRE_MESSAGE(!r.fault, (r.fault ? r.fault->message : ""));
  const auto out = s.read<uint32_t>(O, 256);
  for (uint32_t t = 0; t < 256; ++t) CHECK(out[t] == t);
  // Warpgroup 0 alone only lowers its count.
  r = s.run("regs", {1, 1, 1}, {128, 1, 1}, {O});
  CHECK(!r.fault);
  r = s.run("regs_bad", {1, 1, 1}, {128, 1, 1}, {O});
  REQUIRE(r.fault);
  CHECK(r.fault->message.find("may only raise the count") != std::string::npos);
  // A block that does not complete its warpgroup.
  r = s.run("regs", {1, 1, 1}, {96, 1, 1}, {O});
  REQUIRE(r.fault);
  CHECK(r.fault->message.find("do not complete") != std::string::npos);
}
