// tma_copy_f32 (validation/kernels/tensor/tma_wgmma.cu) launched three ways on an H100 (argv[1]: 0
// the runtime's <<<>>>, 1 cuLaunchKernel with kernelParams, 2 cuLaunchKernel with the parameter
// block as CU_LAUNCH_PARAM_BUFFER_POINTER). 2026-11-26, driver 580.159.04: 0 and 1 copy every
// element, 2 faults with CUDA_ERROR_ILLEGAL_INSTRUCTION (gpu/backend.cpp's kernel_params says why
// WarpLab launches with kernelParams). Build: nvcc -O3 -gencode arch=compute_90a,code=sm_90a
//   -o tma_launch_paths tma_launch_paths.cu -lcuda; run with 0, 1 and 2 (a fault ends the process).
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include "../../validation/kernels/tensor/tma_wgmma.cu"
int main(int argc, char** argv) {
  int mode = atoi(argv[1]);
  const int W = 1000, H = 600;
  float *in, *out;
  cudaMalloc(&in, W * H * 4); cudaMalloc(&out, W * H * 4);
  std::vector<float> h(W * H); for (int i = 0; i < W * H; ++i) h[i] = i;
  cudaMemcpy(in, h.data(), W * H * 4, cudaMemcpyHostToDevice);
  cudaMemset(out, 0, W * H * 4);
  CUtensorMap m[2];
  for (int k = 0; k < 2; ++k) {
    cuuint64_t dims[2] = {W, H}, strides[1] = {W * 4};
    cuuint32_t box[2] = {32, 32}, es[2] = {1, 1};
    CUresult r = cuTensorMapEncodeTiled(&m[k], CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, k ? (void*)out : (void*)in, dims, strides, box, es,
        CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    printf("encode %d -> %d\n", k, r);
  }
  dim3 grid((W + 31) / 32, (H + 31) / 32);
  if (mode == 0) {
    tma_copy_f32<<<grid, 32>>>(*(TensorMap*)&m[0], *(TensorMap*)&m[1]);
  } else {
    CUfunction f; cudaGetFuncBySymbol((cudaFunction_t*)&f, (void*)tma_copy_f32);
    if (mode == 1) { void* p[2] = {&m[0], &m[1]}; printf("launch %d\n", cuLaunchKernel(f, grid.x, grid.y, 1, 32, 1, 1, 0, 0, p, 0)); }
    else { alignas(64) unsigned char buf[256]; memcpy(buf, m, 256); size_t s = 256;
      void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, buf, CU_LAUNCH_PARAM_BUFFER_SIZE, &s, CU_LAUNCH_PARAM_END};
      printf("launch %d\n", cuLaunchKernel(f, grid.x, grid.y, 1, 32, 1, 1, 0, 0, 0, extra)); }
  }
  cudaError_t e = cudaDeviceSynchronize();
  printf("mode %d sync: %s\n", mode, cudaGetErrorString(e));
  std::vector<float> o(W * H); cudaMemcpy(o.data(), out, W * H * 4, cudaMemcpyDeviceToHost);
  int bad = 0; for (int i = 0; i < W * H; ++i) bad += o[i] != h[i];
  printf("mode %d bad=%d\n", mode, bad);
}
