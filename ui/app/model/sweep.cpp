#include "ui/app/model/sweep.h"

#include <algorithm>
#include <map>

namespace warplab::app {

std::vector<std::vector<std::pair<std::string, lab::Value>>> sweep_points(
    const lab::Experiment& exp) {
  std::vector<std::vector<std::pair<std::string, lab::Value>>> out;
  if (exp.sweep.empty()) return out;
  out.push_back({});
  for (const lab::SweepAxis& axis : exp.sweep) {
    std::vector<std::vector<std::pair<std::string, lab::Value>>> next;
    for (const auto& prefix : out)
      for (const lab::Value& v : axis.values) {
        auto p = prefix;
        p.emplace_back(axis.param, v);
        next.push_back(std::move(p));
      }
    out = std::move(next);
  }
  return out;
}

std::vector<SweepCurve> sweep_curves(const SweepSnapshot& s) {
  std::map<std::pair<size_t, bool>, SweepCurve> curves;  // (launch, gpu) -> curve
  for (size_t pi = 0; pi < s.points.size(); ++pi) {
    const SweepPoint& p = s.points[pi];
    if (!p.run || !p.run->ok()) continue;
    for (size_t li = 0; li < p.run->launches.size(); ++li) {
      const LaunchView& l = p.run->launches[li];
      auto add = [&](bool gpu, double us, const std::string& who) {
        SweepCurve& c = curves[{li, gpu}];
        if (c.name.empty()) {
          c.name = who + ": " + l.kernel;
          c.gpu = gpu;
          c.launch = li;
        }
        c.x.push_back(p.x);
        c.y.push_back(us);
        c.point.push_back(static_cast<int>(pi));
      };
      if (l.timing) add(false, l.timing->time_us, "sim");
      if (l.gpu && l.gpu->time_us) add(true, *l.gpu->time_us, "GPU");
    }
  }
  // Each curve in ascending x (a sweep may list its values in any order).
  std::vector<SweepCurve> out;
  for (auto& [key, c] : curves) {
    std::vector<size_t> order(c.x.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return c.x[a] < c.x[b]; });
    SweepCurve sorted{c.name, c.gpu, c.launch, {}, {}, {}};
    for (size_t i : order) {
      sorted.x.push_back(c.x[i]);
      sorted.y.push_back(c.y[i]);
      sorted.point.push_back(c.point[i]);
    }
    out.push_back(std::move(sorted));
  }
  return out;
}

}  // namespace warplab::app
