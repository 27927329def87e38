// Warp scheduling policies: see warp_scheduler.h.
#include "sim/timing/warp_scheduler.h"

namespace warplab::timing {
namespace {

// Loose round-robin: the first ready warp after the one that issued last.
class LooseRoundRobin : public WarpSchedulerPolicy {
 public:
  int pick(std::span<const Candidate> ready) override {
    for (size_t i = 0; i < ready.size(); ++i)
      if (ready[i].slot > last_) return static_cast<int>(i);
    return 0;
  }
  void on_issue(int slot) override { last_ = slot; }

 private:
  int last_ = -1;
};

// Greedy-then-oldest: the warp that issued last if it is ready, else the oldest ready warp.
class GreedyThenOldest : public WarpSchedulerPolicy {
 public:
  int pick(std::span<const Candidate> ready) override {
    int best = 0;
    for (size_t i = 0; i < ready.size(); ++i) {
      if (ready[i].slot == last_) return static_cast<int>(i);
      if (ready[i].age < ready[best].age) best = static_cast<int>(i);
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
