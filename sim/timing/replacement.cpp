// Replacement policies: see replacement.h.
#include "sim/timing/replacement.h"

#include "sim/common/zeroed_array.h"

namespace warplab::timing {
namespace {

// Stamp-based: the way with the smallest stamp is the victim. LRU stamps on fill and hit, FIFO
// only on fill. A counter (not the cycle) breaks ties between accesses in the same cycle.
class StampPolicy : public ReplacementPolicy {
 public:
  StampPolicy(uint64_t ways, bool touch_on_hit) : stamp_(ways), touch_on_hit_(touch_on_hit) {}
  void on_fill(uint64_t way, uint64_t) override { stamp_[way] = ++counter_; }
  void on_hit(uint64_t way, uint64_t) override {
    if (touch_on_hit_) stamp_[way] = ++counter_;
  }
  int victim(uint64_t first, int assoc) const override {
    int best = 0;
    for (int w = 1; w < assoc; ++w)
      if (stamp_[first + w] < stamp_[first + best]) best = w;
    return best;
  }

 private:
  ZeroedArray<uint64_t> stamp_;  // zero: never filled
  uint64_t counter_ = 0;
  bool touch_on_hit_;
};

struct PolicyRow {
  const char* name;
  std::unique_ptr<ReplacementPolicy> (*make)(uint64_t ways);
};

constexpr PolicyRow kPolicies[] = {
    {"lru", [](uint64_t w) -> std::unique_ptr<ReplacementPolicy> {
       return std::make_unique<StampPolicy>(w, true);
     }},
    {"fifo", [](uint64_t w) -> std::unique_ptr<ReplacementPolicy> {
       return std::make_unique<StampPolicy>(w, false);
     }},
};

}  // namespace

std::unique_ptr<ReplacementPolicy> make_replacement(const std::string& name, uint64_t ways) {
  for (const auto& row : kPolicies)
    if (name == row.name) return row.make(ways);
  return nullptr;
}

}  // namespace warplab::timing
