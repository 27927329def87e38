// Warp scheduling policies: see warp_scheduler.h.
#include "sim/timing/warp_scheduler.h"

#include <bit>

namespace warplab::timing {
namespace {

// Loose round-robin: the first ready warp after the one that issued last (by slot, wrapping).
class LooseRoundRobin : public WarpSchedulerPolicy {
 public:
  int pick(const ReadyWarps& ready) override {
    const size_t from = static_cast<size_t>(last_ + 1);  // the first slot after it
    if (ready.bits.size() == 1) {  // up to 64 slots (the usual SM): one word
      const uint64_t after = from < 64 ? ready.bits[0] & (~0ull << from) : 0;
      return std::countr_zero(after ? after : ready.bits[0]);
    }
    for (size_t wd = from / 64; wd < ready.bits.size(); ++wd) {
      const uint64_t m = ready.bits[wd] & (wd == from / 64 ? ~0ull << (from % 64) : ~0ull);
      if (m) return static_cast<int>(64 * wd + std::countr_zero(m));
    }
    for (size_t wd = 0;; ++wd)  // none after it: the first ready warp
      if (ready.bits[wd]) return static_cast<int>(64 * wd + std::countr_zero(ready.bits[wd]));
  }
  void on_issue(int slot) override { last_ = slot; }

 private:
  int last_ = -1;
};

// Greedy-then-oldest: the warp that issued last if it is ready, else the oldest ready warp (the
// first by slot among equally old ones).
class GreedyThenOldest : public WarpSchedulerPolicy {
 public:
  int pick(const ReadyWarps& ready) override {
    if (last_ >= 0 && static_cast<size_t>(last_ / 64) < ready.bits.size() &&
        (ready.bits[last_ / 64] >> (last_ % 64)) & 1)
      return last_;
    int best = -1;
    for (size_t wd = 0; wd < ready.bits.size(); ++wd)
      for (uint64_t m = ready.bits[wd]; m; m &= m - 1) {
        const int s = static_cast<int>(64 * wd + std::countr_zero(m));
        if (best < 0 || ready.age[s] < ready.age[best]) best = s;
      }
    return best;
  }
  void on_issue(int slot) override { last_ = slot; }

 private:
  int last_ = -1;
};

struct PolicyRow {
  const char* name;
  std::unique_ptr<WarpSchedulerPolicy> (*make)();
};

constexpr PolicyRow kPolicies[] = {
    {"lrr", []() -> std::unique_ptr<WarpSchedulerPolicy> { return std::make_unique<LooseRoundRobin>(); }},
    {"gto", []() -> std::unique_ptr<WarpSchedulerPolicy> { return std::make_unique<GreedyThenOldest>(); }},
};

}  // namespace

std::unique_ptr<WarpSchedulerPolicy> make_warp_scheduler(const std::string& name) {
  for (const auto& row : kPolicies)
    if (name == row.name) return row.make();
  return nullptr;
}

}  // namespace warplab::timing
