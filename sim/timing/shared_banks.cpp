// Shared memory banks: see shared_banks.h.
#include "sim/timing/shared_banks.h"

#include <algorithm>
#include <bit>
#include <vector>

#include "sim/common/bits.h"

namespace warplab::timing {

namespace {

// Atomics: every lane's read-modify-write on a word takes its own pass; accesses wider than 4
// bytes are split into groups of lanes that together move 128 bytes.
SharedAccessCost serialized_cost(const std::array<uint64_t, 32>& addr, uint32_t exec_mask,
                                 uint32_t bytes, uint32_t banks, uint32_t bank_bytes) {
  SharedAccessCost cost;
  const uint32_t words_per_lane = std::max<uint32_t>(1, (bytes + bank_bytes - 1) / bank_bytes);
  const uint32_t lanes_per_group = std::max<uint32_t>(1, banks / words_per_lane);
  std::array<int, 32> count;
  for (uint32_t g0 = 0; g0 < 32; g0 += lanes_per_group) {
    const uint32_t g1 = std::min<uint32_t>(32, g0 + lanes_per_group);
    const uint32_t group = g1 - g0 == 32 ? ~0u : ((1u << (g1 - g0)) - 1) << g0;
    if (!(exec_mask & group)) continue;
    count.fill(0);
    int busiest = 1;
    for (uint32_t m = exec_mask & group; m; m &= m - 1) {
      const uint64_t first = addr[std::countr_zero(m)] / bank_bytes;
      for (uint32_t w = 0; w < words_per_lane; ++w)
        busiest = std::max(busiest, ++count[static_cast<uint32_t>((first + w) % banks) % 32]);
    }
    cost.wavefronts += busiest;
    cost.ideal_wavefronts += 1;
  }
  return cost;
}

// Whether the lanes of `mask` (at most 8: one quarter-warp) read at most half as many distinct
// addresses as there are lanes: each address shared by two lanes on average.
bool shared_in_pairs(const std::array<uint64_t, 32>& addr, uint32_t mask) {
  std::array<uint64_t, 8> seen;
  int n = 0;
  for (uint32_t m = mask; m; m &= m - 1) {
    const uint64_t a = addr[std::countr_zero(m)];
    if (std::find(seen.begin(), seen.begin() + n, a) == seen.begin() + n && n < 8) seen[n++] = a;
  }
  return 2 * n <= popc32(mask);
}

// Whether no bank holds two distinct words of the lanes in `mask` (banks a power of two).
bool conflict_free(const std::array<uint64_t, 32>& addr, uint32_t mask, uint32_t words_per_lane,
                   int word_shift, uint32_t bank_mask) {
  std::array<uint64_t, 32> word_of;  // read only for banks marked in `used`
  uint32_t used = 0;
  for (uint32_t m = mask; m; m &= m - 1) {
    const uint64_t first = addr[std::countr_zero(m)] >> word_shift;
    for (uint32_t w = 0; w < words_per_lane; ++w) {
      const uint64_t word = first + w;
      const uint32_t bank = static_cast<uint32_t>(word) & bank_mask;
      if (used >> bank & 1u) {
        if (word_of[bank] != word) return false;
      } else {
        used |= 1u << bank;
        word_of[bank] = word;
      }
    }
  }
  return true;
}

}  // namespace

SharedAccessCost shared_access_cost(const std::array<uint64_t, 32>& addr, uint32_t exec_mask,
                                    uint32_t access_bytes, uint32_t banks, uint32_t bank_bytes,
                                    bool serialize) {
  SharedAccessCost cost;
  if (exec_mask == 0) return cost;
  const uint32_t bytes = std::max<uint32_t>(access_bytes, 1);
  if (serialize) return serialized_cost(addr, exec_mask, bytes, banks, bank_bytes);
  // 0. Most accesses take one wavefront, found without the lists below: a whole warp of one-word
  //    lanes whose words all lie within 32 consecutive words (a broadcast, consecutive words,
  //    a few rows' broadcasts) puts at most one distinct word in each of 32 banks or more.
  if (exec_mask == ~0u && bytes <= 4 && bytes <= bank_bytes && banks >= 32 &&
      single_bit(banks) && single_bit(bank_bytes)) {
    const int shift = std::countr_zero(bank_bytes);
    // First in one pass without compares: all words within lane 0's aligned run of 32 words
    // (the usual case); else their spread, lowest to highest.
    const uint64_t w0 = addr[0] >> shift;
    uint64_t apart = 0;
    for (uint32_t l = 0; l < 32; ++l) apart |= (addr[l] >> shift) ^ w0;
    uint64_t lo = w0, hi = w0;
    if (apart >= 32)
      for (uint32_t l = 1; l < 32; ++l) {
        const uint64_t w = addr[l] >> shift;
        lo = std::min(lo, w);
        hi = std::max(hi, w);
      }
    if (hi - lo < 32) {
      cost.wavefronts = cost.ideal_wavefronts = 1;
      return cost;
    }
  }
  const uint32_t words_per_lane = std::max<uint32_t>(1, (bytes + bank_bytes - 1) / bank_bytes);
  // 16-byte accesses: two half-warps; narrower ones: the warp at once.
  const bool halves = bytes > 8;
  // 0b. 8- and 16-byte lanes that read one address per group (a row's broadcast: the tiled
  //     matmul's LDS.128 of its A tile), found without the lists: steps 1 and 2 below give one
  //     pass, or two where a quarter-warp holds a single lane of the group.
  if (bytes > 4 && single_bit(banks) && single_bit(bank_bytes) &&
      words_per_lane <= std::min<uint32_t>(banks, 32)) {
    int most = 0;
    for (const uint32_t group : {halves ? 0x0000ffffu : ~0u, halves ? 0xffff0000u : 0u}) {
      const uint32_t lanes = exec_mask & group;
      if (!lanes) continue;
      const uint64_t a = addr[std::countr_zero(lanes)];
      for (uint32_t m = lanes; m && most >= 0; m &= m - 1)
        if (addr[std::countr_zero(m)] != a) most = -1;
      if (most < 0) break;
      int ideal = 1;
      for (uint32_t q = 0; q < 4; ++q)
        if (const uint32_t quarter = lanes & (0xffu << (8 * q)); popc32(quarter) == 1)
          ideal = 2;
      most = std::max(most, ideal);
    }
    if (most > 0) {
      cost.wavefronts = cost.ideal_wavefronts = (halves ? 2 : 1) * most;
      return cost;
    }
  }
  // A word's bank, (word % banks) % 32: a shift and a mask when both sizes are powers of two
  // (every shipped configuration), a division otherwise.
  const bool pow2 = single_bit(banks) && single_bit(bank_bytes);
  const int word_shift = std::countr_zero(bank_bytes);
  const uint32_t bank_mask = std::min<uint32_t>(banks, 32) - 1;
  // Distinct words per bank (small: linear search is fastest here). Only the first count[bank]
  // words of a bank are ever read, so the lists need no clearing.
  std::array<std::array<uint64_t, 32>, 32> words;
  std::array<int, 32> count;
  int most = 0, most_ideal = 0;
  for (uint32_t group : halves ? std::array<uint32_t, 2>{0x0000ffffu, 0xffff0000u}
                               : std::array<uint32_t, 2>{0xffffffffu, 0u}) {
    if (!(exec_mask & group)) continue;
    // 1. 8- and 16-byte lanes: a quarter whose lanes do not share their addresses in pairs takes
    //    two passes.
    int ideal = 1;
    if (bytes > 4)
      for (uint32_t q = 0; q < 4; ++q)
        if (const uint32_t quarter = exec_mask & group & (0xffu << (8 * q)))
          if (!shared_in_pairs(addr, quarter)) ideal = 2;
    // 2. Each word the lanes touch lands in bank (word % banks); same word = broadcast.
    //    Most accesses put at most one distinct word in every bank (one pass): found without
    //    the lists when the shift-and-mask form of the bank applies.
    int busiest = 1;
    if (pow2 && conflict_free(addr, exec_mask & group, words_per_lane, word_shift, bank_mask)) {
      most = std::max(most, ideal);
      most_ideal = std::max(most_ideal, ideal);
      continue;
    }
    count.fill(0);
    for (uint32_t m = exec_mask & group; m; m &= m - 1) {
      const uint32_t lane = static_cast<uint32_t>(std::countr_zero(m));
      const uint64_t first = pow2 ? addr[lane] >> word_shift : addr[lane] / bank_bytes;
      for (uint32_t w = 0; w < words_per_lane; ++w) {
        const uint64_t word = first + w;
        const uint32_t bank = pow2 ? static_cast<uint32_t>(word) & bank_mask
                                   : static_cast<uint32_t>(word % banks) % 32;
        auto& list = words[bank];
        int& n = count[bank];
        if (std::find(list.begin(), list.begin() + n, word) == list.begin() + n && n < 32) {
          list[n++] = word;
          busiest = std::max(busiest, n);
        }
      }
    }
    // 3. The slower of the two sets the group's wavefronts.
    most = std::max(most, std::max(busiest, ideal));
    most_ideal = std::max(most_ideal, ideal);
  }
  // Half-warps take the same number of wavefronts each.
  const int groups = halves ? 2 : 1;
  cost.wavefronts = groups * most;
  cost.ideal_wavefronts = groups * most_ideal;
  return cost;
}

SharedAccessCost matrix_access_cost(const std::array<uint64_t, 32>& addr, uint32_t exec_mask,
                                    uint32_t banks, uint32_t bank_bytes) {
  SharedAccessCost cost;
  const uint64_t row_bytes = 16, groups = std::max<uint64_t>(1, banks * bank_bytes / row_bytes);
  for (int m = 0; m < 4; ++m) {
    const uint32_t lanes = (exec_mask >> (8 * m)) & 0xFFu;
    if (!lanes) continue;
    // Distinct rows per bank group; a matrix takes as many passes as its busiest group.
    uint64_t rows[8];
    int n = 0, busiest = 1;
    for (int l = 0; l < 8; ++l) {
      if (!((lanes >> l) & 1u)) continue;
      const uint64_t row = addr[8 * m + l] / row_bytes;
      bool seen = false;
      for (int k = 0; k < n; ++k) seen = seen || rows[k] == row;
      if (seen) continue;
      int same = 1;
      for (int k = 0; k < n; ++k) same += rows[k] % groups == row % groups;
      busiest = std::max(busiest, same);
      rows[n++] = row;
    }
    cost.wavefronts += busiest;
    cost.ideal_wavefronts += 1;
  }
  return cost;
}

bool counts_lanes(const ptx::Instruction& i) {
  if (i.mod.atom == ptx::AtomOp::Inc) return true;
  if (i.mod.atom != ptx::AtomOp::Add || i.ops.empty()) return false;
  const ptx::Operand& v = i.ops.back();
  return v.kind == ptx::Operand::Kind::Imm && v.imm_kind == ptx::Operand::ImmKind::Int &&
         v.bits == 1;
}

}  // namespace warplab::timing
