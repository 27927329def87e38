// Bit counting without a library call: the build targets baseline x86-64 (no POPCNT), where
// std::popcount calls libgcc's __popcountdi2 on every use, a visible cost in the hot loops of the
// executor and the timing model (issue 26). Same answers as std::popcount and std::has_single_bit.
#pragma once

#include <cstdint>

namespace warplab {

inline int popc32(uint32_t v) {
  v = v - ((v >> 1) & 0x55555555u);
  v = (v & 0x33333333u) + ((v >> 2) & 0x33333333u);
  return static_cast<int>((((v + (v >> 4)) & 0x0F0F0F0Fu) * 0x01010101u) >> 24);
}

// std::has_single_bit (which libstdc++ computes with a popcount).
inline bool single_bit(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

}  // namespace warplab
