#include "ui/app/model/run_snapshot.h"

#include <chrono>
#include <filesystem>
#include <sstream>

#include "gpu/backend.h"
#include "lab/args.h"
#include "lab/buffers.h"
#include "lab/compile.h"
#include "lab/runner.h"
#include "sim/func/memory.h"
#include "sim/timing/config.h"
#include "ui/app/model/lesson_catalog.h"

namespace warplab::app {

namespace {

// The source file's index in the module's .file table: the entry with the same file name.
int32_t find_source_file(const ptx::Module& m, const std::string& source) {
  const std::string want = std::filesystem::path(source).filename().string();
  for (size_t i = 0; i < m.files.size(); ++i)
    if (!m.files[i].empty() && std::filesystem::path(m.files[i]).filename().string() == want)
      return static_cast<int32_t>(i);
  return -1;
}

std::string probe_gpu() {
  auto gpu = gpu::Backend::open();
  if (!gpu) return "real GPU: not available (" + gpu.error().message + ")";
  return "real GPU: " + gpu->device().name +
         " found, but the lab runner does not hand GPU times to the app yet (warplab run "
         "--backend gpu)";
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
  const lab::Experiment& exp = req.experiment;
  RunSnapshot snap;
  snap.experiment_path = exp.path;
  snap.experiment_name = exp.name;
  snap.config = req.config.empty() ? "h100-sxm" : req.config;
  snap.source_path = exp.source;
  {
    std::istringstream in(read_file_text(exp.source));
    for (std::string line; std::getline(in, line);) snap.source_lines.push_back(line);
  }
  for (const lab::ParamDef& p : exp.params) snap.params.emplace_back(p.name, p.value.to_string());
  if (!exp.sweep.empty())
    snap.notes.push_back("this experiment has a [sweep]; the app runs the current parameter "
                         "values only (warplab run runs every point)");
  auto finish = [&]() -> RunSnapshot {
    snap.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (req.probe_gpu) snap.gpu_note = probe_gpu();
    return std::move(snap);
  };

  // 1. Compile (NVRTC) and load the PTX into the simulator; resource usage from nvJitLink.
  lab::Toolchain toolchain;
  lab::RunOptions ro;
  lab::Runner runner(toolchain, ro);
  const lab::Env env = exp.env();
  auto unit = runner.compile(exp, env);
  if (!unit) {
    snap.error = unit.error().to_string();
    return finish();
  }
  if (!(*unit)->resources_note.empty()) snap.notes.push_back((*unit)->resources_note);
  const func::Program& program = *(*unit)->program;
  const ptx::Module& module = program.module();
  snap.source_file_index = find_source_file(module, exp.source);
  for (const ptx::Function& f : module.functions)
    for (const ptx::Instruction& in : f.instructions) {
      snap.ptx_text[in.ptx_line] = in.text;
      if (in.user_loc.file == snap.source_file_index && in.user_loc.line > 0)
        snap.ptx_to_src[in.ptx_line] = in.user_loc.line;
    }

  // 2. Buffers with their initial contents, in simulated device memory.
  auto buffers = lab::make_buffers(exp, env);
  if (!buffers) {
    snap.error = buffers.error().to_string();
    return finish();
  }
  func::DeviceMemory memory;
  std::vector<uint64_t> addresses;
  for (const lab::HostBuffer& b : *buffers) {
    const uint64_t addr = memory.allocate(b.name, b.bytes.size());
    if (!b.bytes.empty())
      if (auto s = memory.write(addr, b.bytes.data(), b.bytes.size()); !s) {
        snap.error = s.error().to_string();
        return finish();
      }
    addresses.push_back(addr);
  }
  auto config = timing::load_config(snap.config);
  if (!config) {
    snap.error = config.error().to_string();
    return finish();
  }

  // 3. The launches in file order, each `repeat` times, in the timing model with the trace on.
  bool stop = false;
  for (size_t i = 0; i < exp.launches.size() && !stop; ++i) {
    const lab::LaunchDef& l = exp.launches[i];
    auto kernel = lab::find_kernel(module, l.kernel);
    if (!kernel) {
      snap.error = kernel.error().to_string();
      return finish();
    }
    auto bound = lab::bind_launch(exp, i, **kernel, env, addresses);
    if (!bound) {
      snap.error = bound.error().to_string();
      return finish();
    }
    for (int64_t r = 0; r < bound->repeat && !stop; ++r) {
      LaunchView v;
      v.kernel = l.kernel;
      v.entry = (*kernel)->name;
      v.grid = bound->config.grid;
      v.block = bound->config.block;
      if ((*unit)->resources)
        if (const lab::KernelResources* kr = (*unit)->resources->find(v.entry))
          v.registers = kr->registers;
      timing::TimingOptions opt;
      opt.registers_per_thread = v.registers;
      opt.trace.enabled = true;
      opt.trace.sms = {req.trace_sm};
      opt.trace.max_events = req.max_trace_events;
      const auto l0 = std::chrono::steady_clock::now();
      auto res = timing::run_timing(program, memory, bound->config, *config, opt);
      v.sim_wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - l0).count();
      if (!res) {
        v.error = res.error().to_string();
        stop = true;
      } else {
        stop = res->fault.has_value();
        v.timing = std::move(*res);
      }
      snap.launches.push_back(std::move(v));
    }
  }

  // 4. Read back and check.
  for (size_t i = 0; i < buffers->size(); ++i) {
    lab::HostBuffer& b = (*buffers)[i];
    if (!b.bytes.empty())
      if (auto s = memory.read(addresses[i], b.bytes.data(), b.bytes.size()); !s) {
        snap.error = s.error().to_string();
        return finish();
      }
  }
  snap.checks = lab::run_checks(exp, *buffers);
  return finish();
}

}  // namespace warplab::app
