// Register slots shared by registers that are never live at the same time: see reg_share.h.
#include "sim/func/reg_share.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "sim/func/decoded.h"
#include "sim/func/reg_init.h"

namespace warplab::func {
namespace {

// A set of the kernel's registers (0 .. n-1), as 64-bit words.
struct RegSet {
  std::vector<uint64_t> w;
  explicit RegSet(size_t n = 0) : w((n + 63) / 64, 0) {}
  bool has(int i) const { return (w[static_cast<size_t>(i) / 64] >> (i % 64)) & 1u; }
  void add(int i) { w[static_cast<size_t>(i) / 64] |= uint64_t{1} << (i % 64); }
};

}  // namespace

bool share_register_slots(DecodedKernel& k) {
  constexpr int kMaxRegisters = 4096;  // the interference matrix is n^2 bits (2 MB at this n)
  if (k.funcs.size() != 1 || k.code.empty() || !k.zero_slots) return false;
  const int32_t base = k.funcs[0].reg_base;
  const int n = k.funcs[0].reg_count;
  if (n < 2 || n > kMaxRegisters) return false;
  const int pcs = static_cast<int>(k.code.size());
  auto reg_of = [&](int32_t slot) { return slot >= base && slot < base + n ? slot - base : -1; };
  // 1. One thread's control flow (reg_init.h), and each instruction's registers: sources and
  //    destinations (a guard, d.guard, may keep the write from happening).
  const auto cfg = thread_successors(k);
  if (!cfg) return false;
  const std::vector<std::vector<int>>& next = *cfg;
  std::vector<std::vector<int>> uses(pcs), defs(pcs);
  for (int pc = 0; pc < pcs; ++pc) {
    const DInst& d = k.code[pc];
    for (int i = 0; i < d.ns; ++i)
      if (const int r = reg_of(d.s[i]); r >= 0) uses[pc].push_back(r);
    for (int i = 0; i < d.nd; ++i)
      if (!(d.dpred >> i & 1u))
        if (const int r = reg_of(d.d[i]); r >= 0) defs[pc].push_back(r);
  }
  // 2. Liveness, backwards to a fixed point: in = uses | (out - unguarded defs).
  const size_t words = (static_cast<size_t>(n) + 63) / 64;
  std::vector<RegSet> live_in(pcs, RegSet(n)), live_out(pcs, RegSet(n));
  for (bool changed = true; changed;) {
    changed = false;
    for (int pc = pcs - 1; pc >= 0; --pc) {
      RegSet out(n);
      for (int s : next[pc])
        for (size_t x = 0; x < words; ++x) out.w[x] |= live_in[s].w[x];
      RegSet in = out;
      if (k.code[pc].guard < 0)
        for (int r : defs[pc]) in.w[static_cast<size_t>(r) / 64] &= ~(uint64_t{1} << (r % 64));
      for (int r : uses[pc]) in.add(r);
      if (in.w != live_in[pc].w) live_in[pc] = std::move(in), changed = true;
      live_out[pc] = std::move(out);
    }
  }
  // 3. Interference: a register written where another is live, and an instruction's operands
  //    among themselves. Registers live at the entry (read before written: zeroed for each
  //    block) and the zeroed ones keep slots of their own (they interfere with every register).
  std::vector<RegSet> conflicts(n, RegSet(n));
  auto conflict = [&](int a, int b) {
    if (a == b) return;
    conflicts[a].add(b);
    conflicts[b].add(a);
  };
  for (int pc = 0; pc < pcs; ++pc)
    for (int r : defs[pc]) {
      for (size_t x = 0; x < words; ++x)
        for (uint64_t m = live_out[pc].w[x]; m; m &= m - 1)
          conflict(r, static_cast<int>(64 * x) + __builtin_ctzll(m));
      for (int u : uses[pc]) conflict(r, u);
      for (int o : defs[pc]) conflict(r, o);
    }
  RegSet pinned = live_in[0];
  for (int32_t slot : *k.zero_slots)
    if (const int r = reg_of(slot); r >= 0) pinned.add(r);
  // 4. Slots: the pinned registers first, in order, then each other register the lowest slot
  //    no register it conflicts with holds. Registers no instruction names keep none.
  RegSet named(n);
  for (int pc = 0; pc < pcs; ++pc) {
    for (int r : uses[pc]) named.add(r);
    for (int r : defs[pc]) named.add(r);
  }
  std::vector<int> slot(n, -1);
  int used = 0;
  for (int r = 0; r < n; ++r)
    if (named.has(r) && pinned.has(r)) slot[r] = used++;
  const int first_free = used;
  std::vector<uint8_t> taken;
  for (int r = 0; r < n; ++r) {
    if (!named.has(r) || pinned.has(r)) continue;
    taken.assign(static_cast<size_t>(used) + 1, 0);
    for (size_t x = 0; x < words; ++x)
      for (uint64_t m = conflicts[r].w[x]; m; m &= m - 1) {
        const int o = static_cast<int>(64 * x) + __builtin_ctzll(m);
        if (slot[o] >= 0) taken[slot[o]] = 1;
      }
    int s = first_free;
    while (taken[s]) ++s;
    slot[r] = s;
    used = std::max(used, s + 1);
  }
  if (used >= n) return false;
  // 5. The operands and the zeroed slots, renumbered.
  auto moved = [&](int32_t& s) {
    if (const int r = reg_of(s); r >= 0) s = base + slot[r];
  };
  for (DInst& d : k.code) {
    for (int i = 0; i < d.ns; ++i) moved(d.s[i]);
    for (int i = 0; i < d.nd; ++i)
      if (!(d.dpred >> i & 1u)) moved(d.d[i]);
  }
  // Each slot's register (-1 where several share it) and width (the widest), as decoded.h
  // describes them, for the slots of the function's range.
  std::vector<int32_t> reg(n, -1), width(n, 8), count(n, 0);
  for (int r = 0; r < n; ++r) {
    if (slot[r] < 0) continue;
    reg[slot[r]] = k.slot_reg[base + r];
    width[slot[r]] = std::max(width[slot[r]], k.reg_width[base + r]);
    ++count[slot[r]];
  }
  for (int s = 0; s < n; ++s) {
    k.slot_reg[base + s] = count[s] == 1 ? reg[s] : -1;
    k.reg_width[base + s] = count[s] > 0 ? width[s] : 64;
  }
  // (Still sorted and distinct: pinned registers took slots in their own order, one each.)
  for (int32_t& s : *k.zero_slots) moved(s);
  k.shared_slots = used;
  return true;
}

}  // namespace warplab::func
