// The experiment panel: pick one of the lesson's experiments, set its parameters (sliders for a
// declared range, combos for declared choices, as lessons/FORMAT.md defines them), run it on the
// worker thread, and read the summary: per launch the simulator's figures beside the real GPU's.
#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <string>

#include "lab/report.h"
#include "ui/app/app_state.h"
#include "ui/app/style.h"

namespace warplab::app {

namespace {

void edit_param(lab::Experiment& exp, lab::ParamDef& p) {
  ImGui::PushID(p.name.c_str());
  ImGui::SetNextItemWidth(std::max(120.0f, ImGui::GetContentRegionAvail().x * 0.55f));
  lab::Value v = p.value;
  bool changed = false;
  if (!p.choices.empty()) {
    const std::string cur = p.value.to_string();
    if (ImGui::BeginCombo(p.name.c_str(), cur.c_str())) {
      for (const lab::Value& c : p.choices) {
        const std::string label = c.to_string();
        if (ImGui::Selectable(label.c_str(), c == p.value)) {
          v = c;
          changed = true;
        }
      }
      ImGui::EndCombo();
    }
  } else if (p.min && p.max && !p.value.is_float && !p.min->is_float && !p.max->is_float) {
    int64_t x = p.value.i, lo = p.min->i, hi = p.max->i;
    const bool log = lo > 0 && hi / std::max<int64_t>(lo, 1) >= 64;
    changed = ImGui::SliderScalar(p.name.c_str(), ImGuiDataType_S64, &x, &lo, &hi, "%" PRId64,
                                  log ? ImGuiSliderFlags_Logarithmic : 0);
    v = lab::Value::integer(x);
  } else if (p.min && p.max) {
    double x = p.value.as_double(), lo = p.min->as_double(), hi = p.max->as_double();
    changed = ImGui::SliderScalar(p.name.c_str(), ImGuiDataType_Double, &x, &lo, &hi, "%.4g");
    v = lab::Value::real(x);
  } else if (p.value.is_float) {
    double x = p.value.f;
    changed = ImGui::InputDouble(p.name.c_str(), &x, 0, 0, "%.6g");
    v = lab::Value::real(x);
  } else {
    int64_t x = p.value.i;
    changed = ImGui::InputScalar(p.name.c_str(), ImGuiDataType_S64, &x);
    v = lab::Value::integer(x);
  }
  if (!p.description.empty()) help_marker(p.description.c_str());
  if (changed && lab::check_param_value(exp, p, v)) p.value = v;
  ImGui::PopID();
}

void warp_state_bar(const timing::WarpStateCycles& c, float width) {
  uint64_t total = 0;
  for (uint64_t v : c) total += v;
  if (total == 0) return;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 p = ImGui::GetCursorScreenPos();
  const float h = 16.0f;
  float x = p.x;
  int hovered = -1;
  const ImVec2 m = ImGui::GetIO().MousePos;
  for (int i = 0; i < timing::kWarpStateCount; ++i) {
    const float w = width * static_cast<float>(c[i]) / static_cast<float>(total);
    if (w <= 0) continue;
    dl->AddRectFilled(ImVec2(x, p.y), ImVec2(x + w, p.y + h),
                      warp_state_color(static_cast<timing::WarpState>(i)));
    if (m.x >= x && m.x < x + w && m.y >= p.y && m.y < p.y + h) hovered = i;
    x += w;
  }
  ImGui::Dummy(ImVec2(width, h));
  if (hovered >= 0) {
    const auto st = static_cast<timing::WarpState>(hovered);
    ImGui::SetTooltip("%s: %.1f%% of warp-cycles\n%s", timing::warp_state_name(st).data(),
                      100.0 * static_cast<double>(c[hovered]) / static_cast<double>(total),
                      warp_state_meaning(st));
  }
}

void row(const char* name, const std::string& sim, const std::string& gpu, const char* help = nullptr) {
  ImGui::TableNextRow();
  ImGui::TableSetColumnIndex(0);
  ImGui::TextUnformatted(name);
  if (help && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", help);
  ImGui::TableSetColumnIndex(1);
  ImGui::TextUnformatted(sim.c_str());
  ImGui::TableSetColumnIndex(2);
  if (gpu.empty())
    ImGui::TextDisabled("-");
  else
    ImGui::TextUnformatted(gpu.c_str());
}

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}
std::string bytes(uint64_t b) {
  if (b >= (1ull << 20)) return fmt("%.2f MiB", static_cast<double>(b) / (1 << 20));
  if (b >= 1024) return fmt("%.1f KiB", static_cast<double>(b) / 1024);
  return std::to_string(b) + " B";
}

void launch_summary(AppState& s, const RunSnapshot& run, int li) {
  const LaunchView& l = run.launches[li];
  char title[256];
  std::snprintf(title, sizeof title, "launch %d  %s  grid (%u,%u,%u)  block (%u,%u,%u)###launch%d", li,
                l.kernel.c_str(), l.grid.x, l.grid.y, l.grid.z, l.block.x, l.block.y, l.block.z, li);
  if (!ImGui::CollapsingHeader(title, li == s.launch ? ImGuiTreeNodeFlags_DefaultOpen : 0)) return;
  ImGui::PushID(li);
  if (run.launches.size() > 1 && li != s.launch) {
    if (ImGui::SmallButton("show in timeline")) s.select_launch(li);
  }
  if (!l.error.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, color::kFail);
    ImGui::TextWrapped("%s", l.error.c_str());
    ImGui::PopStyleColor();
    ImGui::PopID();
    return;
  }
  const timing::TimingResult& t = *l.timing;
  if (t.fault) {
    ImGui::PushStyleColor(ImGuiCol_Text, color::kFail);
    ImGui::TextWrapped("fault: %s", t.fault->message.c_str());
    ImGui::PopStyleColor();
  }
  const ImGuiTableFlags flags = ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_RowBg |
                                ImGuiTableFlags_SizingStretchProp;
  if (ImGui::BeginTable("summary", 3, flags)) {
    ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthStretch, 1.3f);
    ImGui::TableSetupColumn("simulator", ImGuiTableColumnFlags_WidthStretch, 1.0f);
    ImGui::TableSetupColumn("real GPU", ImGuiTableColumnFlags_WidthStretch, 1.0f);
    ImGui::TableHeadersRow();
    const std::string gpu_t = l.gpu_time_us ? fmt("%.2f us", *l.gpu_time_us) : "";
    row("cycles", lab::group_thousands(t.cycles), "", "SM cycles from first block dispatch to last warp done");
    row("time", fmt("%.2f us", t.time_us), gpu_t,
        "simulator: cycles / clock + launch overhead (comparable to CUDA events)");
    row("IPC", fmt("%.2f", t.ipc), "", "warp instructions per cycle per active SM (PTX instructions, not SASS)");
    row("occupancy (theor.)", fmt("%.0f%%", 100 * t.occupancy.theoretical) + " (" + t.occupancy.limiter + ")", "");
    row("occupancy (achieved)", fmt("%.0f%%", 100 * t.achieved_occupancy), "");
    row("waves", fmt("%.2f", t.waves), "");
    row("registers / thread", t.registers_per_thread ? std::to_string(t.registers_per_thread) : "?", "",
        "from nvJitLink when available; 32 assumed otherwise");
    row("warp instructions", lab::group_thousands(t.stats.warp_instructions), "",
        "simulated: PTX instructions, not SASS");
    row("thread instructions", lab::group_thousands(t.stats.thread_instructions), "");
    ImGui::EndTable();
  }
  ImGui::TextDisabled("warp states (all warps, share of warp-cycles)");
  warp_state_bar(t.warp_states, ImGui::GetContentRegionAvail().x);

  const timing::MemoryTable& m = t.memory;
  if (ImGui::BeginTable("memory", 2, flags)) {
    ImGui::TableSetupColumn("memory", ImGuiTableColumnFlags_WidthStretch, 1.3f);
    ImGui::TableSetupColumn("simulator", ImGuiTableColumnFlags_WidthStretch, 2.0f);
    ImGui::TableHeadersRow();
    auto r2 = [](const char* a, const std::string& b, const char* help = nullptr) {
      ImGui::TableNextRow();
      ImGui::TableSetColumnIndex(0);
      ImGui::TextUnformatted(a);
      if (help && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", help);
      ImGui::TableSetColumnIndex(1);
      ImGui::TextUnformatted(b.c_str());
    };
    r2("global loads", lab::group_thousands(m.l1.global_ld_requests) + " requests, " +
                           lab::group_thousands(m.l1.global_ld_sectors) + " sectors (" +
                           fmt("%.1f", m.global_ld_sectors_per_request()) + "/req)",
       "l1tex__t_requests / t_sectors_pipe_lsu_mem_global_op_ld");
    r2("global stores", lab::group_thousands(m.l1.global_st_requests) + " requests, " +
                            lab::group_thousands(m.l1.global_st_sectors) + " sectors (" +
                            fmt("%.1f", m.global_st_sectors_per_request()) + "/req)");
    if (m.l1.shared_ld_requests + m.l1.shared_st_requests)
      r2("shared", lab::group_thousands(m.l1.shared_ld_requests + m.l1.shared_st_requests) +
                       " requests, " + lab::group_thousands(m.l1.shared_bank_conflicts) + " bank conflicts");
    r2("L1 hit rate", fmt("%.1f%%", 100 * m.l1_hit_rate()), "global load sectors");
    r2("L2 hit rate", fmt("%.1f%%", 100 * m.l2_hit_rate()), "L2 read sectors");
    r2("DRAM", bytes(m.dram_bytes_read) + " read, " + bytes(m.dram_bytes_written) + " written");
    r2("DRAM bandwidth", fmt("%.0f GB/s", t.dram_bytes_per_second / 1e9) + " of " +
                             fmt("%.0f GB/s peak", t.peak_dram_bytes_per_second / 1e9),
       "the model's DRAM is a latency plus a bandwidth-limited queue (no pages or row buffers)");
    ImGui::EndTable();
  }
  ImGui::TextDisabled("simulated in %.2f s of wall time", l.sim_wall_s);
  ImGui::PopID();
}

}  // namespace

void draw_experiment_panel(AppState& s) {
  section_title(s.fonts, "Experiment");
  if (s.experiments.empty()) {
    ImGui::TextDisabled("This lesson has no experiment files.");
    return;
  }
  ImGui::SetNextItemWidth(-1);
  const std::string cur = file_name(s.experiments[s.experiment].path);
  if (ImGui::BeginCombo("##experiment", cur.c_str())) {
    for (int i = 0; i < static_cast<int>(s.experiments.size()); ++i)
      if (ImGui::Selectable(file_name(s.experiments[i].path).c_str(), i == s.experiment))
        s.experiment = i;
    ImGui::EndCombo();
  }
  ExperimentSlot& slot = s.experiments[s.experiment];
  if (!slot.exp) {
    ImGui::PushStyleColor(ImGuiCol_Text, color::kFail);
    ImGui::TextWrapped("%s", slot.error.c_str());
    ImGui::PopStyleColor();
    return;
  }
  lab::Experiment& exp = *slot.exp;
  ImGui::PushStyleColor(ImGuiCol_Text, color::kDim);
  ImGui::TextWrapped("%s", exp.description.c_str());
  ImGui::PopStyleColor();
  for (lab::ParamDef& p : exp.params) edit_param(exp, p);
  if (!exp.sweep.empty())
    ImGui::TextDisabled("[sweep] over %s: the app runs the values above", exp.sweep.front().param.c_str());

  const bool busy = s.worker.busy();
  if (busy) ImGui::BeginDisabled();
  if (ImGui::Button("  Run  ")) s.start_run();
  if (busy) ImGui::EndDisabled();
  ImGui::SameLine();
  if (busy)
    ImGui::Text("simulating %s ... %.1f s", s.worker.running_what().c_str(), s.worker.elapsed_s());
  else
    ImGui::TextDisabled("timing model, h100-sxm preset, trace of SM 0");
  help_marker(
      "Runs every launch in WarpLab's timing model: the functional simulator executes the PTX "
      "exactly, and a cycle-level model of an H100's SMs, L1, L2 and DRAM decides when each warp "
      "issues. It is a model: instruction counts are PTX, not SASS, and latencies and bandwidths "
      "are calibrated approximations of the real chip.");

  if (!s.run) return;
  const RunSnapshot& run = *s.run;
  ImGui::Separator();
  if (!run.ok()) {
    ImGui::PushStyleColor(ImGuiCol_Text, color::kFail);
    ImGui::TextWrapped("%s", run.error.c_str());
    ImGui::PopStyleColor();
  }
  std::string params;
  for (const auto& [k, v] : run.params) params += (params.empty() ? "" : "  ") + k + "=" + v;
  ImGui::Text("%s", run.experiment_name.c_str());
  ImGui::SameLine();
  ImGui::TextDisabled("%s  (%s)", params.c_str(), run.config.c_str());
  if (!run.gpu_note.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, color::kDim);
    ImGui::TextWrapped("%s", run.gpu_note.c_str());
    ImGui::PopStyleColor();
  }
  for (const std::string& n : run.notes) ImGui::TextDisabled("note: %s", n.c_str());
  for (int i = 0; i < static_cast<int>(run.launches.size()); ++i) launch_summary(s, run, i);
  for (const lab::CheckResult& c : run.checks) {
    const bool ok = c.passed;
    ImGui::PushStyleColor(ImGuiCol_Text, ok ? color::kHit : color::kFail);
    ImGui::Text("check %s vs %s: %s", c.buffer.c_str(), c.expected.c_str(), ok ? "PASS" : "FAIL");
    ImGui::PopStyleColor();
    ImGui::SameLine();
    ImGui::TextDisabled("%s elements, %s, max abs error %.3g",
                        lab::group_thousands(c.count).c_str(), c.exact ? "exact" : "tolerance",
                        c.max_abs_error);
    if (!c.note.empty()) ImGui::TextDisabled("%s", c.note.c_str());
  }
}

}  // namespace warplab::app
