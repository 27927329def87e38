// Launch and block-ramp cost (issue 24): kernels that do (almost) nothing, so that a launch's
// event time is all overhead: the host's launch, the front end's grid set-up, handing out every
// block to the SMs and retiring them, and the events around it.
//
//   empty  returns at once.
//   store  each thread stores one int (into a 4 MiB ring, so the buffer stays small at any grid).
//
// launch.toml sweeps both over grid (1 block to 128 waves of 132 SMs) and block size, and is timed
// the way every corpus point is: warplab run launch.toml --backend gpu --l2 cold --counters.
extern "C" __global__ void empty() {}

extern "C" __global__ void store(int* out, unsigned mask) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i & mask] = 1;
}
