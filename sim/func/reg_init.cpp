// Registers read before written: see reg_init.h.
#include "sim/func/reg_init.h"

#include <algorithm>
#include <iterator>

#include "sim/func/decoded.h"

namespace warplab::func {
namespace {

using ptx::Opcode;

// Instructions that read only their own lane's source slots and write every destination slot in
// each lane they execute for (reg_init.h).
constexpr Opcode kFollowed[] = {
    Opcode::Add,      Opcode::Sub,   Opcode::Mul,  Opcode::Mad,  Opcode::Mul24, Opcode::Mad24,
    Opcode::Div,      Opcode::Rem,   Opcode::Abs,  Opcode::Neg,  Opcode::Min,   Opcode::Max,
    Opcode::Popc,     Opcode::Clz,   Opcode::Brev, Opcode::Bfe,  Opcode::Bfi,   Opcode::Prmt,
    Opcode::Lop3,     Opcode::And,   Opcode::Or,   Opcode::Xor,  Opcode::Not,   Opcode::Cnot,
    Opcode::Shl,      Opcode::Shr,   Opcode::Shf,  Opcode::Fma,  Opcode::Rcp,   Opcode::Sqrt,
    Opcode::Rsqrt,    Opcode::Sin,   Opcode::Cos,  Opcode::Lg2,  Opcode::Ex2,   Opcode::Tanh,
    Opcode::Copysign, Opcode::Testp, Opcode::Setp, Opcode::Selp, Opcode::Set,   Opcode::Slct,
    Opcode::Mov,      Opcode::Cvt,   Opcode::Cvta, Opcode::Ld,   Opcode::Ldu,   Opcode::St,
    Opcode::Membar,   Opcode::Fence, Opcode::Bra,  Opcode::Ret,  Opcode::Exit};

bool followed(const DInst& d) {
  if (!d.ir || d.ir->mod.carry_out) return false;
  if (d.ir->op == Opcode::Bar) return d.nd == 0;  // bar.red's result comes at the release
  return std::find(std::begin(kFollowed), std::end(kFollowed), d.ir->op) != std::end(kFollowed);
}

}  // namespace

std::optional<std::vector<std::vector<int>>> thread_successors(const DecodedKernel& k) {
  const int n = static_cast<int>(k.code.size());
  std::vector<std::vector<int>> next(n);
  for (int pc = 0; pc < n; ++pc) {
    const DInst& d = k.code[pc];
    if (!d.ir) return std::nullopt;
    const Opcode op = d.ir->op;
    const bool ends = op == Opcode::Ret || op == Opcode::Exit || op == Opcode::Bra;
    if ((!ends || d.guard >= 0) && pc + 1 < n) next[pc].push_back(pc + 1);
    if (op == Opcode::Bra) {
      if (d.target < 0 || d.target >= n) return std::nullopt;
      next[pc].push_back(d.target);
    }
  }
  return next;
}

std::optional<std::vector<int32_t>> slots_read_before_written(const DecodedKernel& k) {
  if (k.funcs.size() != 1 || k.code.empty()) return std::nullopt;  // calls: not followed
  const int n = static_cast<int>(k.code.size());
  for (const DInst& d : k.code)
    if (!followed(d)) return std::nullopt;
  const size_t words = (static_cast<size_t>(k.data_slots) + 63) / 64;
  auto bit = [](const std::vector<uint64_t>& set, size_t i, int32_t s) {
    return set[i + static_cast<size_t>(s) / 64] >> (s % 64) & 1u;
  };
  // 1. The control-flow graph of one thread: each pc's successors.
  const auto cfg = thread_successors(k);
  if (!cfg) return std::nullopt;
  const std::vector<std::vector<int>>& next = *cfg;
  // 2. Written on every path into each pc (in_[pc]; all slots until a path reaches it), to a
  //    fixed point: out = in | the unguarded instruction's data destinations.
  std::vector<uint64_t> in(static_cast<size_t>(n) * words, ~uint64_t{0});
  std::vector<bool> reached(n, false);
  std::fill(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(words), 0);
  reached[0] = true;
  std::vector<uint64_t> out(words);
  for (bool changed = true; changed;) {
    changed = false;
    for (int pc = 0; pc < n; ++pc) {
      if (!reached[pc]) continue;
      const DInst& d = k.code[pc];
      std::copy_n(in.begin() + static_cast<std::ptrdiff_t>(pc * words), words, out.begin());
      for (int i = 0; i < d.nd && d.guard < 0; ++i)
        if (!(d.dpred >> i & 1u) && d.d[i] >= 0) out[d.d[i] / 64] |= uint64_t{1} << (d.d[i] % 64);
      for (int s : next[pc]) {
        uint64_t* t = &in[static_cast<size_t>(s) * words];
        changed = changed || !reached[s];
        reached[s] = true;
        for (size_t w = 0; w < words; ++w) {
          changed = changed || (t[w] & out[w]) != t[w];
          t[w] &= out[w];
        }
      }
    }
  }
  // 3. The sources some reached instruction reads outside its written set (const slots aside).
  const int32_t c0 = k.first_const_slot, c1 = c0 + static_cast<int32_t>(k.consts.size());
  std::vector<int32_t> slots;
  for (int pc = 0; pc < n; ++pc) {
    if (!reached[pc]) continue;
    const DInst& d = k.code[pc];
    for (int i = 0; i < d.ns; ++i) {
      const int32_t s = d.s[i];
      if (s < 0 || s >= k.data_slots || (s >= c0 && s < c1)) continue;
      if (!bit(in, static_cast<size_t>(pc) * words, s)) slots.push_back(s);
    }
  }
  std::sort(slots.begin(), slots.end());
  slots.erase(std::unique(slots.begin(), slots.end()), slots.end());
  return slots;
}

}  // namespace warplab::func
