// Loads, stores, atomics and reductions in every state space.
//
// A warp-wide memory instruction gives each active lane its own address. The SM's load/store
// unit sends global accesses through L1/L2 (the timing model coalesces them into sectors; here
// they are just reads and writes), shared accesses to the block's shared-memory banks, local
// accesses to the thread's stack in device memory, and parameter/constant reads to the constant
// cache. Every lane's address is checked first: outside its buffer or segment, or misaligned, and
// the launch stops with a report like compute-sanitizer's memcheck.
// Atomics: the lanes of one warp instruction are applied one after another in lane order (the
// hardware serialises same-address atomics in the L2 or shared-memory unit in some order; lane
// order makes WarpLab deterministic).
#include <algorithm>
#include <cstring>
#include <type_traits>

#include "sim/func/cta_impl.h"
#include "sim/func/exec.h"
#include "sim/func/numeric.h"

namespace warplab::func {
namespace {

using ptx::AtomOp;
using ptx::Opcode;
using ptx::Space;
using ptx::Type;

inline void note_addr(Exec& x, int lane, uint64_t a) {
  if (x.info) x.info->addr[lane] = a;
}

// The host pointer for one lane's access; fast path for the last global buffer touched.
inline uint8_t* lane_ptr(Exec& x, const DInst& d, int lane, uint64_t a, uint32_t bytes,
                         bool write) {
  CtaImpl& c = *x.cta;
  if (d.space == Space::Global && a - c.g_lo <= c.g_hi - c.g_lo && a + bytes <= c.g_hi &&
      (a & (bytes - 1)) == 0) {
    note_addr(x, lane, a);
    return c.g_base + (a - c.g_lo);
  }
  Space resolved;
  uint8_t* p = c.access(x, d, lane, a, bytes, write, d.space, resolved);
  if (p && x.info) {
    x.info->space = resolved;
    uint64_t rel = a;
    if (d.space == Space::Generic && resolved == Space::Shared) rel = a - kSharedWindow;
    if (d.space == Space::Generic && resolved == Space::Local) rel = a - kLocalWindow;
    x.info->addr[lane] = rel;
  }
  return p;
}

void ld_h(Exec& x, const DInst& d) {
  uint64_t* R = x.R;
  const uint32_t size = d.size, total = size * d.vec;
  const int sa = d.s[0] * 32;
  const int64_t off = d.offset;
  const uint64_t dmask = d.dmask;
  const int bits = size * 8;
  const uint32_t m = x.exec;
  for (uint32_t mm = m; mm;) {
    const int l = std::countr_zero(mm);
    mm &= mm - 1;
    const uint64_t a = R[sa + l] + off;
    const uint8_t* p = lane_ptr(x, d, l, a, total, false);
    if (!p) return;
    for (int e = 0; e < d.nd; ++e) {
      uint64_t v = 0;
      std::memcpy(&v, p + e * size, size);
      if (d.sign) v = static_cast<uint64_t>(num::sign_extend(v, bits));
      R[d.d[e] * 32 + l] = v & dmask;
    }
  }
}

void st_h(Exec& x, const DInst& d) {
  uint64_t* R = x.R;
  const uint32_t size = d.size, total = size * d.vec;
  const int sa = d.s[0] * 32;
  const int64_t off = d.offset;
  const int nv = d.ns - 1;
  for (uint32_t mm = x.exec; mm;) {
    const int l = std::countr_zero(mm);
    mm &= mm - 1;
    const uint64_t a = R[sa + l] + off;
    uint8_t* p = lane_ptr(x, d, l, a, total, true);
    if (!p) return;
    for (int e = 0; e < nv; ++e) {
      const uint64_t v = R[d.s[1 + e] * 32 + l];
      std::memcpy(p + e * size, &v, size);
    }
  }
}

uint64_t atom_apply(AtomOp op, Type t, uint64_t old, uint64_t b, uint64_t c) {
  const int bits = ptx::type_bits(t);
  const uint64_t wm = num::width_mask(bits);
  switch (op) {
    case AtomOp::Add:
      if (t == Type::F32)
        return num::f32_add(static_cast<uint32_t>(old), static_cast<uint32_t>(b), ptx::Rounding::Rn,
                            true);
      if (t == Type::F64) return num::f64_add(old, b);
      if (t == Type::F16 || t == Type::F16x2 || t == Type::BF16 || t == Type::BF16x2)
        return num::half_add(t, static_cast<uint32_t>(old), static_cast<uint32_t>(b));
      return (old + b) & wm;
    case AtomOp::Min:
      return num::int_min(old, b, t);
    case AtomOp::Max:
      return num::int_max(old, b, t);
    case AtomOp::Inc:
      return (old & wm) >= (b & wm) ? 0 : (old + 1) & wm;
    case AtomOp::Dec:
      return ((old & wm) == 0 || (old & wm) > (b & wm)) ? b & wm : (old - 1) & wm;
    case AtomOp::Cas:
      return (old & wm) == (b & wm) ? c & wm : old;
    case AtomOp::Exch:
      return b & wm;
    case AtomOp::And:
      return old & b & wm;
    case AtomOp::Or:
      return (old | b) & wm;
    case AtomOp::Xor:
      return (old ^ b) & wm;
    case AtomOp::None:
      break;
  }
  return old;
}

// atom: d, [a], b {, c}; red: [a], b.
template <bool kReturns>
void atom_h(Exec& x, const DInst& d) {
  uint64_t* R = x.R;
  const uint32_t size = d.size;
  const int base = kReturns ? 0 : 0;
  const int sa = d.s[base] * 32, sb = d.s[base + 1] * 32;
  const int sc = d.ns > 2 ? d.s[2] * 32 : sb;
  const AtomOp op = d.ir->mod.atom;
  const Type t = d.ir->type;
  for (uint32_t mm = x.exec; mm;) {
    const int l = std::countr_zero(mm);
    mm &= mm - 1;
    const uint64_t a = R[sa + l] + d.offset;
    uint8_t* p = lane_ptr(x, d, l, a, size, true);
    if (!p) return;
    uint64_t old = 0;
    std::memcpy(&old, p, size);
    const uint64_t nv = atom_apply(op, t, old, R[sb + l], R[sc + l]);
    std::memcpy(p, &nv, size);
    if constexpr (kReturns) R[d.d[0] * 32 + l] = old & d.dmask;
  }
}

// Fast paths: a global or shared access of a fixed size and vector width. The bounds check is
// inline; anything unusual (another buffer, out of bounds, misaligned) takes lane_ptr's full path.
// FastView holds what the check reads, loaded once per instruction instead of once per lane (the
// compiler must otherwise assume that each register or address written may change it), and
// again after a lane took the full path (which may move the last global buffer).
template <Space S, uint32_t Size, int Vec>
struct FastView {
  static constexpr uint32_t total = Size * Vec;
  uint8_t* base;
  uint64_t lo, hi;  // shared: [0, shared_bytes); global: the last buffer touched, [g_lo, g_hi)
  uint64_t* addr;   // the step's lane addresses (x.info), or nullptr
  explicit FastView(const Exec& x) {
    CtaImpl& c = *x.cta;
    if constexpr (S == Space::Shared) {
      base = c.shared.data(), lo = 0, hi = c.shared_bytes;
    } else {
      base = c.g_base, lo = c.g_lo, hi = c.g_hi;
    }
    addr = x.info ? x.info->addr.data() : nullptr;
  }
  bool fits(uint64_t a) const {
    if constexpr (S == Space::Shared)  // a < hi first: `a + total` wraps just below 0
      return a < hi && total <= hi - a && (a & (total - 1)) == 0;
    else
      return a - lo <= hi - lo && a + total <= hi && (a & (total - 1)) == 0;
  }
  uint8_t* at(uint64_t a) const { return base + (a - lo); }
  uint8_t* ptr(Exec& x, const DInst& d, int l, uint64_t a, bool write) {
    if (fits(a)) {
      if (addr) addr[l] = a;
      return at(a);
    }
    uint8_t* p = lane_ptr(x, d, l, a, total, write);
    *this = FastView(x);
    return p;
  }
  // Whether every lane of a full warp has its access in the view: then the lanes' data moves
  // in a loop without checks (the same lanes in the same order as lane by lane). It writes each
  // lane's address to `out` as it goes (the step's lane addresses when it answers yes).
  // A lane fits when u = a - lo lies in [0, hi - lo - total] and a is aligned. With the span
  // below 2^63, that is: neither u nor (limit - u) has its top bit set, so the whole warp is one
  // pass of subtractions and ORs (no compare per lane), the same answer as fits() lane by lane.
  bool all_fit(const uint64_t* __restrict addr_reg, int64_t off, uint64_t* __restrict out) const {
    const uint64_t span = hi - lo;
    if (span < total || (span >> 63) != 0) {  // (an empty or odd view: lane by lane)
      bool ok = true;
      for (int l = 0; l < 32; ++l) ok &= fits(out[l] = addr_reg[l] + off);
      return ok;
    }
    const uint64_t limit = span - total;
    uint64_t bits = 0, over = 0;
    for (int l = 0; l < 32; ++l) {
      const uint64_t a = addr_reg[l] + off, u = a - lo;
      out[l] = a;
      bits |= a;
      over |= u | (limit - u);
    }
    return (over >> 63) == 0 && (bits & (total - 1)) == 0;
  }
  // Where all_fit writes the lanes' addresses: the step's (x.info), else `spare`.
  uint64_t* lanes_out(uint64_t* spare) const { return addr ? addr : spare; }
};
template <class U>
inline uint64_t load_as(const uint8_t* p) {
  U v;
  std::memcpy(&v, p, sizeof(U));
  return v;
}
template <uint32_t Size>
using UInt = std::conditional_t<
    Size == 1, uint8_t,
    std::conditional_t<Size == 2, uint16_t, std::conditional_t<Size == 4, uint32_t, uint64_t>>>;

template <Space S, uint32_t Size, int Vec>
void ld_fast(Exec& x, const DInst& d) {
  uint64_t* R = x.R;
  const int sa = d.s[0] * 32;
  const int64_t off = d.offset;
  const bool sign = Size < 8 && d.sign;
  const uint64_t dmask = d.dmask;
  int dst[Vec];
  for (int e = 0; e < Vec; ++e) dst[e] = d.d[e] * 32;
  FastView<S, Size, Vec> view(x);
  uint64_t spare[32];
  uint64_t* a = view.lanes_out(spare);
  if (x.exec == ~0u && view.all_fit(R + sa, off, a)) {
    // The lanes' data, with the sign extension decided once for the warp.
    auto lanes = [&](auto extend) {
      for (int l = 0; l < 32; ++l) {
        const uint8_t* p = view.at(a[l]);
        for (int e = 0; e < Vec; ++e) {
          uint64_t v = load_as<UInt<Size>>(p + e * Size);
          if constexpr (decltype(extend)::value)
            v = static_cast<uint64_t>(num::sign_extend(v, Size * 8)) & dmask;
          R[dst[e] + l] = v;
        }
      }
    };
    if (sign)
      lanes(std::true_type{});
    else
      lanes(std::false_type{});
    return;
  }
  for (uint32_t mm = x.exec; mm;) {
    const int l = std::countr_zero(mm);
    mm &= mm - 1;
    const uint8_t* p = view.ptr(x, d, l, R[sa + l] + off, false);
    if (!p) return;
    for (int e = 0; e < Vec; ++e) {
      uint64_t v = load_as<UInt<Size>>(p + e * Size);
      if (sign) v = static_cast<uint64_t>(num::sign_extend(v, Size * 8)) & dmask;
      R[dst[e] + l] = v;
    }
  }
}
template <Space S, uint32_t Size, int Vec>
void st_fast(Exec& x, const DInst& d) {
  uint64_t* R = x.R;
  const int sa = d.s[0] * 32;
  const int64_t off = d.offset;
  int src[Vec];
  for (int e = 0; e < Vec; ++e) src[e] = d.s[1 + e] * 32;
  FastView<S, Size, Vec> view(x);
  uint64_t spare[32];
  uint64_t* a = view.lanes_out(spare);
  if (x.exec == ~0u && view.all_fit(R + sa, off, a)) {
    for (int l = 0; l < 32; ++l) {
      uint8_t* p = view.at(a[l]);
      for (int e = 0; e < Vec; ++e) {
        const UInt<Size> v = static_cast<UInt<Size>>(R[src[e] + l]);
        std::memcpy(p + e * Size, &v, Size);
      }
    }
    return;
  }
  for (uint32_t mm = x.exec; mm;) {
    const int l = std::countr_zero(mm);
    mm &= mm - 1;
    uint8_t* p = view.ptr(x, d, l, R[sa + l] + off, true);
    if (!p) return;
    for (int e = 0; e < Vec; ++e) {
      const UInt<Size> v = static_cast<UInt<Size>>(R[src[e] + l]);
      std::memcpy(p + e * Size, &v, Size);
    }
  }
}
#define WL_FAST_TABLE(NAME, FN)                                   \
  template <Space S, int Vec>                                     \
  Handler NAME##_by_size(uint32_t size) {                         \
    switch (size) {                                               \
      case 1:                                                     \
        return FN<S, 1, Vec>;                                     \
      case 2:                                                     \
        return FN<S, 2, Vec>;                                     \
      case 4:                                                     \
        return FN<S, 4, Vec>;                                     \
      case 8:                                                     \
        return FN<S, 8, Vec>;                                     \
      default:                                                    \
        return nullptr;                                           \
    }                                                             \
  }                                                               \
  Handler NAME(Space s, uint32_t size, int vec) {                 \
    if (s != Space::Global && s != Space::Shared) return nullptr; \
    const bool sh = s == Space::Shared;                           \
    switch (vec) {                                                \
      case 1:                                                     \
        return sh ? NAME##_by_size<Space::Shared, 1>(size)        \
                  : NAME##_by_size<Space::Global, 1>(size);       \
      case 2:                                                     \
        return sh ? NAME##_by_size<Space::Shared, 2>(size)        \
                  : NAME##_by_size<Space::Global, 2>(size);       \
      case 4:                                                     \
        return sh ? NAME##_by_size<Space::Shared, 4>(size)        \
                  : NAME##_by_size<Space::Global, 4>(size);       \
      default:                                                    \
        return nullptr;                                           \
    }                                                             \
  }
WL_FAST_TABLE(pick_ld_fast, ld_fast)
WL_FAST_TABLE(pick_st_fast, st_fast)

// ld.param of the kernel's parameter block: usually one uniform address for the whole warp.
template <uint32_t Size>
void ld_kernel_param(Exec& x, const DInst& d) {
  uint64_t* R = x.R;
  const int sa = d.s[0] * 32;
  const std::vector<uint8_t>& pb = x.cta->params;
  const uint32_t total = Size * d.vec;
  // A full warp reading one address (the parameter's, from a constant slot): its values are read
  // once and given to every lane (the same values, lane by lane, as the loop below).
  if (x.exec == ~0u && d.nd <= 4) {
    bool uniform = true;
    for (int l = 1; l < 32; ++l) uniform &= R[sa + l] == R[sa];
    const uint64_t a = R[sa] + d.offset;
    if (uniform && a <= pb.size() && total <= pb.size() - a && (a & (Size - 1)) == 0) {
      uint64_t v[4];
      for (int e = 0; e < d.nd; ++e) {
        v[e] = load_as<UInt<Size>>(pb.data() + a + e * Size);
        if (Size < 8 && d.sign)
          v[e] = static_cast<uint64_t>(num::sign_extend(v[e], Size * 8)) & d.dmask;
      }
      if (x.info)
        for (int l = 0; l < 32; ++l) x.info->addr[l] = a;
      for (int e = 0; e < d.nd; ++e)
        for (int l = 0; l < 32; ++l) R[d.d[e] * 32 + l] = v[e];
      return;
    }
  }
  for (uint32_t mm = x.exec; mm;) {
    const int l = std::countr_zero(mm);
    mm &= mm - 1;
    const uint64_t a = R[sa + l] + d.offset;
    const uint8_t* p;
    if (a <= pb.size() && total <= pb.size() - a && (a & (Size - 1)) == 0) {
      p = pb.data() + a;
      note_addr(x, l, a);
    } else if (!(p = lane_ptr(x, d, l, a, total, false))) {
      return;
    }
    for (int e = 0; e < d.nd; ++e) {
      uint64_t v = load_as<UInt<Size>>(p + e * Size);
      if (Size < 8 && d.sign) v = static_cast<uint64_t>(num::sign_extend(v, Size * 8)) & d.dmask;
      R[d.d[e] * 32 + l] = v;
    }
  }
}

// A prefetch changes nothing the kernel can see and never faults (an address outside every
// buffer is dropped, as on the GPU); the timing model still needs each lane's address. A generic
// address is taken as global: the prefetches kernels use in practice are of global data.
void prefetch_h(Exec& x, const DInst& d) {
  if (!x.info) return;
  if (d.space == Space::Generic) x.info->space = Space::Global;
  for (uint32_t m = x.exec; m; m &= m - 1) {
    const int l = std::countr_zero(m);
    x.info->addr[l] = (d.ns > 0 ? x.R[d.s[0] * 32 + l] : 0) + static_cast<uint64_t>(d.offset);
  }
}

Space resolve_space(Space s) {
  switch (s) {
    case Space::None:
    case Space::Generic:
      return Space::Generic;
    default:
      return s;
  }
}

}  // namespace

Handler pick_memory(const ptx::Instruction& in, DInst& d, std::string& why) {
  const Type t = in.type;
  d.space = resolve_space(in.space);
  if (d.space == Space::Reg) {
    why = "the ." + std::string(ptx::space_name(in.space)) + " space is not supported";
    return nullptr;
  }
  const int bits = ptx::type_bits(t);
  switch (in.op) {
    case Opcode::Prefetch:
    case Opcode::Prefetchu:
      return prefetch_h;
    case Opcode::Ld:
    case Opcode::Ldu: {
      if (d.nd < 1 || d.ns < 1 || bits < 8 || bits > 128 || t == Type::Pred) break;
      if (bits == 128) {
        why = ".b128 loads are not supported";
        return nullptr;
      }
      if (in.mod.vec != d.nd && !(in.mod.vec <= 1 && d.nd == 1)) {
        why = "vector width does not match the operand";
        return nullptr;
      }
      if (d.dpred) {
        why = "loads into predicates are not supported";
        return nullptr;
      }
      if (d.space == Space::Param && !d.kernel_param && in.op == Opcode::Ldu) break;
      d.size = static_cast<uint8_t>(bits / 8);
      d.vec = static_cast<uint8_t>(d.nd);
      d.sign = ptx::is_signed_int(t);
      if (Handler h = pick_ld_fast(d.space, d.size, d.vec)) return h;
      if (d.space == Space::Param && d.kernel_param) {
        switch (d.size) {
          case 1:
            return ld_kernel_param<1>;
          case 2:
            return ld_kernel_param<2>;
          case 4:
            return ld_kernel_param<4>;
          case 8:
            return ld_kernel_param<8>;
          default:
            break;
        }
      }
      return ld_h;
    }
    case Opcode::St: {
      if (d.ns < 2 || bits < 8 || bits > 64 || t == Type::Pred) break;
      if (d.space == Space::Const) {
        why = "stores to .const are not allowed";
        return nullptr;
      }
      if (d.space == Space::Param && d.kernel_param) {
        why = "kernel parameters are read-only";
        return nullptr;
      }
      const int nv = d.ns - 1;
      if (nv != std::max<int>(1, in.mod.vec)) {
        why = "vector width does not match the operand";
        return nullptr;
      }
      d.size = static_cast<uint8_t>(bits / 8);
      d.vec = static_cast<uint8_t>(nv);
      if (Handler h = pick_st_fast(d.space, d.size, d.vec)) return h;
      return st_h;
    }
    case Opcode::Atom:
    case Opcode::Red: {
      const bool ret = in.op == Opcode::Atom;
      if ((ret && d.nd < 1) || d.ns < 2) break;
      if (d.space != Space::Global && d.space != Space::Shared && d.space != Space::Generic &&
          d.space != Space::SharedCluster) {
        why = "atomics are only defined on global and shared memory";
        return nullptr;
      }
      const auto op = in.mod.atom;
      const bool f = ptx::is_float(t);
      if (op == ptx::AtomOp::None || in.mod.vec > 1) break;
      if (op == ptx::AtomOp::Cas && d.ns < 3) break;
      if (bits != 32 && bits != 64 && !(bits == 16 && f)) break;
      if (f && op != ptx::AtomOp::Add && op != ptx::AtomOp::Exch && op != ptx::AtomOp::Cas) {
        why = "float atomics support add (and exch/cas on bits)";
        return nullptr;
      }
      if ((op == ptx::AtomOp::Inc || op == ptx::AtomOp::Dec) && t != Type::U32) break;
      d.size = static_cast<uint8_t>(bits / 8);
      d.vec = 1;
      return ret ? atom_h<true> : atom_h<false>;
    }
    default:
      break;
  }
  if (why.empty()) why = "unsupported type, vector width or operand form";
  return nullptr;
}

}  // namespace warplab::func
