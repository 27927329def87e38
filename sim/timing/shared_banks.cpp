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
  // Distinct words per bank, per group (small: linear search is fastest here).
  std::array<std::array<uint64_t, 32>, 32> words{};
  std::array<int, 32> count{};
  for (uint32_t g0 = 0; g0 < 32; g0 += lanes_per_group) {
    count.fill(0);
    bool any = false;
    for (uint32_t lane = g0; lane < std::min<uint32_t>(32, g0 + lanes_per_group); ++lane) {
      if (!(exec_mask >> lane & 1u)) continue;
      any = true;
      // 2. Each word the lane touches lands in bank (word % banks); same word = broadcast.
      for (uint32_t w = 0; w < words_per_lane; ++w) {
        const uint64_t word = addr[lane] / bank_bytes + w;
        const uint32_t bank = static_cast<uint32_t>(word % banks) % 32;
        auto& list = words[bank];
        if ((serialize || std::find(list.begin(), list.begin() + count[bank], word) ==
                              list.begin() + count[bank]) &&
            count[bank] < 32)
          list[count[bank]++] = word;
      }
    }
    if (!any) continue;
    // 3. The busiest bank sets the number of wavefronts for this group.
    cost.wavefronts += std::max(1, *std::max_element(count.begin(), count.end()));
    cost.ideal_wavefronts += 1;
  }
  return cost;
}

}  // namespace warplab::timing
