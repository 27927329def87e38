// The Tensor Memory Accelerator (TMA): the SM's engine for bulk copies (cp.async.bulk) and
// tensor copies (cp.async.bulk.tensor).
//
// Hardware (Hopper): one TMA unit per SM takes a copy description from one thread (source,
// destination, size, the mbarrier to report to) and moves the whole block of bytes between
// global and shared memory on its own: the issuing warp goes on at once, no registers or
// load/store units are involved, and the unit reports each arriving byte to the mbarrier
// (complete_tx) or closes the copy's bulk group. Copies queue in the unit; its bandwidth is
// shared by all of them.
//
// Modelled: the unit requests the copy's lines one after another at its bandwidth (copies queue
// behind each other for it, loads and stores alike: the unit works in issue order) from the L2
// model, which answers each (an L2 hit, or a miss to
// DRAM that takes DRAM bandwidth like any load); the copy completes tma_latency cycles after its
// last line is back and its last byte has passed the unit. Without an L2 (unit tests) a copy of
// B bytes issued at cycle t, with the unit free, completes at
// t + tma_latency + ceil(B / tma_bytes_per_cycle).
// Measured (scripts/microbench/h100-async-timing-2026-11-26.tsv, one copy in flight on an H100,
// L2-resident source): ~330 cycles plus 1 cycle per 104 bytes; tests/341 checks the preset
// against it. A store (shared->global) goes through the unit at its own, lower rate,
// tma_store_bytes_per_cycle (the unit reads the shared source and sends the writes), and holds
// the unit for the loads behind it. Measured (scripts/microbench/tma_order/, one SM, 4 KiB boxes):
// stores in turn +129 cycles each, 128 stores from 32 warps 132 cycles each, cold or L2-resident
// (31-32 B/cycle) where 128 L2-hit loads take 45 cycles each (92 B/cycle); an L2-hit load issued
// behind 4 stores takes 783 cycles against 375 alone; a store is not held by loads in flight
// (a store with 0, 1 or 4 cold loads ahead of it: 216 cycles to wait_group.read each time).
// A tensor copy (a box of a tensor map, sim/func/tensormap.h) is the same walk over the box's
// rows that lie inside the tensor, one request per line piece of a row, each taking the unit a
// whole line's time (line_bytes / tma_bytes_per_cycle) however few bytes it holds; rows outside
// the tensor are filled in shared memory at the unit's byte rate; tma_tensor_latency cycles for
// reading the descriptor come first. Without an L2, a box of R line pieces and F fill bytes issued
// at t, with the unit free, lands at
// t + tma_tensor_latency + tma_latency + ceil(R * line_bytes / bytes_per_cycle + F /
// bytes_per_cycle). Measured (scripts/microbench/h100-tma-tensor-2026-11-26.tsv, one copy in
// flight, L2-resident): a box with 128-byte rows takes what a 1D bulk copy of its bytes takes (-11
// to +12 cycles, 16 B to 32 KiB), so tma_tensor_latency is 0 on the H100; a box of narrow rows
// takes longer: 64 rows of 64 B +39 cycles over the bulk copy of its 4 KiB (the per-request rule:
// +39), 64 rows of 32 B +51 (the rule: +59). A tensor prefetch (to L2) sends the same requests and
// lands nothing. The descriptor cache: the unit fetches a tensor map it does not hold before the
// first copy through it (or when prefetch.tensormap names it) and keeps it; a
// tensormap.cp_fenceproxy to the map's address drops it (the fence.proxy.tensormap::generic.acquire
// that must follow is SASS UTMACCTL.IV; the copy itself is an ATOMG.EXCH a lane a word, timed as an
// atomic by the SM). A fetch takes tma_descriptor_latency cycles, after reading the map's 128-byte
// line from the L2 when the map is in global memory. A copy waits for its map: its requests are
// booked as if the map were held and their answers come the fetch's cycles later (the L2 model
// serves requests in booking order); the fetch does not hold the unit's bandwidth. Measured
// (scripts/microbench/tma_descriptor.cu, h100-tma-descriptor-2026-11-27.tsv, one 4 KiB box in
// flight, L2-resident): the first copy through a __grid_constant__ map takes +74 cycles over a copy
// through a map the unit holds (the second map +47), through a map the host wrote to global memory
// +273 (+248), through a map the kernel built (Triton's tensormap.replace / cp_fenceproxy / fence)
// +461 (+435); after prefetch.tensormap +32 (+2). tma_descriptor_latency = 74 (the parameter map's
// fetch); a global map adds the model's L2 hit
// (~280 cycles): ~355 against the measured 273 and 461.
// Simplified: the lines bypass the L1 model; a shared->global copy's writes are timed like
// stores; the descriptor cache holds every map a launch's blocks on the SM name (no capacity);
// two fetches overlap.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "sim/func/cta.h"
#include "sim/timing/config.h"

namespace warplab::timing {

class L2;

class Tma {
 public:
  // `l2` nullptr: no memory traffic, the formula above.
  Tma(const AsyncConfig& cfg, L2* l2 = nullptr, int64_t line_bytes = 128)
      : cfg_(cfg), l2_(l2), line_bytes_(static_cast<uint64_t>(line_bytes)) {}
  // A copy of `bytes` between global address `global` and shared memory (to_shared: a read of
  // global memory), issued at `now`: the cycle its last byte has landed.
  uint64_t copy(uint64_t now, uint64_t bytes, uint64_t global = 0, bool to_shared = true);
  // A tensor copy of a `box_bytes` box whose rows inside the tensor are `ranges`, issued at
  // `now`: the cycle its last byte has landed (to_shared) or been written.
  // `map`: its tensor map (StepInfo::tma_map; 0: none, no descriptor fetch).
  uint64_t copy_tensor(uint64_t now, const std::vector<func::GlobalRange>& ranges,
                       uint64_t box_bytes, bool to_shared, uint64_t map = 0);
  // cp.async.bulk.prefetch.tensor: the rows' reads into the L2; the cycle the last is answered.
  uint64_t prefetch_tensor(uint64_t now, const std::vector<func::GlobalRange>& ranges,
                           uint64_t map = 0);
  // The cycle tensor map `map` (StepInfo::tma_map) is in the unit, asked for at `now`: fetched
  // now unless it holds it (prefetch.tensormap, and each tensor copy first).
  uint64_t descriptor(uint64_t now, uint64_t map);
  // tensormap.cp_fenceproxy rewrote the map at `map`: the unit's copy is stale.
  void forget(uint64_t map) { descriptors_.erase(map); }
  // When the unit holds (or will hold) `map`; 0 if it does not.
  uint64_t descriptor_ready(uint64_t map) const {
    const auto it = descriptors_.find(map);
    return it == descriptors_.end() ? 0 : it->second;
  }

 private:
  // Sends the lines of [global, global + bytes) to the L2, the first at `start`, one byte per
  // 1 / bytes_per_cycle; returns the last answer (0 without an L2).
  uint64_t send(double start, uint64_t global, uint64_t bytes, bool to_shared);
  // The unit's time for a tensor row: one request per line the row touches, each a whole line's
  // time (line_bytes / the direction's rate) however few of its bytes the row uses.
  double row_cycles(const func::GlobalRange& r, bool to_shared) const;
  // Bytes per cycle through the unit: global->shared (loads) or shared->global (stores).
  double rate(bool to_shared) const {
    return to_shared ? cfg_.tma_bytes_per_cycle : cfg_.tma_store_bytes_per_cycle;
  }

  const AsyncConfig& cfg_;
  L2* l2_;
  uint64_t line_bytes_;
  double free_ = 0;  // when the unit's bandwidth is next free (fractional cycles)
  std::unordered_map<uint64_t, uint64_t> descriptors_;  // map -> cycle it is in the unit
};

}  // namespace warplab::timing
