#include "ui/app/model/gpu_line_stalls.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

namespace warplab::app {

namespace {

std::string base(const std::string& p) { return std::filesystem::path(p).filename().string(); }

// Every NAME=VALUE the measurement was run with (its --set values) is the run's value too: a
// stride-1 measurement is not shown beside a stride-32 run.
bool same_settings(const lab::LineStalls& ls, const RunSnapshot& run) {
  for (const std::string& kv : ls.set) {
    const size_t eq = kv.find('=');
    if (eq == std::string::npos) return false;
    bool found = false;
    for (const auto& [name, value] : run.params)
      if (name == kv.substr(0, eq)) {
        found = true;
        char* end = nullptr;
        const std::string want = kv.substr(eq + 1);
        const double a = std::strtod(value.c_str(), &end);
        const bool a_num = end && *end == '\0' && !value.empty();
        const double b = std::strtod(want.c_str(), &end);
        const bool b_num = end && *end == '\0' && !want.empty();
        if (a_num && b_num ? a != b : value != want) return false;
      }
    if (!found) return false;
  }
  return true;
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
  for (const fs::path& f : files) {
    auto runs = lab::read_line_stalls_file(f.string());
    if (!runs) continue;
    for (const lab::LineStalls& ls : *runs) {
      if (ls.source != "gpu" || base(ls.experiment) != exp || !same_settings(ls, run)) continue;
      for (size_t li = 0; li < run.launches.size(); ++li) {
        const lab::KernelLineStalls* k =
            ls.kernel(run.launches[li].entry, static_cast<int>(li));
        if (!k) k = ls.kernel(run.launches[li].kernel, static_cast<int>(li));
        if (!k) continue;
        out.total += lab::mix_total(k->total);
        for (const lab::PtxLineStalls& p : k->by_ptx_line) lab::mix_add(out.by_ptx[p.line], p.mix);
        for (const lab::SourceLineStalls& sl : k->by_source_line)
          if (base(sl.file) == src) lab::mix_add(out.by_src[sl.line], sl.mix);
      }
      if (out.total > 0 && out.file.empty()) {
        out.device = ls.device;
        out.driver = ls.driver;
        out.date = ls.date;
        out.file = f.filename().string();
      }
    }
    if (out.total > 0) break;  // one file's measurement, not a sum of several
  }
  for (const auto& [line, m] : out.by_ptx) out.max_line_ptx = std::max(out.max_line_ptx, lab::mix_total(m));
  for (const auto& [line, m] : out.by_src) out.max_line_src = std::max(out.max_line_src, lab::mix_total(m));
  if (out.total == 0)
    out.note = "no H100 per-line stall samples committed for " + exp + " (" +
               (fs::is_directory(stalls_dir, ec) ? "none of validation/data/stalls/*.json has it"
                                                 : "no validation/data/stalls/ here") +
               "; `warplab run --stalls` on a GPU measures them)";
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

}  // namespace warplab::app
