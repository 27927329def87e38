// Shared memory banks: see shared_banks.h.
#include "sim/timing/shared_banks.h"

#include <algorithm>
#include <bit>
#include <vector>

namespace warplab::timing {

SharedAccessCost shared_access_cost(const std::array<uint64_t, 32>& addr, uint32_t exec_mask,
                                    uint32_t access_bytes, uint32_t banks, uint32_t bank_bytes,
                                    bool serialize) {
  SharedAccessCost cost;
  if (exec_mask == 0) return cost;
  const uint32_t bytes = std::max<uint32_t>(access_bytes, 1);
  const uint32_t words_per_lane = std::max<uint32_t>(1, (bytes + bank_bytes - 1) / bank_bytes);
  // 1. Lanes per group: a group moves at most one word per bank.
  const uint32_t lanes_per_group = std::max<uint32_t>(1, banks / words_per_lane);
  // A word's bank, (word % banks) % 32: a shift and a mask when both sizes are powers of two
  // (every shipped configuration), a division otherwise.
  const bool pow2 = std::has_single_bit(banks) && std::has_single_bit(bank_bytes);
  const int word_shift = std::countr_zero(bank_bytes);
  const uint32_t bank_mask = std::min<uint32_t>(banks, 32) - 1;
  // Distinct words per bank, per group (small: linear search is fastest here). Only the first
  // count[bank] words of a bank are ever read, so the lists need no clearing.
  std::array<std::array<uint64_t, 32>, 32> words;
  std::array<int, 32> count;
  for (uint32_t g0 = 0; g0 < 32; g0 += lanes_per_group) {
    const uint32_t g1 = std::min<uint32_t>(32, g0 + lanes_per_group);
    const uint32_t group = g1 - g0 == 32 ? ~0u : ((1u << (g1 - g0)) - 1) << g0;
    if (!(exec_mask & group)) continue;
    count.fill(0);
    int busiest = 1;
    for (uint32_t m = exec_mask & group; m; m &= m - 1) {
      const uint32_t lane = static_cast<uint32_t>(std::countr_zero(m));
      // 2. Each word the lane touches lands in bank (word % banks); same word = broadcast.
      const uint64_t first = pow2 ? addr[lane] >> word_shift : addr[lane] / bank_bytes;
      for (uint32_t w = 0; w < words_per_lane; ++w) {
        const uint64_t word = first + w;
        const uint32_t bank = pow2 ? static_cast<uint32_t>(word) & bank_mask
                                   : static_cast<uint32_t>(word % banks) % 32;
        auto& list = words[bank];
        int& n = count[bank];
        if ((serialize || std::find(list.begin(), list.begin() + n, word) == list.begin() + n) &&
            n < 32) {
          list[n++] = word;
          busiest = std::max(busiest, n);
        }
      }
    }
    // 3. The busiest bank sets the number of wavefronts for this group.
    cost.wavefronts += busiest;
    cost.ideal_wavefronts += 1;
  }
  return cost;
}

}  // namespace warplab::timing
