// Device printf and assert in the simulator (tests/560): every third thread prints one line with
// most of printf's conversions; thread `bad` fails an assertion (none when bad < 0).
// (NVRTC provides printf and assert without includes.)
extern "C" __global__ void hello(const int* v, int n, int bad) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int x = v[i];
  if (x % 3 == 0)
    printf("i=%d x=%5d hex=%#x half=%.3f big=%e %s ll=%lld u=%u c=%c pct=%%\n", i, x, x, x * 0.5f,
           static_cast<double>(x) * 1e10, x % 2 ? "odd" : "even", static_cast<long long>(x) << 33,
           static_cast<unsigned>(-x), 'a' + x % 26);
  assert(i != bad);
}
