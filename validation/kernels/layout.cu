// Validation corpus: data layout.
// aos_sum: particles as an array of structs {x, y, z} (12 bytes each); out[i] = x + y + z.
// soa_sum: the same sums from three separate arrays.
// copy_float4: y = x with 16-byte loads and stores (n4 = n / 4 vectors).
struct P3 {
  float x, y, z;
};

extern "C" __global__ void aos_sum(const P3* p, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = p[i].x + p[i].y + p[i].z;
}

extern "C" __global__ void soa_sum(const float* x, const float* y, const float* z, float* out,
                                   int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = x[i] + y[i] + z[i];
}

extern "C" __global__ void copy_float4(const float4* x, float4* y, int n4) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n4) y[i] = x[i];
}
