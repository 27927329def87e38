#include "ui/app/model/run_compare.h"

#include <cmath>
#include <cstdio>

namespace warplab::app {

const char* flow_link_name(int link) {
  static constexpr const char* kNames[kFlowLinks] = {"lanes->L1", "L1<->L2", "L2<->DRAM"};
  return link >= 0 && link < kFlowLinks ? kNames[link] : "?";
}

RunFigures run_figures(const RunSnapshot& run) {
  RunFigures f;
  uint64_t requests = 0, sectors = 0;
  for (const LaunchView& l : run.launches) {
    if (!l.timing) continue;
    f.ok = true;
    f.time_us += l.timing->time_us;
    f.kernel_time_us += l.timing->kernel_time_us;
    const timing::MemoryCounters& m = l.timing->memory.l1;
    requests += m.global_ld_requests + m.global_st_requests;
    sectors += m.global_ld_sectors + m.global_st_sectors;
  }
  f.sectors_per_request = requests ? double(sectors) / double(requests) : 0;
  if (!run.launches.empty() && run.launches[0].timing) {
    const timing::Trace& t = run.launches[0].timing->trace;
    const FlowIndex ix = build_flow_index(t, run.links.l2_costs);
    if (!ix.by_issue.empty() && ix.last_cycle > ix.first_cycle) {
      const SteadyWindow w = steady_window(t, ix);
      const FlowRates r = ix.rates(t, w.begin, w.end);
      const LinkUse u = link_use(r, run.links, active_sms(t, w.begin, w.end));
      f.link_busy = u.fraction;
      f.busiest = u.busiest;
    }
  }
  return f;
}

namespace {

std::string num(double v) {
  char b[32];
  if (std::fabs(v - std::round(v)) < 0.05)
    std::snprintf(b, sizeof b, "%.0f", v);
  else
    std::snprintf(b, sizeof b, "%.1f", v);
  return b;
}

}  // namespace

std::string link_use_text(double f) {
  if (std::round(100 * f) > 100) return "100%+";
  char b[32];
  std::snprintf(b, sizeof b, "%.0f%%", 100 * f);
  return b;
}

std::string difference_line(const RunFigures& a, const RunFigures& b, bool with_time) {
  if (!a.ok || !b.ok) return "nothing to compare: one of the runs has no timing";
  std::string out;
  auto add = [&](const std::string& part) { out += (out.empty() ? "" : "; ") + part; };
  if (a.sectors_per_request > 0 || b.sectors_per_request > 0)
    add(a.sectors_per_request == b.sectors_per_request
            ? num(b.sectors_per_request) + " sectors/request in both"
            : num(a.sectors_per_request) + " -> " + num(b.sectors_per_request) +
                  " sectors/request");
  const int k = b.busiest;
  if (a.link_busy[k] > 0 || b.link_busy[k] > 0)
    add(std::string(flow_link_name(k)) + " " + link_use_text(a.link_busy[k]) + " -> " + link_use_text(b.link_busy[k]) +
        " busy");
  char b2[80];
  if (!with_time) return out;
  if (a.kernel_time_us > 0 && b.kernel_time_us > 0 && a.time_us > 0) {
    std::snprintf(b2, sizeof b2, "%.1fx kernel time (%.1fx with launch overhead)",
                  b.kernel_time_us / a.kernel_time_us, b.time_us / a.time_us);
    add(b2);
  } else if (a.time_us > 0) {
    std::snprintf(b2, sizeof b2, "%.1fx time", b.time_us / a.time_us);
    add(b2);
  }
  return out;
}

}  // namespace warplab::app
