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

int sweep_metric_index(const std::string& name) {
  static constexpr const char* kNames[kSweepMetrics] = {"time", "sectors", "gbps", "occupancy"};
  for (int i = 0; i < kSweepMetrics; ++i)
    if (name == kNames[i]) return i;
  return -1;
}

const char* sweep_metric_label(SweepMetric m) {
  static constexpr const char* kLabels[kSweepMetrics] = {"time", "sectors/request", "useful GB/s",
                                                         "achieved occupancy"};
  return kLabels[static_cast<int>(m)];
}

const char* sweep_metric_unit(SweepMetric m) {
  static constexpr const char* kUnits[kSweepMetrics] = {"us", "", "GB/s", "%"};
  return kUnits[static_cast<int>(m)];
}

std::optional<double> launch_metric(const LaunchView& l, SweepMetric m, bool gpu) {
  if (gpu) {
    if (!l.gpu) return std::nullopt;
    if (m == SweepMetric::Time) return l.gpu->time_us;
    if (m == SweepMetric::Occupancy) return l.gpu->achieved_occupancy_pct;
    return std::nullopt;
  }
  if (!l.timing) return std::nullopt;
  const timing::TimingResult& t = *l.timing;
  const timing::MemoryCounters& c = t.memory.l1;
  switch (m) {
    case SweepMetric::Time:
      return t.time_us;
    case SweepMetric::SectorsPerRequest: {
      const uint64_t req = c.global_ld_requests + c.global_st_requests;
      if (req == 0) return std::nullopt;
      return double(c.global_ld_sectors + c.global_st_sectors) / double(req);
    }
    case SweepMetric::UsefulGbps: {
      double useful = 0, traced_req = 0;
      for (const timing::AccessRecord& a : t.trace.accesses)
        if (a.kind == timing::AccessRecord::Kind::GlobalLoad ||
            a.kind == timing::AccessRecord::Kind::GlobalStore) {
          useful += double(__builtin_popcount(a.exec_mask)) * double(a.access_bytes);
          ++traced_req;
        }
      const double req = double(c.global_ld_requests + c.global_st_requests);
      if (traced_req == 0 || t.kernel_time_us <= 0) return std::nullopt;
      return useful * (req / traced_req) / (t.kernel_time_us * 1e3);  // bytes/ns = GB/s
    }
    case SweepMetric::Occupancy:
      return 100 * t.achieved_occupancy;
  }
  return std::nullopt;
}

std::vector<SweepCurve> sweep_curves(const SweepSnapshot& s, SweepMetric metric) {
  std::map<std::pair<size_t, bool>, SweepCurve> curves;  // (launch, gpu) -> curve
  for (size_t pi = 0; pi < s.points.size(); ++pi) {
    const SweepPoint& p = s.points[pi];
    if (!p.run || !p.run->ok()) continue;
    for (size_t li = 0; li < p.run->launches.size(); ++li) {
      const LaunchView& l = p.run->launches[li];
      auto add = [&](bool gpu, std::optional<double> v, const std::string& who) {
        if (!v) return;
        const double us = *v;
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
      add(false, launch_metric(l, metric, false), "sim");
      add(true, launch_metric(l, metric, true), "GPU");
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
