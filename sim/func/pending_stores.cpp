// Strong stores not yet visible to other blocks: see pending_stores.h.
#include "sim/func/pending_stores.h"

#include <algorithm>
#include <cstring>

namespace warplab::func {

void PendingStores::expire(uint64_t now) {
  while (!expiry_.empty() && expiry_.front().first <= now) {
    auto it = words_.find(expiry_.front().second);
    if (it != words_.end() && it->second.visible_at <= now) words_.erase(it);
    expiry_.pop_front();
  }
}

void PendingStores::note_store(uint64_t addr, uint32_t size, const uint8_t* old, const void* writer,
                               uint64_t now) {
  if (delay_ == 0 || size == 0) return;
  expire(now);
  const uint64_t visible_at = now + delay_;
  for (uint64_t a = addr; a < addr + size;) {
    const uint64_t key = a >> 3;
    const uint32_t first = static_cast<uint32_t>(a & 7);
    const uint32_t n = static_cast<uint32_t>(std::min<uint64_t>(8 - first, addr + size - a));
    Word& w = words_[key];
    uint8_t bytes[8];
    std::memcpy(bytes, &w.old, 8);
    for (uint32_t b = 0; b < n; ++b) {
      const uint8_t bit = static_cast<uint8_t>(1u << (first + b));
      if (!(w.mask & bit)) bytes[first + b] = old[a - addr + b];  // keep the oldest hidden bytes
      w.mask |= bit;
    }
    std::memcpy(&w.old, bytes, 8);
    w.visible_at = visible_at;
    w.writer = writer;
    expiry_.emplace_back(visible_at, key);
    a += n;
  }
}

void PendingStores::patch_load(uint64_t addr, uint32_t size, uint8_t* data, const void* reader,
                               uint64_t now) {
  if (words_.empty()) return;
  expire(now);
  for (uint64_t a = addr; a < addr + size;) {
    const uint32_t first = static_cast<uint32_t>(a & 7);
    const uint32_t n = static_cast<uint32_t>(std::min<uint64_t>(8 - first, addr + size - a));
    auto it = words_.find(a >> 3);
    if (it != words_.end() && it->second.writer != reader && it->second.visible_at > now) {
      uint8_t bytes[8];
      std::memcpy(bytes, &it->second.old, 8);
      for (uint32_t b = 0; b < n; ++b)
        if (it->second.mask & (1u << (first + b))) data[a - addr + b] = bytes[first + b];
    }
    a += n;
  }
}

}  // namespace warplab::func
