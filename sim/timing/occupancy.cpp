// Occupancy: see occupancy.h.
#include "sim/timing/occupancy.h"

#include <algorithm>

namespace warplab::timing {
namespace {
int64_t round_up(int64_t v, int64_t unit) { return (v + unit - 1) / unit * unit; }
}  // namespace

Expected<Occupancy> compute_occupancy(const CoreConfig& c, int threads, int regs, int shared) {
  Occupancy o;
  if (threads < 1 || threads > c.max_threads_per_block)
    return Error{"", 0, "block of " + std::to_string(threads) + " threads (1.." +
                            std::to_string(c.max_threads_per_block) + " allowed)"};
  if (regs > c.max_registers_per_thread)
    return Error{"", 0, std::to_string(regs) + " registers per thread (at most " +
                            std::to_string(c.max_registers_per_thread) + ")"};
  if (shared > c.shared_per_block_max)
    return Error{"", 0, std::to_string(shared) + " bytes of shared memory per block (at most " +
                            std::to_string(c.shared_per_block_max) + ")"};
  o.warps_per_block = static_cast<int>((threads + 31) / 32);
  // 1. Warp slots and block slots.
  o.limit_warps = static_cast<int>(c.max_warps_per_sm / o.warps_per_block);
  o.limit_blocks = static_cast<int>(c.max_blocks_per_sm);
  // 2. Registers: per warp in allocation units, each sub-partition holding whole warps.
  o.registers_per_warp = static_cast<int>(round_up(int64_t{regs} * 32, c.register_alloc_unit));
  if (regs <= 0) {
    o.limit_registers = o.limit_blocks;
  } else {
    const int64_t per_partition = c.registers_per_sm / c.sub_partitions;
    const int64_t warps = per_partition / o.registers_per_warp * c.sub_partitions;
    o.limit_registers = static_cast<int>(warps / o.warps_per_block);
  }
  // 3. Shared memory: in allocation units, plus the per-block reserve.
  o.shared_per_block =
      static_cast<int>(round_up(int64_t{shared} + c.shared_reserved_per_block, c.shared_alloc_unit));
  o.limit_shared = o.shared_per_block > 0 ? static_cast<int>(c.shared_per_sm / o.shared_per_block)
                                          : o.limit_blocks;
  // 4. The tightest limit wins (ties name the first in this order, as the calculator does).
  o.blocks_per_sm = o.limit_warps;
  o.limiter = "warps";
  auto take = [&](int v, const char* name) {
    if (v < o.blocks_per_sm) { o.blocks_per_sm = v; o.limiter = name; }
  };
  take(o.limit_blocks, "blocks");
  take(o.limit_registers, "registers");
  take(o.limit_shared, "shared memory");
  if (o.blocks_per_sm < 1)
    return Error{"", 0, "one block does not fit on an SM (limited by " + o.limiter + ")"};
  o.theoretical = double(o.blocks_per_sm) * o.warps_per_block / double(c.max_warps_per_sm);
  return o;
}

}  // namespace warplab::timing
