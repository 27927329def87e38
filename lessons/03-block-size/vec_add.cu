// Lesson 3: choosing a block size.
//
// The same vector add as lesson 1, launched with blocks of 32 to 1024 threads. The kernel does not
// change; what changes is how many warps each SM can keep resident (an SM holds at most 32 blocks
// and 64 warps on an H100), and so how much memory latency it can hide.
extern "C" __global__ void vec_add(const float* x, const float* y, float* z, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    z[i] = x[i] + y[i];
  }
}
