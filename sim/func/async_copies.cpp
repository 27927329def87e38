#include "sim/func/async_copies.h"

#include <cstring>

namespace warplab::func {

void AsyncCopies::reset(int threads) {
  copies_.clear();
  landed_.clear();
  // No entry holds a Thread when none was made (a block without asynchronous copies): a block
  // of the same size then keeps the vector as it is (a per-block cost, issue 26).
  if (threads_made_ > 0 || threads_.size() != static_cast<size_t>(threads)) {
    threads_.clear();
    threads_.resize(static_cast<size_t>(threads));
  }
  threads_made_ = 0;
  tracked_.clear();
  pending_ = 0;
}

void AsyncCopies::land(uint32_t i) {
  if (landed_[i]) return;
  const Copy& c = copies_[i];
  if (c.bytes) std::memmove(c.dst, c.src, c.bytes);
  if (c.zeros && c.fill_width == 0) std::memset(c.dst + c.bytes, 0, c.zeros);
  for (uint32_t b = 0; c.fill_width && b < c.zeros; ++b)
    c.dst[c.bytes + b] = static_cast<uint8_t>(c.fill >> (8 * (b % c.fill_width)));
  landed_[i] = true;
  --pending_;
}

void AsyncCopies::land_all(const std::vector<uint32_t>& copies) {
  for (uint32_t i : copies) land(i);
}

void AsyncCopies::copy(int thread, const Copy& c) {
  const auto i = static_cast<uint32_t>(copies_.size());
  copies_.push_back(c);
  landed_.push_back(false);
  ++pending_;
  Thread& t = thread_state(thread);
  t.open.push_back(i);
  t.all.push_back(i);
}

void AsyncCopies::commit(int thread) {
  Thread& t = thread_state(thread);
  t.groups.push_back(std::move(t.open));
  t.open.clear();
}

void AsyncCopies::wait(int thread, uint32_t newest_pending) {
  Thread& t = thread_state(thread);
  while (t.groups.size() > newest_pending) {
    land_all(t.groups.front());
    t.groups.pop_front();
  }
}

void AsyncCopies::arrive_when_done(int thread, uint64_t mbar) {
  Tracked w;
  w.mbar = mbar;
  w.thread = thread;
  w.copies = thread_state(thread).all;
  tracked_.push_back(std::move(w));
  ++pending_;
}

void AsyncCopies::bulk_to_shared(const Copy& c, uint64_t mbar) {
  const auto i = static_cast<uint32_t>(copies_.size());
  copies_.push_back(c);
  landed_.push_back(false);
  Tracked w;
  w.mbar = mbar;
  w.copies = {i};
  w.tx_bytes = c.bytes + c.zeros;
  tracked_.push_back(std::move(w));
  pending_ += 2;
}

void AsyncCopies::tensor_to_shared(const std::vector<Copy>& pieces, uint64_t mbar,
                                   uint32_t tx_bytes) {
  Tracked w;
  w.mbar = mbar;
  w.tx_bytes = tx_bytes;
  for (const Copy& c : pieces) {
    w.copies.push_back(static_cast<uint32_t>(copies_.size()));
    copies_.push_back(c);
    landed_.push_back(false);
  }
  pending_ += pieces.size() + 1;
  tracked_.push_back(std::move(w));
}

void AsyncCopies::tensor_to_global(int thread, const std::vector<Copy>& pieces) {
  Thread& t = thread_state(thread);
  for (const Copy& c : pieces) {
    t.bulk_open.push_back(static_cast<uint32_t>(copies_.size()));
    copies_.push_back(c);
    landed_.push_back(false);
    ++pending_;
  }
}

void AsyncCopies::bulk_to_global(int thread, const Copy& c) {
  const auto i = static_cast<uint32_t>(copies_.size());
  copies_.push_back(c);
  landed_.push_back(false);
  ++pending_;
  thread_state(thread).bulk_open.push_back(i);
}

void AsyncCopies::bulk_commit(int thread) {
  Thread& t = thread_state(thread);
  t.bulk_groups.push_back(std::move(t.bulk_open));
  t.bulk_open.clear();
}

void AsyncCopies::bulk_wait(int thread, uint32_t newest_pending) {
  Thread& t = thread_state(thread);
  while (t.bulk_groups.size() > newest_pending) {
    land_all(t.bulk_groups.front());
    t.bulk_groups.pop_front();
  }
}

AsyncCopies::MbarrierEvent AsyncCopies::deliver(uint64_t mbar) {
  MbarrierEvent e;
  e.mbar = mbar;
  for (Tracked& w : tracked_) {
    if (w.done || w.mbar != mbar) continue;
    land_all(w.copies);
    w.done = true;
    --pending_;
    if (w.thread >= 0) {
      ++e.arrives;
    } else {
      e.tx_bytes += w.tx_bytes;
    }
  }
  return e;
}

std::vector<AsyncCopies::MbarrierEvent> AsyncCopies::finish_thread(int thread) {
  if (!threads_[static_cast<size_t>(thread)]) return {};  // it issued no asynchronous copy
  Thread& t = thread_state(thread);
  land_all(t.all);
  for (const auto& g : t.bulk_groups) land_all(g);
  land_all(t.bulk_open);
  threads_[static_cast<size_t>(thread)].reset();
  --threads_made_;
  std::vector<MbarrierEvent> out;
  for (Tracked& w : tracked_) {
    if (w.done || w.thread != thread) continue;
    w.done = true;
    --pending_;
    out.push_back({w.mbar, 1, 0});
  }
  return out;
}

}  // namespace warplab::func
