// The SM's look at its warps' wake cycles (Sm::tick): which slots are due this cycle, and the
// earliest wake of the others (where the SM may sleep to when no warp issues).
//
// Hardware has no such scan: a warp scheduler sees every warp's ready signal at once. The model
// keeps one wake cycle per warp slot (Sm::wake_) and reads them all once a tick; on a busy SM
// that pass was a fifth of the tick's host instructions (issue 26: per-core speed). Hosts with
// AVX2 compare four wake cycles at a time; the answers are the same on every host.
#pragma once

#include <cstdint>

namespace warplab::timing {

struct WakeScan {
  uint64_t due = 0;        // bit i: wake[i] <= now
  uint64_t later = ~0ull;  // the least wake[i] > now (~0: none)
};

// Slots [0, n) of `wake` (n <= 64) at cycle `now`.
WakeScan scan_wakes(const uint64_t* wake, int n, uint64_t now);

}  // namespace warplab::timing
