// Which run the app shows: the latest run of the selected experiment, and nothing else.
//
// Runs finish on the worker thread while the student may have moved to another lesson or
// experiment, so every finished run is kept under its experiment file, and the panels only ever
// see the selected file's latest run (or none, and say so). Without this, switching experiment
// left the previous experiment's timeline, counters and source on screen.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "ui/app/model/run_snapshot.h"

namespace warplab::app {

class RunShelf {
 public:
  // Selects the experiment file whose runs are shown. True when the shown run changed.
  bool select(const std::string& experiment_path);
  // Keeps a finished run under its experiment_path. True when it is now the shown run (it
  // belongs to the selected experiment).
  bool put(std::shared_ptr<const RunSnapshot> run);
  const std::shared_ptr<const RunSnapshot>& shown() const { return shown_; }
  const std::string& selected() const { return selected_; }
  // The latest run of any experiment file (nullptr when it never ran).
  std::shared_ptr<const RunSnapshot> latest(const std::string& experiment_path) const;

 private:
  std::string selected_;
  std::shared_ptr<const RunSnapshot> shown_;
  std::map<std::string, std::shared_ptr<const RunSnapshot>> runs_;
};

}  // namespace warplab::app
