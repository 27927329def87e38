// Does the SM's TMA unit serve bulk tensor copies in issue order? (issue 25, t.tma.copy_edges.large)
// One block on one SM; lane 0 of each warp issues TMA ops and takes %clock64 stamps (raw stamps
// to Stamps[mode * 128 + i]; tma_order.py prints the intervals). f32 tensor W x H, box 32 x 32
// (4 KiB, 128-byte rows: the corpus's tma_copy_f32 box); box k is at (32 (k % 64), 32 (k / 64)),
// W = 2048 (64 boxes a row of boxes), H = 8448 (boxes 0..16895).
// Every mode first makes both tensor maps held by the unit (a load and a store of box 4000,
// waited), so no descriptor fetch is timed. Loads are "cold" under --l2 cold unless prewarmed.
//   0 store_alone        warp 0: store, commit, wait_group.read 0; a store, wait_group 0 (whole write)
//   1 load_alone         warp 0: cold load; the same box again (L2 hit); 4 cold loads at once
//   2 store_behind_load  warp 1 issues a cold load; after bar.sync warp 0 stores a tile (read wait)
//   3 store_behind_4     as 2 with 4 cold loads in flight (one mbarrier each)
//   4 store_behind_warm  as 3 with the 4 loads' boxes prewarmed into the L2 (L2 hits)
//   5 load_behind_4st    warp 0 issues 4 stores (one group); after bar.sync warp 1 loads a
//                        prewarmed box
//   6 stores_in_turn     warp 0: 4 stores, a group each; wait_group.read 3, 2, 1, 0, then wait_group 0
//   7 store_after_own    warp 0: a cold load, then at once a store of another tile (read wait),
//                        then the load's mbarrier
//   8 pairs32            32 warps: each 4 x (cold load, wait, store, commit, wait_group.read 0)
//   9 loads32            32 warps: each 4 x (cold load, wait)
//  10 stores32           32 warps: each 4 x (store, commit, wait_group.read 0)
//  11-13                 8-10 on 132 blocks (one a SM: 128 KiB of shared memory each), block b's
//                        boxes 128 b + ..., block 0's stamps: the one SM with every SM busy
//  14-16                 8-10 on one SM with the 128 boxes prewarmed into the L2 (each warp
//                        loads its 4 boxes and waits first): L2 hits
// Modes 0-7 run with 64 threads, 8-16 with 1024; dynamic shared memory: max(warps, 8) tiles.
struct __align__(64) TensorMap {
  unsigned long long opaque[16];
};

__device__ __forceinline__ unsigned smem_addr(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ long long stamp() {
  long long t;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)::"memory");
  return t;
}

__device__ __forceinline__ void wait_phase(unsigned bar, unsigned phase) {
  unsigned done = 0;
  while (!done) {
    asm volatile(
        "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
        : "=r"(done)
        : "r"(bar), "r"(phase)
        : "memory");
  }
}

__device__ __forceinline__ void load(unsigned dst, const TensorMap* map, int k, unsigned bar) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 4096;" ::"r"(bar) : "memory");
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, "
      "%3}], [%4];" ::"r"(dst),
      "l"(map), "r"(32 * (k % 64)), "r"(32 * (k / 64)), "r"(bar)
      : "memory");
}

__device__ __forceinline__ void store(const TensorMap* map, int k, unsigned src) {
  asm volatile(
      "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%1, %2}], [%3];" ::"l"(map),
      "r"(32 * (k % 64)), "r"(32 * (k / 64)), "r"(src)
      : "memory");
}

__device__ __forceinline__ void commit() { asm volatile("cp.async.bulk.commit_group;" ::: "memory"); }
template <int N>
__device__ __forceinline__ void wait_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(N) : "memory");
}
template <int N>
__device__ __forceinline__ void wait_all() {
  asm volatile("cp.async.bulk.wait_group %0;" ::"n"(N) : "memory");
}

extern "C" __global__ void tma_order(const __grid_constant__ TensorMap in,
                                     const __grid_constant__ TensorMap out, long long* stamps,
                                     int mode) {
  extern __shared__ __align__(1024) float tiles[];
  __shared__ __align__(8) unsigned long long bars[40];
  const unsigned warp = threadIdx.x / 32, nw = blockDim.x / 32;
  const bool lead = threadIdx.x % 32 == 0;
  const unsigned ntiles = nw > 8 ? nw : 8;
  for (unsigned i = threadIdx.x; i < ntiles * 1024; i += blockDim.x) tiles[i] = float(i & 255);
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#define TILE(i) smem_addr(tiles + 1024 * (i))
#define BAR(i) smem_addr(&bars[i])
  if (threadIdx.x == 0) {
    for (int i = 0; i < 40; ++i)
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(BAR(i)) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    // Both maps into the unit: a load and a store of box 4000, waited.
    load(TILE(0), &in, 4000, BAR(39));
    wait_phase(BAR(39), 0);
    store(&out, 4000, TILE(0));
    commit();
    wait_all<0>();
  }
  __syncthreads();
  long long* s = stamps + mode * 128;
  long long t[12];
  if (mode == 0 && threadIdx.x == 0) {
    t[0] = stamp();
    store(&out, 0, TILE(0));
    commit();
    wait_read<0>();
    t[1] = stamp();
    store(&out, 1, TILE(1));
    commit();
    wait_all<0>();
    t[2] = stamp();
    for (int i = 0; i < 3; ++i) s[i] = t[i];
  }
  if (mode == 1 && threadIdx.x == 0) {
    t[0] = stamp();
    load(TILE(0), &in, 0, BAR(0));
    wait_phase(BAR(0), 0);
    t[1] = stamp();
    load(TILE(1), &in, 0, BAR(1));
    wait_phase(BAR(1), 0);
    t[2] = stamp();
    for (int i = 0; i < 4; ++i) load(TILE(2 + i), &in, 1 + i, BAR(2 + i));
    for (int i = 0; i < 4; ++i) wait_phase(BAR(2 + i), 0), t[3 + i] = stamp();
    for (int i = 0; i < 7; ++i) s[i] = t[i];
  }
  if (mode >= 2 && mode <= 4) {
    const int n = mode == 2 ? 1 : 4;
    if (mode == 4 && warp == 1 && lead) {  // prewarm boxes 0..3
      for (int i = 0; i < 4; ++i) load(TILE(1 + i), &in, i, BAR(1 + i));
      for (int i = 0; i < 4; ++i) wait_phase(BAR(1 + i), 0);
    }
    __syncthreads();
    const unsigned ph = mode == 4 ? 1 : 0;
    if (warp == 1 && lead) {
      t[0] = stamp();
      for (int i = 0; i < n; ++i) load(TILE(1 + i), &in, i, BAR(1 + i));
    }
    __syncthreads();
    if (warp == 0 && lead) {
      t[1] = stamp();
      store(&out, 0, TILE(0));
      commit();
      wait_read<0>();
      t[2] = stamp();
      s[1] = t[1], s[2] = t[2];
    }
    if (warp == 1 && lead) {
      for (int i = 0; i < n; ++i) wait_phase(BAR(1 + i), ph), t[3 + i] = stamp();
      s[0] = t[0];
      for (int i = 0; i < n; ++i) s[3 + i] = t[3 + i];
    }
  }
  if (mode == 5) {
    if (warp == 1 && lead) {  // prewarm box 10
      load(TILE(5), &in, 10, BAR(5));
      wait_phase(BAR(5), 0);
    }
    __syncthreads();
    if (warp == 0 && lead) {
      t[0] = stamp();
      for (int i = 0; i < 4; ++i) store(&out, i, TILE(i));
      commit();
    }
    __syncthreads();
    if (warp == 1 && lead) {
      t[1] = stamp();
      load(TILE(5), &in, 10, BAR(5));
      wait_phase(BAR(5), 1);
      t[2] = stamp();
      s[1] = t[1], s[2] = t[2];
    }
    if (warp == 0 && lead) {
      wait_read<0>();
      t[3] = stamp();
      s[0] = t[0], s[3] = t[3];
    }
  }
  if (mode == 6 && threadIdx.x == 0) {
    t[0] = stamp();
    for (int i = 0; i < 4; ++i) store(&out, i, TILE(i)), commit();
    wait_read<3>();
    t[1] = stamp();
    wait_read<2>();
    t[2] = stamp();
    wait_read<1>();
    t[3] = stamp();
    wait_read<0>();
    t[4] = stamp();
    wait_all<0>();
    t[5] = stamp();
    for (int i = 0; i < 6; ++i) s[i] = t[i];
  }
  if (mode == 7 && threadIdx.x == 0) {
    t[0] = stamp();
    load(TILE(1), &in, 0, BAR(1));
    store(&out, 0, TILE(0));
    commit();
    wait_read<0>();
    t[1] = stamp();
    wait_phase(BAR(1), 0);
    t[2] = stamp();
    for (int i = 0; i < 3; ++i) s[i] = t[i];
  }
  if (mode >= 14 && lead) {
    for (int r = 0; r < 4; ++r) {
      load(TILE(warp), &in, 32 * r + static_cast<int>(warp), BAR(warp));
      wait_phase(BAR(warp), r & 1);
    }
  }
  if (mode >= 14) __syncthreads();
  if (mode >= 8 && lead) {
    const int m = mode >= 14 ? mode - 6 : mode >= 11 ? mode - 3 : mode;
    t[0] = stamp();
    for (int r = 0; r < 4; ++r) {
      const int k = 128 * static_cast<int>(blockIdx.x) + 32 * r + static_cast<int>(warp);
      if (m != 10) {
        load(TILE(warp), &in, k, BAR(warp));
        wait_phase(BAR(warp), r & 1);  // (a prewarm used 4 phases: parity 0 again)
      }
      if (m != 9) {
        store(&out, k, TILE(warp));
        commit();
        wait_read<0>();
      }
    }
    t[1] = stamp();
    if (blockIdx.x == 0) s[2 * warp] = t[0], s[2 * warp + 1] = t[1];
  }
}
