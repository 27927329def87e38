#include "lab/stalls_validate.h"

#include <cstdio>
#include <filesystem>
#include <map>
#include <sstream>

#include "lab/compile.h"
#include "lab/experiment.h"
#include "lab/runner.h"
#include "lab/stalls_report.h"

namespace warplab::lab {
namespace {

// The simulator's per-line stalls of one GPU run's experiment at one point.
Expected<LineStalls> simulate(const LineStalls& gpu, const std::string& point,
                              const std::string& config, const std::string& root,
                              const Toolchain& toolchain) {
  std::string path = gpu.experiment;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec) && !root.empty()) path = root + "/" + gpu.experiment;
  auto exp = load_experiment(path);
  if (!exp) return exp.error();
  for (const std::string& s : gpu.set)
    if (auto st = set_param(*exp, s); !st) return st.error();
  // A sweep point: drop its axes and set their values.
  for (const std::string& kv : split_point(point)) {
    const std::string name = kv.substr(0, kv.find('='));
    std::erase_if(exp->sweep, [&](const SweepAxis& a) { return a.param == name; });
    if (auto st = set_param(*exp, kv); !st) return st.error();
  }
  if (!exp->sweep.empty())
    return Error{path, 0, "a sweep point of this experiment is not named in the data (point \"" +
                              point + "\")"};
  RunOptions opt;
  opt.backend = BackendKind::Sim;
  opt.mode = SimMode::Timing;
  opt.config = config;
  opt.l2 = L2Start::Cold;
  Runner runner(toolchain, opt);
  auto r = runner.run(*exp);
  if (!r) return r.error();
  for (LineStalls& s : collect_line_stalls(*exp, *r, gpu.set))
    if (s.source == "sim") return s;
  return Error{path, 0, "the simulator gave no per-line warp states"};
}

}  // namespace

std::vector<StallValidationPoint> validate_line_stalls(const std::vector<std::string>& files,
                                                       const std::string& config,
                                                       const std::string& root,
                                                       const std::string& only) {
  std::vector<StallValidationPoint> out;
  Toolchain toolchain;
  for (const std::string& file : files) {
    auto runs = read_line_stalls_file(file);
    if (!runs) {
      StallValidationPoint p;
      p.file = file;
      p.error = runs.error().to_string();
      out.push_back(std::move(p));
      continue;
    }
    for (const LineStalls& gpu : *runs) {
      if (gpu.source != "gpu") continue;
      // One simulation per point; its launches pair with the GPU's by index and kernel.
      std::map<std::string, std::vector<const KernelLineStalls*>> by_point;
      for (const KernelLineStalls& k : gpu.kernels) {
        const std::string key = file + ":" + k.kernel + ":" + k.point;
        if (only.empty() || key.find(only) != std::string::npos) by_point[k.point].push_back(&k);
      }
      for (const auto& [point, kernels] : by_point) {
        auto sim = simulate(gpu, point, config, root, toolchain);
        for (const KernelLineStalls* g : kernels) {
          StallValidationPoint p;
          p.file = file;
          p.experiment = gpu.experiment;
          p.point = point;
          p.kernel = g->kernel;
          p.launch = g->launch;
          p.device = gpu.device;
          p.samples = mix_total(g->total);
          if (!sim) {
            p.error = sim.error().to_string();
          } else if (const KernelLineStalls* m = sim->kernel(g->kernel, g->launch)) {
            p.agreement = compare_line_stalls(*m, *g);
            if (!p.agreement) p.error = "no line with data on both sides";
          } else {
            p.error = "the simulator ran no launch " + std::to_string(g->launch) + " of " +
                      g->kernel;
          }
          out.push_back(std::move(p));
        }
      }
    }
  }
  return out;
}

std::string format_stall_validation(const std::vector<StallValidationPoint>& points) {
  std::ostringstream o;
  char buf[256];
  std::snprintf(buf, sizeof buf, "%-22s %-24s %-12s %8s %6s %6s %8s\n", "data", "kernel (launch)",
                "point", "samples", "lines", "top", "distance");
  o << buf;
  double agree = 0, dist = 0, weight = 0;
  int compared = 0;
  for (const StallValidationPoint& p : points) {
    const std::string name = std::filesystem::path(p.file).stem().string();
    const std::string kernel = p.kernel + " (" + std::to_string(p.launch) + ")";
    if (!p.agreement) {
      o << name << "  " << kernel << (p.point.empty() ? "" : "  " + p.point) << ": " << p.error
        << "\n";
      continue;
    }
    const StallAgreement& a = *p.agreement;
    std::snprintf(buf, sizeof buf, "%-22s %-24s %-12s %8llu %6d %5.0f%% %8.2f\n", name.c_str(),
                  kernel.c_str(), p.point.c_str(), static_cast<unsigned long long>(p.samples),
                  a.lines_compared, 100 * a.top_agreement, a.distance);
    o << buf;
    ++compared;
    agree += a.top_agreement * double(a.samples_compared);
    dist += a.distance * double(a.samples_compared);
    weight += double(a.samples_compared);
  }
  std::snprintf(buf, sizeof buf, "STALLS points=%zu compared=%d top_agreement=%.0f%% distance=%.2f\n",
                points.size(), compared, weight > 0 ? 100 * agree / weight : 0.0,
                weight > 0 ? dist / weight : 0.0);
  o << buf;
  return o.str();
}

}  // namespace warplab::lab
