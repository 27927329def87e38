// Kernels for tests/511-514: the experiment-format features real kernels needed.

// Each block sums TILE elements of x into partial[block] (tiles = N / TILE blocks).
extern "C" __global__ void tile_sums(const float* x, float* partial, int tile) {
  __shared__ float s[256];
  const int t = threadIdx.x;
  s[t] = t < tile ? x[blockIdx.x * tile + t] : 0.0f;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) partial[blockIdx.x] = s[0];
}

// y[i] = a * x[i] + y[i] for i < n (pointers may point into the middle of buffers).
extern "C" __global__ void axpy(float a, const float* x, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

// A struct passed by value, laid out by the C++ ABI: float @0, int @4, pointers @8 and @16,
// double @24 (size 32, align 8).
struct AxpbyParams {
  float alpha;
  int n;
  const float* x;
  float* y;
  double beta;
};

extern "C" __global__ void axpby(AxpbyParams p) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < p.n) p.y[i] = p.alpha * p.x[i] + static_cast<float>(p.beta) * p.y[i];
}

// Nested and over-aligned: { char tag; struct { short lo, hi; } range; __align__(16) float4 }.
struct Range {
  short lo, hi;
};
struct __align__(16) Window {
  char tag;
  Range range;
  int* out;
};

extern "C" __global__ void window(Window w) {
  const int i = threadIdx.x;
  w.out[i] = (i >= w.range.lo && i < w.range.hi) ? w.tag : -1;
}

// One bitonic merge step (k: size of the sequences being merged, j: the compare distance).
extern "C" __global__ void bitonic_step(unsigned* data, int j, int k) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned ixj = i ^ j;
  if (ixj > i) {
    const bool up = (i & k) == 0;
    const unsigned a = data[i], b = data[ixj];
    if ((a > b) == up) {
      data[i] = b;
      data[ixj] = a;
    }
  }
}

// Adds 1 to every element; counts its calls in a __device__ variable.
__device__ unsigned long long launches_seen;
__device__ int bias = 100;  // initialised in the module: a symbol buffer without init keeps it

extern "C" __global__ void add_one(int* v, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] += 1 + bias;
  if (i == 0) atomicAdd(&launches_seen, 1ull);
}

// A 1-D stencil with its coefficients in constant memory.
#define RADIUS 3
__constant__ float coeffs[2 * RADIUS + 1];

extern "C" __global__ void stencil(const float* in, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float acc = 0.0f;
  for (int k = -RADIUS; k <= RADIUS; ++k) {
    const int j = min(max(i + k, 0), n - 1);
    acc += coeffs[k + RADIUS] * in[j];
  }
  out[i] = acc;
}

// Writes -0.0f where x is 0 and x elsewhere (checks: +0 vs -0).
extern "C" __global__ void negate_zero(const float* x, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] == 0.0f ? -0.0f : x[i];
}

// The steps j = min(k/2, L/2), ..., 1 of bitonic merge stage k inside each block's L = 2 *
// blockDim.x elements, in shared memory (cuda-samples' bitonicMergeShared does the same).
extern "C" __global__ void bitonic_shared(unsigned* data, int k) {
  extern __shared__ unsigned s[];
  const unsigned L = 2 * blockDim.x, base = blockIdx.x * L;
  s[threadIdx.x] = data[base + threadIdx.x];
  s[threadIdx.x + blockDim.x] = data[base + threadIdx.x + blockDim.x];
  __syncthreads();
  for (unsigned j = min(unsigned(k) / 2, L / 2); j > 0; j >>= 1) {
    for (unsigned h = 0; h < 2; ++h) {
      const unsigned i = threadIdx.x + h * blockDim.x, ixj = i ^ j;
      if (ixj > i) {
        const bool up = ((base + i) & unsigned(k)) == 0;
        const unsigned a = s[i], b = s[ixj];
        if ((a > b) == up) {
          s[i] = b;
          s[ixj] = a;
        }
      }
    }
    __syncthreads();
  }
  data[base + threadIdx.x] = s[threadIdx.x];
  data[base + threadIdx.x + blockDim.x] = s[threadIdx.x + blockDim.x];
}

// A __device__ counter no buffer names: each launch records the count it found (tests/651: the
// GPU's module must start it from 0 each run and carry it from launch to launch as the simulator
// does, whatever its timed launches add).
__device__ unsigned calls;

extern "C" __global__ void count_calls(unsigned* out) {
  if (threadIdx.x == 0 && blockIdx.x == 0) *out = atomicAdd(&calls, 1u);
}
