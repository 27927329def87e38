// Tensor-core instructions: mma.sync, ldmatrix, stmatrix, movmatrix.
//
// What the hardware does: each SM sub-partition has a tensor core that multiplies small matrix
// tiles. `mma.sync.aligned.m16n8k16` is one warp-wide operation: D(16x8) = A(16x16) * B(16x8) +
// C(16x8), where no lane holds a whole matrix: each of the 32 lanes holds a *fragment*, a few
// elements of A, B, C and D in its registers, at positions the PTX ISA fixes per lane. With
// groupID g = lane / 4 and t = lane % 4 (the lane's index in its group of four), for m16n8k16 with
// 16-bit inputs lane l holds
//   A: 4 registers of two halves: rows g and g+8, columns 2t, 2t+1 and 2t+8, 2t+9;
//   B: 2 registers of two halves: rows (k) 2t, 2t+1 and 2t+8, 2t+9 of column g;
//   C, D (f32): 4 registers: rows g and g+8, columns 2t and 2t+1.
// The tables below (a_pos, b_pos, cd_pos) give every shape and type this file simulates.
// ldmatrix loads whole 8x8 matrices of 16-bit elements from shared memory straight into this
// layout (lanes 8i..8i+7 give the addresses of the 8 rows of matrix i; lane l receives row l/4,
// columns 2(l%4) and 2(l%4)+1 of every matrix; .trans hands out the transpose), stmatrix stores
// it back, and movmatrix transposes a fragment in registers.
//
// Modelled: every fragment position, every element type, the exact products, and the
// accumulation rule measured on the H100 (numeric.h, mma_accumulate_f32: terms aligned to the
// largest exponent and truncated 25 bits below it, summed exactly, rounded toward zero).
// Simplified: the instructions need every lane of the warp (.aligned); a warp with lanes off the
// path still computes with all 32 lanes' registers, writes only the executing lanes and reports a
// synccheck hazard. racecheck does not see ldmatrix/stmatrix accesses.
#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <cstring>

#include "sim/func/cta_impl.h"
#include "sim/func/exec.h"
#include "sim/func/numeric.h"

namespace warplab::func {
namespace {

using ptx::MmaType;
using ptx::Opcode;
using ptx::Space;

struct Pos {
  int row, col;
};

int elem_bits(MmaType t) {
  switch (t) {
    case MmaType::F16:
    case MmaType::BF16:
      return 16;
    case MmaType::TF32:
    case MmaType::F32:
    case MmaType::S32:
      return 32;
    default:
      return 8;
  }
}

// The fragment of an M16N8 mma: how many registers each lane holds for A, B and C/D.
struct Shape {
  int k;        // K of the instruction
  int a_bits;   // element width of A and B
  int a_regs;   // registers of A per lane
  int b_regs;   // registers of B per lane
  int cd_regs;  // registers of C and D per lane
};
Shape shape_of(const ptx::TensorMods& t) {
  Shape s{t.k, elem_bits(t.a), 0, 0, 0};
  const int per_reg = 32 / s.a_bits;
  s.a_regs = 16 * t.k / per_reg / 32;  // A is 16 x K
  s.b_regs = t.k * 8 / per_reg / 32;   // B is K x 8
  s.cd_regs = elem_bits(t.c) == 16 ? 2 : 4;
  return s;
}

// Where element e of register r of lane l sits in A (row m, column k).
Pos a_pos(const Shape& s, int l, int r, int e) {
  const int g = l >> 2, t = l & 3;
  if (s.a_bits == 32) return {g + 8 * (r & 1), t + 4 * (r >> 1)};          // tf32 m16n8k8
  if (s.a_bits == 16) return {g + 8 * (r & 1), 2 * t + e + 8 * (r >> 1)};  // k8: r < 2
  return {g + 8 * (r & 1), 4 * t + e + 16 * (r >> 1)};                     // 8-bit m16n8k32
}
// ... in B (row k, column n).
Pos b_pos(const Shape& s, int l, int r, int e) {
  const int g = l >> 2, t = l & 3;
  if (s.a_bits == 32) return {t + 4 * r, g};
  if (s.a_bits == 16) return {2 * t + e + 8 * r, g};
  return {4 * t + e + 16 * r, g};
}
// ... in C and D (row m, column n): f32/s32 one element per register, f16 two.
Pos cd_pos(bool half, int l, int r, int e) {
  const int g = l >> 2, t = l & 3;
  if (half) return {g + 8 * r, 2 * t + e};
  return {g + 8 * (r >> 1), 2 * t + (r & 1)};
}

// Element e (of width bits) of a register value.
uint32_t field(uint64_t v, int bits, int e) {
  return bits == 32 ? static_cast<uint32_t>(v)
                    : static_cast<uint32_t>(v >> (e * bits)) & ((1u << bits) - 1);
}

double element_value(MmaType t, uint32_t b) {
  switch (t) {
    case MmaType::F16:
      return num::f16_to_f32(static_cast<uint16_t>(b));
    case MmaType::BF16:
      return num::bf16_to_f32(static_cast<uint16_t>(b));
    case MmaType::TF32:
      return num::tf32_operand_to_double(b);
    case MmaType::E4M3:
      return num::e4m3_to_double(static_cast<uint8_t>(b));
    case MmaType::E5M2:
      return num::e5m2_to_double(static_cast<uint8_t>(b));
    case MmaType::S8:
      return static_cast<int8_t>(b);
    case MmaType::U8:
      return static_cast<uint8_t>(b);
    case MmaType::F32:
      return num::as_f32(b);
    case MmaType::S32:
      return static_cast<int32_t>(b);
    case MmaType::None:
      break;
  }
  return 0;
}

// The exponent the tensor core gives an operand (numeric.h, mma_accumulate_f32). FP8 inputs are
// converted to f16 first on sm_90 (no FP8 mma.sync there), so they count as f16.
int exponent_of(MmaType t, double v) {
  return num::mma_operand_exponent(v, t == MmaType::BF16 || t == MmaType::TF32 ? 8 : 5);
}

// .aligned: every lane of the warp must execute the instruction.
void check_full_warp(Exec& x, const DInst& d, const char* name) {
  if (x.exec == 0xFFFFFFFFu) return;
  const int lane = std::countr_zero(x.exec);
  x.cta->sync_hazard(x, d, lane,
                     std::string(name) +
                         ".sync.aligned executed by only some lanes of the warp: every lane must "
                         "execute it (the GPU's result is undefined; WarpLab reads all 32 lanes)");
}

void exec_mma(Exec& x, const DInst& d) {
  check_full_warp(x, d, "mma");
  const ptx::TensorMods& tm = d.ir->mod.tensor;
  const Shape s = shape_of(tm);
  const int per_reg = 32 / s.a_bits;
  // 1. Gather A (16 x K), B (K x 8) and C (16 x 8) from the lanes' fragments, as exact values.
  std::array<double, 16 * 32> A{};
  std::array<double, 32 * 8> B{};
  std::array<int, 16 * 32> Ae{};  // the operands' exponents (exponent_of), for the rule
  std::array<int, 32 * 8> Be{};
  std::array<uint32_t, 16 * 8> C{};
  const bool half_cd = elem_bits(tm.c) == 16;
  for (int l = 0; l < 32; ++l) {
    for (int r = 0; r < s.a_regs; ++r) {
      const uint64_t v = reg(x, d.s[r], l);
      for (int e = 0; e < per_reg; ++e) {
        const Pos p = a_pos(s, l, r, e);
        const double a = element_value(tm.a, field(v, s.a_bits, e));
        A[p.row * s.k + p.col] = a;
        Ae[p.row * s.k + p.col] = a == 0 || !std::isfinite(a) ? 0 : exponent_of(tm.a, a);
      }
    }
    for (int r = 0; r < s.b_regs; ++r) {
      const uint64_t v = reg(x, d.s[s.a_regs + r], l);
      for (int e = 0; e < per_reg; ++e) {
        const Pos p = b_pos(s, l, r, e);
        const double b = element_value(tm.b, field(v, s.a_bits, e));
        B[p.row * 8 + p.col] = b;
        Be[p.row * 8 + p.col] = b == 0 || !std::isfinite(b) ? 0 : exponent_of(tm.b, b);
      }
    }
    for (int r = 0; r < s.cd_regs; ++r) {
      const uint64_t v = reg(x, d.s[s.a_regs + s.b_regs + r], l);
      for (int e = 0; e < (half_cd ? 2 : 1); ++e) {
        const Pos p = cd_pos(half_cd, l, r, e);
        C[p.row * 8 + p.col] = half_cd ? field(v, 16, e) : static_cast<uint32_t>(v);
      }
    }
  }
  // 2. D = A * B + C per element, by the accumulation rule (integers: exactly, then wrap or
  //    saturate to s32).
  std::array<uint32_t, 16 * 8> D{};
  std::array<double, 32> prod{};
  std::array<int, 32> exps{};
  const bool integer = tm.c == MmaType::S32;
  for (int m = 0; m < 16; ++m)
    for (int n = 0; n < 8; ++n) {
      if (integer) {
        int64_t acc = static_cast<int32_t>(C[m * 8 + n]);
        for (int k = 0; k < s.k; ++k)
          acc += static_cast<int64_t>(A[m * s.k + k]) * static_cast<int64_t>(B[k * 8 + n]);
        if (d.ir->mod.sat) acc = std::clamp<int64_t>(acc, INT32_MIN, INT32_MAX);
        D[m * 8 + n] = static_cast<uint32_t>(acc);
        continue;
      }
      for (int k = 0; k < s.k; ++k) {
        const double a = A[m * s.k + k], b = B[k * 8 + n];
        prod[k] = a * b;  // exact
        exps[k] = Ae[m * s.k + k] + Be[k * 8 + n];
      }
      const uint32_t c = C[m * 8 + n];
      if (half_cd) {
        D[m * 8 + n] = num::mma_accumulate_f16(prod.data(), s.k, num::f16_to_f32(c));
      } else if (s.a_bits == 8) {
        // e4m3/e5m2 on sm_90: ptxas converts the inputs to f16 and runs two m16n8k16 HMMAs, the
        // second on the first's result, then adds C with an FADD (from the SASS; the order of
        // the sums is inferred, not measured).
        const uint32_t t0 = num::mma_accumulate_f32(prod.data(), exps.data(), 16, 0.0);
        const uint32_t t =
            num::mma_accumulate_f32(prod.data() + 16, exps.data() + 16, 16, num::as_f32(t0));
        D[m * 8 + n] = num::f32_add(c, t);
      } else {
        D[m * 8 + n] = num::mma_accumulate_f32(prod.data(), exps.data(), s.k, num::as_f32(c));
      }
    }
  // 3. Scatter D to the executing lanes (after every read: D may share registers with A, B, C).
  for_lanes(x.exec, [&](int l) {
    for (int r = 0; r < s.cd_regs; ++r) {
      uint64_t v = 0;
      if (half_cd) {
        const Pos p0 = cd_pos(true, l, r, 0), p1 = cd_pos(true, l, r, 1);
        v = D[p0.row * 8 + p0.col] | (static_cast<uint64_t>(D[p1.row * 8 + p1.col]) << 16);
      } else {
        const Pos p = cd_pos(false, l, r, 0);
        v = D[p.row * 8 + p.col];
      }
      reg(x, d.d[r], l) = v;
    }
  });
}

// An 8x8 matrix of b16 elements: [row][col].
using Matrix8 = std::array<std::array<uint16_t, 8>, 8>;

// The fragment register of lane l for matrix M: row l/4, columns 2(l%4) and 2(l%4)+1 (low half
// first); with trans, the same positions of M's transpose.
uint32_t fragment_of(const Matrix8& M, int l, bool trans) {
  const int r = l >> 2, c = 2 * (l & 3);
  if (trans) return M[c][r] | (static_cast<uint32_t>(M[c + 1][r]) << 16);
  return M[r][c] | (static_cast<uint32_t>(M[r][c + 1]) << 16);
}
void set_from_fragment(Matrix8& M, int l, uint32_t v, bool trans) {
  const int r = l >> 2, c = 2 * (l & 3);
  const auto lo = static_cast<uint16_t>(v), hi = static_cast<uint16_t>(v >> 16);
  if (trans)
    M[c][r] = lo, M[c + 1][r] = hi;
  else
    M[r][c] = lo, M[r][c + 1] = hi;
}

// The 16-byte row `row` of matrix i: its address comes from lane 8i + row.
uint8_t* row_ptr(Exec& x, const DInst& d, int i, int row, bool write) {
  const int lane = 8 * i + row;
  const uint64_t a = reg(x, d.s[0], lane) + static_cast<uint64_t>(d.offset);
  Space resolved;
  uint8_t* p = x.cta->access(x, d, lane, a, 16, write, d.space, resolved);
  if (!p) return nullptr;
  if (resolved != Space::Shared) {
    x.cta->raise(x, d, LaunchFault::Kind::InvalidAddress, lane, a, 16, write, resolved,
                 "ldmatrix/stmatrix address " + std::to_string(a) +
                     " is not in shared memory (the matrices must be in shared memory)");
    return nullptr;
  }
  if (x.info) {
    x.info->space = Space::Shared;
    x.info->addr[lane] = d.space == Space::Generic ? a - kSharedWindow : a;
  }
  return p;
}

// The timing model reads the row addresses of the lanes that give them (lanes 0..8*num-1).
void report_address_lanes(Exec& x, int num) {
  if (x.info) x.info->exec_mask &= num == 4 ? 0xFFFFFFFFu : (1u << (8 * num)) - 1;
}

void exec_ldmatrix(Exec& x, const DInst& d) {
  check_full_warp(x, d, "ldmatrix");
  const ptx::TensorMods& tm = d.ir->mod.tensor;
  report_address_lanes(x, tm.num);
  std::array<Matrix8, 4> M{};
  for (int i = 0; i < tm.num; ++i)
    for (int row = 0; row < 8; ++row) {
      const uint8_t* p = row_ptr(x, d, i, row, false);
      if (!p) return;
      std::memcpy(M[i][row].data(), p, 16);
    }
  for_lanes(x.exec, [&](int l) {
    for (int i = 0; i < tm.num; ++i) reg(x, d.d[i], l) = fragment_of(M[i], l, tm.trans);
  });
}

void exec_stmatrix(Exec& x, const DInst& d) {
  check_full_warp(x, d, "stmatrix");
  const ptx::TensorMods& tm = d.ir->mod.tensor;
  report_address_lanes(x, tm.num);
  std::array<Matrix8, 4> M{};
  for (int l = 0; l < 32; ++l)
    for (int i = 0; i < tm.num; ++i)
      set_from_fragment(M[i], l, static_cast<uint32_t>(reg(x, d.s[1 + i], l)), tm.trans);
  for (int i = 0; i < tm.num; ++i)
    for (int row = 0; row < 8; ++row) {
      uint8_t* p = row_ptr(x, d, i, row, true);
      if (!p) return;
      std::memcpy(p, M[i][row].data(), 16);
    }
}

void exec_movmatrix(Exec& x, const DInst& d) {
  check_full_warp(x, d, "movmatrix");
  Matrix8 M{};
  for (int l = 0; l < 32; ++l)
    set_from_fragment(M, l, static_cast<uint32_t>(reg(x, d.s[0], l)), false);
  for_lanes(x.exec, [&](int l) { reg(x, d.d[0], l) = fragment_of(M, l, true); });
}

}  // namespace

Handler pick_tensor(const ptx::Instruction& in, DInst& d, std::string& why) {
  const ptx::TensorMods& tm = in.mod.tensor;
  d.space = in.space;  // ldmatrix/stmatrix: .shared, or generic when none is written
  d.size = 16;         // bytes per row address (ldmatrix/stmatrix: what the timing model reads)
  d.vec = 1;
  switch (in.op) {
    case Opcode::Mma: {
      const Shape s = shape_of(tm);
      if (d.nd != s.cd_regs || d.ns != s.a_regs + s.b_regs + s.cd_regs) {
        why = "this mma takes " + std::to_string(s.cd_regs) + " D, " + std::to_string(s.a_regs) +
              " A, " + std::to_string(s.b_regs) + " B and " + std::to_string(s.cd_regs) +
              " C registers per lane";
        return nullptr;
      }
      return exec_mma;
    }
    case Opcode::Ldmatrix:
      if (d.nd != tm.num || d.ns != 1) {
        why = "ldmatrix .x" + std::to_string(tm.num) + " takes " + std::to_string(tm.num) +
              " destination registers and an address";
        return nullptr;
      }
      return exec_ldmatrix;
    case Opcode::Stmatrix:
      if (d.ns != 1 + tm.num) {
        why = "stmatrix .x" + std::to_string(tm.num) + " takes an address and " +
              std::to_string(tm.num) + " source registers";
        return nullptr;
      }
      return exec_stmatrix;
    case Opcode::Movmatrix:
      if (d.nd != 1 || d.ns != 1) {
        why = "movmatrix takes one destination and one source register";
        return nullptr;
      }
      return exec_movmatrix;
    default:
      why = "not a tensor-core instruction";
      return nullptr;
  }
}

}  // namespace warplab::func
