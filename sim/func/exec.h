// The execution context a handler sees, and the lane loop every handler is built on.
//
// An SM issues one instruction for a whole warp; each lane's ALU does the same operation on its
// own registers, and lanes whose bit is clear in the active mask (or whose guard predicate is
// false) do nothing. A handler here is one decoded instruction's semantics: it loops over the set
// bits of `exec` on the warp's structure-of-arrays register file (slot * 32 + lane), so the
// per-instruction cost is one indirect call plus a tight lane loop.
#pragma once

#include <bit>
#include <cstdint>
#include <string>

#include "sim/common/bits.h"
#include "sim/func/cta.h"
#include "sim/func/decoded.h"

namespace warplab::func {

class CtaImpl;
struct Warp;

struct Exec {
  CtaImpl* cta = nullptr;
  Warp* w = nullptr;
  uint64_t* R = nullptr;  // the warp's data registers: R[slot * 32 + lane]
  uint32_t* P = nullptr;  // the warp's predicates: one lane mask per predicate
  uint32_t active = 0;    // lanes on the running SIMT path
  uint32_t exec = 0;      // active lanes whose guard predicate is true
  int32_t pc = 0;
  bool control = false;      // the handler moved the warp's pc itself (branches, calls, ...)
  bool failed = false;       // the handler raised a fault
  bool diverged = false;     // the warp's mask changed (split or merge)
  StepInfo* info = nullptr;  // filled for memory instructions when not null
  uint64_t clock = 0;        // what %clock reads
};

inline uint64_t& reg(const Exec& x, int32_t slot, int lane) { return x.R[slot * 32 + lane]; }
inline bool pred_bit(const Exec& x, const DInst& d, int i, int lane) {
  return (((x.P[d.p[i]] >> lane) & 1u) != 0) != (((d.pneg >> i) & 1u) != 0);
}
// The lane mask of predicate source i (negation applied).
inline uint32_t pred_mask(const Exec& x, const DInst& d, int i) {
  const uint32_t m = x.P[d.p[i]];
  return ((d.pneg >> i) & 1u) ? ~m : m;
}
// Writes `bits` to predicate `p` for the lanes of `exec` only.
inline void write_pred(Exec& x, int32_t p, uint32_t bits) {
  x.P[p] = (x.P[p] & ~x.exec) | (bits & x.exec);
}


template <class F>
inline void for_lanes(uint32_t m, F&& f) {
  if (m == 0xFFFFFFFFu) {
    for (int l = 0; l < 32; ++l) f(l);
  } else {
    while (m) {
      const int l = std::countr_zero(m);
      m &= m - 1;
      f(l);
    }
  }
}

// Handler pickers: each returns the handler for an instruction of its family (filling handler
// constants in `d`), or nullptr with `why` set when the combination is not supported.
Handler pick_int(const ptx::Instruction& in, DInst& d, std::string& why);      // exec_int.cpp
Handler pick_float(const ptx::Instruction& in, DInst& d, std::string& why);    // exec_float.cpp
Handler pick_move(const ptx::Instruction& in, DInst& d, std::string& why);     // exec_move.cpp
Handler pick_memory(const ptx::Instruction& in, DInst& d, std::string& why);   // exec_memory.cpp
Handler pick_control(const ptx::Instruction& in, DInst& d, std::string& why);  // exec_control.cpp
Handler pick_warp(const ptx::Instruction& in, DInst& d, std::string& why);     // exec_warp.cpp
Handler pick_tensor(const ptx::Instruction& in, DInst& d, std::string& why);   // exec_mma.cpp
Handler pick_async(const ptx::Instruction& in, DInst& d, std::string& why);    // exec_async.cpp
Handler pick_wgmma(const ptx::Instruction& in, DInst& d, std::string& why);    // exec_wgmma.cpp
Handler pick_tma(const ptx::Instruction& in, DInst& d, std::string& why);      // exec_tma.cpp
// The external functions the simulator provides itself (vprintf, __assertfail; exec_printf.cpp):
// the handler for a call of `name` with that many arguments and return values, nullptr (with
// `why` set when the name is known but the signature is not) for any other.
Handler builtin_handler(const std::string& name, size_t args, size_t returns, std::string& why);
inline bool is_builtin(const std::string& name) {
  return name == "vprintf" || name == "__assertfail";
}

// Lane-loop builders: define a handler NAME that computes EXPR for every executing lane, from
// sources a (, b, c) into the first destination; t is the instruction type and md its modifiers.
#define WL_LANES1(NAME, EXPR)                    \
  void NAME(Exec& x, const DInst& d) {           \
    [[maybe_unused]] const Type t = d.ir->type;  \
    [[maybe_unused]] const auto& md = d.ir->mod; \
    uint64_t* R = x.R;                           \
    const int o = d.d[0] * 32, sa = d.s[0] * 32; \
    for_lanes(x.exec, [&](int l) {               \
      const uint64_t a = R[sa + l];              \
      R[o + l] = (EXPR);                         \
    });                                          \
  }
#define WL_LANES2(NAME, EXPR)                                      \
  void NAME(Exec& x, const DInst& d) {                             \
    [[maybe_unused]] const Type t = d.ir->type;                    \
    [[maybe_unused]] const auto& md = d.ir->mod;                   \
    uint64_t* R = x.R;                                             \
    const int o = d.d[0] * 32, sa = d.s[0] * 32, sb = d.s[1] * 32; \
    for_lanes(x.exec, [&](int l) {                                 \
      const uint64_t a = R[sa + l], b = R[sb + l];                 \
      R[o + l] = (EXPR);                                           \
    });                                                            \
  }
#define WL_LANES3(NAME, EXPR)                                                        \
  void NAME(Exec& x, const DInst& d) {                                               \
    [[maybe_unused]] const Type t = d.ir->type;                                      \
    [[maybe_unused]] const auto& md = d.ir->mod;                                     \
    uint64_t* R = x.R;                                                               \
    const int o = d.d[0] * 32, sa = d.s[0] * 32, sb = d.s[1] * 32, sc = d.s[2] * 32; \
    for_lanes(x.exec, [&](int l) {                                                   \
      const uint64_t a = R[sa + l], b = R[sb + l], c = R[sc + l];                    \
      R[o + l] = (EXPR);                                                             \
    });                                                                              \
  }

// setp/set with a boolean op: r (this compare's lane mask) combined with the predicate operand c.
inline uint32_t combine(uint32_t r, uint32_t c, ptx::BoolOp op) {
  switch (op) {
    case ptx::BoolOp::And:
      return r & c;
    case ptx::BoolOp::Or:
      return r | c;
    case ptx::BoolOp::Xor:
      return r ^ c;
    default:
      return r;
  }
}

}  // namespace warplab::func
