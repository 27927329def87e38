// `warplab validate --stalls`: the model's per-line warp states against the GPU's sampled stall
// reasons in the committed data (validation/data/stalls/*.json, scripts/stalls-gpu.sh).
//
// For every GPU run in the data files, the same experiment with the same --set values (and, for
// a sweep, the same point) runs on the simulator in timing mode with an empty L2 at each launch,
// as the GPU's sampled launch ran after an L2 flush; each kernel launch is then compared line by
// line (lab/line_stalls.h compare_line_stalls: top-reason agreement and mix distance, weighted by
// the GPU's samples). The simulator is deterministic, so the comparison is too; the GPU side is
// a sample, so a line's mix carries sampling noise (a line of 100 samples: a few percent).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "lab/line_stalls.h"

namespace warplab::lab {

struct StallValidationPoint {
  std::string file;        // the data file
  std::string experiment;  // as recorded
  std::string point;       // sweep point ("stride=32"), "" outside a sweep
  std::string kernel;
  int launch = 0;
  std::string device;      // the GPU's
  uint64_t samples = 0;    // the GPU's samples of this launch
  std::optional<StallAgreement> agreement;
  std::string error;       // why there is no agreement (simulation failed, no common line)
};

// Reads each data file and compares as above. `root` resolves experiment paths recorded relative
// to the repository root when run from elsewhere; `only` keeps points whose "file:kernel:point"
// contains it ("" = all). Errors: a file that does not read (the others are still compared).
std::vector<StallValidationPoint> validate_line_stalls(const std::vector<std::string>& files,
                                                       const std::string& config,
                                                       const std::string& root,
                                                       const std::string& only = "");

// One row per point, then
//   STALLS points=N compared=K top_agreement=X% distance=Y
// (both over every compared point, weighted by its GPU samples).
std::string format_stall_validation(const std::vector<StallValidationPoint>& points);

}  // namespace warplab::lab
