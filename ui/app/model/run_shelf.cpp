#include "ui/app/model/run_shelf.h"

namespace warplab::app {

bool RunShelf::select(const std::string& experiment_path) {
  selected_ = experiment_path;
  auto next = latest(experiment_path);
  if (next == shown_) return false;
  shown_ = std::move(next);
  return true;
}

bool RunShelf::put(std::shared_ptr<const RunSnapshot> run) {
  if (!run) return false;
  const std::string path = run->experiment_path;
  runs_[path] = run;
  if (path != selected_) return false;
  shown_ = std::move(run);
  return true;
}

std::shared_ptr<const RunSnapshot> RunShelf::latest(const std::string& experiment_path) const {
  auto it = runs_.find(experiment_path);
  return it != runs_.end() ? it->second : nullptr;
}

}  // namespace warplab::app
