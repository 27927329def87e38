// GPU presets for the timing model, as the lab and the CLI find and write them.
//
// The presets live in configs/NAME.toml (sim/timing/config.h reads them). A binary carried to
// another machine may not find the source tree it was built from, so the directory is looked up
// in order: $WARPLAB_CONFIG_DIR, configs/ beside or one level above the executable or in
// share/warplab above it (an installed prefix, lab/install_dirs.h), ./configs, and the directory
// compiled in.
//
// `warplab configs --from-gpu OUT.toml` writes a preset in the timing model's own format: it
// starts from the shipped preset of the same architecture (`base = "h100-sxm"` for compute 9.0,
// "a100-sxm" for 8.x) and overrides what the driver reports exactly (SM count, SM clock, warps,
// blocks, registers and shared memory per SM, L2 size, DRAM bus width and data rate). Latencies
// and pipeline figures, which no driver reports, stay those of the base preset.
#pragma once

#include <memory>
#include <string>

#include "gpu/device.h"
#include "sim/common/error.h"
#include "sim/timing/config.h"

namespace warplab::lab {

// The directory holding the presets (see the header comment); "" when none is found.
std::string config_dir();

// Loads `name_or_path` ("" = h100-sxm) from config_dir(). Errors name file:line, or list the
// presets for an unknown name.
Expected<std::shared_ptr<const timing::GpuConfig>> load_gpu_config(const std::string& name_or_path);

// The preset for `info` in the timing model's format (loadable with --config FILE).
std::string preset_from_device(const gpu::DeviceInfo& info);

}  // namespace warplab::lab
