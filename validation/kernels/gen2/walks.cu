// Validation corpus, second generalization set (issue 25; written 2026-11-26 before any model change
// was made for it): each thread walks its own data.
// column_walk: a thread per column of a rows x cols matrix (row-major): loads are coalesced across
//   the warp, and the thread's sum is one dependent chain acc = 0.5 acc + m[r][c] over all rows
//   (1024 by default) with only cols / 32 warps in the whole grid. m = 1 makes every acc exactly 2.
// chunk_sum: thread t sums x[t * chunk .. (t + 1) * chunk) (integers): each warp step touches 32
//   lines 4 * chunk bytes apart, and the next 31 steps reuse them from L1.
// pointer_chase: thread t follows next[] from node t for `steps` hops and writes where it ends;
//   next[i] = (i * 1103515245 + 12345) mod n (n a power of two: a permutation), so every hop is a
//   dependent load from a random line.
// gen_next: fills next[] (a thread per node).
extern "C" __global__ void column_walk(const float* m, float* out, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= cols) return;
  float acc = 0.f;
  for (int r = 0; r < rows; ++r) acc = 0.5f * acc + m[(size_t)r * cols + c];
  out[c] = acc;
}

extern "C" __global__ void chunk_sum(const int* x, int* out, int threads, int chunk) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= threads) return;
  const int* p = x + (size_t)t * chunk;
  int s = 0;
  for (int k = 0; k < chunk; ++k) s += p[k];
  out[t] = s;
}

extern "C" __global__ void gen_next(int* next, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) next[i] = (int)(((unsigned)i * 1103515245u + 12345u) & (unsigned)(n - 1));
}

extern "C" __global__ void pointer_chase(const int* next, int* out, int threads, int steps) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= threads) return;
  int v = t;
  for (int k = 0; k < steps; ++k) v = next[v];
  out[t] = v;
}
