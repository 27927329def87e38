#include "ui/app/model/reference_curve.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <set>

namespace warplab::app {
namespace {

namespace fs = std::filesystem;

std::string canonical(const std::string& p) {
  std::error_code ec;
  const fs::path c = fs::weakly_canonical(fs::path(p), ec);
  return ec ? fs::path(p).lexically_normal().string() : c.string();
}

// "N=16777216" -> ("N", 16777216); false when malformed or not a number.
bool split_assignment(const std::string& s, std::string& name, double& value) {
  const size_t eq = s.find('=');
  if (eq == std::string::npos || eq == 0) return false;
  name = s.substr(0, eq);
  const std::string v = s.substr(eq + 1);
  char* end = nullptr;
  value = std::strtod(v.c_str(), &end);
  return !v.empty() && end && *end == '\0';
}

// A measured point's parameter values: the experiment file's defaults, then the point's `set`
// (false when an assignment is malformed).
bool point_values(const lab::Experiment& file_exp, const lab::MeasuredPoint& m,
                  std::map<std::string, double>& values) {
  for (const lab::ParamDef& p : file_exp.params)
    if (p.derived.empty()) values[p.name] = p.value.as_double();
  std::string name;
  double v = 0;
  for (const std::string& a : m.set) {
    if (!split_assignment(a, name, v)) return false;
    values[name] = v;
  }
  return true;
}

}  // namespace

ReferenceResult reference_curves(const lab::MeasuredData& data, const std::string& base_dir,
                                 const lab::Experiment& file_exp,
                                 const std::map<std::string, double>& current) {
  ReferenceResult out;
  if (file_exp.sweep.size() != 1) return out;
  const std::string axis = file_exp.sweep.front().param;
  const std::string want = canonical(file_exp.path);
  std::map<size_t, ReferenceCurve> curves;  // by launch index
  std::set<std::string> elsewhere;          // "N=16777216" for points measured at other values
  for (const auto& [id, m] : data.points) {
    if (!m.ok || m.experiment.empty()) continue;
    if (canonical((fs::path(base_dir) / m.experiment).string()) != want) continue;
    // 1. The point's parameter values: the file's defaults, its `set`, its row.
    std::map<std::string, double> values;
    bool ok = point_values(file_exp, m, values);
    std::string name;
    double v = 0;
    std::optional<double> x;
    for (const std::string& a : m.row) {
      ok = ok && split_assignment(a, name, v);
      if (ok && name == axis) x = v;
    }
    if (!ok || !x) continue;
    // 2. The same values as the sweep on screen (the swept axis aside)?
    std::string differs;
    for (const auto& [pname, pv] : values) {
      if (pname == axis) continue;
      const auto c = current.find(pname);
      if (c != current.end() && c->second != pv) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%s=%.15g", pname.c_str(), pv);
        differs += (differs.empty() ? "" : " ") + std::string(buf);
      }
    }
    if (!differs.empty()) {
      elsewhere.insert(differs);
      continue;
    }
    // 3. Which launch: the one kernel the point names, or the only launch.
    size_t launch = file_exp.launches.size();
    if (m.launch.size() == 1) {
      int found = 0;
      for (size_t i = 0; i < file_exp.launches.size(); ++i)
        if (file_exp.launches[i].kernel == m.launch.front()) {
          launch = i;
          ++found;
        }
      if (found != 1) continue;
    } else if (m.launch.empty() && file_exp.launches.size() == 1) {
      launch = 0;
    } else {
      continue;  // the sum of several launches
    }
    ReferenceCurve& c = curves[launch];
    c.launch = launch;
    c.device = data.device;
    const std::string day = m.date.substr(0, 10);
    if (c.ids.empty()) {
      c.date = day;
    } else if (c.date != day) {
      c.date = "";  // points of one curve measured on different days: say neither
    }
    c.x.push_back(*x);
    c.y.push_back(m.time_us);
    c.y_min.push_back(m.min_us);
    c.y_max.push_back(m.max_us);
    c.ids.push_back(id);
  }
  for (auto& [launch, c] : curves) {
    std::vector<size_t> order(c.x.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return c.x[a] < c.x[b]; });
    ReferenceCurve s;
    s.launch = c.launch;
    s.device = c.device;
    s.date = c.date;
    for (size_t i : order) {
      s.x.push_back(c.x[i]);
      s.y.push_back(c.y[i]);
      s.y_min.push_back(c.y_min[i]);
      s.y_max.push_back(c.y_max[i]);
      s.ids.push_back(c.ids[i]);
    }
    s.name = s.device + (s.date.empty() ? ", measured" : ", measured " + s.date) + ": " +
             file_exp.launches[launch].kernel;
    out.curves.push_back(std::move(s));
  }
  if (out.curves.empty() && !elsewhere.empty()) {
    std::string at;
    for (const std::string& e : elsewhere) at += (at.empty() ? "" : " or ") + e;
    out.note = data.device + " measured this sweep at " + at + "; run it at " +
               (elsewhere.size() > 1 ? "one of those" : "that") +
               " to compare with the measurement";
  }
  return out;
}

std::vector<MeasuredGroup> measured_groups(const lab::MeasuredData& data,
                                           const std::string& base_dir,
                                           const lab::Experiment& file_exp,
                                           const std::map<std::string, double>& current) {
  // The groups in launch order, each with its kernels.
  std::vector<std::pair<std::string, std::set<std::string>>> groups;
  for (const lab::LaunchDef& l : file_exp.launches) {
    if (l.group.empty()) continue;
    auto g = std::find_if(groups.begin(), groups.end(), [&](auto& e) { return e.first == l.group; });
    if (g == groups.end()) g = groups.insert(groups.end(), {l.group, {}});
    g->second.insert(l.kernel);
  }
  std::vector<MeasuredGroup> out;
  const std::string want = canonical(file_exp.path);
  for (const auto& [group, kernels] : groups)
    for (const auto& [id, m] : data.points) {
      if (!m.ok || m.experiment.empty() || !m.row.empty()) continue;
      if (std::set<std::string>(m.launch.begin(), m.launch.end()) != kernels) continue;
      if (canonical((fs::path(base_dir) / m.experiment).string()) != want) continue;
      // The point's parameter values (the defaults and its `set`) equal the ones on screen?
      std::map<std::string, double> values;
      bool ok = point_values(file_exp, m, values);
      for (const auto& [pname, pv] : values) {
        const auto c = current.find(pname);
        ok = ok && (c == current.end() || c->second == pv);
      }
      if (!ok) continue;
      MeasuredGroup g;
      g.group = group;
      g.id = id;
      g.device = data.device;
      g.date = m.date.substr(0, 10);
      g.time_us = m.time_us;
      auto counter = [&](const char* k) {
        const auto it = m.counters.find(k);
        return it == m.counters.end() ? 0.0 : it->second;
      };
      g.dram_read_bytes = counter("dram_bytes_read");
      g.dram_written_bytes = counter("dram_bytes_written");
      g.stored_bytes = counter("global_store_sectors") * 32;
      out.push_back(std::move(g));
      break;
    }
  return out;
}

std::string reference_data_path(const std::string& data_dir, const std::string& config) {
  std::error_code ec;
  const std::string own = (fs::path(data_dir) / (lab::measured_slug(config) + ".json")).string();
  if (fs::exists(own, ec)) return own;
  const std::string h100 = (fs::path(data_dir) / "h100.json").string();
  return fs::exists(h100, ec) ? h100 : "";
}

}  // namespace warplab::app
