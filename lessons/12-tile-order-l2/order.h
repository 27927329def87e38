// Lesson 12: which output tile a block computes. Shared by matmul.cu and traffic.cu.
//
// A grid of tiles_m x tiles_n output tiles is launched as a 1-D grid; blockIdx.x is the order in
// which the hardware hands blocks out (roughly: lower ids start first). This function decides
// which tile (tm, tn) block `bid` computes.
//
//   order 0, row-major: bid = tm * tiles_n + tn. Consecutive blocks walk along a row of tiles, so
//     the blocks running at one time share one panel of A but each need a different panel of B:
//     one row of tiles reads all of B.
//   order 1, grouped (GROUP_M, as in Triton's matmul tutorial): blocks walk down a column of
//     group_m tiles, then move one column right. The blocks running at one time cover a
//     group_m-tall strip: group_m panels of A and few panels of B, each reused group_m times
//     while it is still in the L2.
#pragma once

__device__ inline void tile_of_block(int bid, int tiles_m, int tiles_n, int order, int group_m,
                                     int& tm, int& tn) {
  if (order == 0) {
    tm = bid / tiles_n;
    tn = bid % tiles_n;
    return;
  }
  const int per_group = group_m * tiles_n;  // blocks in one strip of group_m rows of tiles
  const int first_m = (bid / per_group) * group_m;
  const int rows = min(tiles_m - first_m, group_m);  // the last strip may be shorter
  const int in_group = bid % per_group;
  tm = first_m + in_group % rows;
  tn = in_group / rows;
}
