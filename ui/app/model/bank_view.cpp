#include "ui/app/model/bank_view.h"

#include <algorithm>
#include <bit>

#include "sim/timing/shared_banks.h"

namespace warplab::app {

BankView bank_view(const timing::Trace& t, const timing::AccessRecord& a) {
  using Kind = timing::AccessRecord::Kind;
  BankView v;
  v.access_bytes = std::max<uint32_t>(a.access_bytes, 1);
  const bool shared = a.kind == Kind::SharedLoad || a.kind == Kind::SharedStore;
  if (!shared || a.exec_mask == 0 || a.line_count != uint32_t(std::popcount(a.exec_mask)) ||
      uint64_t(a.line_begin) + a.line_count > t.shared_addresses.size())
    return v;
  // 1. The lanes' addresses, in lane order.
  std::array<uint64_t, 32> addr{};
  uint32_t k = a.line_begin;
  for (int lane = 0; lane < 32; ++lane)
    if (a.exec_mask >> lane & 1u) {
      addr[lane] = t.shared_addresses[k++];
      v.lanes[lane].active = true;
      v.lanes[lane].address = uint32_t(addr[lane]);
      v.lanes[lane].bank = int(addr[lane] / BankView::kBankBytes % BankView::kBanks);
    }
  // 2. The model's cost for them.
  const timing::SharedAccessCost cost = timing::shared_access_cost(
      addr, a.exec_mask, v.access_bytes, BankView::kBanks, BankView::kBankBytes);
  v.wavefronts = cost.wavefronts;
  v.ideal_wavefronts = cost.ideal_wavefronts;
  // 3. Per group, the words each bank delivers; a lane's pass is its word's rank in its bank.
  const uint32_t words_per_lane =
      std::max<uint32_t>(1, (v.access_bytes + BankView::kBankBytes - 1) / BankView::kBankBytes);
  const int per_group = std::max<int>(1, BankView::kBanks / int(words_per_lane));
  int base = 0;
  for (int g0 = 0; g0 < 32; g0 += per_group) {
    std::array<std::vector<uint32_t>, BankView::kBanks> banks;
    bool any = false;
    for (int lane = g0; lane < std::min(32, g0 + per_group); ++lane) {
      if (!v.lanes[lane].active) continue;
      any = true;
      for (uint32_t w = 0; w < words_per_lane; ++w) {
        const uint32_t word = uint32_t(addr[lane] / BankView::kBankBytes) + w;
        auto& list = banks[word % BankView::kBanks];
        if (std::find(list.begin(), list.end(), word) == list.end()) list.push_back(word);
      }
    }
    if (!any) continue;
    size_t busiest = 1;
    for (auto& list : banks) {
      std::sort(list.begin(), list.end());
      busiest = std::max(busiest, list.size());
    }
    const int group = int(v.groups.size());
    for (int lane = g0; lane < std::min(32, g0 + per_group); ++lane) {
      if (!v.lanes[lane].active) continue;
      const uint32_t word = uint32_t(addr[lane] / BankView::kBankBytes);
      const auto& list = banks[word % BankView::kBanks];
      v.lanes[lane].group = group;
      v.lanes[lane].wavefront =
          base + int(std::lower_bound(list.begin(), list.end(), word) - list.begin());
    }
    v.groups.push_back(std::move(banks));
    base += int(busiest);
  }
  v.complete = true;
  return v;
}

}  // namespace warplab::app
