// Shared by the app model tests (7xx): lesson 2's coalesced copy as the experiment to run.
#pragma once

#include <doctest/doctest.h>

#include <optional>
#include <string>

#include "lab/compile.h"
#include "lab/experiment.h"
#include "ui/app/model/run_snapshot.h"

namespace warplab::test {

// lessons/02-coalescing/copy.toml with `setting` ("N=8192") applied; nullopt, with a message,
// where NVRTC is missing (the kernel cannot be compiled: the caller skips).
inline std::optional<lab::Experiment> copy_experiment(const std::string& setting) {
  if (!lab::Toolchain().has_nvrtc()) {
    MESSAGE("skipped: no NVRTC");
    return std::nullopt;
  }
  auto exp =
      lab::load_experiment(std::string(WARPLAB_SOURCE_DIR) + "/lessons/02-coalescing/copy.toml");
  REQUIRE(exp);
  REQUIRE(lab::set_param(*exp, setting));
  return std::move(*exp);
}

// The app's run path for `e` on the simulator alone, traced.
inline app::RunSnapshot run_sim_traced(const lab::Experiment& e) {
  app::RunRequest req;
  req.experiment = e;
  req.use_gpu = false;
  return app::run_traced(req);
}

}  // namespace warplab::test
