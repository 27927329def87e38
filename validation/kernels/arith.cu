// Validation corpus, generalization set (written 2026-11-25, measured before any model change was
// made for it): arithmetic that the compiler expands or that runs on narrow pipes.
// int_hash: `rounds` rounds of xorshift-multiply on a 32-bit integer (IMAD, shifts, LOP3).
// div_sqrt: `iters` rounds of v = sqrt(v / d + 1) in fp32 with IEEE rounding (div.rn and
//   sqrt.rn: ptxas expands both into FMA sequences around an MUFU approximation).
// half2_axpy: y = a x + y on pairs of halves (HFMA2), n2 pairs.
// exp_f64: y = exp(x) in double precision (a DFMA polynomial from libdevice).
extern "C" __global__ void int_hash(unsigned* y, int n, int rounds) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned h = (unsigned)i;
  for (int r = 0; r < rounds; ++r) {
    h ^= h >> 16;
    h *= 0x7feb352du;
    h ^= h >> 15;
    h *= 0x846ca68bu;
  }
  y[i] = h;
}

extern "C" __global__ void div_sqrt(const float* x, float* y, int n, int iters, float d) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
  for (int r = 0; r < iters; ++r) v = sqrtf(v / d + 1.0f);
  y[i] = v;
}

#include <cuda_fp16.h>
extern "C" __global__ void half2_axpy(const __half2* x, __half2* y, float a, int n2) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n2) y[i] = __hfma2(__float2half2_rn(a), x[i], y[i]);
}

extern "C" __global__ void exp_f64(const double* x, double* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = exp(x[i]);
}
