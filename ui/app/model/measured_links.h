// Each memory link's use over a whole kernel on a real GPU, from committed Nsight Compute data
// (validation/data/link-use-h100.tsv), for the memory-flow view to show beside the model's: which
// link the GPU itself runs nearest its peak. No ImGui (tests/720).
#pragma once

#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/common/error.h"
#include "ui/app/model/memory_flow.h"

namespace warplab::app {

struct MeasuredLinkUse {
  std::string experiment;                   // path as written (relative to the repository)
  std::map<std::string, double> values;     // the parameter values it was measured at
  std::array<double, kFlowLinks> percent{};  // of each link's peak, over the kernel
  std::string device, date;
  int busiest() const;
};

// The rows of a data file (its format is in its header). Bad input: file:line and what was
// expected.
Expected<std::vector<MeasuredLinkUse>> parse_link_use(const std::string& text,
                                                      const std::string& path);
// The row for an experiment file (matched by its path's last two components, e.g.
// "02-coalescing/stride-sweep.toml") whose every value equals the run's (`params`: name, value).
std::optional<MeasuredLinkUse> find_link_use(
    const std::vector<MeasuredLinkUse>& rows, const std::string& experiment_path,
    const std::vector<std::pair<std::string, std::string>>& params);

}  // namespace warplab::app
