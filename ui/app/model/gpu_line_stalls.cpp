#include "ui/app/model/gpu_line_stalls.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "lab/experiment.h"
#include "lab/stalls_report.h"

namespace warplab::app {

namespace {

std::string base(const std::string& p) { return std::filesystem::path(p).filename().string(); }

bool same_value(const std::string& a, const std::string& b) {
  char* end = nullptr;
  const double x = std::strtod(a.c_str(), &end);
  const bool x_num = end && *end == '\0' && !a.empty();
  const double y = std::strtod(b.c_str(), &end);
  const bool y_num = end && *end == '\0' && !b.empty();
  return x_num && y_num ? x == y : a == b;
}

// The values a measurement ran with: `defaults` (the experiment's, empty when its file did not
// open), then its --set values, then its sweep point's. Later ones win.
std::map<std::string, std::string> measured_values(const std::map<std::string, std::string>& defaults,
                                                   const std::vector<std::string>& set,
                                                   const std::string& point) {
  std::map<std::string, std::string> v = defaults;
  std::vector<std::string> kvs = set;
  for (const std::string& kv : lab::split_point(point)) kvs.push_back(kv);
  for (const std::string& kv : kvs) {
    const size_t eq = kv.find('=');
    if (eq == std::string::npos) continue;
    v[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  return v;
}

// Every measured value that the run has a value for equals it (a name the run lacks fails).
bool same_settings(const std::map<std::string, std::string>& measured,
                   const std::vector<std::string>& set, const std::string& point,
                   const RunSnapshot& run) {
  std::vector<std::string> named = set;
  for (const std::string& kv : lab::split_point(point)) named.push_back(kv);
  for (const auto& [name, want] : measured) {
    bool found = false;
    for (const auto& [rname, value] : run.params)
      if (rname == name) {
        found = true;
        if (!same_value(value, want)) return false;
      }
    if (!found)  // a value the measurement chose must exist in the run; defaults may not
      for (const std::string& kv : named)
        if (kv.substr(0, kv.find('=')) == name) return false;
  }
  return true;
}

// "N=1048576 stride=1..64": the values a measurement ran with that the run does not have.
std::string describe(const std::map<std::string, std::vector<std::string>>& values) {
  std::string out;
  for (const auto& [name, vs] : values) {
    if (!out.empty()) out += " ";
    out += name + "=" + vs.front();
    if (vs.size() > 1) out += ".." + vs.back();
  }
  return out;
}

}  // namespace

GpuLineStalls find_gpu_line_stalls(const std::string& stalls_dir, const RunSnapshot& run) {
  namespace fs = std::filesystem;
  GpuLineStalls out;
  std::error_code ec;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(stalls_dir, ec))
    if (e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  const std::string exp = base(run.experiment_path), src = base(run.source_path);
  // The experiment's defaults: a measurement without --set values ran at them.
  std::map<std::string, std::string> defaults;
  if (!run.experiment_path.empty() && fs::exists(run.experiment_path, ec))
    if (auto e = lab::load_experiment(run.experiment_path))
      for (const lab::ParamDef& p : e->params)
        if (p.derived.empty()) defaults[p.name] = p.value.to_string();
  // Values measured at that differ from the run's (for the note when nothing matches).
  std::map<std::string, std::vector<std::string>> elsewhere;
  // An H100's measurement first (the GPU the model is calibrated to), then any other GPU's.
  for (int pass = 0; pass < 2 && out.total == 0; ++pass)
  for (const fs::path& f : files) {
    auto runs = lab::read_line_stalls_file(f.string());
    if (!runs) continue;
    for (const lab::LineStalls& ls : *runs) {
      if (ls.source != "gpu" || base(ls.experiment) != exp) continue;
      if ((pass == 0) != (gpu_short_name(ls.device) == "H100")) continue;
      // The sweep points of this measurement, in order ("" for a run without a sweep).
      std::vector<std::string> points;
      for (const lab::KernelLineStalls& k : ls.kernels)
        if (std::find(points.begin(), points.end(), k.point) == points.end())
          points.push_back(k.point);
      for (const std::string& point : points) {
        const auto measured = measured_values(defaults, ls.set, point);
        if (!same_settings(measured, ls.set, point, run)) {
          for (const auto& [name, value] : measured) {
            auto& vs = elsewhere[name];
            if (std::find(vs.begin(), vs.end(), value) == vs.end()) vs.push_back(value);
          }
          continue;
        }
        for (size_t li = 0; li < run.launches.size(); ++li) {
          const lab::KernelLineStalls* k = nullptr;
          for (const std::string& name : {run.launches[li].entry, run.launches[li].kernel})
            for (const lab::KernelLineStalls& c : ls.kernels)
              if (!k && c.point == point && c.kernel == name && c.launch == static_cast<int>(li))
                k = &c;
          if (!k) continue;
          out.total += lab::mix_total(k->total);
          for (const lab::PtxLineStalls& p : k->by_ptx_line) lab::mix_add(out.by_ptx[p.line], p.mix);
          for (const lab::SourceLineStalls& sl : k->by_source_line)
            if (base(sl.file) == src) lab::mix_add(out.by_src[sl.line], sl.mix);
        }
        if (out.total > 0) {
          out.device = ls.device;
          out.gpu = gpu_short_name(ls.device);
          out.driver = ls.driver;
          out.date = ls.date;
          out.file = f.filename().string();
          out.point = point;
          break;  // one measurement, not a sum of several
        }
      }
      if (out.total > 0) break;
    }
    if (out.total > 0) break;
  }
  for (const auto& [line, m] : out.by_ptx) out.max_line_ptx = std::max(out.max_line_ptx, lab::mix_total(m));
  for (const auto& [line, m] : out.by_src) out.max_line_src = std::max(out.max_line_src, lab::mix_total(m));
  if (out.total == 0) {
    // Sorted as numbers where they are numbers, so a range reads "1..64".
    for (auto& [name, vs] : elsewhere)
      std::sort(vs.begin(), vs.end(), [](const std::string& a, const std::string& b) {
        char *ea = nullptr, *eb = nullptr;
        const double x = std::strtod(a.c_str(), &ea), y = std::strtod(b.c_str(), &eb);
        return *ea == '\0' && *eb == '\0' ? x < y : a < b;
      });
    // The parameters never measured at the run's value; when each was, in another combination,
    // those where some measurement differs from the run.
    auto run_value = [&](const std::string& name) -> const std::string* {
      for (const auto& [rname, rvalue] : run.params)
        if (rname == name) return &rvalue;
      return nullptr;
    };
    auto never = elsewhere, some = elsewhere;
    std::erase_if(never, [&](const auto& e) {
      const std::string* r = run_value(e.first);
      return !r || std::any_of(e.second.begin(), e.second.end(),
                               [&](const std::string& v) { return same_value(v, *r); });
    });
    std::erase_if(some, [&](const auto& e) {
      const std::string* r = run_value(e.first);
      return !r || std::all_of(e.second.begin(), e.second.end(),
                               [&](const std::string& v) { return same_value(v, *r); });
    });
    elsewhere = never.empty() ? some : never;
    if (!elsewhere.empty())
      out.note = "GPU per-line stalls for " + exp + " were measured at " + describe(elsewhere) +
                 ", not at this run's values: run there to see them (or measure with `warplab "
                 "run --stalls` on a GPU)";
    else
      out.note = "no GPU per-line stall samples committed for " + exp + " (" +
                 (fs::is_directory(stalls_dir, ec) ? "none of validation/data/stalls/*.json has it"
                                                   : "no validation/data/stalls/ here") +
                 "; `warplab run --stalls` on a GPU measures them)";
  }
  return out;
}

std::vector<std::pair<std::string, double>> gpu_stall_shares(const lab::StallMix& m, int top) {
  std::vector<std::pair<std::string, double>> out;
  uint64_t total = 0;
  for (const auto& [reason, n] : m)
    if (reason != "selected") total += n;
  if (total == 0) return out;
  for (const auto& [reason, n] : m)
    if (reason != "selected" && n > 0) out.emplace_back(reason, double(n) / double(total));
  std::stable_sort(out.begin(), out.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  if (static_cast<int>(out.size()) > top) out.resize(static_cast<size_t>(std::max(0, top)));
  return out;
}

std::string gpu_reason_label(const std::string& reason) {
  static constexpr std::string_view kCupti = "smsp__pcsamp_warps_issue_stalled_";
  if (reason.rfind(kCupti, 0) == 0) return reason.substr(kCupti.size()) + " (GPU only)";
  return reason;
}

std::string gpu_short_name(const std::string& device) {
  for (const char* name : {"H100", "H200", "B200", "A100"})
    if (device.find(name) != std::string::npos) return name;
  return "GPU";
}

}  // namespace warplab::app
