// Tensor maps (CUtensorMap): the 128-byte descriptor a TMA tensor copy reads, and the box it
// describes, element by element, with swizzle and out-of-bounds fill.
//
// Hardware: a tensor map describes a tensor of rank 1 to 5 in global memory (its address, each
// dimension's size, the byte stride between consecutive indices of dimensions 1..rank-1; dimension
// 0 is contiguous) and a box: the tile one `cp.async.bulk.tensor` moves, boxDim[i] indices along
// dimension i, taking every elementStrides[i]-th one. The copy names the box's first coordinate
// per dimension (signed: a box may start before the tensor, or run past its end). Elements
// outside the tensor are not read; the TMA unit writes fill values for them in shared memory
// (zeros, or a NaN for floats with CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA), and a
// store (shared -> global) skips them. In shared memory the box is dense, dimension 0 fastest,
// and a swizzle mode permutes its 16-byte chunks so that the rows a warp reads fall in different
// banks: with swizzle 32B/64B/128B (m = 1, 2, 3) bits [4, 4+m) of the shared address are XORed
// with bits [7, 7+m) (the chunk index within a 128-byte row takes the row index modulo 2^m). The
// driver builds the map on the host (cuTensorMapEncodeTiled); a kernel can edit a copy with
// `tensormap.replace` and publish it with `tensormap.cp_fenceproxy` (Triton does so).
//
// The 128 bytes are opaque: NVIDIA does not document their layout. WarpLab uses its own (below),
// written by the experiment loader for tensor-map parameters and by tensormap.replace, read by
// the tensor copies; a map that is all zeros except the fields a kernel replaced (Triton zeroes
// its map first) reads as that map. The GPU backend passes the driver's own encoding instead.
//   offset  size  field
//        0     8  global_address
//        8  4x 8  global_stride[0..3]: bytes between consecutive indices of dimensions 1..4
//       40  5x 4  global_dim[0..4]: elements
//       60  5x 4  box_dim[0..4]: elements (1..256)
//       80  5x 4  element_stride[0..4] (1..8; 0 reads as 1)
//      100     1  rank - 1 (what tensormap.replace.tile.rank writes)
//      101     1  elemtype, PTX's code (TmaElem)
//      102     1  interleave (0 none; 1 16B and 2 32B are refused by the copies)
//      103     1  swizzle (0 none, 1 32B, 2 64B, 3 128B)
//      104     1  fill (0 zeros, 1 NaN)
//      105     1  swizzle_atomicity (kept, no effect)
//   106..127      zero
// Simplified: tile mode only (no im2col); interleaved layouts are refused; L2 promotion is not
// stored.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace warplab::func {

// PTX's element-type codes (tensormap.replace.tile.elemtype). CUDA's CUtensorMapDataType
// numbers the same types differently from FLOAT64 on; the loader and GPU backend translate.
enum class TmaElem : uint8_t {
  U8 = 0,
  U16 = 1,
  U32 = 2,
  S32 = 3,
  U64 = 4,
  S64 = 5,
  F16 = 6,
  F32 = 7,
  F32Ftz = 8,
  F64 = 9,
  BF16 = 10,
  TF32 = 11,
  TF32Ftz = 12,
};
// Bytes per element, 0 for a code WarpLab does not know.
uint32_t tma_elem_bytes(uint8_t code);
// Whether the type is a float (a NaN fill applies to it).
bool tma_elem_is_float(uint8_t code);

struct TensorMap {
  static constexpr int kMaxRank = 5;
  static constexpr uint64_t kBytes = 128;
  uint64_t address = 0;
  uint32_t rank = 1;
  uint8_t elem = 0;  // TmaElem
  std::array<uint64_t, kMaxRank> dim{};
  std::array<uint64_t, kMaxRank> stride{};  // bytes; stride[0] is the element size
  std::array<uint32_t, kMaxRank> box{};
  std::array<uint32_t, kMaxRank> estride{1, 1, 1, 1, 1};
  uint8_t interleave = 0, swizzle = 0, fill = 0, swizzle_atomicity = 0;

  // The layout above.
  static TensorMap decode(const uint8_t* bytes);
  std::array<uint8_t, kBytes> encode() const;
  // "" when a copy may use the map, else what is wrong, in the driver's terms
  // (cuTensorMapEncodeTiled's requirements).
  std::string check() const;
  // Elements the box holds along dimension i: ceil(box / element stride).
  uint32_t box_elements(int i) const;
  // Bytes of the box in shared memory (what a load reports to its mbarrier).
  uint64_t box_bytes() const;
};

// Offset of a tensormap.replace field in the layout: field 0 global_address, 1 rank,
// 2 box_dim, 3 global_dim, 4 global_stride, 5 element_stride, 6 elemtype, 7 interleave_layout,
// 8 swizzle_mode, 9 swizzle_atomicity, 10 fill_mode; `ord` the dimension for 2..5. Sets `bytes`
// to the field's size; returns -1 for a bad ordinal.
int tensormap_field_offset(int field, uint32_t ord, uint32_t& bytes);

// The shared-memory address of byte `addr` of a box under swizzle mode `mode` (0..3).
uint64_t tma_swizzle(uint64_t addr, int mode);

// One piece of a box: `bytes` at shared address `smem` and global address `global`; `fill`: the
// piece lies outside the tensor (a load writes the fill value, a store skips it). Pieces never
// cross a 16-byte chunk of shared memory, except where they are merged (no swizzle).
struct BoxRun {
  uint64_t smem = 0, global = 0;
  uint32_t bytes = 0;
  bool fill = false;
};
// The pieces of the box at coordinates `coord[0..rank)` whose first byte is at shared address
// `smem`, in shared-memory order before the swizzle.
void plan_box(const TensorMap& m, const int32_t* coord, uint64_t smem, std::vector<BoxRun>& out);

}  // namespace warplab::func
