// Lesson 2: memory coalescing.
//
// When a warp loads from global memory, the hardware gathers the 32 lanes' addresses and fetches
// the 32-byte sectors that contain them. If neighbouring lanes read neighbouring floats, the warp
// needs 4 sectors (128 bytes) for its 32 floats. If they are `stride` floats apart, the same 32
// floats are spread over up to 32 sectors, and most of every sector fetched is thrown away.

// Thread i copies element (i * stride) % n. With stride 1 this is a plain copy. With a larger
// stride, neighbouring lanes touch elements `stride` apart; the elements that are touched repeat,
// so only every stride-th element of y is written (the rest keep their old value).
// (i * stride must fit in an int: n * stride < 2^31.)
extern "C" __global__ void strided_copy(const float* x, float* y, int n, int stride) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int j = (i * stride) % n;
    y[j] = x[j];
  }
}
