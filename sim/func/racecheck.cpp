// racecheck: see racecheck.h.
#include "sim/func/racecheck.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>

#include "sim/func/cta_impl.h"

namespace warplab::func {

namespace {

// Two accesses conflict when they are in the same epoch, from different warps and not both
// atomic (the caller makes sure at least one of them writes).
bool conflicts(const RaceChecker::Side& s, uint64_t epoch, const RaceChecker::Side& me) {
  return s.epoch == epoch && s.warp != me.warp && !(s.atomic && me.atomic);
}

}  // namespace

void RaceChecker::bind(uint64_t shared_bytes) {
  shared_.assign(shared_bytes, Cell{});
  global_.clear();
}

void RaceChecker::new_block() {
  block_epoch_ = ++epoch_;
  global_.clear();
}

bool RaceChecker::touch(CtaImpl& c, Cell* cells, uint64_t addr, uint32_t bytes, bool write,
                        const Side& me, ptx::Space space) {
  // `cells` is the shared shadow, or nullptr for global memory (cells from the map).
  bool reported = false;
  for (uint32_t i = 0; i < bytes; ++i) {
    Cell& cell = cells ? cells[addr + i] : global_[addr + i];
    const Side* other = nullptr;
    Hazard::Kind kind = Hazard::Kind::RaceRAW;
    if (write) {
      if (conflicts(cell.write, epoch_, me))
        other = &cell.write, kind = Hazard::Kind::RaceWAW;
      else if (conflicts(cell.read0, epoch_, me))
        other = &cell.read0, kind = Hazard::Kind::RaceWAR;
      else if (conflicts(cell.read1, epoch_, me))
        other = &cell.read1, kind = Hazard::Kind::RaceWAR;
    } else if (conflicts(cell.write, epoch_, me)) {
      other = &cell.write;
    }
    // One hazard per lane access (its first conflicting byte), as compute-sanitizer counts them.
    if (other && !reported) {
      c.race_hazard(kind, me.pc, me.warp, me.lane, other->pc, other->warp, other->lane, addr + i,
                    space);
      reported = true;
    }
    if (write) {
      cell.write = me;
    } else if (cell.read0.epoch != epoch_) {
      cell.read0 = me;
      cell.read1.epoch = 0;
    } else if (cell.read0.warp != me.warp && cell.read1.epoch != epoch_) {
      cell.read1 = me;
    }
  }
  return reported;
}

void RaceChecker::check(CtaImpl& c, const Warp& w, const DInst& d, int32_t pc, uint32_t exec) {
  const ptx::Opcode op = d.ir->op;
  const bool atomic = op == ptx::Opcode::Atom || op == ptx::Opcode::Red;
  const bool write = atomic || op == ptx::Opcode::St;
  if (!atomic && !write && op != ptx::Opcode::Ld && op != ptx::Opcode::Ldu) return;
  if (d.space != ptx::Space::Shared && d.space != ptx::Space::Global &&
      d.space != ptx::Space::Generic)
    return;
  const uint32_t bytes = static_cast<uint32_t>(d.size) * d.vec;
  if (bytes == 0) return;
  const uint64_t* R = w.R;
  const int sa = d.s[0] * 32;
  // Lanes of this warp writing different values to one address in this instruction: the GPU
  // keeps one of them (which one is not defined). Same values are harmless (flags, broadcasts).
  if (op == ptx::Opcode::St && std::popcount(exec) > 1) {
    std::array<std::pair<uint64_t, int>, 32> lanes;
    int n = 0;
    for (uint32_t mm = exec; mm; mm &= mm - 1) {
      const int l = std::countr_zero(mm);
      lanes[n++] = {R[sa + l] + d.offset, l};
    }
    std::sort(lanes.begin(), lanes.begin() + n);
    const uint64_t vmask = d.size >= 8 ? ~0ull : (1ull << (8 * d.size)) - 1;
    for (int i = 1; i < n; ++i) {
      if (lanes[i].first != lanes[i - 1].first) continue;
      bool same = true;
      for (int e = 0; e < d.ns - 1; ++e)
        same = same &&
               ((R[d.s[1 + e] * 32 + lanes[i].second] ^ R[d.s[1 + e] * 32 + lanes[i - 1].second]) &
                vmask) == 0;
      if (same) continue;
      uint64_t a = lanes[i].first;
      ptx::Space space = d.space;
      if (space == ptx::Space::Generic) {
        if (a - kSharedWindow < kWindowSize)
          space = ptx::Space::Shared, a -= kSharedWindow;
        else if (a - kLocalWindow < kWindowSize)
          continue;
        else
          space = ptx::Space::Global;
      }
      c.race_hazard(Hazard::Kind::RaceWAW, pc, w.index, lanes[i].second, pc, w.index,
                    lanes[i - 1].second, a, space);
    }
  }
  Side me;
  me.epoch = epoch_;
  me.pc = pc;
  me.warp = static_cast<uint16_t>(w.index);
  me.atomic = atomic ? 1 : 0;
  for (uint32_t mm = exec; mm; mm &= mm - 1) {
    const int l = std::countr_zero(mm);
    uint64_t a = R[sa + l] + d.offset;
    ptx::Space space = d.space;
    if (space == ptx::Space::Generic) {
      if (a - kSharedWindow < kWindowSize)
        space = ptx::Space::Shared, a -= kSharedWindow;
      else if (a - kLocalWindow < kWindowSize)
        continue;  // a thread's own local memory cannot race
      else
        space = ptx::Space::Global;
    }
    me.lane = static_cast<uint8_t>(l);
    if (space == ptx::Space::Shared && (a > shared_.size() || bytes > shared_.size() - a))
      continue;  // the access faults
    // A store of the value memory already holds changes nothing, whatever the order: not a
    // write for racecheck (many threads setting the same flag, for instance).
    if (op == ptx::Opcode::St && bytes <= 32) {
      uint8_t data[32];
      for (int e = 0; e < d.ns - 1; ++e) {
        const uint64_t v = R[d.s[1 + e] * 32 + l];
        std::memcpy(data + e * d.size, &v, d.size);
      }
      // Shared memory starts undefined on the GPU (the simulator zeroes it): only a value this
      // block wrote counts as held.
      const uint8_t* cur = nullptr;
      if (space == ptx::Space::Shared) {
        bool written = true;
        for (uint32_t i = 0; i < bytes; ++i)
          written = written && shared_[a + i].write.epoch >= block_epoch_;
        if (written) cur = c.shared.data() + a;
      } else if (const int i = c.mem->find_index(a, bytes); i >= 0) {
        cur = c.mem->bytes(i).data() + (a - c.mem->buffers()[i].address);
      }
      if (cur && std::memcmp(cur, data, bytes) == 0) continue;
    }
    touch(c, space == ptx::Space::Shared ? shared_.data() : nullptr, a, bytes, write, me, space);
  }
}

}  // namespace warplab::func
