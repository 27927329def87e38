// Cache replacement policies: which line a full cache set gives up for a new one.
//
// Hardware: each cache set holds `assoc` lines; when a new line arrives and every way is valid,
// one must be evicted. NVIDIA does not document its policies; LRU (evict the least recently used)
// is the textbook choice and close to what microbenchmarks observe; FIFO is the cheap alternative.
//
// Contract: a policy keeps one stamp per way; on_fill/on_hit update stamps; victim() returns the
// way to evict among valid ways (invalid ways are chosen by the cache itself, first). Policies are
// picked by name from make_replacement(); add one by adding a class and a row there.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace warplab::timing {

class ReplacementPolicy {
 public:
  virtual ~ReplacementPolicy() = default;
  virtual void on_fill(uint64_t way_index, uint64_t now) = 0;
  virtual void on_hit(uint64_t way_index, uint64_t now) = 0;
  // Way (0..assoc-1) to evict in the set whose first way index is `first`.
  virtual int victim(uint64_t first, int assoc) const = 0;
};

// "lru" or "fifo"; nullptr for an unknown name. `ways` = total ways in the cache.
std::unique_ptr<ReplacementPolicy> make_replacement(const std::string& name, uint64_t ways);

}  // namespace warplab::timing
