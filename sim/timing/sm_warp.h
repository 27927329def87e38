// The SM's state of one warp, one block and one fetched instruction: shared by the files that
// implement the SM (sm.cpp: fetch, the scheduler's evaluation, issue; sm_compiler.cpp: what
// ptxas moves). Private to them: nothing else includes it.
//
// A warp keeps a window of the instructions it has fetched (executed functionally) and not yet
// issued, oldest first (Sm::Window). The scheduler looks at the oldest; the compiler model
// (sm_compiler.cpp) may issue a later load ahead of it, fold shared loads into one vector load,
// and drop the loop control an unrolled loop no longer has. Each entry (Sm::Ahead) records what
// that model decided about the instruction.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "sim/timing/block_barrier.h"
#include "sim/timing/sm.h"

namespace warplab::timing {

// Which L1TEX queue an instruction's access enters when it issues.
enum class NextAccess : uint8_t { None, Global, Shared };

// One fetched (functionally executed) instruction in a warp's window. The scheduler's fields
// come first and StepInfo keeps its lane addresses last, so that evaluating a warp reads the
// entry's first cache lines only.
struct alignas(64) Sm::Ahead {
  uint32_t back_edges = 0;       // the warp's taken backward branches before this instruction
  bool hoisted = false;          // issued ahead of its turn (a hoisted load): `ready` is its data
  bool merged = false;           // a shared load ptxas folds into an earlier one's vector load
  bool dropped = false;          // loop control ptxas's unrolling removed (drop_unrolled)
  bool stamped = false;          // merged: `ready` is known (its vector load has issued)
  bool leader = false;           // starts a vector load that later loads may join
  uint32_t group = 0;            // leader: which vector group
  bool indep = false;            // its operands come from address arithmetic alone (no loads)
  bool chain = false;            // address arithmetic: an ALU instruction with `indep` operands
  bool load = false;             // a load the compiler may hoist, with lanes (hoistable_load)
  bool fence = false;            // no load moves across it (schedule_barrier)
  uint8_t writes = 0;            // a plain store: the memory it may write (kMem*, store_memory)
  uint8_t reads = 0;             // a load: the memory it reads (kMem*)
  uint8_t ext_count = 0;         // registers written before the window that its operands need
  uint8_t ext_loaded = 0;        // bit x: ext[x] was a load's result in the window when fetched
  WarpState kind = WarpState::LongScoreboard;
  std::array<int32_t, 6> ext{};  // (function << 20 | register), checked against the scoreboard
  uint64_t ready = 0;
  uint64_t dst_bits = 0;  // bit (register % 64) of each destination: depend's quick "not it"
  func::StepInfo info;
};

// The instructions a warp has fetched and not yet reached, oldest first. The ring holds indices
// into a pool of entries, so an entry never moves while it is in the window, and a new entry
// takes the one freed last (most likely still in the host's cache): the pool is as large as the
// longest window the warp has had, and its storage is kept from block to block.
struct Sm::Window {
  Ahead* first = nullptr;  // at(0), or nullptr when empty (the tick prefetches it)
  uint32_t head = 0, count = 0;
  // find_hoist: at(1) .. at(passed - 1) are entries its scan passes over whenever it looks (of
  // at(0)'s unrolled body, not a schedule barrier, and not a load it could hoist: what decides
  // that never changes while they are in the window), so the next scan starts at at(passed).
  uint32_t passed = 1;
  uint8_t stores = 0;  // the memory that plain stores among at(1) .. at(passed - 1) may write
  // Whether the warp's summary of `first` (Warp::next_*) is up to date: cleared whenever
  // `first` may have changed.
  bool first_known = false;
  std::vector<uint32_t> ring;   // pool indices; a power of two long: indexes wrap with a mask
  std::vector<Ahead> pool;
  std::vector<uint32_t> spare;  // pool entries not in the window, the one freed last at the back
  // depend()'s shortcut: entries are numbered in fetch order (at(i) is number base + i), and
  // writer[b] is 1 + the number of the latest entry whose destinations include a register r
  // with r % 64 == b (0: none yet). No entry numbered higher writes such a register, so the
  // search for an operand's producer starts there, or not at all when that entry has left.
  uint64_t base = 0;
  std::array<uint64_t, 64> writer{};
  Ahead& at(size_t i) { return pool[ring[(head + i) & (ring.size() - 1)]]; }
  const Ahead& at(size_t i) const { return pool[ring[(head + i) & (ring.size() - 1)]]; }
  void find_first() {
    first = count > 0 ? &pool[ring[head]] : nullptr;
    first_known = false;
  }
  // The new last entry (its fields as the entry last held them). Invalidates references to
  // entries when the pool grows.
  Ahead& push() {
    if (count == ring.size()) {
      std::vector<uint32_t> bigger(std::max<size_t>(2, ring.size() * 2));
      for (uint32_t i = 0; i < count; ++i) bigger[i] = ring[(head + i) & (ring.size() - 1)];
      ring = std::move(bigger);
      head = 0;
    }
    uint32_t e;
    if (spare.empty()) {
      e = static_cast<uint32_t>(pool.size());
      pool.emplace_back();
    } else {
      e = spare.back();
      spare.pop_back();
    }
    ring[(head + count++) & (ring.size() - 1)] = e;
    find_first();
    return pool[e];
  }
  void pop() {
    const bool store = pool[ring[head]].writes != 0;
    spare.push_back(ring[head]);
    head = (head + 1) & static_cast<uint32_t>(ring.size() - 1);
    --count;
    ++base;
    if (passed > 1) --passed;
    // A store that issues no longer holds back the loads after it: scan them again.
    if (store) passed = 1, stores = 0;
    find_first();
  }
  void pop_back() {
    spare.push_back(ring[(head + --count) & (ring.size() - 1)]);
    passed = 1;
    stores = 0;
    find_first();
  }
  void clear() {
    while (count > 0) pop();
  }
};

struct alignas(64) Sm::Warp {
  // The first 64 bytes hold all that a tick reads of a warp whose next instruction has cleared
  // its scoreboard (a warp that is ready, or waits for a pipe or a queue, is looked at again
  // every cycle): the flags, the summary of that instruction, the accounting and the window's
  // head. What else a tick reads follows; the open vector group (rarely read) comes last.
  bool used = false;
  bool at_barrier = false;
  bool exited = false;
  WarpState state = WarpState::NoInstruction;
  WarpState fetch_reason = WarpState::NoInstruction;
  // win.first in brief (valid while win.first_known): its pipe, the L1TEX queue its access
  // enters (issue() sends it to L1TEX), whether its space is shared memory, and whether its
  // registers are ready. Once ready they stay ready: only the warp's own issues add pending
  // writes, and those move win.first on.
  ptx::UnitClass next_unit = ptx::UnitClass::Misc;
  NextAccess next_access = NextAccess::None;
  bool next_shared = false;
  bool next_clear = false;
  bool next_warmed = false;  // the fetch after it: prefetch_step asked for (Sm::tick)
  uint8_t next_pipe = 0;     // its pipe_free_ index (issue_pipe)
  bool next_sfu = false;     // it also needs the SFU pipe (an expanded instruction)
  int32_t line = 0;
  int32_t next_line = 0;  // win.first's PTX line
  int32_t pick = 0;       // evaluate(): 0 issues win.at(0), k > 0 the hoisted load win.at(k)
  uint64_t fetch_ready = 0;  // cycle `next` can issue at the earliest
  uint64_t since = 0;
  Window win;  // fetched instructions; win.at(0) is the next in program order
  // evaluate()'s answers for win.first while it waits on its scoreboard, kept until `first`
  // changes (learn_next) or the warp issues: only the warp's own issues change its pending
  // writes and its window, so they hold till then. sb_until: the cycle its registers are ready
  // (waited on as sb_kind); hoist_at > 0: find_hoist's load, which passed every test but the
  // load/store pipe and the LSU queue (looked at again on each call), in shared memory when
  // hoist_shared; hoist_at < 0: find_hoist has none to offer; 0: not known.
  uint64_t sb_until = 0;
  WarpState sb_kind = WarpState::Wait;
  bool sb_known = false;
  bool hoist_shared = false;
  int32_t hoist_at = 0;
  // win.first's issue pipe in full (issue_pipe; next_pipe is its index), for issue().
  const PipeConfig* next_cfg = nullptr;
  bool next_holds_port = false;
  int block = -1, index = 0;  // block slot, warp index within the block
  uint64_t issued = 0;        // warp instructions it issued (Sm::warp_progress)
  uint64_t barrier_release = kNever;
  uint64_t drain_until = 0;  // last store's completion
  uint64_t block_start = 0;    // the cycle it could fetch again after its last branch
  uint64_t long_operands = 0;  // when win.at(0)'s loaded (or SFU, shuffle) operands arrived
  std::vector<Pending> pending;
  uint64_t pending_bits = 0;  // pending_bits_of(pending) (scoreboard.h): a quick "none"
  int hoisted = 0;          // loads in the window issued ahead of their turn
  int hoisted_regs = 0;     // their destination registers
  // Registers holding results of loads the warp has reached but no later instruction has read
  // yet (function << 20 | register): with hoisted_regs, the registers loads occupy.
  std::vector<int32_t> unread;
  uint64_t unread_regs = 0;  // bit (register % 64) of each entry of `unread`: a quick "none"
  uint32_t back_edges = 0;  // taken backward branches fetched so far
  int32_t branch_pc = -1;   // the last fetched instruction when a branch (function << 20 | pc)
  int32_t slow_key = -1;    // the result of the last IEEE division fetched (calls_slow_path)
  uint64_t span_begin = 0;  // trace: current span
  WarpState span_state = WarpState::Count_;
  int32_t span_line = 0;
  // The open vector group of shared loads (ptxas's LDS.64/.128): each lane's first address, the
  // bytes gathered so far, and when its leader's data is back once it has issued.
  uint32_t vec_bytes = 0, vec_mask = 0, vec_group = 0;
  int32_t vec_function = -1;
  int32_t vec_base = -1;  // the group's base register and its leader's immediate offset
  int64_t vec_offset = 0;
  bool vec_issued = false;
  uint64_t vec_ready = 0;
  std::array<uint64_t, 32> vec_start{};
};

inline bool Sm::mio_accepts(uint64_t now, uint64_t& wake) {
  if (mio_asked_ != now) {
    mio_ok_ = l1tex_.can_accept_shared(now, mio_wake_);
    mio_asked_ = now;
  }
  if (!mio_ok_) wake = mio_wake_;
  return mio_ok_;
}

inline int Sm::hoist_now(Warp& w, int sp, uint64_t now, uint64_t& wake) {
  // Loads leave in program order: this one takes the load/store pipe and the LSU queue.
  const uint64_t free = pipe_free_[sp][static_cast<int>(ptx::UnitClass::Ldst)];
  if (free > now) {
    wake = std::min(wake, free);
    return 0;
  }
  uint64_t qwake = kNever;
  const bool ok = w.hoist_shared ? mio_accepts(now, qwake) : l1tex_.can_accept_global(now, qwake);
  if (!ok) {
    wake = std::min(wake, qwake);
    return 0;
  }
  return w.hoist_at;
}

inline int Sm::find_hoist(Warp& w, int sp, uint64_t now, uint64_t& wake) {
  if (w.hoist_at != 0) return w.hoist_at > 0 ? hoist_now(w, sp, now, wake) : 0;
  return scan_hoist(w, sp, now, wake);
}

// evaluate()'s steps 2 and 3 for a warp whose next instruction has cleared its scoreboard: the
// pipeline it needs, then the memory unit's queue its access enters (evaluate() calls it alone
// for such a warp, clear_to_issue: the usual case of ready and throttled warps).
inline WarpState Sm::pipe_state(Warp& w, int sp, uint64_t now, uint64_t& wake) {
  using ptx::UnitClass;
  const UnitClass unit = w.next_unit;
  uint64_t free = pipe_free_[sp][w.next_pipe];
  if (w.next_sfu) free = std::max(free, pipe_free_[sp][static_cast<int>(UnitClass::Sfu)]);
  if (free > now) {
    wake = free;
    if (unit == UnitClass::Sfu || unit == UnitClass::Warp) return WarpState::MioThrottle;
    if (unit == UnitClass::Ldst)
      return w.next_shared ? WarpState::MioThrottle : WarpState::LgThrottle;
    return WarpState::MathPipeThrottle;
  }
  if (w.next_access == NextAccess::Global) {
    if (!l1tex_.can_accept_global(now, wake)) return WarpState::LgThrottle;
  } else if (w.next_access == NextAccess::Shared) {
    if (!mio_accepts(now, wake)) return WarpState::MioThrottle;
  }
  wake = now;
  return WarpState::NotSelected;  // ready; the scheduler decides
}

inline bool Sm::clear_to_issue(const Warp& w, uint64_t now) const {
  return w.next_clear && w.win.first_known && w.fetch_ready <= now && !w.exited && !w.at_barrier;
}

// The warp's cycles since `since` in its state and line (inline: the tick calls it whenever a
// warp's state or line changes).
inline void Sm::account(Warp& w, int /*slot*/, uint64_t now) {
  if (now <= w.since) return;
  const uint64_t d = now - w.since;
  state_cycles_[static_cast<int>(w.state)] += d;
  if (w.line > 0 && w.line < static_cast<int32_t>(ctx_.by_ptx_line.size()))
    ctx_.by_ptx_line[w.line][static_cast<int>(w.state)] += d;
  w.since = now;
}

inline WarpState Sm::evaluate(Warp& w, int sp, uint64_t now, uint64_t& wake) {
  wake = kNever;
  w.pick = 0;
  if (clear_to_issue(w, now)) return pipe_state(w, sp, now, wake);
  return evaluate_stalled(w, sp, now, wake);
}

struct Sm::Block {
  bool used = false;  // a block is resident in this slot
  // The slot's block; kept when the block finishes, so that the next one reuses its storage.
  std::optional<func::Cta> cta;
  std::vector<int> slots;
  uint64_t linear = 0;
  int live = 0;        // warps not exited (timing view)
  int arrived = 0;     // warps waiting at the barrier
  BlockBarrier barrier;  // counts the arrivals (block_barrier.h)
  int used_slots = 0;  // warps still holding a slot (exited ones drain)
  uint64_t begin = 0;  // dispatch cycle (trace)
};

}  // namespace warplab::timing
