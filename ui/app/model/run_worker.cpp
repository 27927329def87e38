#include "ui/app/model/run_worker.h"

#include <chrono>

namespace warplab::app {

namespace {
int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
}  // namespace

RunWorker::~RunWorker() {
  cancel_.store(true, std::memory_order_release);
  if (thread_.joinable()) thread_.join();
}

bool RunWorker::start(RunRequest request) {
  if (busy_.exchange(true, std::memory_order_acq_rel)) return false;
  if (thread_.joinable()) thread_.join();  // the previous run has finished (busy_ was false)
  {
    std::lock_guard<std::mutex> lock(mutex_);
    what_ = request.experiment.name.empty() ? request.experiment.path : request.experiment.name;
  }
  cancel_.store(false, std::memory_order_release);
  request.cancel = &cancel_;
  started_ns_.store(now_ns(), std::memory_order_release);
  thread_ = std::thread([this, req = std::move(request)]() {
    auto snap = std::make_shared<const RunSnapshot>(run_traced(req));
    {
      std::lock_guard<std::mutex> lock(mutex_);
      latest_ = std::move(snap);
    }
    generation_.fetch_add(1, std::memory_order_acq_rel);
    busy_.store(false, std::memory_order_release);
  });
  return true;
}

bool RunWorker::start_sweep(RunRequest request) {
  if (busy_.exchange(true, std::memory_order_acq_rel)) return false;
  if (thread_.joinable()) thread_.join();
  cancel_.store(false, std::memory_order_release);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    what_ = "sweep of " +
            (request.experiment.name.empty() ? request.experiment.path : request.experiment.name);
  }
  request.cancel = &cancel_;  // stops the point in progress too
  started_ns_.store(now_ns(), std::memory_order_release);
  thread_ = std::thread([this, req = std::move(request)]() {
    const auto points = sweep_points(req.experiment);
    auto snap = std::make_shared<SweepSnapshot>();
    snap->experiment_path = req.experiment.path;
    for (const lab::SweepAxis& a : req.experiment.sweep) snap->axes.push_back(a.param);
    snap->total = points.size();
    auto publish = [&]() {
      {
        std::lock_guard<std::mutex> lock(mutex_);
        latest_sweep_ = std::make_shared<const SweepSnapshot>(*snap);  // a copy: immutable
      }
      generation_.fetch_add(1, std::memory_order_acq_rel);
    };
    publish();
    for (size_t i = 0; i < points.size(); ++i) {
      if (cancel_.load(std::memory_order_acquire)) {
        snap->cancelled = true;
        break;
      }
      RunRequest one = req;
      one.experiment.sweep.clear();
      SweepPoint p;
      for (const auto& [name, v] : points[i]) {
        for (lab::ParamDef& d : one.experiment.params)
          if (d.name == name) d.value = v;
        p.values.emplace_back(name, v.to_string());
      }
      p.x = points[i].empty() ? double(i) : points[i].front().second.as_double();
      p.run = std::make_shared<const RunSnapshot>(run_traced(one));
      if (cancel_.load(std::memory_order_acquire)) {  // stopped mid-point: no half a point
        snap->cancelled = true;
        break;
      }
      snap->points.push_back(std::move(p));
      publish();
    }
    snap->done = true;
    publish();
    busy_.store(false, std::memory_order_release);
  });
  return true;
}

std::shared_ptr<const SweepSnapshot> RunWorker::latest_sweep() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return latest_sweep_;
}

double RunWorker::elapsed_s() const {
  if (!busy()) return 0;
  return static_cast<double>(now_ns() - started_ns_.load(std::memory_order_acquire)) * 1e-9;
}

std::shared_ptr<const RunSnapshot> RunWorker::latest() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return latest_;
}

std::string RunWorker::running_what() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return what_;
}

}  // namespace warplab::app
