// The scoreboard: which of a warp's registers still wait for a result, and until when.
//
// Hardware: an SM sub-partition keeps, per warp, a scoreboard of the registers that an issued
// instruction will still write. A later instruction that reads or writes one of them may not
// issue until the write is done. ALU results come back after the pipe's fixed latency (ptxas
// encodes that wait in the instruction's stall count: stall_wait); MIO results (shared memory,
// SFU, shuffles) and L1TEX results (global and local memory) clear a scoreboard of their own
// when their data is back (stall_short_scoreboard, stall_long_scoreboard).
// Modelled: per warp, a short list of the register writes not yet visible (register, the cycle
// it is written, which scoreboard waits for it), and the later cycle a branch may read a
// predicate that a compare writes (pipes.predicate_branch_latency, sm_compiler.cpp).
// Simplified: no limit on scoreboard entries; registers are the PTX's virtual registers.
// Private to the SM's files (sm.cpp, sm_compiler.cpp), like sm_warp.h.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "sim/func/cta.h"
#include "sim/timing/warp_state.h"

namespace warplab::timing {

struct PendingWrite {  // a register write not yet visible
  int32_t key = 0;     // function << 20 | register
  uint64_t ready = 0;
  WarpState kind = WarpState::Wait;
  uint64_t branch_ready = 0;  // when a branch may read it (>= ready: predicate_branch_latency)
};

// A quick "not in the list": bit (register % 64) of each entry's register (key % 64: the
// function sits above bit 20). A register whose bit is clear has no entry; a set bit may be
// another register's. The functions below keep it with the list.
inline uint64_t pending_bit(int32_t key_or_register) {
  return 1ull << (static_cast<uint32_t>(key_or_register) & 63u);
}
inline uint64_t pending_bits_of(const std::vector<PendingWrite>& pending) {
  uint64_t bits = 0;
  for (const PendingWrite& p : pending) bits |= pending_bit(p.key);
  return bits;
}

// Drops the writes a branch could read `keep` cycles or more before `now` (and `bits` with them).
inline void expire_pending(std::vector<PendingWrite>& pending, uint64_t& bits, uint64_t now,
                           uint64_t keep) {
  if (std::erase_if(pending, [&](const PendingWrite& p) { return p.branch_ready + keep <= now; }))
    bits = pending_bits_of(pending);
}

// `in`'s destination registers are written at `ready` (waited on as `kind`); a predicate that a
// compare writes reaches a branch at branch_ready. `bits`: the list's pending_bits_of.
inline void write_pending(std::vector<PendingWrite>& pending, uint64_t& bits,
                          const func::StepInfo& in, uint64_t ready, WarpState kind,
                          uint64_t branch_ready = 0) {
  const int32_t fkey = in.function << 20;
  for (int i = 0; i < in.dst_count; ++i) {
    const int32_t key = fkey | in.dst_regs[i];
    if (bits & pending_bit(key))
      std::erase_if(pending, [&](const PendingWrite& p) { return p.key == key; });
    pending.push_back({key, ready, kind, std::max(ready, branch_ready)});
    bits |= pending_bit(key);
  }
}

struct PendingWait {
  uint64_t until = 0;  // the last of `in`'s registers is written then (0: none after `now`)
  WarpState kind = WarpState::Wait;  // the scoreboard that waits for it
};

// The latest write after `now` that `in` must wait for: of its sources, its destinations and its
// guard (which a branch reads at branch_ready). Of writes due in the same cycle, the one of the
// register named first (sources, destinations, guard) gives the kind. (The list is short: a
// warp's writes in flight, kept a few cycles past their time; `bits`, its pending_bits_of, skips
// the registers it has none of.)
inline PendingWait latest_pending(const std::vector<PendingWrite>& pending, uint64_t bits,
                                  const func::StepInfo& in, uint64_t now) {
  PendingWait wait;
  const int32_t fkey = in.function << 20;
  auto check = [&](int32_t reg, bool branch_reads) {
    if (!(bits & pending_bit(reg))) return;
    for (const PendingWrite& p : pending) {
      const uint64_t ready = branch_reads ? p.branch_ready : p.ready;
      if (p.key == (fkey | reg) && ready > now && ready > wait.until) wait = {ready, p.kind};
    }
  };
  for (int i = 0; i < in.src_count; ++i) check(in.src_regs[i], false);
  for (int i = 0; i < in.dst_count; ++i) check(in.dst_regs[i], false);
  if (in.inst->guard >= 0) check(in.inst->guard, in.is_branch);
  return wait;
}

}  // namespace warplab::timing
