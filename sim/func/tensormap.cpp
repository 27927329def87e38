#include "sim/func/tensormap.h"

#include <cstring>

namespace warplab::func {
namespace {

constexpr size_t kAddress = 0, kStride = 8, kDim = 40, kBox = 60, kEstride = 80, kRank = 100,
                 kElem = 101, kInterleave = 102, kSwizzle = 103, kFill = 104, kAtomicity = 105;

template <typename T>
T get(const uint8_t* p, size_t off) {
  T v;
  std::memcpy(&v, p + off, sizeof v);
  return v;
}
template <typename T>
void put(uint8_t* p, size_t off, T v) {
  std::memcpy(p + off, &v, sizeof v);
}

}  // namespace

uint32_t tma_elem_bytes(uint8_t code) {
  constexpr uint8_t kBytes[] = {1, 2, 4, 4, 8, 8, 2, 4, 4, 8, 2, 4, 4};
  return code < sizeof kBytes ? kBytes[code] : 0;
}

bool tma_elem_is_float(uint8_t code) {
  return code >= static_cast<uint8_t>(TmaElem::F16) && code <= static_cast<uint8_t>(TmaElem::TF32Ftz);
}

TensorMap TensorMap::decode(const uint8_t* p) {
  TensorMap m;
  m.address = get<uint64_t>(p, kAddress);
  m.rank = static_cast<uint32_t>(p[kRank]) + 1;
  m.elem = p[kElem];
  m.stride[0] = tma_elem_bytes(m.elem);
  for (int i = 0; i < kMaxRank; ++i) {
    m.dim[i] = get<uint32_t>(p, kDim + 4 * i);
    m.box[i] = get<uint32_t>(p, kBox + 4 * i);
    const uint32_t e = get<uint32_t>(p, kEstride + 4 * i);
    m.estride[i] = e == 0 ? 1 : e;
    if (i > 0) m.stride[i] = get<uint64_t>(p, kStride + 8 * (i - 1));
  }
  m.interleave = p[kInterleave];
  m.swizzle = p[kSwizzle];
  m.fill = p[kFill];
  m.swizzle_atomicity = p[kAtomicity];
  return m;
}

std::array<uint8_t, TensorMap::kBytes> TensorMap::encode() const {
  std::array<uint8_t, kBytes> out{};
  uint8_t* p = out.data();
  put<uint64_t>(p, kAddress, address);
  for (int i = 0; i < kMaxRank; ++i) {
    put<uint32_t>(p, kDim + 4 * i, static_cast<uint32_t>(dim[i]));
    put<uint32_t>(p, kBox + 4 * i, box[i]);
    put<uint32_t>(p, kEstride + 4 * i, estride[i]);
    if (i > 0) put<uint64_t>(p, kStride + 8 * (i - 1), stride[i]);
  }
  p[kRank] = static_cast<uint8_t>(rank - 1);
  p[kElem] = elem;
  p[kInterleave] = interleave;
  p[kSwizzle] = swizzle;
  p[kFill] = fill;
  p[kAtomicity] = swizzle_atomicity;
  return out;
}

uint32_t TensorMap::box_elements(int i) const { return (box[i] + estride[i] - 1) / estride[i]; }

uint64_t TensorMap::box_bytes() const {
  uint64_t n = tma_elem_bytes(elem);
  for (uint32_t i = 0; i < rank && i < kMaxRank; ++i) n *= box_elements(static_cast<int>(i));
  return n;
}

std::string TensorMap::check() const {
  const uint32_t es = tma_elem_bytes(elem);
  if (es == 0) return "element type code " + std::to_string(elem) + " is not one WarpLab knows";
  if (rank < 1 || rank > kMaxRank)
    return "rank " + std::to_string(rank) + " is outside 1..5";
  if (interleave != 0) return "interleaved layouts (interleave " + std::to_string(interleave) +
                              ") are not simulated";
  if (swizzle > 3) return "swizzle mode " + std::to_string(swizzle) + " is outside 0..3";
  if (fill > 1) return "fill mode " + std::to_string(fill) + " is outside 0..1";
  if (fill == 1 && !tma_elem_is_float(elem))
    return "the NaN fill needs a floating-point element type";
  if (address % 16 != 0) return "the global address must be 16-byte aligned";
  for (uint32_t i = 0; i < rank; ++i) {
    const std::string d = "[" + std::to_string(i) + "]";
    if (dim[i] == 0 || dim[i] > (uint64_t{1} << 32))
      return "globalDim" + d + " = " + std::to_string(dim[i]) + " must be 1..2^32";
    if (box[i] == 0 || box[i] > 256)
      return "boxDim" + d + " = " + std::to_string(box[i]) + " must be 1..256";
    if (estride[i] == 0 || estride[i] > 8)
      return "elementStrides" + d + " = " + std::to_string(estride[i]) + " must be 1..8";
    if (i > 0) {
      if (stride[i] % 16 != 0 || stride[i] >= (uint64_t{1} << 40))
        return "globalStrides[" + std::to_string(i - 1) + "] = " + std::to_string(stride[i]) +
               " must be a multiple of 16 below 2^40";
    }
  }
  const uint64_t inner = uint64_t{box[0]} * es;
  if (inner % 16 != 0)
    return "boxDim[0] * the element size = " + std::to_string(inner) +
           " bytes must be a multiple of 16";
  if (uint64_t{box_elements(0)} * es % 16 != 0)
    return "the elements of a box row that element stride " + std::to_string(estride[0]) +
           " keeps (" + std::to_string(box_elements(0)) +
           ") are not a multiple of 16 bytes: not simulated";
  if (swizzle != 0 && inner > (16u << swizzle))
    return "boxDim[0] * the element size = " + std::to_string(inner) + " bytes exceeds the " +
           std::to_string(16u << swizzle) + "-byte swizzle span";
  return {};
}

int tensormap_field_offset(int field, uint32_t ord, uint32_t& bytes) {
  bytes = 1;
  const bool dims = field >= 2 && field <= 5;
  if (dims && (ord >= TensorMap::kMaxRank || (field == 4 && ord >= TensorMap::kMaxRank - 1)))
    return -1;
  switch (field) {
    case 0:
      bytes = 8;
      return static_cast<int>(kAddress);
    case 1:
      return static_cast<int>(kRank);
    case 2:
      bytes = 4;
      return static_cast<int>(kBox + 4 * ord);
    case 3:
      bytes = 4;
      return static_cast<int>(kDim + 4 * ord);
    case 4:
      bytes = 8;
      return static_cast<int>(kStride + 8 * ord);
    case 5:
      bytes = 4;
      return static_cast<int>(kEstride + 4 * ord);
    case 6:
      return static_cast<int>(kElem);
    case 7:
      return static_cast<int>(kInterleave);
    case 8:
      return static_cast<int>(kSwizzle);
    case 9:
      return static_cast<int>(kAtomicity);
    case 10:
      return static_cast<int>(kFill);
    default:
      return -1;
  }
}

uint64_t tma_swizzle(uint64_t addr, int mode) {
  if (mode <= 0) return addr;
  const uint64_t mask = (uint64_t{1} << mode) - 1;
  return addr ^ (((addr >> 7) & mask) << 4);
}

void plan_box(const TensorMap& m, const int32_t* coord, uint64_t smem, std::vector<BoxRun>& out) {
  out.clear();
  const uint32_t es = tma_elem_bytes(m.elem);
  const int rank = static_cast<int>(m.rank);
  std::array<uint32_t, TensorMap::kMaxRank> n{1, 1, 1, 1, 1};
  for (int i = 0; i < rank; ++i) n[i] = m.box_elements(i);
  uint64_t rows = 1;
  for (int i = 1; i < rank; ++i) rows *= n[i];
  uint64_t lin = 0;  // box byte offset, before the swizzle
  std::array<uint32_t, TensorMap::kMaxRank> j{};
  for (uint64_t row = 0; row < rows; ++row) {
    // 1. This row's outer indices (dimensions 1..rank-1), their global offset and bounds.
    bool outer_in = true;
    int64_t outer = 0;
    for (int i = 1; i < rank; ++i) {
      const int64_t c = int64_t{coord[i]} + int64_t{j[i]} * m.estride[i];
      if (c < 0 || c >= static_cast<int64_t>(m.dim[i])) outer_in = false;
      outer += c * static_cast<int64_t>(m.stride[i]);
    }
    // 2. Its elements along dimension 0, one piece per element, merged where they continue
    // each other in both memories and keep within a 16-byte chunk (or no swizzle applies).
    for (uint32_t k = 0; k < n[0]; ++k, lin += es) {
      const int64_t c = int64_t{coord[0]} + int64_t{k} * m.estride[0];
      const bool in = outer_in && c >= 0 && c < static_cast<int64_t>(m.dim[0]);
      const uint64_t g = in ? m.address + static_cast<uint64_t>(outer + c * es) : 0;
      const uint64_t s = tma_swizzle(smem + lin, m.swizzle);
      if (!out.empty()) {
        BoxRun& r = out.back();
        const bool same_chunk = m.swizzle == 0 || (smem + lin) % 16 != 0;
        if (same_chunk && r.fill == !in && r.smem + r.bytes == s &&
            (!in || r.global + r.bytes == g)) {
          r.bytes += es;
          continue;
        }
      }
      out.push_back({s, g, es, !in});
    }
    // 3. The next row.
    for (int i = 1; i < rank; ++i) {
      if (++j[i] < n[i]) break;
      j[i] = 0;
    }
  }
}

}  // namespace warplab::func
