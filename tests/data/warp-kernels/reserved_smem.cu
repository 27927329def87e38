// Reads the driver-reserved shared-memory registers (PTX %reserved_smem_offset_*), with and
// without shared memory of the kernel's own, so the values the H100's driver gives can be
// compared with the simulator's (sim/func/cta.cpp places the region after the kernel's shared
// memory). out[0..4] = begin, end, cap, offset_0, offset_1; out[5] = the address of the kernel's
// own shared array (0 when it has none); out[6] = %total_smem_size.
__device__ void read_reserved(unsigned* out) {
  unsigned b, e, c, o0, o1, total;
  asm volatile("mov.u32 %0, %%reserved_smem_offset_begin;" : "=r"(b));
  asm volatile("mov.u32 %0, %%reserved_smem_offset_end;" : "=r"(e));
  asm volatile("mov.u32 %0, %%reserved_smem_offset_cap;" : "=r"(c));
  asm volatile("mov.u32 %0, %%reserved_smem_offset_0;" : "=r"(o0));
  asm volatile("mov.u32 %0, %%reserved_smem_offset_1;" : "=r"(o1));
  asm volatile("mov.u32 %0, %%total_smem_size;" : "=r"(total));
  out[0] = b, out[1] = e, out[2] = c, out[3] = o0, out[4] = o1, out[6] = total;
}

extern "C" __global__ void reserved_plain(unsigned* out) {
  if (threadIdx.x != 0) return;
  read_reserved(out);
  out[5] = 0;
}

extern "C" __global__ void reserved_with_shared(unsigned* out) {
  __shared__ int own[1000];
  own[threadIdx.x] = threadIdx.x;
  __syncthreads();
  if (threadIdx.x != 0) return;
  read_reserved(out);
  out[5] = static_cast<unsigned>(__cvta_generic_to_shared(own)) + own[1] - 1;
}
