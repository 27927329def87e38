// The experiment panel: pick one of the lesson's experiments, set its parameters (sliders for a
// declared range, combos for declared choices, as lessons/FORMAT.md defines them), run it on the
// worker thread, and read the summary: per launch the simulator's figures beside the real GPU's.
#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <filesystem>
#include <optional>
#include <string>

#include "lab/presets.h"
#include "lab/report.h"
#include "ui/app/app_state.h"
#include "ui/app/model/axis.h"
#include "ui/app/model/reference_curve.h"
#include "ui/app/model/run_estimate.h"
#include "ui/app/plot.h"
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

std::string fmt(const char* f, double v);

// One row of a "simulator | real GPU | sim/GPU" table; an empty cell draws as a dim dash. The
// ratio is shown when both figures are there (not for percentages, where it would mislead).
void row(const char* name, const std::string& sim, const std::string& gpu,
         const char* help = nullptr, std::optional<double> sim_v = std::nullopt,
         std::optional<double> gpu_v = std::nullopt) {
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
  ImGui::TableSetColumnIndex(3);
  if (sim_v && gpu_v && *gpu_v != 0)
    ImGui::Text("%.2fx", *sim_v / *gpu_v);
  else
    ImGui::TextDisabled("-");
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

// The real GPU's block of a launch: how it was timed, whether its buffers matched the
// simulator's, and every counter beside the simulator's figure (lab::side_by_side_rows).
void gpu_details(const GpuLaunchView& g, const std::string& kernel) {
  if (!g.problem.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, color::kFail);
    ImGui::TextWrapped("%s", g.problem.c_str());
    ImGui::PopStyleColor();
  }
  if (g.time_us)
    ImGui::TextDisabled("real GPU: median %.2f us (min %.2f, max %.2f) over %d timed launches",
                        *g.time_us, g.min_us.value_or(0), g.max_us.value_or(0), g.repeats);
  if (!g.compare.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, color::kHit);
    ImGui::TextWrapped("%s", g.compare.c_str());
    ImGui::PopStyleColor();
  }
  if (!g.counters_note.empty())
    ImGui::TextDisabled("GPU counters unavailable: %s", g.counters_note.c_str());
  if (g.rows.empty()) return;
  const std::string label = "counters: simulator vs real GPU##" + kernel;
  if (!ImGui::TreeNode(label.c_str())) return;
  const ImGuiTableFlags flags =
      ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp;
  if (ImGui::BeginTable("side_by_side", 4, flags)) {
    ImGui::TableSetupColumn("metric", ImGuiTableColumnFlags_WidthStretch, 1.3f);
    ImGui::TableSetupColumn("simulator", ImGuiTableColumnFlags_WidthStretch, 1.0f);
    ImGui::TableSetupColumn("real GPU", ImGuiTableColumnFlags_WidthStretch, 1.0f);
    ImGui::TableSetupColumn("sim/GPU", ImGuiTableColumnFlags_WidthStretch, 0.5f);
    ImGui::TableHeadersRow();
    auto cell = [](std::optional<double> v, const std::string& unit) -> std::string {
      if (!v) return "";
      if (unit == "%") return fmt("%.1f%%", *v);
      if (unit == "us") return fmt("%.2f us", *v);
      if (unit == "B") return bytes(static_cast<uint64_t>(*v));
      return lab::group_thousands(static_cast<uint64_t>(*v));
    };
    for (const lab::SideBySideRow& r : g.rows) {
      const bool pct = r.unit == "%";
      row(r.metric.c_str(), cell(r.sim, r.unit), cell(r.gpu, r.unit), nullptr,
          pct ? std::nullopt : r.sim, pct ? std::nullopt : r.gpu);
    }
    ImGui::EndTable();
  }
  ImGui::TreePop();
}

void launch_summary(AppState& s, const RunSnapshot& run, int li) {
  const LaunchView& l = run.launches[li];
  char title[256];
  std::snprintf(title, sizeof title, "launch %d  %s  grid (%u,%u,%u)  block (%u,%u,%u)###launch%d",
                li, l.kernel.c_str(), l.grid.x, l.grid.y, l.grid.z, l.block.x, l.block.y, l.block.z,
                li);
  if (!ImGui::CollapsingHeader(title, li == s.launch ? ImGuiTreeNodeFlags_DefaultOpen : 0)) return;
  ImGui::PushID(li);
  if (run.launches.size() > 1 && li != s.launch) {
    if (ImGui::SmallButton("show in timeline")) s.select_launch(li);
  }
  if (!l.timing) {
    ImGui::TextDisabled("no timing result for this launch");
    ImGui::PopID();
    return;
  }
  const timing::TimingResult& t = *l.timing;
  if (t.fault) {
    ImGui::PushStyleColor(ImGuiCol_Text, color::kFail);
    ImGui::TextWrapped("fault: %s", t.fault->message.c_str());
    ImGui::PopStyleColor();
  }
  const ImGuiTableFlags flags =
      ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp;
  const GpuLaunchView* g = l.gpu ? &*l.gpu : nullptr;
  auto gpu_cell = [&](std::optional<double> v, const char* f) { return v ? fmt(f, *v) : ""; };
  if (ImGui::BeginTable("summary", 4, flags)) {
    ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthStretch, 1.3f);
    ImGui::TableSetupColumn("simulator", ImGuiTableColumnFlags_WidthStretch, 1.0f);
    ImGui::TableSetupColumn("real GPU", ImGuiTableColumnFlags_WidthStretch, 1.0f);
    ImGui::TableSetupColumn("sim/GPU", ImGuiTableColumnFlags_WidthStretch, 0.5f);
    ImGui::TableHeadersRow();
    const auto none = std::optional<double>();
    const auto gcycles = g ? g->cycles : none;
    const auto gtime = g ? g->time_us : none;
    const auto gwi = g ? g->warp_instructions : none;
    const auto gocc = g ? g->achieved_occupancy_pct : none;
    row("cycles", lab::group_thousands(t.cycles),
        gcycles ? lab::group_thousands(static_cast<uint64_t>(*gcycles)) : "",
        "SM cycles from first block dispatch to last warp done (GPU: sm__cycles_elapsed.max)",
        static_cast<double>(t.cycles), gcycles);
    row("time", fmt("%.2f us", t.time_us), gpu_cell(gtime, "%.2f us"),
        "simulator: cycles / clock + launch overhead; GPU: median of the timed launches (CUDA "
        "events)",
        t.time_us, gtime);
    row("IPC", fmt("%.2f", t.ipc), "",
        "warp instructions per cycle per active SM (PTX instructions, not SASS)");
    row("occupancy (theor.)",
        fmt("%.0f%%", 100 * t.occupancy.theoretical) + " (" + t.occupancy.limiter + ")", "");
    row("occupancy (achieved)", fmt("%.0f%%", 100 * t.achieved_occupancy),
        gpu_cell(gocc, "%.0f%%"));
    // Under one wave, two significant digits (8 blocks on 132 SMs are 0.0076 of a wave, not 0.00).
    row("waves", t.waves < 1 ? fmt("%.2g (under one wave)", t.waves) : fmt("%.2f", t.waves), "");
    row("registers / thread", t.registers_per_thread ? std::to_string(t.registers_per_thread) : "?",
        "", "from nvJitLink when available; 32 assumed otherwise");
    row("warp instructions", lab::group_thousands(t.stats.warp_instructions),
        gwi ? lab::group_thousands(static_cast<uint64_t>(*gwi)) : "",
        "simulated: PTX instructions; GPU: SASS instructions (smsp__inst_executed.sum)",
        static_cast<double>(t.stats.warp_instructions), gwi);
    row("thread instructions", lab::group_thousands(t.stats.thread_instructions), "");
    ImGui::EndTable();
  }
  if (g) gpu_details(*g, l.timing->kernel);
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
    r2("global loads",
       lab::group_thousands(m.l1.global_ld_requests) + " requests, " +
           lab::group_thousands(m.l1.global_ld_sectors) + " sectors (" +
           fmt("%.1f", m.global_ld_sectors_per_request()) + "/req)",
       "l1tex__t_requests / t_sectors_pipe_lsu_mem_global_op_ld");
    r2("global stores", lab::group_thousands(m.l1.global_st_requests) + " requests, " +
                            lab::group_thousands(m.l1.global_st_sectors) + " sectors (" +
                            fmt("%.1f", m.global_st_sectors_per_request()) + "/req)");
    if (m.l1.shared_ld_requests + m.l1.shared_st_requests)
      r2("shared", lab::group_thousands(m.l1.shared_ld_requests + m.l1.shared_st_requests) +
                       " requests, " + lab::group_thousands(m.l1.shared_bank_conflicts) +
                       " bank conflicts");
    r2("L1 hit rate", fmt("%.1f%%", 100 * m.l1_hit_rate()), "global load sectors");
    r2("L2 hit rate", fmt("%.1f%%", 100 * m.l2_hit_rate()), "L2 read sectors");
    r2("DRAM", bytes(m.dram_bytes_read) + " read, " + bytes(m.dram_bytes_written) + " written");
    r2("DRAM bandwidth",
       fmt("%.0f GB/s", t.dram_bytes_per_second / 1e9) + " of " +
           fmt("%.0f GB/s peak", t.peak_dram_bytes_per_second / 1e9),
       "the model's DRAM is a latency plus a bandwidth-limited queue (no pages or row buffers)");
    ImGui::EndTable();
  }
  ImGui::TextDisabled("simulated in %.2f s of wall time", l.sim_wall_s);
  ImGui::PopID();
}

// The measured reference for the sweep on screen: the data file for its preset and the
// experiment file's defaults are read once; the values its points ran with select the points.
const ReferenceResult& reference_for(AppState& s, const SweepSnapshot& sw) {
  auto held = s.sweeps.find(sw.experiment_path);
  if (held != s.sweeps.end() && held->second == s.reference.sweep &&
      sw.points.size() == s.reference.sweep_points)
    return s.reference.result;
  s.reference.sweep = held != s.sweeps.end() ? held->second : nullptr;
  s.reference.sweep_points = sw.points.size();
  s.reference.result = {};
  const RunSnapshot* first = nullptr;
  for (const SweepPoint& p : sw.points)
    if (p.run && p.run->ok()) {
      first = p.run.get();
      break;
    }
  if (!first) return s.reference.result;
  namespace fs = std::filesystem;
  const std::string data_dir =
      (fs::path(s.lessons_root).parent_path() / "validation" / "data").string();
  const std::string data_path = reference_data_path(data_dir, first->config);
  if (data_path != s.reference.data_path) {
    s.reference.data_path = data_path;
    s.reference.data.reset();
    if (!data_path.empty())
      if (auto d = lab::load_measured(data_path)) s.reference.data = std::move(*d);
  }
  if (sw.experiment_path != s.reference.exp_path) {
    s.reference.exp_path = sw.experiment_path;
    s.reference.file_exp.reset();
    if (auto e = lab::load_experiment(sw.experiment_path)) s.reference.file_exp = std::move(*e);
  }
  if (!s.reference.data || !s.reference.file_exp) return s.reference.result;
  std::map<std::string, double> current;
  for (const auto& [name, value] : first->params) {
    char* end = nullptr;
    const double v = std::strtod(value.c_str(), &end);
    if (!value.empty() && end && *end == '\0') current[name] = v;
  }
  // The data's experiment paths are relative to its manifest's directory, validation/.
  s.reference.result = reference_curves(
      *s.reference.data, fs::path(data_dir).parent_path().string(), *s.reference.file_exp, current);
  return s.reference.result;
}

// The sweep as curves of the chosen metric (time, sectors/request, useful GB/s, occupancy)
// against the first swept parameter, the simulator and the real GPU (when it ran) per launch,
// optionally relative to the first point; ticks at the swept values, the open point ringed (the
// sliders follow it), sim/H100 on hover; a click on a point opens its run.
// Below 900 px of window height the experiment panel is compact: the description moves into a
// help marker and the sweep chart's metric selector onto the Run line, so that the chart and its
// axis stay above the fold at 1280x800.
bool compact_panel() { return ImGui::GetIO().DisplaySize.y < 900; }

// The sweep chart's metric and "relative to the first point" (short label when compact).
void draw_sweep_metric(AppState& s, bool compact) {
  const auto metric = static_cast<SweepMetric>(std::clamp(s.sweep_metric, 0, kSweepMetrics - 1));
  ImGui::SetNextItemWidth(compact ? 130 : 150);
  if (ImGui::BeginCombo("##sweep metric", sweep_metric_label(metric))) {
    for (int m = 0; m < kSweepMetrics; ++m)
      if (ImGui::Selectable(sweep_metric_label(static_cast<SweepMetric>(m)), m == s.sweep_metric))
        s.sweep_metric = m;
    ImGui::EndCombo();
  }
  ImGui::SameLine();
  ImGui::Checkbox(compact ? "relative" : "relative to the first point", &s.sweep_relative);
  if (compact && ImGui::IsItemHovered())
    ImGui::SetTooltip("the sweep chart relative to its first point (x first)");
}

void draw_sweep_chart(AppState& s, const SweepSnapshot& sw) {
  if (sw.axes.empty()) return;
  const auto metric = static_cast<SweepMetric>(std::clamp(s.sweep_metric, 0, kSweepMetrics - 1));
  if (!compact_panel()) draw_sweep_metric(s, false);
  const auto curves = sweep_curves(sw, metric);
  static const ImU32 kSim[] = {IM_COL32(96, 200, 120, 255), IM_COL32(110, 170, 240, 255),
                               IM_COL32(230, 180, 90, 255)};
  static const ImU32 kGpu[] = {IM_COL32(240, 110, 90, 255), IM_COL32(200, 120, 230, 255),
                               IM_COL32(240, 220, 120, 255)};
  static const ImU32 kRef[] = {IM_COL32(235, 235, 235, 255), IM_COL32(170, 190, 210, 255),
                               IM_COL32(210, 190, 160, 255)};
  // Times of a microsecond scale read as us; from a millisecond on, as ms (not "1K us").
  double scale = 1;
  std::string unit = sweep_metric_unit(metric);
  if (metric == SweepMetric::Time && !s.sweep_relative) {
    double top = 0;
    for (const SweepCurve& c : curves)
      for (double y : c.y) top = std::max(top, y);
    if (top >= 1000) {
      scale = 1e-3;
      unit = "ms";
    }
  }
  auto shape = [&](std::vector<double> y) {
    const double first = y.empty() || y.front() == 0 ? 1 : y.front();
    for (double& v : y) v = s.sweep_relative ? v / first : v * scale;
    return y;
  };
  std::vector<PlotSeries> series;
  std::vector<const SweepCurve*> of;
  double lo = 0, hi = 0;
  for (const SweepCurve& c : curves) {
    PlotSeries p;
    p.name = c.name;
    p.color = c.gpu ? kGpu[c.launch % 3] : kSim[c.launch % 3];
    p.x = c.x;
    p.y = shape(c.y);
    p.markers = true;
    for (double x : c.x) {
      lo = lo == 0 ? x : std::min(lo, x);
      hi = std::max(hi, x);
    }
    series.push_back(std::move(p));
    of.push_back(&c);
  }
  // The measured reference (the H100's, from validation/data): times, so only with time.
  const ReferenceResult& ref = reference_for(s, sw);
  if (metric == SweepMetric::Time)
    for (const ReferenceCurve& c : ref.curves) {
      PlotSeries p;
      p.name = c.name;
      p.color = kRef[c.launch % 3];
      p.x = c.x;
      const double first = c.y.empty() || c.y.front() == 0 ? 1 : c.y.front();
      p.y = shape(c.y);
      for (double v : c.y_min) p.y_lo.push_back(s.sweep_relative ? v / first : v * scale);
      for (double v : c.y_max) p.y_hi.push_back(s.sweep_relative ? v / first : v * scale);
      p.markers = true;
      for (double x : c.x) {
        lo = lo == 0 ? x : std::min(lo, x);
        hi = std::max(hi, x);
      }
      series.push_back(std::move(p));
    }
  PlotSpec spec;
  // The title states what was held fixed (N, block ...): the first point's other parameters.
  std::string fixed;
  if (!sw.points.empty() && sw.points.front().run)
    for (const auto& [name, value] : sw.points.front().run->params)
      if (std::find(sw.axes.begin(), sw.axes.end(), name) == sw.axes.end())
        fixed += (fixed.empty() ? "" : ", ") + name + "=" + value;
  spec.title = std::string(sweep_metric_label(metric)) + (s.sweep_relative ? " (x first)" : "") +
               " vs " + sw.axes.front() + (fixed.empty() ? "" : " (" + fixed + ")") +
               (sw.done ? "" : " (running)") + (sw.cancelled ? " (cancelled)" : "");
  spec.x_unit = "";
  spec.y_unit = s.sweep_relative ? "x" : unit;
  spec.log_x = lo > 0 && hi / lo >= 8;
  for (const SweepPoint& p : sw.points) spec.x_ticks_at.push_back(p.x);
  std::sort(spec.x_ticks_at.begin(), spec.x_ticks_at.end());
  spec.x_ticks_at.erase(std::unique(spec.x_ticks_at.begin(), spec.x_ticks_at.end()),
                        spec.x_ticks_at.end());
  for (const SweepPoint& p : sw.points)
    if (p.run && p.run == s.run) spec.x_highlight = p.x;
  // sim / H100 at the hovered x, per launch with both.
  if (metric == SweepMetric::Time && !ref.curves.empty())
    spec.hover_note = [&curves, &ref](double x) {
      std::string out;
      for (const ReferenceCurve& r : ref.curves)
        for (const SweepCurve& c : curves) {
          if (c.gpu || c.launch != r.launch) continue;
          for (size_t i = 0; i < c.x.size(); ++i)
            for (size_t j = 0; j < r.x.size(); ++j)
              if (c.x[i] == x && r.x[j] == x && r.y[j] > 0) {
                char b[96];
                std::snprintf(b, sizeof b, "%ssim / H100 = %.2f", out.empty() ? "" : "\n",
                              c.y[i] / r.y[j]);
                out += b;
              }
        }
      return out;
    };
  double ylo = 0, yhi = 0;
  for (const auto& p : series)
    for (double y : p.y) {
      ylo = ylo == 0 ? y : std::min(ylo, y);
      yhi = std::max(yhi, y);
    }
  spec.log_y = ylo > 0 && yhi / ylo >= 8;
  if (series.empty()) {
    ImGui::TextDisabled("sweep of %s: %zu of %zu points done%s", sw.axes.front().c_str(),
                        sw.points.size(), sw.total,
                        sw.cancelled ? "; cancelled (the running point stopped with it)" : "");
    return;
  }
  // As tall as the panel has room for (its axis above the fold at 1280x800), 120 to 170 px.
  const float chart_h = std::clamp(ImGui::GetContentRegionAvail().y - 4, 120.0f, 170.0f);
  const int clicked = draw_plot("sweep", spec, series, ImVec2(0, chart_h));
  if (clicked >= 0 && !of.empty() && clicked < static_cast<int>(of[0]->point.size()))
    s.open_run(sw.points[of[0]->point[clicked]].run);
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  ImGui::TextWrapped(  // wrapped at the panel's edge, not clipped
      "%zu of %zu points; click a point to open its run (timeline, memory, "
      "counters). Simulated time includes the model's launch overhead.",
      sw.points.size(), sw.total);
  ImGui::PopStyleColor();
  if (!ref.curves.empty() && s.reference.data) {
    const lab::MeasuredData& d = *s.reference.data;
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    ImGui::TextWrapped(
        "%s: measured with WarpLab's GPU backend (validation/data/%s, driver %s): "
        "the median of the timed launches, whiskers from the fastest to the "
        "slowest; %s",
        d.device.c_str(), file_name(d.path).c_str(), d.driver.c_str(), d.l2_convention.c_str());
    ImGui::PopStyleColor();
  } else if (!ref.note.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    ImGui::TextWrapped("%s", ref.note.c_str());
    ImGui::PopStyleColor();
  }
}

// A/B: pin the run shown as A; any later run shown is B, and one line says how they differ
// (ui/app/model/run_compare.h); the memory flow shows A's link use beside B's.
void draw_ab_strip(AppState& s) {
  ImGui::SameLine();
  if (s.pinned && s.pinned == s.run) {
    if (ImGui::SmallButton("Unpin A")) s.pinned.reset();
    ImGui::SameLine();
    ImGui::TextDisabled("pinned as A: open or run another to compare");
    return;
  }
  if (ImGui::SmallButton(s.pinned ? "Pin this as A" : "Pin as A (compare)")) s.pinned = s.run;
  if (!s.pinned) return;
  ImGui::SameLine();
  if (ImGui::SmallButton("Unpin")) {
    s.pinned.reset();
    return;
  }
  std::string a;
  for (const auto& [k, v] : s.pinned->params) a += (a.empty() ? "" : " ") + k + "=" + v;
  ImGui::TextDisabled("A: %s  ->  B: the run shown", a.c_str());
  if (!s.ab_line.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, color::kCursor);
    ImGui::TextWrapped("A -> B: %s", s.ab_line.c_str());  // wraps at the panel's edge
    ImGui::PopStyleColor();
  }
}

// Where the run goes and how the model runs it (run_control.h), as `warplab run`'s --backend,
// --sampled and --sched, on the settings row: compact combos (the row fits the panel at
// 1280x800). Without a GPU the "run on" choice is left out: the panel's heading says, in one
// line, that only the simulator runs and why.
void draw_run_control(AppState& s) {
  RunControl& c = s.settings.control;
  auto combo = [](const char* id, const char* preview, float w) {
    ImGui::SameLine();
    ImGui::SetNextItemWidth(w);
    return ImGui::BeginCombo(id, preview);
  };
  if (s.gpu_absent.empty()) {
    static const char* kWhere[] = {"simulator", "sim + real GPU", "real GPU only"};
    if (combo("##where", kWhere[int(c.where)], ImGui::CalcTextSize(kWhere[1]).x + 28)) {
      for (int i = 0; i < 3; ++i)
        if (ImGui::Selectable(kWhere[i], int(c.where) == i)) c.where = RunWhere(i);
      ImGui::EndCombo();
    }
  }
  ImGui::BeginDisabled(c.where == RunWhere::Gpu);
  if (combo("##mode", c.sampled ? "sampled" : "full", ImGui::CalcTextSize("sampled").x + 28)) {
    if (ImGui::Selectable("full", !c.sampled)) c.sampled = false;
    if (ImGui::Selectable("sampled", c.sampled)) c.sampled = true;
    ImGui::EndCombo();
  }
  const std::string pol = "sched " + (c.scheduler.empty() ? std::string("preset") : c.scheduler);
  if (combo("##sched", pol.c_str(), ImGui::CalcTextSize("sched preset").x + 34)) {
    for (const char* p : {"", "lrr", "gto"})
      if (ImGui::Selectable(*p ? p : "preset's policy", c.scheduler == p)) c.scheduler = p;
    ImGui::EndCombo();
  }
  ImGui::EndDisabled();
  const std::string flags = cli_flags(c);
  const std::string help =
      std::string(s.gpu_absent.empty()
                      ? "Run on: simulator (--backend sim), simulator and this machine's NVIDIA GPU "
                        "side by side (--backend both), or the real GPU only (--backend gpu: "
                        "times and counters, no trace views).\n\n"
                      : "") +
      "full: every block simulated cycle by cycle. sampled (--sampled): a grid of many waves "
      "simulates a sample of its waves in detail and fast-forwards the rest functionally; "
      "outputs stay exact, cycles and counters are extrapolated and the run says which fraction "
      "it simulated (sim/timing/sampling.h says where that errs). A grid of long blocks, of "
      "any number of waves, may instead stop its detailed simulation once its issue rate is "
      "steady and extrapolate the rest from that rate (within-wave rates; "
      "sim/timing/rate_sampler.h gives the errors measured). A traced launch always runs in "
      "full, so a sampled run keeps no trace: its figures, with the timeline, flow and lanes "
      "views empty.\n\nsched (--sched): the warp scheduling policy of each sub-partition. lrr "
      "(loose round robin) takes the ready warps in turn; gto (greedy then oldest) keeps issuing "
      "from one warp until it stalls, then takes the oldest ready one; preset: the preset's "
      "core.warp_scheduler.\n\n" +
      (flags.empty() ? std::string("The same run on the command line: warplab run FILE")
                     : "The same run on the command line: warplab run FILE " + flags);
  help_marker(help.c_str());
}

// The run settings: preset, L2 convention, the run control. What the shown run used is printed
// with it.
void draw_settings(AppState& s) {
  if (s.presets.empty()) {
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(lab::config_dir(), ec))
      if (e.path().extension() == ".toml") s.presets.push_back(e.path().stem().string());
    std::sort(s.presets.begin(), s.presets.end());
    if (s.presets.empty()) s.presets.push_back("h100-sxm");
  }
  const std::string cur = s.settings.config.empty() ? "h100-sxm" : s.settings.config;
  ImGui::SetNextItemWidth(ImGui::CalcTextSize("h100-sxm").x + 28);
  if (ImGui::BeginCombo("##preset", cur.c_str())) {
    for (const std::string& p : s.presets)
      if (ImGui::Selectable(p.c_str(), p == cur) && p != cur) {
        s.settings.config = p;
        s.trace_sm = 0;  // every preset has an SM 0; not every one an SM 100
      }
    ImGui::EndCombo();
  }
  help_marker("The timing model's GPU preset (configs/NAME.toml; `warplab configs show NAME`).");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(ImGui::CalcTextSize("L2 warm").x + 28);
  if (ImGui::BeginCombo("##l2", s.settings.cold_l2 ? "L2 cold" : "L2 warm")) {
    if (ImGui::Selectable("L2 cold", s.settings.cold_l2)) s.settings.cold_l2 = true;
    if (ImGui::Selectable("L2 warm", !s.settings.cold_l2)) s.settings.cold_l2 = false;
    ImGui::EndCombo();
  }
  help_marker(
      "cold (the default, Triton's do_bench convention): the L2 is emptied before every "
      "launch on the simulator and before every timed launch on the GPU. warm: each timed launch "
      "follows untimed launches of the same kernel (GPU: 3 warm-ups; simulator: one warm-up "
      "run, device memory restored after it), so it finds its own data in L2. Applies to both "
      "sides together.");
  draw_run_control(s);
}

// The committed measurements of the run's groups (reference_curve.h measured_groups): the data
// file of the run's preset, read once (the sweep chart's cache), the experiment file's defaults.
std::vector<MeasuredGroup> measured_groups_of(AppState& s, const RunSnapshot& run) {
  namespace fs = std::filesystem;
  const std::string data_dir =
      (fs::path(s.lessons_root).parent_path() / "validation" / "data").string();
  const std::string data_path = reference_data_path(data_dir, run.config);
  if (data_path != s.reference.data_path) {
    s.reference.data_path = data_path;
    s.reference.data.reset();
    if (!data_path.empty())
      if (auto d = lab::load_measured(data_path)) s.reference.data = std::move(*d);
  }
  if (run.experiment_path != s.reference.exp_path) {
    s.reference.exp_path = run.experiment_path;
    s.reference.file_exp.reset();
    if (auto e = lab::load_experiment(run.experiment_path)) s.reference.file_exp = std::move(*e);
  }
  if (!s.reference.data || !s.reference.file_exp) return {};
  std::map<std::string, double> current;
  for (const auto& [name, value] : run.params) {
    char* end = nullptr;
    const double v = std::strtod(value.c_str(), &end);
    if (!value.empty() && end && *end == '\0') current[name] = v;
  }
  return measured_groups(*s.reference.data, fs::path(data_dir).parent_path().string(),
                         *s.reference.file_exp, current);
}

// Groups of launches side by side (an experiment's `group` keys): totals of time, DRAM bytes and
// instructions, simulator and GPU, and each group's time relative to the last group; then the
// first group over the last in time and in bytes moved (read + written), the model's beside the
// committed measurement's where one matches the parameters on screen.
void draw_group_totals(AppState& s, const RunSnapshot& run) {
  const auto groups = group_totals(run);
  if (groups.size() < 2) return;
  ImGui::Separator();
  ImGui::TextUnformatted("Compare");
  help_marker(
      "Launches of one group are summed: each launch pays its own launch overhead and moves its "
      "own data through DRAM, which is what fusing kernels saves. Read: bytes from DRAM; written: "
      "bytes stored to the L2 (on their way to DRAM; the model's L2 keeps them until evicted). "
      "Times are what CUDA events "
      "would measure per launch (the model adds its launch overhead to each).");
  const ImGuiTableFlags flags =
      ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingStretchProp;
  if (!ImGui::BeginTable("groups", 7, flags)) return;
  for (const char* h : {"group", "launches", "sim time", "GPU time", "sim read / written",
                        "sim warp inst", "time vs last (sim / GPU)"})
    ImGui::TableSetupColumn(h);
  ImGui::TableHeadersRow();
  const GroupTotals& last = groups.back();
  for (const GroupTotals& g : groups) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(g.name.c_str());
    ImGui::TableNextColumn();
    ImGui::Text("%d", g.launches);
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(format_si(g.sim_time_us * 1e-6, "s").c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(g.gpu_time_us ? format_si(*g.gpu_time_us * 1e-6, "s").c_str() : "-");
    ImGui::TableNextColumn();
    ImGui::Text("%s / %s", format_si(g.sim_read_bytes, "B").c_str(),
                format_si(g.sim_written_bytes, "B").c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(format_si(g.sim_warp_instructions, "").c_str());
    ImGui::TableNextColumn();
    const double rs = last.sim_time_us > 0 ? g.sim_time_us / last.sim_time_us : 0;
    if (g.gpu_time_us && last.gpu_time_us && *last.gpu_time_us > 0)
      ImGui::Text("%.2fx / %.2fx", rs, *g.gpu_time_us / *last.gpu_time_us);
    else
      ImGui::Text("%.2fx / -", rs);
  }
  ImGui::EndTable();
  // First group over the last, counting writes: the model beside the committed measurement.
  const GroupTotals& first = groups.front();
  const double sim_t = first.sim_time_us / std::max(1e-12, last.sim_time_us);
  const double sim_b = (first.sim_read_bytes + first.sim_written_bytes) /
                       std::max(1.0, last.sim_read_bytes + last.sim_written_bytes);
  ImGui::Text("%s / %s: model %.2fx time, %.2fx bytes moved (read + written)", first.name.c_str(),
              last.name.c_str(), sim_t, sim_b);
  const auto measured = measured_groups_of(s, run);
  const MeasuredGroup* mf = nullptr;
  const MeasuredGroup* ml = nullptr;
  for (const MeasuredGroup& m : measured) {
    if (m.group == first.name) mf = &m;
    if (m.group == last.name) ml = &m;
  }
  if (mf && ml && ml->time_us > 0) {
    const double b = (mf->dram_read_bytes + mf->stored_bytes) /
                     std::max(1.0, ml->dram_read_bytes + ml->stored_bytes);
    ImGui::PushStyleColor(ImGuiCol_Text, color::kDram);
    ImGui::TextWrapped("%s (measured %s): %.2fx time, %.2fx bytes moved; read %s / %s, written %s / %s",
                       mf->device.c_str(), mf->date.c_str(), mf->time_us / ml->time_us, b,
                       format_si(mf->dram_read_bytes, "B").c_str(),
                       format_si(ml->dram_read_bytes, "B").c_str(),
                       format_si(mf->stored_bytes, "B").c_str(),
                       format_si(ml->stored_bytes, "B").c_str());
    ImGui::PopStyleColor();
    help_marker(
        "From the committed measurements (validation/data/, points of the validation corpus at "
        "these parameter values): the sum of each group's launch medians, bytes read from DRAM "
        "and bytes stored (global store sectors x 32, written into the L2 on their way to DRAM). "
        "At N = 2^20 both the model's and the GPU's 50 MB L2 keep the written data, so DRAM itself "
        "sees almost no writes; at N = 2^24 they reach DRAM.");
  } else {
    ImGui::TextDisabled("no committed measurement of these groups at these parameter values");
  }
}

}  // namespace

void draw_experiment_panel(AppState& s) {
  section_title(s.fonts, "Experiment");
  if (!s.gpu_absent.empty()) {  // the run control's one line: why only the simulator runs here
    ImGui::SameLine();
    ImGui::AlignTextToFramePadding();
    ImGui::TextDisabled("%s", s.gpu_absent.c_str());
  }
  if (s.experiments.empty()) {
    ImGui::TextDisabled("This lesson has no experiment files.");
    return;
  }
  const bool compact = compact_panel();
  ImGui::SetNextItemWidth(compact ? -34 : -1);
  const std::string cur = file_name(s.experiments[s.experiment].path);
  if (ImGui::BeginCombo("##experiment", cur.c_str())) {
    for (int i = 0; i < static_cast<int>(s.experiments.size()); ++i)
      if (ImGui::Selectable(file_name(s.experiments[i].path).c_str(), i == s.experiment))
        s.select_experiment(i);
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
  if (compact) {
    help_marker(exp.description.c_str());
  } else {
    ImGui::PushStyleColor(ImGuiCol_Text, color::kDim);
    ImGui::TextWrapped("%s", exp.description.c_str());
    ImGui::PopStyleColor();
  }
  for (lab::ParamDef& p : exp.params) edit_param(exp, p);
  const bool busy = s.worker.busy();
  if (busy) ImGui::BeginDisabled();
  draw_settings(s);
  // Size, estimate and memory warning before the student presses Run.
  const RunSize size = run_size(exp);
  std::optional<double> est;
  if (auto last = s.shelf.latest(slot.path); last && last->ok()) {
    RunSize before;
    before.threads = last->threads;
    est = estimate_wall_s(size, before, last->wall_s);
  }
  const double host = host_memory_bytes();
  const bool too_big = host > 0 && size.buffer_bytes > host * 0.5;
  ImGui::TextDisabled(
      "%s threads, %s of buffers%s", format_si(size.threads, "").c_str(),
      format_si(size.buffer_bytes, "B").c_str(),
      est ? ("; last run suggests ~" + format_si(*est, "s") + " to simulate").c_str() : "");
  if (too_big) {
    ImGui::PushStyleColor(ImGuiCol_Text, color::kFail);
    ImGui::TextWrapped(
        "The buffers need %s, more than half of this machine's %s of memory "
        "(the simulator keeps every buffer in host memory): pick a smaller size.",
        format_si(size.buffer_bytes, "B").c_str(), format_si(host, "B").c_str());
    ImGui::PopStyleColor();
  } else if (est && *est > 20) {
    ImGui::PushStyleColor(ImGuiCol_Text, color::kCursor);
    ImGui::TextWrapped("This run will take about %s in the simulator (it executes every thread).",
                       format_si(*est, "s").c_str());
    ImGui::PopStyleColor();
  }
  if (too_big) ImGui::BeginDisabled();
  if (ImGui::Button("  Run  ")) s.start_run();
  if (too_big) ImGui::EndDisabled();
  if (!exp.sweep.empty()) {
    ImGui::SameLine();
    const std::string label = "Run sweep (" + std::to_string(sweep_points(exp).size()) + " points)";
    if (ImGui::Button(label.c_str())) s.start_sweep();
  }
  if (busy) ImGui::EndDisabled();
  ImGui::SameLine();
  if (busy) {
    ImGui::Text("simulating %s ... %.1f s", s.worker.running_what().c_str(), s.worker.elapsed_s());
    if (const SweepSnapshot* sw = s.sweep(); sw && !sw->done) {
      ImGui::SameLine();
      ImGui::Text("point %zu of %zu", std::min(sw->points.size() + 1, sw->total), sw->total);
    }
    ImGui::SameLine();
    if (ImGui::SmallButton("Cancel")) s.worker.cancel();
  } else if (const SweepSnapshot* sw = s.sweep(); compact && sw && !sw->axes.empty()) {
    draw_sweep_metric(s, true);
  } else {
    ImGui::TextDisabled("timing model, trace of SM %d", s.trace_sm);
  }
  if (s.edits.count(exp.source)) {
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(color::kCursor),
                       "runs your edit of %s (Kernel source tab: revert to the lesson's)",
                       file_name(exp.source).c_str());
  }
  if (!s.edit_error.empty())
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(color::kFail), "%s", s.edit_error.c_str());
  if (!busy && !s.run_cancelled_note.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, color::kCursor);
    ImGui::TextWrapped("%s", s.run_cancelled_note.c_str());
    ImGui::PopStyleColor();
  }
  if (const SweepSnapshot* sw = s.sweep()) draw_sweep_chart(s, *sw);
  help_marker(
      "Runs every launch in WarpLab's timing model (the same lab runner as `warplab run --trace`): "
      "the functional simulator executes the PTX exactly, and a cycle-level model of an H100's "
      "SMs, L1, L2 and DRAM decides when each warp issues. It is a model: instruction counts are "
      "PTX, not SASS, and latencies and bandwidths are calibrated approximations of the real chip. "
      "When a real NVIDIA GPU is present the same PTX and buffers run there too (backend both): "
      "its times and counters fill the \"real GPU\" column.");

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
  ImGui::TextDisabled("%s  (%s%s%s%s, L2 %s)", params.c_str(),
                      run.backend == "gpu" ? "real GPU only" : run.config.c_str(),
                      run.warp_scheduler.empty() ? "" : ", scheduler ",
                      run.warp_scheduler.c_str(), run.sampled ? ", sampled" : "",
                      run.cold_l2 ? "cold" : "warm");
  draw_ab_strip(s);
  ImGui::PushStyleColor(ImGuiCol_Text, color::kDim);
  if (!run.gpu_device.empty())
    ImGui::TextWrapped("real GPU: %s (backend %s)", run.gpu_device.c_str(), run.backend.c_str());
  else if (run.ok() && s.gpu_absent.empty())  // without a GPU the run control says why, once
    ImGui::TextWrapped("real GPU column empty (simulator only): %s", run.gpu_note.c_str());
  ImGui::PopStyleColor();
  for (const std::string& n : run.notes) ImGui::TextDisabled("note: %s", n.c_str());
  draw_group_totals(s, run);
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
