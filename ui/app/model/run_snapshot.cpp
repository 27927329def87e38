#include "ui/app/model/run_snapshot.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <sstream>

#include "lab/compile.h"
#include "lab/elem_type.h"
#include "lab/runner.h"
#include "ui/app/model/lesson_catalog.h"
#include "ui/app/model/memory_flow.h"
#include "ui/app/model/run_control.h"
#include "ui/app/model/run_estimate.h"

namespace warplab::app {

namespace {

using nlohmann::json;

// The source file's index in the module's .file table: the entry with the same file name.
int32_t find_source_file(const ptx::Module& m, const std::string& source) {
  const std::string want = std::filesystem::path(source).filename().string();
  for (size_t i = 0; i < m.files.size(); ++i)
    if (!m.files[i].empty() && std::filesystem::path(m.files[i]).filename().string() == want)
      return static_cast<int32_t>(i);
  return -1;
}

// The timing model with every launch traced in full detail on one SM.
lab::RunOptions run_options(const RunRequest& req, lab::BackendKind backend) {
  lab::RunOptions o;
  o.backend = backend;
  o.mode = lab::SimMode::Timing;
  o.config = req.config;
  o.l2 = req.cold_l2 ? lab::L2Start::Cold : lab::L2Start::Warm;
  o.cancel = req.cancel;
  o.sampled = req.sampled;
  o.warp_scheduler = req.warp_scheduler;
  // The real GPU alone has no model to trace; a traced launch runs in full (sampling.h), so a
  // sampled run is not traced: its figures, without the trace views.
  if (backend == lab::BackendKind::Gpu || req.sampled) return o;
  lab::TraceCapture trace;
  trace.options.sms = {req.trace_sm};
  trace.options.max_events = req.max_trace_events;
  o.trace = std::move(trace);
  return o;
}

std::optional<double> number(const json& obj, const char* key) {
  if (!obj.is_object() || !obj.contains(key) || !obj[key].is_number()) return std::nullopt;
  return obj[key].get<double>();
}

// The runner's `gpu` record of one launch (lab/metrics_json.h, lessons/FORMAT.md), for drawing.
GpuLaunchView gpu_view(const lab::LaunchRecord& rec) {
  const json& g = rec.gpu;
  GpuLaunchView v;
  if (g.contains("error")) v.problem = "the GPU could not run this launch: " + g.value("error", "");
  if (g.contains("skipped")) v.problem = "GPU skipped this launch: " + g.value("skipped", "");
  v.time_us = number(g, "time_us");
  v.min_us = number(g, "min_us");
  v.max_us = number(g, "max_us");
  v.repeats = g.value("repeats", 0);
  const json counters = g.value("counters", json::object());
  if (!counters.value("available", false))
    v.counters_note = counters.value("reason", std::string("not read"));
  const json values = counters.value("values", json::object());
  v.cycles = number(values, "elapsed_cycles");
  v.warp_instructions = number(values, "warp_instructions");
  v.achieved_occupancy_pct = number(values, "achieved_occupancy_pct");
  if (g.contains("compare")) {
    std::string differ;
    for (const json& b : g["compare"])
      if (!b.value("passed", true)) differ += (differ.empty() ? "" : ", ") + b.value("buffer", "");
    if (!differ.empty())
      v.problem = "after this launch the GPU's buffers differ from the simulator's: " + differ;
    else
      v.compare = "all " + std::to_string(g["compare"].size()) +
                  " buffers equal the simulator's (" +
                  (g.value("approximate_math", false) ? "within tolerance: approximate math"
                                                      : "bit-exact") +
                  ")";
  }
  const std::optional<uint64_t> wi =
      rec.stats ? std::optional<uint64_t>(rec.stats->warp_instructions) : std::nullopt;
  for (lab::SideBySideRow& r : lab::side_by_side_rows(rec.sim, g, wi))
    if (r.sim || r.gpu) v.rows.push_back(std::move(r));
  return v;
}

LaunchView launch_view(const lab::LaunchRecord& rec) {
  LaunchView v;
  v.kernel = rec.kernel;
  v.entry = rec.entry;
  v.grid = rec.grid;
  v.block = rec.block;
  v.registers = rec.resources ? rec.resources->registers : 0;
  v.timing = rec.timing;
  v.sim_wall_s = rec.sim_wall_seconds;
  if (!rec.gpu.empty()) v.gpu = gpu_view(rec);
  return v;
}

}  // namespace

std::map<int32_t, RunSnapshot::SourceLineStat> RunSnapshot::source_line_stats() const {
  std::map<int32_t, SourceLineStat> out;
  for (const LaunchView& l : launches) {
    if (!l.timing) continue;
    for (const auto& [key, c] : l.timing->stats.by_src_line) {
      if (key.first != source_file_index) continue;
      out[key.second].warp_instructions += c.warp_instructions;
      out[key.second].thread_instructions += c.thread_instructions;
    }
    for (const auto& [key, states] : l.timing->warp_states_by_src_line) {
      if (key.first != source_file_index) continue;
      SourceLineStat& s = out[key.second];
      for (int i = 0; i < timing::kWarpStateCount; ++i) {
        s.warp_cycles += states[i];
        if (i != static_cast<int>(timing::WarpState::Selected)) s.stall_cycles += states[i];
      }
    }
  }
  return out;
}

RunSnapshot run_traced(const RunRequest& req) {
  const auto t0 = std::chrono::steady_clock::now();
  RunSnapshot snap;
  // The app runs the current parameter values only; a [sweep] would run every point.
  lab::Experiment exp = req.experiment;
  if (!exp.sweep.empty())
    snap.notes.push_back(
        "this experiment has a [sweep]; the app runs the current parameter "
        "values only (warplab run runs every point)");
  exp.sweep.clear();
  snap.experiment_path = exp.path;
  snap.experiment_name = exp.name;
  snap.config = req.config.empty() ? "h100-sxm" : req.config;
  snap.cold_l2 = req.cold_l2;
  snap.threads = run_size(exp).threads;
  snap.source_path = exp.source;
  {
    std::istringstream in(read_file_text(exp.source));
    for (std::string line; std::getline(in, line);) snap.source_lines.push_back(line);
  }
  for (const lab::ParamDef& p : exp.params) snap.params.emplace_back(p.name, p.value.to_string());
  auto finish = [&]() -> RunSnapshot {
    snap.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return std::move(snap);
  };

  // 1. The runner, on the simulator and a real GPU in lockstep when one opens; else the
  //    simulator alone, keeping the reason for the empty "real GPU" column.
  lab::Toolchain toolchain;
  std::optional<lab::Runner> runner;
  snap.sampled = req.sampled;
  snap.warp_scheduler = req.warp_scheduler;
  if (req.use_gpu && req.gpu_only) {
    // The real GPU alone (`--backend gpu`): no simulator to fall back on.
    runner.emplace(toolchain, run_options(req, lab::BackendKind::Gpu));
    if (auto s = runner->prepare_backends(); !s) {
      snap.error = "real GPU only: " + gpu_absent_line(s.error().message);
      return finish();
    }
  } else if (req.use_gpu) {
    runner.emplace(toolchain, run_options(req, lab::BackendKind::Both));
    if (auto s = runner->prepare_backends(); !s) {
      // "--backend both: the real GPU is not available: ..." without the CLI's flag.
      std::string why = s.error().message;
      if (const size_t at = why.find(": ");
          why.rfind("--backend", 0) == 0 && at != std::string::npos)
        why = why.substr(at + 2);
      snap.gpu_note = why;
      runner.reset();
    }
  } else {
    snap.gpu_note = "the real GPU was not asked for";
  }
  if (!runner) runner.emplace(toolchain, run_options(req, lab::BackendKind::Sim));

  // 2. One run: compile, buffers, launches (timing model, traced), read back, checks.
  auto result = runner->run(exp);
  if (!result) {
    snap.error = result.error().to_string();
    snap.cancelled = req.cancel && req.cancel->load(std::memory_order_acquire);
    return finish();
  }
  snap.backend = result->backend;
  snap.gpu_device = result->gpu_device;
  if (!result->config.empty()) snap.config = result->config;
  for (const std::string& n : result->notes) snap.notes.push_back(n);
  const lab::RunResult& run = *result->run;

  // 3. Reshape for drawing: PTX text and PTX -> source lines, per-launch views, checks.
  if (run.unit && run.unit->program) {
    const ptx::Module& module = run.unit->program->module();
    snap.source_file_index = find_source_file(module, exp.source);
    for (const ptx::Function& f : module.functions)
      for (const ptx::Instruction& in : f.instructions) {
        snap.ptx_text[in.ptx_line] = in.text;
        if (in.user_loc.file == snap.source_file_index && in.user_loc.line > 0)
          snap.ptx_to_src[in.ptx_line] = in.user_loc.line;
      }
    // The code view's schedule (the preset's [compiler] rule) and the SASS, where a toolkit is.
    std::map<std::string, int> registers;
    if (run.unit->resources)
      for (const lab::KernelResources& k : run.unit->resources->kernels)
        registers[k.kernel] = k.registers;
    if (auto cfg = timing::load_config(snap.config)) {
      snap.schedule = schedule_listing(*run.unit->program, *cfg, registers);
      snap.mma_lines = mma_lines(run.unit->program->module(), *cfg);
      snap.links = link_capacities(*cfg);
    }
    snap.sass = sass_listing(run.unit->ptx);
  }
  for (const lab::LaunchRecord& rec : run.launches) {
    snap.launches.push_back(launch_view(rec));
    if (rec.launch_index < exp.launches.size())
      snap.launches.back().group = exp.launches[rec.launch_index].group;
  }
  snap.checks = run.checks;
  for (const lab::HostBuffer& b : run.buffers) {
    BufferView v;
    v.name = b.name;
    v.type = std::string(lab::elem_type_name(b.type));
    v.count = b.count;
    v.is_integer = v.type[0] == 'i' || v.type[0] == 'u';
    const uint64_t n = std::min<uint64_t>(b.count, kMaxBufferValues);
    v.values.reserve(n);
    for (uint64_t i = 0; i < n; ++i) v.values.push_back(b.at(i));
    snap.buffers.push_back(std::move(v));
  }
  return finish();
}

std::vector<GroupTotals> group_totals(const RunSnapshot& run) {
  std::vector<GroupTotals> out;
  std::vector<bool> gpu_all, gpu_inst_all;
  for (const LaunchView& l : run.launches) {
    if (l.group.empty()) continue;
    size_t g = 0;
    while (g < out.size() && out[g].name != l.group) ++g;
    if (g == out.size()) {
      out.push_back({});
      out.back().name = l.group;
      gpu_all.push_back(true);
      gpu_inst_all.push_back(true);
    }
    GroupTotals& t = out[g];
    ++t.launches;
    if (l.timing) {
      t.sim_time_us += l.timing->time_us;
      const timing::MemoryTable& m = l.timing->memory;
      t.sim_dram_bytes += double(m.dram_bytes_read + m.dram_bytes_written);
      t.sim_read_bytes += double(m.dram_bytes_read);
      t.sim_written_bytes +=
          std::max(double(m.dram_bytes_written), double(m.l2_write_sectors) * 32);
      t.sim_warp_instructions += double(l.timing->stats.warp_instructions);
    }
    if (l.gpu && l.gpu->time_us)
      t.gpu_time_us = t.gpu_time_us.value_or(0) + *l.gpu->time_us;
    else
      gpu_all[g] = false;
    if (l.gpu && l.gpu->warp_instructions)
      t.gpu_warp_instructions = t.gpu_warp_instructions.value_or(0) + *l.gpu->warp_instructions;
    else
      gpu_inst_all[g] = false;
  }
  for (size_t g = 0; g < out.size(); ++g) {
    if (!gpu_all[g]) out[g].gpu_time_us.reset();
    if (!gpu_inst_all[g]) out[g].gpu_warp_instructions.reset();
  }
  return out;
}

}  // namespace warplab::app
