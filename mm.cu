#define T 16
__global__ void mm(const float* A, const float* B, float* C, int n) {
  __shared__ float as[T][T], bs[T][T];
  int tx = threadIdx.x, ty = threadIdx.y, row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
  float acc = 0;
  for (int k = 0; k < n; k += T) {
    as[ty][tx] = A[row * n + k + tx]; bs[ty][tx] = B[(k + ty) * n + col]; __syncthreads();
    for (int j = 0; j < T; ++j) acc += as[ty][j] * bs[j][tx];
    __syncthreads();
  }
  C[row * n + col] = acc;
}
__global__ void vadd(const float* a, const float* b, float* c, int n){int i=blockIdx.x*blockDim.x+threadIdx.x; if(i<n) c[i]=a[i]+b[i];}
