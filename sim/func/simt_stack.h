// The SIMT reconvergence stack: how a warp runs both sides of a divergent branch.
//
// A warp issues one instruction for 32 lanes. When a branch sends some lanes one way and some the
// other, pre-Volta NVIDIA hardware (and WarpLab) serialises the two paths with a per-warp stack of
// (pc, reconvergence pc, active mask) entries:
//   - at a divergent branch, the current entry is parked at the reconvergence point, the
//     immediate post-dominator of the branch (cfg.h), and one entry per path is pushed; the
//     fall-through path runs first;
//   - when the running entry's pc reaches its reconvergence pc, it is popped and the lanes merge;
//   - lanes that exit are removed from every entry; lanes that return from a device function are
//     removed from the entries of that call; an entry left with no lanes is popped.
// Modelled: nested divergence, loops with break/continue, early return, calls. Simplified: Volta's
// independent thread scheduling (a diverged path may yield to the other before reconverging) is
// not modelled; a warp runs one path to its reconvergence point first, as before Volta. Results
// of race-free code are the same.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace warplab::func {

struct SimtEntry {
  int32_t pc = 0;        // next instruction of this path
  int32_t rpc = -1;      // reconvergence pc (kNoPc: none; the path ends by exiting/returning)
  uint32_t mask = 0;     // lanes on this path
  int32_t call_pc = -1;  // >= 0: this entry is a call frame pushed by the call at that pc
  bool operator==(const SimtEntry&) const = default;
};

class SimtStack {
 public:
  void reset(int32_t entry_pc, uint32_t mask);
  bool empty() const { return entries_.empty(); }
  SimtEntry& top() { return entries_.back(); }
  const SimtEntry& top() const { return entries_.back(); }
  size_t depth() const { return entries_.size(); }
  const std::vector<SimtEntry>& entries() const { return entries_; }

  // Moves the running path to `next` and pops every path that reached its reconvergence point.
  // Returns true when paths merged (the warp's mask changed).
  bool advance(int32_t next);
  // A branch at `pc` sends `taken` lanes of the running path to `target`, the rest to pc+1.
  // Returns true when the warp diverged.
  bool branch(int32_t pc, int32_t target, int32_t rpc, uint32_t taken);
  // A call at `pc` by `lanes`: the caller resumes at pc+1 once every calling lane returned.
  void call(int32_t pc, int32_t callee_entry, uint32_t lanes);
  // `lanes` return from the innermost call frame; returns that frame's call pc (or -1 when the
  // running function is the kernel, where ret means exit).
  int32_t ret(uint32_t lanes, int32_t pc);
  // `lanes` exit: removed from every entry.
  void exit(uint32_t lanes, int32_t pc);
  int32_t innermost_call_pc() const;

 private:
  void pop_finished();
  std::vector<SimtEntry> entries_;
};

}  // namespace warplab::func
