// Buffers: the host-side contents of an experiment's device arrays, before and after a run.
//
// make_buffers() evaluates every buffer's count for the current parameters and fills it:
//   zeros       all bytes 0
//   constant    every element = the value (converted to the element type)
//   iota        element i = start + i * step
//   uniform     seeded pseudo-random values in [min, max) (see SplitMix64 below)
//   npy         the file's elements, converted to the buffer's type when the dtypes differ
// The random generator is SplitMix64 (Steele, Lea, Flood 2014), so any language can reproduce a
// buffer: state = seed; per element: state += 0x9E3779B97F4A7C15; z = state;
// z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9; z = (z ^ (z >> 27)) * 0x94D049BB133111EB;
// z ^= z >> 31; u = (z >> 11) * 2^-53 in [0, 1). Floats: lo + (hi - lo) * u, rounded to the element
// type, and nudged below hi if rounding reached it. Integers: lo + floor(u * (hi - lo)).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lab/elem_type.h"
#include "lab/experiment.h"
#include "lab/npy.h"

namespace warplab::lab {

struct HostBuffer {
  std::string name;
  ElemType type = ElemType::F32;
  uint64_t count = 0;
  std::vector<uint8_t> bytes;  // count * elem_size(type)
  std::string symbol;  // non-empty: the PTX name of the module variable this buffer is (symbol =)

  double at(uint64_t i) const { return load_elem(type, bytes.data(), i); }
  NpyArray to_npy() const { return NpyArray{type, {count}, bytes}; }
};

// One SplitMix64 step (see the header comment).
uint64_t splitmix64_next(uint64_t& state);

// Every buffer of `exp` for the parameter values in `env`. Errors name the buffer's line.
// `symbol_bytes[i]`: the size of the module variable buffer i names (symbol = ...), which gives
// the count of a symbol buffer without one; may be empty when no buffer has a symbol.
Expected<std::vector<HostBuffer>> make_buffers(const Experiment& exp, const Env& env,
                                               const std::vector<uint64_t>& symbol_bytes = {});

// Converts an .npy array to `type` (through double; exact for values representable in both).
std::vector<uint8_t> convert_elements(const NpyArray& a, ElemType type);

}  // namespace warplab::lab
