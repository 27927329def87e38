// Second generalization set (issue 25): the integer mix that the generator kernels use to make
// sparse structures, keys and inputs on the device. validation/experiments/data/gen2/make_refs.py
// repeats it in Python (u32 arithmetic) to compute the expected results independently.
#pragma once
__device__ __forceinline__ unsigned mix32(unsigned x) {
  x *= 2654435761u;
  x ^= x >> 16;
  x *= 2246822519u;
  x ^= x >> 13;
  return x;
}
