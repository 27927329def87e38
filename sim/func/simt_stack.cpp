#include "sim/func/simt_stack.h"

#include "sim/func/decoded.h"

namespace warplab::func {
namespace {
constexpr int32_t kParked = -3;  // an entry whose lanes all leave by exit/ret, never resumed
}

void SimtStack::reset(int32_t entry_pc, uint32_t mask) {
  entries_.clear();
  entries_.push_back({entry_pc, kNoPc, mask, -1});
}

void SimtStack::pop_finished() {
  while (!entries_.empty()) {
    const SimtEntry& t = entries_.back();
    if (t.mask != 0 && t.pc != t.rpc) break;
    entries_.pop_back();
  }
}

bool SimtStack::advance(int32_t next) {
  SimtEntry& t = entries_.back();
  t.pc = next;
  if (t.pc != t.rpc) return false;
  pop_finished();
  return true;
}

bool SimtStack::branch(int32_t pc, int32_t target, int32_t rpc, uint32_t taken) {
  SimtEntry& t = entries_.back();
  taken &= t.mask;
  const uint32_t fall = t.mask & ~taken;
  if (fall == 0) return advance(target);
  if (taken == 0) return advance(pc + 1);
  // Divergence: park the running entry at the reconvergence point, run each side to it.
  t.pc = rpc == kNoPc ? kParked : rpc;
  if (target != rpc) entries_.push_back({target, rpc, taken, -1});
  if (pc + 1 != rpc) entries_.push_back({pc + 1, rpc, fall, -1});
  return true;
}

void SimtStack::call(int32_t pc, int32_t callee_entry, uint32_t lanes) {
  entries_.back().pc = pc + 1;
  entries_.push_back({callee_entry, kNoPc, lanes, pc});
}

int32_t SimtStack::innermost_call_pc() const {
  for (size_t i = entries_.size(); i-- > 0;)
    if (entries_[i].call_pc >= 0) return entries_[i].call_pc;
  return -1;
}

int32_t SimtStack::ret(uint32_t lanes, int32_t pc) {
  size_t frame = entries_.size();
  while (frame-- > 0)
    if (entries_[frame].call_pc >= 0) break;
  if (frame == static_cast<size_t>(-1)) return -1;
  const int32_t call_pc = entries_[frame].call_pc;
  for (size_t i = frame; i < entries_.size(); ++i) entries_[i].mask &= ~lanes;
  if (entries_.back().mask != 0) entries_.back().pc = pc + 1;
  pop_finished();
  return call_pc;
}

void SimtStack::exit(uint32_t lanes, int32_t pc) {
  for (auto& e : entries_) e.mask &= ~lanes;
  if (!entries_.empty() && entries_.back().mask != 0) entries_.back().pc = pc + 1;
  pop_finished();
}

}  // namespace warplab::func
