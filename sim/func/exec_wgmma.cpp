// Warpgroup MMA: wgmma.mma_async, wgmma.fence, wgmma.commit_group, wgmma.wait_group (Hopper).
//
// What the hardware does: a *warpgroup* is four consecutive warps of a block (warps 4g..4g+3, so
// threads 128g..128g+127). `wgmma.mma_async.m64nNk16` is one operation of the whole warpgroup:
// D(64xN) += A(64x16) * B(16xN). Warp i of the group owns rows 16i..16i+15 of A and D; every
// thread holds its D fragment in N/2 registers (f32), laid out like mma.sync's m16n8 accumulator
// repeated N/8 times: with g = lane/4 and t = lane%4, register r holds row 16i + g + 8*((r/2)%2),
// column 8*(r/4) + 2t + r%2 (f16 accumulators: N/4 registers of two halves, register r row
// g + 8*(r%2), columns 8*(r/2) + 2t, +1). A comes either from registers (4 per thread, the
// mma.sync m16n8k16 A fragment of the warp's 16 rows) or, like B always, from shared memory
// through a 64-bit *matrix descriptor*:
//   bits 0-13  start address >> 4 (a shared-memory offset)   bits 16-29 leading byte offset >> 4
//   bits 32-45 stride byte offset >> 4                       bits 49-51 base offset
//   bits 62-63 swizzle: 0 none, 1 128-byte, 2 64-byte, 3 32-byte
// The matrix is read in *core matrices* of 8 rows x 16 bytes. K-major operands (A, and B without
// imm-trans-b: the 16 K elements of a row are contiguous): without swizzle, the 8 rows of a core
// matrix are 16 bytes apart, core matrices adjacent in K are LBO bytes apart and those adjacent in
// M/N are SBO apart; with a W-byte swizzle (W = 32, 64, 128) a row is W bytes, the 16-byte chunks
// along K are adjacent, and groups of 8 rows are SBO apart. MN-major operands (imm-trans = 1: M or
// N contiguous): without swizzle, a core matrix is 8 K-rows of 8 MN elements (16 bytes), core
// matrices adjacent in MN are SBO apart and those adjacent in K LBO apart; with a W-byte swizzle a
// K-row holds W bytes of MN elements, groups of W bytes along MN are LBO apart and groups of 8
// K-rows SBO apart. A swizzle then XORs the 16-byte chunk index (address bits 4..6) with the
// 128-byte row index (bits 7..9), 3 bits for 128-byte, 2 for 64-byte and 1 for 32-byte swizzle,
// on the shared-memory address itself (the pattern repeats every 1024, 512, 256 bytes).
// (Layouts as the PTX ISA's "matrix descriptor" and "shared memory matrix layout" sections and
// CUTLASS's GmmaDescriptor give them.)
// The instruction is asynchronous: the warps go on at once, `wgmma.commit_group` closes the
// warp's wgmmas so far into a group and `wgmma.wait_group N` waits until at most N groups are
// pending; only then may D be read. `wgmma.fence` must come before the first wgmma that reads
// registers written by other instructions.
//
// Modelled: every N from 8 to 256, f16/bf16 (k16), tf32 (k8), e4m3/e5m2 (k32) inputs, f32 and f16
// accumulators, A from registers or a descriptor, every swizzle mode, both majors (imm-trans),
// scale-d (false: D = A*B), imm-scale-a/b (-1 negates A or B). Each warp computes its own 16 rows
// when it executes the instruction (the GPU reads shared memory later, before the wait: a correct
// kernel cannot tell). Numerics: each wgmma is one accumulation step of K products and the old D,
// by the rule measured on the H100 for mma.sync m16n8k16 (numeric.h, mma_accumulate_f32: exact
// products aligned to the largest exponent, truncated 25 bits below it, summed exactly, rounded
// toward zero; f16 accumulators: summed exactly, rounded to nearest). That wgmma uses the same rule
// per K=16 step (and one step of 32 products for FP8, 8 for tf32) is an ASSUMPTION to be checked on
// the H100 (scripts/microbench has the mma.sync numerics program to extend).
// Convergence: all 32 lanes of each warp and all four warps of the warpgroup must execute the same
// wgmma.mma_async in the same order; a warp with lanes off, a warpgroup missing warps (a block
// whose size is not a multiple of 128), or warps of one group that reach different wgmma
// instructions, or exit after different numbers of them, is a fault (the GPU's result is
// undefined). Simplified: a matrix descriptor with a nonzero base offset is refused (a fault naming
// it); fence and commit have no functional effect and wait_group none either (results are
// written at issue); the timing of all four is sim/timing/wgmma_pipe.h's.
#include <array>
#include <climits>
#include <cmath>
#include <cstring>
#include <vector>

#include "sim/func/cta_impl.h"
#include "sim/func/exec.h"
#include "sim/func/numeric.h"

namespace warplab::func {
namespace {

using ptx::MmaType;
using ptx::Opcode;
using ptx::Space;

int elem_bytes(MmaType t) {
  return t == MmaType::F16 || t == MmaType::BF16 ? 2 : t == MmaType::TF32 ? 4 : 1;
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
    default:
      return 0;
  }
}

// The exponent the accumulation rule gives an operand (numeric.h): its own, at least its format's
// smallest normal exponent.
int exponent_bits(MmaType t) {
  switch (t) {
    case MmaType::F16:
    case MmaType::E5M2:
      return 5;
    case MmaType::E4M3:
      return 4;
    default:
      return 8;  // bf16, tf32
  }
}

// A decoded matrix descriptor.
struct Descriptor {
  uint32_t start = 0, lbo = 0, sbo = 0, base_offset = 0;
  int swizzle_bytes = 0;  // 0 (none), 32, 64, 128
};
Descriptor decode_descriptor(uint64_t v) {
  Descriptor d;
  d.start = static_cast<uint32_t>(v & 0x3FFF) << 4;
  d.lbo = static_cast<uint32_t>((v >> 16) & 0x3FFF) << 4;
  d.sbo = static_cast<uint32_t>((v >> 32) & 0x3FFF) << 4;
  d.base_offset = static_cast<uint32_t>((v >> 49) & 7);
  constexpr int kSwizzle[4] = {0, 128, 64, 32};
  d.swizzle_bytes = kSwizzle[v >> 62];
  return d;
}

// The shared-memory byte offset of element (mn, k) of an operand (mn: a row of A or a column of
// B), `es` bytes per element, K-major unless mn_major (the layouts of the top comment).
uint32_t element_address(const Descriptor& d, int mn, int k, int es, bool mn_major) {
  const int t = 16 / es;  // elements per 16-byte chunk
  uint32_t a = d.start;
  if (!mn_major) {
    const int r = mn % 8, group = mn / 8, chunk = k / t, e = k % t;
    if (d.swizzle_bytes == 0)
      a += group * d.sbo + r * 16 + chunk * d.lbo + e * es;
    else
      a += group * d.sbo + r * d.swizzle_bytes + chunk * 16 + e * es;
  } else {
    const int r = k % 8, kgroup = k / 8, e = mn % t;
    if (d.swizzle_bytes == 0) {
      a += (mn / t) * d.sbo + r * 16 + kgroup * d.lbo + e * es;
    } else {
      const int chunks = d.swizzle_bytes / 16;  // 16-byte chunks in one K-row
      const int chunk = (mn / t) % chunks, atom = mn / (t * chunks);
      a += atom * d.lbo + chunk * 16 + r * d.swizzle_bytes + kgroup * d.sbo + e * es;
    }
  }
  if (d.swizzle_bytes != 0) {
    const uint32_t mask = static_cast<uint32_t>(d.swizzle_bytes / 16 - 1);  // 7, 3, 1
    a ^= ((a >> 7) & mask) << 4;
  }
  return a;
}

// Where element e of A register r of lane l sits in the warp's 16 rows (row m, column k): the
// mma.sync m16n8k{8,16,32} A fragment for 32-, 16- and 8-bit elements.
void a_reg_pos(int es, int l, int r, int e, int& row, int& col) {
  const int g = l >> 2, t = l & 3;
  row = g + 8 * (r & 1);
  if (es == 4)
    col = t + 4 * (r >> 1);
  else if (es == 2)
    col = 2 * t + e + 8 * (r >> 1);
  else
    col = 4 * t + e + 16 * (r >> 1);
}

void fault(Exec& x, const DInst& d, const std::string& what) {
  x.cta->raise(x, d, LaunchFault::Kind::BadLaunch, 0, 0, 0, false, Space::None, what);
}

// The convergence rules of the top comment, at a warp's wgmma.mma_async.
bool check_convergence(Exec& x, const DInst& d) {
  CtaImpl& c = *x.cta;
  const int w = x.w->index, group = w / 4;
  if (x.exec != 0xFFFFFFFFu || x.w->valid != 0xFFFFFFFFu) {
    fault(x, d,
          "wgmma.mma_async executed by only some lanes of warp " + std::to_string(w) +
              ": every thread of the warpgroup must execute it (.sync.aligned)");
    return false;
  }
  if (static_cast<int>(c.warps.size()) < 4 * (group + 1)) {
    fault(x, d,
          "wgmma.mma_async in warp " + std::to_string(w) + ", whose warpgroup (warps " +
              std::to_string(4 * group) + ".." + std::to_string(4 * group + 3) +
              ") is incomplete: the block has " + std::to_string(c.warps.size()) +
              " warps; a block using wgmma needs a multiple of 128 threads");
    return false;
  }
  if (c.wgmma_pcs.size() <= static_cast<size_t>(group)) c.wgmma_pcs.resize(group + 1);
  if (c.wgmma_count.size() < c.warps.size()) c.wgmma_count.resize(c.warps.size(), 0);
  std::vector<int32_t>& pcs = c.wgmma_pcs[group];
  const uint32_t n = c.wgmma_count[w]++;
  const int32_t pc = d.ir->ptx_line;
  if (n == pcs.size()) {
    pcs.push_back(pc);
  } else if (pcs[n] != pc) {
    fault(x, d,
          "the warps of warpgroup " + std::to_string(group) + " diverged: wgmma.mma_async number " +
              std::to_string(n + 1) + " of warp " + std::to_string(w) + " is at PTX line " +
              std::to_string(pc) + ", another warp's at line " + std::to_string(pcs[n]) +
              " (all four warps must execute the same wgmma instructions in the same order)");
    return false;
  }
  return true;
}

void exec_wgmma(Exec& x, const DInst& d) {
  if (!check_convergence(x, d)) return;
  const ptx::TensorMods& tm = d.ir->mod.tensor;
  const std::vector<int32_t>& dslots = x.cta->k->slot_lists[d.aux];
  const int N = tm.n, K = tm.k, es = elem_bytes(tm.a);
  const int row0 = 16 * (x.w->index % 4);  // the warp's rows of A and D
  const bool half_d = tm.d == MmaType::F16;
  // 1. A (this warp's 16 x K) and B (K x N) as exact values with their rule exponents.
  std::vector<double> A(16 * K), B(static_cast<size_t>(K) * N);
  std::vector<int> Ae(16 * K), Be(static_cast<size_t>(K) * N);
  auto set = [&](std::vector<double>& v, std::vector<int>& ve, size_t i, MmaType t, uint32_t bits,
                 bool neg) {
    const double val = element_value(t, bits);
    v[i] = neg ? -val : val;
    ve[i] = val == 0 || !std::isfinite(val) ? 0 : num::mma_operand_exponent(val, exponent_bits(t));
  };
  auto supported = [&](const Descriptor& desc) {
    if (desc.base_offset == 0) return true;
    fault(x, d,
          "a wgmma matrix descriptor with base offset " + std::to_string(desc.base_offset) +
              " (bits 49-51) is not simulated: align the swizzled matrix to its pattern "
              "(1024, 512 or 256 bytes) and give base offset 0");
    return false;
  };
  auto load = [&](const Descriptor& desc, int mn, int k, bool mn_major, uint32_t& bits) {
    const uint32_t a = element_address(desc, mn, k, es, mn_major);
    Space resolved;
    const uint8_t* p =
        x.cta->access(x, d, 0, a, static_cast<uint32_t>(es), false, Space::Shared, resolved);
    if (!p) return false;
    bits = 0;
    std::memcpy(&bits, p, static_cast<size_t>(es));
    return true;
  };
  if (tm.a_desc) {
    const Descriptor da = decode_descriptor(reg(x, d.s[0], 0));
    if (!supported(da)) return;
    for (int m = 0; m < 16; ++m)
      for (int k = 0; k < K; ++k) {
        uint32_t bits = 0;
        if (!load(da, row0 + m, k, tm.trans_a, bits)) return;
        set(A, Ae, static_cast<size_t>(m) * K + k, tm.a, bits, tm.neg_a);
      }
  } else {
    const int per_reg = 4 / es;
    for (int l = 0; l < 32; ++l)
      for (int r = 0; r < 4; ++r) {
        const auto v = static_cast<uint32_t>(reg(x, d.s[r], l));
        for (int e = 0; e < per_reg; ++e) {
          int row = 0, col = 0;
          a_reg_pos(es, l, r, e, row, col);
          const uint32_t bits = es == 4 ? v : (v >> (8 * es * e)) & ((1u << (8 * es)) - 1);
          set(A, Ae, static_cast<size_t>(row) * K + col, tm.a, bits, tm.neg_a);
        }
      }
  }
  const Descriptor db = decode_descriptor(reg(x, d.s[tm.a_desc ? 1 : 4], 0));
  if (!supported(db)) return;
  for (int n = 0; n < N; ++n)
    for (int k = 0; k < K; ++k) {
      uint32_t bits = 0;
      if (!load(db, n, k, tm.trans_b, bits)) return;
      set(B, Be, static_cast<size_t>(k) * N + n, tm.b, bits, tm.neg_b);
    }
  // 2. scale-d: a predicate (p[0]) or a constant (the last source slot).
  const bool scale_d = d.np > 0 ? pred_bit(x, d, 0, 0) : reg(x, d.s[d.ns - 1], 0) != 0;
  // 3. D = A * B (+ D) per element of the warp's 16 rows, then written back to every lane.
  auto d_pos = [&](int l, int r, int e, int& row, int& col) {
    const int g = l >> 2, t = l & 3;
    if (half_d)
      row = g + 8 * (r & 1), col = 8 * (r >> 1) + 2 * t + e;
    else
      row = g + 8 * ((r >> 1) & 1), col = 8 * (r >> 2) + 2 * t + (r & 1);
  };
  const int regs = static_cast<int>(dslots.size());
  std::vector<uint32_t> C(static_cast<size_t>(16) * N), D(static_cast<size_t>(16) * N);
  for (int l = 0; l < 32; ++l)
    for (int r = 0; r < regs; ++r) {
      const auto v = static_cast<uint32_t>(reg(x, dslots[r], l));
      for (int e = 0; e < (half_d ? 2 : 1); ++e) {
        int row = 0, col = 0;
        d_pos(l, r, e, row, col);
        C[static_cast<size_t>(row) * N + col] = half_d ? (v >> (16 * e)) & 0xFFFF : v;
      }
    }
  std::array<double, 32> prod{};
  std::array<int, 32> exps{};
  for (int m = 0; m < 16; ++m)
    for (int n = 0; n < N; ++n) {
      for (int k = 0; k < K; ++k) {
        prod[k] = A[static_cast<size_t>(m) * K + k] * B[static_cast<size_t>(k) * N + n];
        exps[k] = Ae[static_cast<size_t>(m) * K + k] + Be[static_cast<size_t>(k) * N + n];
      }
      const uint32_t c = C[static_cast<size_t>(m) * N + n];
      uint32_t& out = D[static_cast<size_t>(m) * N + n];
      if (half_d)
        out = num::mma_accumulate_f16(prod.data(), K,
                                      scale_d ? num::f16_to_f32(static_cast<uint16_t>(c)) : 0.0);
      else
        out = num::mma_accumulate_f32(prod.data(), exps.data(), K, scale_d ? num::as_f32(c) : 0.0);
    }
  for (int l = 0; l < 32; ++l)
    for (int r = 0; r < regs; ++r) {
      uint64_t v = 0;
      for (int e = 0; e < (half_d ? 2 : 1); ++e) {
        int row = 0, col = 0;
        d_pos(l, r, e, row, col);
        v |= static_cast<uint64_t>(D[static_cast<size_t>(row) * N + col]) << (16 * e);
      }
      reg(x, dslots[r], l) = v;
    }
}

// wgmma.fence, commit_group, wait_group: every thread of the warp takes part (.sync.aligned); the
// ordering and waiting they do is timing (sim/timing/wgmma_pipe.h).
void exec_wgmma_sync(Exec& x, const DInst& d) {
  if (x.exec == 0xFFFFFFFFu) return;
  x.cta->sync_hazard(x, d, std::countr_zero(x.exec),
                     std::string(ptx::opcode_info(d.ir->op).name) +
                         ".sync.aligned executed by only some lanes of the warp: every lane must "
                         "execute it");
}

}  // namespace

Handler pick_wgmma(const ptx::Instruction& in, DInst& d, std::string& why) {
  (void)why;
  (void)d;
  return in.op == Opcode::Wgmma ? exec_wgmma : exec_wgmma_sync;
}

}  // namespace warplab::func
