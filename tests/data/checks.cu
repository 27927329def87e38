// Kernels with the bugs that the hang limit, synccheck and racecheck must report
// (tests/511_checks.cpp). The `@name` comments mark the lines the tests expect in the reports.

// A new user's wait for a flag nobody sets: runs forever.
extern "C" __global__ void spin(const int* x, int* out) {
  while (x[0] == 0) {  // @spin
  }
  out[threadIdx.x] = 1;
}

// The same wait on a volatile flag: the load stays in the loop.
extern "C" __global__ void spin_volatile(const volatile int* x, int* out) {
  while (x[0] == 0) {  // @spin_volatile
  }
  out[threadIdx.x] = 1;
}

// Warp 0 waits at barrier 0 and warp 1 at barrier 1: neither barrier can ever complete.
extern "C" __global__ void deadlock(int* out) {
  if (threadIdx.x < 32)
    asm volatile("bar.sync 0;");  // @bar0
  else
    asm volatile("bar.sync 1;");  // @bar1
  out[threadIdx.x] = 1;
}

// __syncthreads() reached by half of warp 0 only.
extern "C" __global__ void divergent_barrier(int* out) {
  __shared__ int s[64];
  s[threadIdx.x] = threadIdx.x;
  if (threadIdx.x < 16) __syncthreads();  // @divbar
  out[threadIdx.x] = s[threadIdx.x];
}

// Warp 1 returns early; warp 0 waits at __syncthreads() without it.
extern "C" __global__ void early_exit_barrier(int* out) {
  if (threadIdx.x >= 32) return;
  __syncthreads();  // @blockbar
  out[threadIdx.x] = 1;
}

// Each thread reads the slot another warp writes, with no barrier between.
extern "C" __global__ void shared_race(int* out) {
  __shared__ int s[64];
  const int t = threadIdx.x;
  s[t] = t;            // @race_store
  out[t] = s[63 - t];  // @race_load
}

// The same with the barrier: clean.
extern "C" __global__ void shared_synced(int* out) {
  __shared__ int s[64];
  const int t = threadIdx.x;
  s[t] = t;
  __syncthreads();
  out[t] = s[63 - t];
}

// Read the other warp's slot, then overwrite one's own with no barrier between: another warp
// may still be about to read it (WAR).
extern "C" __global__ void shared_war(const int* in, int* out) {
  __shared__ int s[64];
  const int t = threadIdx.x;
  s[t] = in[t];
  __syncthreads();
  const int v = s[(t + 32) % 64];  // @war_load
  s[t] = v + 1;                    // @war_store
  __syncthreads();
  out[t] = s[t];
}

// Warps 0 and 1 write the same slots (WAW).
extern "C" __global__ void shared_waw(int* out) {
  __shared__ int s[32];
  const int t = threadIdx.x;
  s[t % 32] = t;  // @waw_store
  __syncthreads();
  out[t] = s[t % 32];
}

// All lanes of one warp store different values to one address in one instruction.
extern "C" __global__ void lanes_waw(int* out) {
  __shared__ int s[1];
  s[0] = threadIdx.x;  // @lanes_store
  __syncthreads();
  out[threadIdx.x] = s[0];
}

// The race of shared_race on global memory, within one block.
extern "C" __global__ void global_race(int* buf, int* out) {
  const int t = threadIdx.x;
  buf[t] = t;            // @g_store
  out[t] = buf[63 - t];  // @g_load
}

// Race-free: a tree reduction with a barrier per step, and a shared histogram built with
// atomics (atomics do not race with atomics).
extern "C" __global__ void reduce(const float* in, float* out) {
  __shared__ float s[256];
  const int t = threadIdx.x;
  s[t] = in[blockIdx.x * 256 + t];
  __syncthreads();
  for (int k = 128; k > 0; k >>= 1) {
    if (t < k) s[t] += s[t + k];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}

extern "C" __global__ void histogram(const int* in, int* out) {
  __shared__ int bins[16];
  const int t = threadIdx.x;
  if (t < 16) bins[t] = 0;
  __syncthreads();
  atomicAdd(&bins[in[blockIdx.x * blockDim.x + t] & 15], 1);
  __syncthreads();
  if (t < 16) atomicAdd(&out[t], bins[t]);
}

// Lanes 16-31 of each warp return; the others go on with the whole warp's mask. The reduction,
// ballot and match are defined over the lanes that have not exited (PTX ISA), so they are no
// hazard; the shuffle reads lanes 16-23, which have exited: its value is undefined (an H100
// gave 0), which synccheck reports.
extern "C" __global__ void exited_lanes(int* out) {
  const int lane = threadIdx.x % 32;
  if (lane >= 16) return;
  int v = __reduce_add_sync(0xffffffffu, lane);          // @exited_redux
  v += __popc(__ballot_sync(0xffffffffu, lane & 1));     // @exited_vote
  v += __popc(__match_any_sync(0xffffffffu, lane / 4));  // @exited_match
  v += __shfl_down_sync(0xffffffffu, lane, 8);           // @exited_shfl
  out[threadIdx.x] = v;
}

// __syncwarp() naming the lanes that returned.
extern "C" __global__ void exited_syncwarp(int* out) {
  if (threadIdx.x % 32 >= 16) return;
  __syncwarp();  // @exited_syncwarp
  out[threadIdx.x] = 1;
}
