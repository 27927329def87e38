// One shared-memory access seen from the banks: which bank each lane's word is in, which words
// each bank must deliver, and the wavefronts (passes) that costs.
//
// Hardware: shared memory has 32 banks of 4 bytes; word w (byte address / 4) lives in bank w % 32.
// Each bank delivers one word per pass, lanes reading the same word share it (broadcast), and
// lanes reading different words of one bank wait for passes of their own: the busiest bank's
// count of distinct words is the access's wavefront count. Padding a 32-float row to 33 moves a
// column's words into 32 different banks. Accesses wider than 4 bytes are split into groups of
// lanes that move 128 bytes together (8-byte: 16 lanes, 16-byte: 8), each its own passes.
//
// The wavefront count here is timing::shared_access_cost's, the function the timing model
// charges, on the lane addresses the trace keeps for each shared access. Which pass serves which
// lane is this view's own choice (words in ascending order per bank); the hardware's order is not
// documented, only the count. No ImGui (tests/713).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "sim/timing/trace.h"

namespace warplab::app {

struct BankView {
  static constexpr int kBanks = 32;
  static constexpr uint32_t kBankBytes = 4;

  struct Lane {
    bool active = false;
    uint32_t address = 0;  // byte address in the block's shared memory
    int bank = -1;         // bank of its first word
    int group = 0;         // lane group (see above)
    int wavefront = -1;    // pass that serves its first word, over the whole access, from 0
  };
  std::array<Lane, 32> lanes{};
  // Per group, per bank: the distinct words it delivers, ascending (word = address / 4).
  std::vector<std::array<std::vector<uint32_t>, kBanks>> groups;
  uint32_t access_bytes = 4;
  int wavefronts = 0, ideal_wavefronts = 0;  // timing::shared_access_cost
  int bank_conflicts() const { return wavefronts - ideal_wavefronts; }
  bool complete = false;  // the trace holds every active lane's address
};

// The banks view of shared access `a` (SharedLoad or SharedStore) of trace `t`.
BankView bank_view(const timing::Trace& t, const timing::AccessRecord& a);

}  // namespace warplab::app
