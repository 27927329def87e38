#include "ui/app/model/code_profile.h"

#include <algorithm>

namespace warplab::app {

uint64_t LineProfile::stall_cycles() const {
  uint64_t n = 0;
  for (int i = 0; i < timing::kWarpStateCount; ++i)
    if (i != static_cast<int>(timing::WarpState::Selected)) n += states[i];
  return n;
}

std::vector<std::pair<timing::WarpState, double>> stall_mix(const LineProfile& p, int top) {
  std::vector<std::pair<timing::WarpState, double>> out;
  const double total = double(p.stall_cycles());
  if (total <= 0) return out;
  for (int i = 0; i < timing::kWarpStateCount; ++i) {
    if (i == static_cast<int>(timing::WarpState::Selected) || p.states[i] == 0) continue;
    const double f = double(p.states[i]) / total;
    if (f >= 0.01) out.emplace_back(static_cast<timing::WarpState>(i), f);
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  if (static_cast<int>(out.size()) > top) out.resize(static_cast<size_t>(std::max(0, top)));
  return out;
}

namespace {

void add(LineProfile& to, const LineProfile& from) {
  to.warp_instructions += from.warp_instructions;
  for (int i = 0; i < timing::kWarpStateCount; ++i) to.states[i] += from.states[i];
  to.requests += from.requests;
  to.sectors += from.sectors;
  to.shared_requests += from.shared_requests;
  to.wavefronts += from.wavefronts;
  to.bank_conflicts += from.bank_conflicts;
}

}  // namespace

CodeProfile code_profile(const RunSnapshot& run) {
  using K = timing::AccessRecord::Kind;
  CodeProfile out;
  for (const LaunchView& l : run.launches) {
    if (!l.timing) continue;
    for (const auto& [line, c] : l.timing->stats.by_ptx_line)
      out.by_ptx[line].warp_instructions += c.warp_instructions;
    for (const auto& [line, st] : l.timing->warp_states_by_ptx_line) {
      LineProfile& p = out.by_ptx[line];
      for (int i = 0; i < timing::kWarpStateCount; ++i) p.states[i] += st[i];
    }
    for (const timing::AccessRecord& a : l.timing->trace.accesses) {
      LineProfile& p = out.by_ptx[a.ptx_line];
      if (a.kind == K::SharedLoad || a.kind == K::SharedStore) {
        ++p.shared_requests;
        p.wavefronts += static_cast<uint64_t>(std::max(0, a.wavefronts));
        p.bank_conflicts += static_cast<uint64_t>(std::max(0, a.bank_conflicts));
      } else {
        ++p.requests;
        p.sectors += static_cast<uint64_t>(std::max(0, a.sectors));
      }
    }
  }
  for (const auto& [line, p] : out.by_ptx) {
    out.max_stall_ptx = std::max(out.max_stall_ptx, p.stall_cycles());
    if (auto m = run.ptx_to_src.find(line); m != run.ptx_to_src.end()) add(out.by_src[m->second], p);
  }
  for (const auto& [line, p] : out.by_src)
    out.max_stall_src = std::max(out.max_stall_src, p.stall_cycles());
  return out;
}

}  // namespace warplab::app
