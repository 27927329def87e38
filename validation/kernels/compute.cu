// Validation corpus: arithmetic-bound kernels (one load, one store, `reps` dependent operations
// in 4 independent chains per thread).
// fp64_fma: a = a * b + c in double; with x = 0, b = 1, c = 1 every chain ends at reps (exact).
// fp32_fma: the same in float (exact up to 2^24).
// sfu_sin / sfu_exp: __sinf / __expf (MUFU.SIN, MUFU.EX2) chains; results are not checked.
extern "C" __global__ void fp64_fma(const double* x, double* out, int n, int reps, double b,
                                   double c) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double a0 = x[i], a1 = a0, a2 = a0, a3 = a0;
  for (int k = 0; k < reps; ++k) {
    a0 = a0 * b + c;
    a1 = a1 * b + c;
    a2 = a2 * b + c;
    a3 = a3 * b + c;
  }
  out[i] = 0.25 * (a0 + a1 + a2 + a3);
}

extern "C" __global__ void fp32_fma(const float* x, float* out, int n, int reps, float b, float c) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float a0 = x[i], a1 = a0, a2 = a0, a3 = a0;
  for (int k = 0; k < reps; ++k) {
    a0 = a0 * b + c;
    a1 = a1 * b + c;
    a2 = a2 * b + c;
    a3 = a3 * b + c;
  }
  out[i] = 0.25f * (a0 + a1 + a2 + a3);
}

extern "C" __global__ void sfu_sin(const float* x, float* out, int n, int reps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float a0 = x[i], a1 = a0 + 0.25f, a2 = a0 + 0.5f, a3 = a0 + 0.75f;
  for (int k = 0; k < reps; ++k) {
    a0 = __sinf(a0) + 0.5f;
    a1 = __sinf(a1) + 0.5f;
    a2 = __sinf(a2) + 0.5f;
    a3 = __sinf(a3) + 0.5f;
  }
  out[i] = a0 + a1 + a2 + a3;
}

extern "C" __global__ void sfu_exp(const float* x, float* out, int n, int reps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float a0 = x[i], a1 = a0 + 0.25f, a2 = a0 + 0.5f, a3 = a0 + 0.75f;
  for (int k = 0; k < reps; ++k) {
    a0 = __expf(-a0);
    a1 = __expf(-a1);
    a2 = __expf(-a2);
    a3 = __expf(-a3);
  }
  out[i] = a0 + a1 + a2 + a3;
}
