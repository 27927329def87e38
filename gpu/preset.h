// `warplab configs --from-gpu OUT`: a simulator preset derived from the GPU in this machine.
//
// The simulator's timing model is configured per unit (SMs, caches, DRAM). The figures that the
// driver reports (DeviceInfo) fill the sizes and counts exactly; what the driver cannot tell
// (latencies, pipeline depths) is left to the preset this one is layered over. DRAM bandwidth is
// the peak from bus width x memory clock x 2 (HBM transfers on both clock edges).
//
// The field names follow the timing model's config structs; keys it does not know are reported
// by its loader, so this writer and that reader stay in step through one test.
#pragma once

#include <string>

#include "gpu/device.h"
#include "sim/common/error.h"

namespace warplab::gpu {

// The preset as TOML text, each field with a comment giving its unit and origin.
std::string preset_toml(const DeviceInfo& info);

// Writes preset_toml(info) to `path`; an error names the path when it cannot be written.
Status write_preset(const DeviceInfo& info, const std::string& path);

}  // namespace warplab::gpu
