// Recursive device functions as CUDA code writes them (tests/562_recursion.cpp; with
// `warplab run recursion.toml --backend both` the GPU's buffers are compared bit for bit):
// two recursive calls per level (fib), mutual recursion (ev/od), a struct returned by value
// through a recursion (walk), and threads that exit deep inside one (down).
struct P {
  int a;
  float b;
};

__device__ __noinline__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

__device__ __noinline__ int od(int n);
__device__ __noinline__ int ev(int n) { return n == 0 ? 0 : od(n - 1) + (n > 3 ? 100 : 1); }
__device__ __noinline__ int od(int n) { return n == 0 ? 0 : ev(n - 1) + 1000 * n; }

__device__ __noinline__ P walk(int n, float x) {
  if (n == 0) return {0, x};
  P p = walk(n - 1, x * 0.5f);
  return {p.a + n, p.b + x};
}

// n + (n - 1) + ... + 0, unless n reaches `stop` on the way: the thread writes -stop and exits.
__device__ __noinline__ int down(int n, int stop, int* out) {
  if (n == stop) {
    *out = -n;
    asm volatile("exit;");
  }
  return n == 0 ? 0 : n + down(n - 1, stop, out);
}

extern "C" __global__ void recursion(int* out, float* f) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  const P p = walk(t % 13, 1.0f + t);
  out[t] = fib(t % 17) + ev(t % 23) + p.a;
  f[t] = p.b;
}

extern "C" __global__ void exits(int* e) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  e[t] = down(12, t % 3 == 0 ? t % 11 : -1, &e[t]);
}
