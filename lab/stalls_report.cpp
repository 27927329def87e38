#include "lab/stalls_report.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <set>
#include <sstream>

#include "gpu/driver_api.h"

namespace warplab::lab {
namespace {

std::string utc_now() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string pct(double v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%.0f%%", 100 * v);
  return buf;
}

// "long_sb 95% wait 3%": the line's largest reasons, at most three, each at least 1%.
std::string top_reasons(const StallMix& m) {
  std::vector<std::pair<uint64_t, std::string>> v;
  for (const auto& [r, c] : m) v.push_back({c, r});
  std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  const double t = double(mix_total(m));
  std::string out;
  for (size_t i = 0; i < v.size() && i < 3; ++i) {
    if (t <= 0 || v[i].first / t < 0.01) break;
    out += (out.empty() ? "" : " ") + short_reason(v[i].second) + " " + pct(v[i].first / t);
  }
  return out;
}

std::string point_of(const RunResult& run, const std::vector<std::string>& axes) {
  std::string p;
  for (const std::string& a : axes)
    for (const auto& [name, value] : run.params)
      if (name == a) p += (p.empty() ? "" : ",") + name + "=" + value.to_string();
  return p;
}

std::string pad(std::string s, size_t w) {
  if (s.size() < w) s.append(w - s.size(), ' ');
  return s;
}

}  // namespace

std::string short_reason(const std::string& reason) {
  std::string r = reason;
  for (const char* prefix : {"smsp__pcsamp_warps_issue_stalled_", "stall_"})
    if (r.rfind(prefix, 0) == 0) r = r.substr(std::string(prefix).size());
  if (const size_t p = r.find("scoreboard"); p != std::string::npos) r.replace(p, 10, "sb");
  return r;
}

std::vector<LineStalls> collect_line_stalls(const Experiment& exp, const ExperimentResult& result,
                                            const std::vector<std::string>& set,
                                            std::vector<std::string>* notes) {
  LineStalls sim, gpu;
  sim.source = "sim";
  sim.unit = "warp_cycles";
  sim.device = result.config;
  sim.method = "timing model: every resident warp's state in every cycle, on the PTX line of the "
               "instruction it waits to issue; CUDA lines from the PTX's .loc";
  gpu.source = "gpu";
  gpu.unit = "samples";
  gpu.device = result.gpu_device;
  if (result.gpu_info.contains("driver_version") && result.gpu_info["driver_version"].is_number())
    gpu.driver = "CUDA " + gpu::format_cuda_version(result.gpu_info["driver_version"].get<int>());
  gpu.date = utc_now();
  for (LineStalls* s : {&sim, &gpu}) {
    s->experiment = exp.path;
    s->set = set;
  }
  std::set<std::string> seen_notes;
  auto add_runs = [&](const RunResult& run, const std::string& point) {
    for (size_t i = 0; i < run.launches.size(); ++i) {
      const LaunchRecord& rec = run.launches[i];
      if (rec.timing && run.unit && run.unit->program) {
        KernelLineStalls k = kernel_stalls_from_timing(*rec.timing, run.unit->program->module(),
                                                       rec.entry, static_cast<int>(i));
        k.point = point;
        sim.kernels.push_back(std::move(k));
      }
      if (!rec.gpu.is_object() || !rec.gpu.contains("line_stalls")) continue;
      const nlohmann::json& j = rec.gpu["line_stalls"];
      if (j.contains("error")) {
        const std::string e = j["error"].is_string() ? j["error"].get<std::string>() : "error";
        if (notes && seen_notes.insert(e).second) notes->push_back(e);
        continue;
      }
      auto k = kernel_line_stalls_from_json(j, "report", "gpu.line_stalls");
      if (!k) {
        if (notes) notes->push_back(k.error().to_string());
        continue;
      }
      k->launch = static_cast<int>(i);
      k->point = point;
      if (gpu.method.empty() && j.contains("method") && j["method"].is_string())
        gpu.method = j["method"].get<std::string>();
      if (j.contains("sampling_period_log2") && j["sampling_period_log2"].is_number_integer())
        gpu.sampling_period_log2 = j["sampling_period_log2"].get<int>();
      gpu.kernels.push_back(std::move(*k));
    }
  };
  if (result.run) add_runs(*result.run, "");
  if (result.sweep)
    for (const RunResult& r : result.sweep->runs) add_runs(r, point_of(r, result.sweep->axes));
  std::vector<LineStalls> out;
  if (!sim.kernels.empty()) out.push_back(std::move(sim));
  if (!gpu.kernels.empty()) out.push_back(std::move(gpu));
  return out;
}

std::string format_line_stalls(const std::vector<LineStalls>& runs, double min_share) {
  const LineStalls* sim = nullptr;
  const LineStalls* gpu = nullptr;
  for (const LineStalls& r : runs) (r.source == "sim" ? sim : gpu) = &r;
  if (!sim && !gpu) return "";
  std::ostringstream o;
  o << "\nPer-line warp states";
  if (sim) o << ": model (" << sim->device << ", warp-cycles)";
  if (gpu) o << (sim ? " beside " : ": ") << gpu->device << " (CUPTI PC sampling, samples)";
  o << "\n";
  const LineStalls& first = sim ? *sim : *gpu;
  for (const KernelLineStalls& k : first.kernels) {
    const KernelLineStalls* m = sim ? &k : nullptr;
    const KernelLineStalls* g = nullptr;
    if (gpu)
      for (const KernelLineStalls& c : gpu->kernels)
        if (c.kernel == k.kernel && c.launch == k.launch && c.point == k.point) g = &c;
    if (!sim) g = &k;
    const uint64_t mt = m ? mix_total(m->total) : 0, gt = g ? mix_total(g->total) : 0;
    o << "\n" << k.kernel << " (launch " << k.launch;
    if (!k.point.empty()) o << ", " << k.point;
    o << ")";
    if (m) o << "  model: " << mt << " warp-cycles";
    if (g) o << "  GPU: " << gt << " samples";
    if (g && g->dropped) o << " (" << g->dropped << " dropped)";
    o << "\n";
    // Rows: source lines when either side has them, else PTX lines.
    const bool source = (m && !m->by_source_line.empty()) || (g && !g->by_source_line.empty());
    struct Row {
      std::string label;
      const StallMix* m = nullptr;
      const StallMix* g = nullptr;
    };
    std::map<std::pair<std::string, int32_t>, Row> rows;
    auto add = [&](const KernelLineStalls* ks, bool is_gpu) {
      if (!ks) return;
      if (source) {
        for (const SourceLineStalls& s : ks->by_source_line) {
          Row& r = rows[{s.file, s.line}];
          const size_t slash = s.file.find_last_of('/');
          r.label = (slash == std::string::npos ? s.file : s.file.substr(slash + 1)) + ":" +
                    std::to_string(s.line);
          (is_gpu ? r.g : r.m) = &s.mix;
        }
      } else {
        for (const PtxLineStalls& p : ks->by_ptx_line) {
          Row& r = rows[{"", p.line}];
          r.label = "ptx:" + std::to_string(p.line);
          (is_gpu ? r.g : r.m) = &p.mix;
        }
      }
    };
    add(m, false);
    add(g, true);
    o << "  " << pad("line", 22);
    if (m) o << (g ? pad("model share, top reasons", 46) : "model share, top reasons");
    if (g) o << "GPU share, top reasons";
    o << "\n";
    int hidden = 0;
    for (const auto& [key, r] : rows) {
      const double ms = r.m && mt ? double(mix_total(*r.m)) / mt : 0;
      const double gs = r.g && gt ? double(mix_total(*r.g)) / gt : 0;
      if (ms < min_share && gs < min_share) {
        ++hidden;
        continue;
      }
      o << "  " << pad(r.label, 22);
      const std::string mc = r.m ? pad(pct(ms), 5) + " " + top_reasons(*r.m) : "-";
      if (m) o << (g ? pad(mc, 46) : mc);
      if (g) o << (r.g ? pad(pct(gs), 5) + " " + top_reasons(*r.g) : "-");
      o << "\n";
    }
    if (hidden) o << "  (" << hidden << " lines under " << pct(min_share) << " on both sides)\n";
    if (m && m->unmapped)
      o << "  model: " << pct(double(m->unmapped) / mt) << " of warp-cycles on no line (exited warps draining stores)\n";
    if (g && g->unmapped)
      o << "  GPU: " << pct(double(g->unmapped) / gt) << " of samples on no PTX line\n";
    if (m && g) {
      if (auto a = compare_line_stalls(*m, *g)) {
        o << "  agreement over " << a->lines_compared << " " << a->lines << " lines ("
          << pct(double(a->samples_compared) / std::max<uint64_t>(a->samples_total, 1))
          << " of GPU samples): same top reason on " << pct(a->top_agreement)
          << " of samples; mix distance ";
        char buf[16];
        std::snprintf(buf, sizeof buf, "%.2f", a->distance);
        o << buf << " (0 = same mix, 1 = nothing in common)\n";
      }
    }
  }
  return o.str();
}

std::vector<std::string> split_point(const std::string& point) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < point.size()) {
    size_t comma = point.find(',', start);
    if (comma == std::string::npos) comma = point.size();
    if (comma > start) out.push_back(point.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

}  // namespace warplab::lab
