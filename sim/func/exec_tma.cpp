// Handlers of the TMA tensor copies and tensor-map instructions: cp.async.bulk.tensor (both
// directions), cp.async.bulk.prefetch.tensor, prefetch.tensormap, tensormap.replace and
// tensormap.cp_fenceproxy.
//
// Hardware: the thread that issues a tensor copy hands the TMA unit a tensor map (a 128-byte
// descriptor in parameter, constant or global memory), the box's coordinates and, for a load, an
// mbarrier; the unit reads the descriptor, walks the box row by row, fetches the rows that lie
// inside the tensor, writes fill values for the rest, applies the swizzle, and reports the box's
// bytes to the mbarrier (complete_tx). A store reads the box from shared memory and writes only
// the elements inside the tensor, finishing in the thread's bulk group.
//
// Modelled: each executing lane's copy is checked when it issues (the map against the driver's
// rules, the addresses against memory: a bad one is a fault at this instruction), planned into
// pieces (tensormap.h: plan_box) and handed to the block's AsyncCopies, which lands them when a
// wait looks, as for cp.async.bulk (async_copies.h). The global ranges of the box go to the timing
// model's TMA unit (StepInfo::tma_ranges). tensormap.replace writes one field of WarpLab's layout
// (tensormap.h); tensormap.cp_fenceproxy copies the 128 bytes at once; prefetch.tensormap and the
// tensor prefetch change no data (the timing model charges them). The proxy fences
// (fence.proxy.tensormap::generic) order nothing in a model with one memory image.
// Simplified: a NaN fill writes the type's canonical NaN (all exponent and mantissa bits set but
// the sign); a load reads the tensor map when it issues (the hardware may read it later).
#include <cstring>

#include "sim/func/cta_impl.h"
#include "sim/func/exec.h"
#include "sim/func/tensormap.h"

namespace warplab::func {
namespace {

using ptx::Opcode;
using ptx::Space;

constexpr uint64_t kMapInParams = 1;  // DInst::aux: the map operand names a kernel parameter

uint64_t address(const Exec& x, const DInst& d, int slot, int op, int lane) {
  return reg(x, d.s[slot], lane) + static_cast<uint64_t>(d.ir->ops[op].offset);
}

// `bytes` contiguous bytes at `addr` in `space` for one lane, `align`-aligned; nullptr after the
// fault.
uint8_t* span(Exec& x, const DInst& d, int lane, uint64_t addr, uint64_t bytes, uint32_t align,
              bool write, Space space, Space& resolved, const char* what) {
  if (align > 1 && addr % align != 0) {
    x.cta->raise(x, d, LaunchFault::Kind::Misaligned, lane, addr, static_cast<uint32_t>(bytes),
                 write, space,
                 std::string(what) + " at " + std::to_string(addr) + " is not " +
                     std::to_string(align) + "-byte aligned");
    return nullptr;
  }
  uint8_t* first = x.cta->access(x, d, lane, addr, 1, write, space, resolved);
  if (!first || bytes <= 1) return first;
  Space r2 = resolved;
  uint8_t* last = x.cta->access(x, d, lane, addr + bytes - 1, 1, write, space, r2);
  if (!last) return nullptr;
  if (r2 != resolved || last != first + (bytes - 1)) {
    x.cta->raise(x, d, LaunchFault::Kind::OutOfBounds, lane, addr, static_cast<uint32_t>(bytes),
                 write, resolved,
                 std::string(what) + " (" + std::to_string(bytes) +
                     " bytes) runs past the end of its memory");
    return nullptr;
  }
  return first;
}

// The timing model's name for a tensor map at `addr` in `space` (StepInfo::tma_map), kept from
// the first executing lane.
void note_map(Exec& x, uint64_t addr, Space space) {
  if (x.info && !x.info->tma_map)
    x.info->tma_map = addr | (space == Space::Param || space == Space::Const ? 1ull << 63 : 0);
}

bool trap(Exec& x, const DInst& d, int lane, const std::string& why) {
  x.cta->raise(x, d, LaunchFault::Kind::Trap, lane, 0, 0, false, Space::Global, why);
  return false;
}

// The tensor map operand (slot `slot`, operand `op`) of lane `lane`, checked; false after a fault.
bool read_map(Exec& x, const DInst& d, int slot, int op, int lane, TensorMap& m) {
  Space r = Space::None;
  const Space space = (d.aux & kMapInParams) ? Space::Param : Space::Generic;
  const uint64_t a = address(x, d, slot, op, lane);
  const uint8_t* p = span(x, d, lane, a, TensorMap::kBytes, 64, false, space, r, "the tensor map");
  if (!p) return false;
  note_map(x, a, r);
  if (r == Space::Shared || r == Space::Local)
    return trap(x, d, lane, "the tensor map must be in parameter, constant or global memory");
  m = TensorMap::decode(p);
  if (const std::string why = m.check(); !why.empty())
    return trap(x, d, lane, "tensor map: " + why);
  if (m.rank != d.ir->mod.tma_rank)
    return trap(x, d, lane,
                "the tensor map has rank " + std::to_string(m.rank) + " but the copy is ." +
                    std::to_string(d.ir->mod.tma_rank) + "d");
  return true;
}

uint64_t nan_of(uint8_t elem, uint8_t& width) {
  width = static_cast<uint8_t>(tma_elem_bytes(elem));
  switch (static_cast<TmaElem>(elem)) {
    case TmaElem::F16:
    case TmaElem::BF16:
      return 0x7FFF;
    case TmaElem::F64:
      return 0x7FFFFFFFFFFFFFFFull;
    default:
      return 0x7FFFFFFF;
  }
}

// Plans lane `lane`'s box (map operand at slot `map_slot`, operand `map_op`; coordinates next)
// at shared address `smem`; appends its global ranges to `ranges` (when not nullptr: the timing
// model's, an entry of cta.tma_ranges). False after a fault.
bool plan(Exec& x, const DInst& d, int map_slot, int map_op, int lane, uint64_t smem,
          TensorMap& m, std::vector<BoxRun>& runs, std::vector<GlobalRange>* ranges_out) {
  if (!read_map(x, d, map_slot, map_op, lane, m)) return false;
  int32_t coord[TensorMap::kMaxRank] = {};
  for (uint32_t i = 0; i < m.rank; ++i)
    coord[i] = static_cast<int32_t>(reg(x, d.s[map_slot + 1 + static_cast<int>(i)], lane));
  plan_box(m, coord, smem, runs);
  if (!ranges_out) return true;
  auto& ranges = *ranges_out;
  for (const BoxRun& r : runs) {
    if (r.fill) continue;
    if (!ranges.empty() && ranges.back().address + ranges.back().bytes == r.global)
      ranges.back().bytes += r.bytes;
    else
      ranges.push_back({r.global, r.bytes});
  }
  return true;
}

// ---- cp.async.bulk.tensor

void tensor_copy_h(Exec& x, const DInst& d) {
  const bool load = d.space == Space::Shared;
  const int rank = d.ir->mod.tma_rank;
  // Slots and operands: load [dst] [map] {c} [mbar]; store [map] {c} [src].
  const int map_slot = load ? 1 : 0, map_op = load ? 1 : 0;
  const int smem_slot = load ? 0 : 1 + rank, smem_op = load ? 0 : 2;
  std::vector<BoxRun> runs;
  std::vector<AsyncCopies::Copy> pieces;
  std::vector<GlobalRange>* ranges = x.info ? &x.cta->tma_ranges.emplace_back() : nullptr;
  for_lanes(x.exec, [&](int l) {
    if (x.failed) return;
    TensorMap m;
    const uint64_t smem = address(x, d, smem_slot, smem_op, l);
    if (smem % 128 != 0) {
      trap(x, d, l, "the shared-memory box address must be 128-byte aligned");
      return;
    }
    if (!plan(x, d, map_slot, map_op, l, smem, m, runs, ranges)) return;
    const uint64_t box = m.box_bytes();
    Space r = Space::None;
    // A swizzle moves chunks within their 128-byte row: the box's last row counts whole.
    const uint64_t reach = m.swizzle ? (box + 127) / 128 * 128 : box;
    uint8_t* s = span(x, d, l, smem, reach, 128, load, Space::Shared, r, "the box in shared memory");
    if (!s) return;
    uint8_t* shared = s - smem;
    uint8_t width = 0;
    const uint64_t nan = m.fill == 1 ? nan_of(m.elem, width) : 0;
    pieces.clear();
    for (const BoxRun& run : runs) {
      if (run.fill) {
        if (load) pieces.push_back({shared + run.smem, nullptr, 0, run.bytes, nan, width});
        continue;
      }
      uint8_t* g = span(x, d, l, run.global, run.bytes, 1, !load, Space::Global, r,
                        "a row of the box in global memory");
      if (!g) return;
      if (load)
        pieces.push_back({shared + run.smem, g, run.bytes, 0, 0, 0});
      else
        pieces.push_back({g, shared + run.smem, run.bytes, 0, 0, 0});
    }
    if (load) {
      const uint64_t ma = address(x, d, 2 + rank, 3, l);
      uint8_t* mp = span(x, d, l, ma, 8, 8, true, Space::Shared, r, "the mbarrier");
      if (!mp) return;
      const uint64_t off = static_cast<uint64_t>(mp - x.cta->shared.data());
      x.cta->async.tensor_to_shared(pieces, off, static_cast<uint32_t>(box));
      if (x.info) x.info->mbarrier = off;
    } else {
      x.cta->async.tensor_to_global(x.w->index * 32 + l, pieces);
    }
    if (x.info) {
      x.info->addr[l] = m.address;
      x.info->bulk_bytes += static_cast<uint32_t>(box);
      x.info->tma_ranges = ranges;
    }
  });
}

// ---- cp.async.bulk.prefetch.tensor: the box's rows toward the L2 (no data changes)

void tensor_prefetch_h(Exec& x, const DInst& d) {
  std::vector<BoxRun> runs;
  std::vector<GlobalRange>* ranges = x.info ? &x.cta->tma_ranges.emplace_back() : nullptr;
  for_lanes(x.exec, [&](int l) {
    if (x.failed) return;
    TensorMap m;
    if (!plan(x, d, 0, 0, l, 0, m, runs, ranges)) return;
    if (x.info) {
      x.info->addr[l] = m.address;
      x.info->tma_ranges = ranges;
    }
  });
}

// ---- prefetch.tensormap [map]: the descriptor toward the TMA unit (no data changes)

void prefetch_tensormap_h(Exec& x, const DInst& d) {
  for_lanes(x.exec, [&](int l) {
    if (x.failed) return;
    Space r = Space::None;
    const Space space = (d.aux & kMapInParams) ? Space::Param : d.space;
    const uint64_t a = address(x, d, 0, 0, l);
    if (span(x, d, l, a, TensorMap::kBytes, 64, false, space, r, "the tensor map"))
      note_map(x, a, r);
  });
}

// ---- tensormap.replace.tile.<field> [map], {ord,} value

void tensormap_replace_h(Exec& x, const DInst& d) {
  const int field = d.ir->mod.tmap_field;
  const bool has_ord = field >= 2 && field <= 5;
  const auto ord = has_ord ? static_cast<uint32_t>(d.ir->ops[1].bits) : 0u;
  uint32_t bytes = 0;
  const int off = tensormap_field_offset(field, ord, bytes);
  for_lanes(x.exec, [&](int l) {
    if (x.failed || off < 0) return;
    const uint64_t value = reg(x, d.s[has_ord ? 2 : 1], l) & (bytes == 8 ? ~0ull : 0xFFFFFFFFull);
    if (bytes == 1 && value > 0xFF) {
      trap(x, d, l,
           "tensormap.replace: the value " + std::to_string(value) + " does not fit the field");
      return;
    }
    Space r = Space::None;
    const uint64_t a = address(x, d, 0, 0, l);
    uint8_t* p = span(x, d, l, a, TensorMap::kBytes, 64, true, d.space, r, "the tensor map");
    if (!p) return;
    std::memcpy(p + off, &value, bytes);  // little-endian: the low bytes
    if (x.info) {  // ptxas writes the field with a plain store (STS/STS.64 for a shared map)
      x.info->is_memory = x.info->is_store = true;
      x.info->space = r;
      x.info->access_bytes = bytes;
      x.info->addr[l] = (d.space == Space::Generic && r == Space::Shared ? a - kSharedWindow : a) +
                        static_cast<uint64_t>(off);
    }
  });
}

// ---- tensormap.cp_fenceproxy...sync.aligned [global], [shared], 128

void tensormap_cp_h(Exec& x, const DInst& d) {
  for_lanes(x.exec, [&](int l) {
    if (x.failed) return;
    Space r = Space::None;
    uint8_t* dst = span(x, d, l, address(x, d, 0, 0, l), TensorMap::kBytes, 64, true,
                        Space::Global, r, "the tensor map's destination");
    if (!dst) return;
    const uint8_t* src = span(x, d, l, address(x, d, 1, 1, l), TensorMap::kBytes, 64, false,
                              Space::Shared, r, "the tensor map's source");
    if (!src) return;
    std::memcpy(dst, src, TensorMap::kBytes);
    // For the timing model: ptxas copies the map with LDS + ATOMG.E.EXCH.STRONG.GPU, lane i
    // exchanging word i of the 128 bytes (no result used); the fence.proxy.tensormap that must
    // follow waits for the exchanges (DEPBAR) before UTMACCTL.IV drops the TMA unit's copy.
    if (x.info) {
      x.info->is_memory = x.info->is_atomic = true;
      x.info->space = Space::Global;
      x.info->access_bytes = 4;
      x.info->addr[l] = address(x, d, 0, 0, l) + 4 * static_cast<uint64_t>(l);
      note_map(x, address(x, d, 0, 0, l), Space::Global);
    }
  });
}

}  // namespace

Handler pick_tma(const ptx::Instruction& in, DInst& d, std::string& why) {
  d.space = in.space;
  const int rank = in.mod.tma_rank;
  auto map_operand_in_params = [&](size_t op) {
    if (op < in.ops.size() && in.ops[op].kind == ptx::Operand::Kind::Addr &&
        in.ops[op].symbol >= 0 && in.ops[op].scope == ptx::Operand::Scope::Param)
      d.aux |= kMapInParams;
  };
  switch (in.op) {
    case Opcode::CpAsyncBulkTensor: {
      const bool load = in.space == Space::Shared;
      map_operand_in_params(load ? 1 : 0);
      if (d.ns < (load ? 3 + rank : 2 + rank)) break;
      return tensor_copy_h;
    }
    case Opcode::CpAsyncBulkPrefetchTensor:
      map_operand_in_params(0);
      if (d.ns < 1 + rank) break;
      return tensor_prefetch_h;
    case Opcode::PrefetchTensormap:
      map_operand_in_params(0);
      if (d.ns < 1) break;
      if (d.space == Space::None) d.space = Space::Generic;
      return prefetch_tensormap_h;
    case Opcode::TensormapReplace:
      if (d.ns < 2) break;
      return tensormap_replace_h;
    case Opcode::TensormapCpFenceproxy:
      if (d.ns < 2) break;
      return tensormap_cp_h;
    default:
      break;
  }
  if (why.empty()) why = "unsupported tensor-copy form";
  return nullptr;
}

}  // namespace warplab::func
