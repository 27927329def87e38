// Thread-block clusters: see cluster.h.
#include "sim/func/cluster.h"

#include <algorithm>
#include <bit>

#include "sim/common/bits.h"
#include "sim/func/cta_impl.h"
#include "sim/func/exec.h"

namespace warplab::func {

namespace {
std::string dims(Dim3 d) {
  return "[" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + "]";
}
}  // namespace

Dim3 effective_cluster(const LaunchConfig& launch, const ptx::Function& kernel) {
  if (launch.cluster.x != 0) return launch.cluster;
  const auto& r = kernel.hints.reqnctapercluster;
  if (r[0] != 0) return Dim3{r[0], std::max(r[1], 1u), std::max(r[2], 1u)};
  return Dim3{1, 1, 1};
}

Status check_cluster_shape(const LaunchConfig& launch, const ptx::Function& kernel,
                           const std::string& path) {
  const Dim3 c = effective_cluster(launch, kernel);
  const auto& h = kernel.hints;
  auto error = [&](const std::string& what) {
    return Error{path, kernel.ptx_line, "launch of '" + kernel.name + "': " + what};
  };
  if (c.x == 0 || c.y == 0 || c.z == 0) return error("a cluster dimension is 0");
  const auto& r = h.reqnctapercluster;
  if (r[0] != 0 && launch.cluster.x != 0) {
    const Dim3 req{r[0], std::max(r[1], 1u), std::max(r[2], 1u)};
    if (req.x != c.x || req.y != c.y || req.z != c.z)
      return error("the cluster " + dims(c) + " is not the kernel's .reqnctapercluster " +
                   dims(req) + " (the GPU refuses this launch)");
  }
  const uint64_t size = c.count();
  const uint32_t limit = launch.cluster_nonportable ? kMaxClusterSize : kMaxPortableClusterSize;
  if (size > limit)
    return error("the cluster " + dims(c) + " has " + std::to_string(size) +
                 " blocks; the most is " + std::to_string(limit) +
                 (launch.cluster_nonportable
                      ? std::string(" (the H100's non-portable limit)")
                      : std::string(" (portable; up to 16 with cluster_nonportable = true)")));
  if (h.maxclusterrank != 0 && size > h.maxclusterrank)
    return error("the cluster " + dims(c) + " has " + std::to_string(size) +
                 " blocks; the kernel's .maxclusterrank allows " +
                 std::to_string(h.maxclusterrank));
  if (h.explicitcluster && launch.cluster.x == 0 && r[0] == 0)
    return error("the kernel is .explicitcluster but the launch gives no cluster shape");
  const Dim3& g = launch.grid;
  if (g.x % c.x != 0 || g.y % c.y != 0 || g.z % c.z != 0)
    return error("the grid " + dims(g) + " is not a whole number of clusters " + dims(c) +
                 " in every dimension (the GPU refuses this launch)");
  return Ok{};
}

void ClusterState::reset(Dim3 shape, Dim3 id, uint32_t threads, bool explicit_cluster) {
  shape_ = shape;
  id_ = id;
  explicit_ = explicit_cluster;
  threads_ = threads;
  const size_t n = static_cast<size_t>(shape.count());
  members_.assign(n, nullptr);
  exited_blocks_ = 0;
  arrived_.assign(n * threads, 0);
  completed_ = 0;
  live_ = pending_ = uint64_t{n} * threads;
  completed_at_ = 0;
  changes_ = 0;
}

void ClusterState::maybe_complete(uint64_t clock) {
  if (pending_ != 0 || live_ == 0) return;
  ++completed_;
  completed_at_ = clock;
  pending_ = live_;
}

std::string ClusterState::arrive(uint32_t rank, uint32_t thread, uint64_t clock) {
  uint64_t& a = arrived_[rank * threads_ + thread];
  if (a == completed_ + 1)
    return "barrier.cluster.arrive again before barrier.cluster.wait (the PTX ISA leaves a "
           "second arrive in one phase undefined)";
  a = completed_ + 1;
  --pending_;
  ++changes_;
  maybe_complete(clock);
  return {};
}

void ClusterState::threads_exited(uint32_t rank, uint32_t first, uint32_t lanes, uint64_t clock) {
  uint64_t* const warp = &arrived_[rank * threads_ + first];
  // Every warp's exit when at least as many threads are pending as exit here (always, in a
  // kernel without cluster barriers): the phase can complete only with the last lane, so the
  // lanes' order does not matter, and one check at the end does what the loop below checks
  // after each lane. (Counts kept in locals: a store through `warp` might be one to them.)
  if (pending_ >= static_cast<uint64_t>(popc32(lanes))) {
    const uint64_t phase = completed_ + 1;
    uint64_t not_arrived = 0, gone = 0;
    auto exit_lane = [&](uint64_t& a) {
      gone += a != kExited;
      not_arrived += a != kExited && a != phase;
      a = kExited;
    };
    if (lanes == ~0u) {
      for (int l = 0; l < 32; ++l) exit_lane(warp[l]);
    } else {
      for (uint32_t m = lanes; m; m &= m - 1) exit_lane(warp[std::countr_zero(m)]);
    }
    pending_ -= not_arrived;
    live_ -= gone;
    changes_ += gone;
    if (gone) maybe_complete(clock);
    return;
  }
  for (uint32_t m = lanes; m; m &= m - 1) {  // lane by lane, in lane order
    uint64_t& a = warp[std::countr_zero(m)];
    if (a == kExited) continue;
    if (a != completed_ + 1) --pending_;
    a = kExited;
    --live_;
    ++changes_;
    maybe_complete(clock);
  }
}

// barrier.cluster.arrive / wait. A wait whose phase is still running leaves the warp's pc where
// it is (the warp runs it again): functional mode ends the warp's turn there, the timing model
// (sim/timing/dsmem.h) tries again a while later; info->mbarrier carries the cycle the phase
// completed to the timing model.
void barrier_cluster_h(Exec& x, const DInst& d) {
  CtaImpl& c = *x.cta;
  ClusterState& cl = c.cluster_state();
  const uint32_t base = static_cast<uint32_t>(x.w->index) * 32;
  if (d.ir->mod.bar == ptx::BarMode::Arrive) {
    for_lanes(x.exec, [&](int l) {
      if (x.failed) return;
      if (const std::string why = cl.arrive(c.cluster_rank, base + l, x.clock); !why.empty())
        c.raise(x, d, LaunchFault::Kind::Trap, l, 0, 0, false, ptx::Space::None, why);
    });
    c.mbarrier_changed();
    return;
  }
  uint32_t waiting = 0;
  for_lanes(x.exec, [&](int l) {
    if (!cl.passed(c.cluster_rank, base + l)) waiting |= 1u << l;
  });
  if (waiting) {
    x.control = true;  // not done: the pc stays
    x.w->mbarrier_wait = true;
    x.w->mbarrier_pc = x.pc;
    if (x.info) x.info->wait_failed = true;
  } else if (x.info) {
    x.info->mbarrier = cl.completed_at();
  }
}

void mapa_h(Exec& x, const DInst& d) {
  CtaImpl& c = *x.cta;
  const uint32_t size = c.cluster_state().size();
  const bool generic = d.space != ptx::Space::SharedCluster;
  const uint64_t mask = ptx::type_bits(d.ir->type) == 32 ? 0xFFFFFFFFull : ~0ull;
  for_lanes(x.exec, [&](int l) {
    if (x.failed) return;
    const uint64_t rank = reg(x, d.s[1], l) & 0xFFFFFFFFu;
    uint64_t a = reg(x, d.s[0], l) & mask;
    if (rank >= size) {
      c.raise(x, d, LaunchFault::Kind::Trap, l, 0, 0, false, ptx::Space::SharedCluster,
              "mapa to block rank " + std::to_string(rank) + " of a cluster of " +
                  std::to_string(size) + " block" + (size == 1 ? "" : "s") +
                  (size == 1 ? " (the launch has no cluster shape: each block is a cluster of one)"
                             : ""));
      return;
    }
    if (generic) {
      if (a - kSharedWindow >= kWindowSize) {
        c.raise(x, d, LaunchFault::Kind::InvalidAddress, l, a, 0, false, ptx::Space::Generic,
                "mapa of " + std::to_string(a) + ", which is not a generic shared address");
        return;
      }
      a -= kSharedWindow;
    }
    a = (a & kClusterOffsetMask) | ((rank + 1) << kClusterRankShift);
    reg(x, d.d[0], l) = (generic ? a + kSharedWindow : a) & mask;
  });
}

}  // namespace warplab::func
