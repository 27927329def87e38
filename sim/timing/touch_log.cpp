// The cycle's device touches and their check: see touch_log.h.
#include "sim/timing/touch_log.h"

#include <algorithm>
#include <bit>

namespace warplab::timing {

namespace {
using ptx::Opcode;
using ptx::Space;

// A shadow word: the cycle's stamp (bits 63-32), the position of the one SM that touched the
// sector in it (bits 31-16; kMany: several SMs, all loading), kStored, kContested.
constexpr uint64_t kStored = 1, kContested = 2, kMany = 0xFFFF, kStampBits = ~0ull << 32;
constexpr uint64_t kOwnerBits = kMany << 16;
}  // namespace

bool touches_loggable(const ptx::Function& kernel) {
  for (const ptx::Instruction& i : kernel.instructions) {
    // The block's own memory (func::Cta::next_touches_device: not a device touch).
    const bool own = i.space == Space::Shared || i.space == Space::Local || i.space == Space::Param;
    const ptx::Modifiers& m = i.mod;
    switch (i.op) {
      case Opcode::Ld:
      case Opcode::Ldu:
      case Opcode::St:
        if (own) break;
        if (i.space != Space::Global && i.space != Space::Const) return false;
        if (m.volatile_ || m.relaxed_or_acquire || m.mem_scope != ptx::MemScope::None ||
            (m.mem_sem != ptx::MemSem::None && m.mem_sem != ptx::MemSem::Weak) ||
            m.cache == ptx::CacheOp::Cv)
          return false;
        break;
      case Opcode::Atom:
      case Opcode::Red:
        if (!own) return false;
        break;
      case Opcode::Membar:
      case Opcode::Fence:
      case Opcode::Call:
      case Opcode::CpAsync:
      case Opcode::CpAsyncBulk:
      case Opcode::CpAsyncBulkTensor:
      case Opcode::CpAsyncBulkPrefetchTensor:
      case Opcode::PrefetchTensormap:
      case Opcode::TensormapReplace:
      case Opcode::TensormapCpFenceproxy:
        return false;
      default:  // prefetch touches no bytes; the rest touch none of device memory
        break;
    }
  }
  return true;
}

TouchLog::TouchLog(const func::DeviceMemory& memory, size_t sm_count)
    : memory_(memory), by_sm_(sm_count) {
  allocate();
}

void TouchLog::allocate() {
  const std::vector<func::BufferInfo>& buffers = memory_.buffers();
  for (size_t i = shadow_.size(); i < buffers.size(); ++i) {
    shadow_.emplace_back(static_cast<uint64_t*>(std::calloc((buffers[i].size + 31) / 32 + 1, 8)));
    ok_ = ok_ && shadow_.back();
  }
}

void TouchLog::begin_cycle() {
  ++stamp_;
  if (shadow_.size() != memory_.buffers().size()) allocate();
}

void TouchLog::add(uint32_t sm, uint32_t position, bool in_turn, const func::StepInfo& step) {
  if (!step.is_memory || step.exec_mask == 0 ||
      (step.space != Space::Global && step.space != Space::Const))
    return;
  const Opcode op = step.inst->op;
  if (op != Opcode::Ld && op != Opcode::Ldu && op != Opcode::St) return;
  const uint64_t n = step.access_bytes;
  const std::vector<func::BufferInfo>& buffers = memory_.buffers();
  std::vector<Touch>& log = by_sm_[sm];
  const uint16_t pos = static_cast<uint16_t>(position);
  int b = -1;
  uint64_t lo = 0, hi = 0;
  for (uint32_t m = step.exec_mask; m; m &= m - 1) {
    const uint64_t a = step.addr[std::countr_zero(m)];
    if (b < 0 || a < lo || a + n > hi) {
      b = memory_.find_index(a, n);
      if (b < 0) continue;  // the step checked every lane (a fault is redone on one thread)
      lo = buffers[b].address;
      hi = lo + buffers[b].size;
    }
    // The lane's bytes, sector by sector (an aligned access of up to 32 bytes is one sector).
    for (uint64_t at = a - lo, end = at + n; at < end;) {
      const uint64_t sector = at >> 5, stop = std::min(end, (sector + 1) << 5);
      const uint64_t width = stop - at;
      const uint32_t bytes =
          static_cast<uint32_t>((width >= 32 ? ~0ull : (1ull << width) - 1) << (at & 31));
      at = stop;
      if (!log.empty()) {
        Touch& t = log.back();
        if (t.sector == sector && t.buffer == uint32_t(b) && t.position == pos &&
            t.store == step.is_store && t.in_turn == in_turn) {
          t.bytes |= bytes;
          continue;
        }
      }
      log.push_back(Touch{sector, uint32_t(b), bytes, pos, step.is_store, in_turn});
      if (size_t(b) >= shadow_.size() || !shadow_[b]) {  // no shadow words: a meeting
        contested_.store(true, std::memory_order_relaxed);
        blind_.store(true, std::memory_order_relaxed);
        continue;
      }
      claim(uint32_t(b), sector, pos, step.is_store);
    }
  }
}

void TouchLog::claim(uint32_t buffer, uint64_t sector, uint16_t position, bool store) {
  std::atomic_ref<uint64_t> word(shadow_[buffer][sector]);
  const uint64_t stamp = uint64_t{stamp_} << 32;
  uint64_t old = word.load(std::memory_order_relaxed), want;
  do {
    const uint64_t owner = old >> 16 & kMany;
    if ((old & kStampBits) != stamp)  // the first touch of the sector in this cycle
      want = stamp | uint64_t{position} << 16 | (store ? kStored : 0);
    else if (old & kContested)
      return;
    else if (owner == position) {
      if (!store || (old & kStored)) return;
      want = old | kStored;
    } else if (!store && !(old & kStored)) {  // loads only, by several SMs
      if (owner == kMany) return;
      want = (old & ~kOwnerBits) | kOwnerBits;
    } else {
      want = old | kContested;
    }
  } while (!word.compare_exchange_weak(old, want, std::memory_order_relaxed));
  if (want & kContested) contested_.store(true, std::memory_order_relaxed);
}

bool TouchLog::met(const std::vector<uint32_t>& due) {
  bool met = blind_.exchange(false, std::memory_order_relaxed);
  if (contested_.exchange(false, std::memory_order_relaxed) && !met) {
    // The touches of contested sectors, by sector and then in the loop's order.
    const uint64_t stamp = uint64_t{stamp_} << 32;
    hot_.clear();
    for (uint32_t sm : due)
      for (const Touch& t : by_sm_[sm]) {
        const uint64_t w = shadow_[t.buffer][t.sector];
        if ((w & kStampBits) == stamp && (w & kContested)) hot_.push_back(t);
      }
    std::stable_sort(hot_.begin(), hot_.end(), [](const Touch& x, const Touch& y) {
      if (x.buffer != y.buffer) return x.buffer < y.buffer;
      if (x.sector != y.sector) return x.sector < y.sector;
      return x.position < y.position;
    });
    // A touch made before its SM's turn meets an earlier SM's touch of the same bytes when
    // either stores: it may have come first, where the one-thread loop has it come after.
    for (size_t g = 0; g < hot_.size() && !met;) {
      uint32_t loaded = 0, stored = 0;  // by the SMs before, in this sector
      size_t i = g;
      while (i < hot_.size() && hot_[i].buffer == hot_[g].buffer &&
             hot_[i].sector == hot_[g].sector) {
        size_t j = i;
        for (; j < hot_.size() && hot_[j].buffer == hot_[i].buffer &&
               hot_[j].sector == hot_[i].sector && hot_[j].position == hot_[i].position;
             ++j) {
          const Touch& t = hot_[j];
          if (!t.in_turn && (t.bytes & (stored | (t.store ? loaded : 0)))) met = true;
        }
        for (; i < j; ++i) (hot_[i].store ? stored : loaded) |= hot_[i].bytes;
      }
      g = i;
    }
  }
  for (uint32_t sm : due) by_sm_[sm].clear();
  return met;
}

}  // namespace warplab::timing
