#include "lab/metrics_json.h"

#include <cmath>

namespace warplab::lab {
namespace {

using nlohmann::json;

json states_json(const timing::WarpStateCycles& s, bool skip_zero) {
  json j = json::object();
  for (int i = 0; i < timing::kWarpStateCount; ++i)
    if (!skip_zero || s[i])
      j[std::string(timing::warp_state_name(static_cast<timing::WarpState>(i)))] = s[i];
  return j;
}

uint64_t total(const timing::WarpStateCycles& s) {
  uint64_t t = 0;
  for (uint64_t v : s) t += v;
  return t;
}

double finite(double v) { return std::isfinite(v) ? v : 0; }

}  // namespace

json timing_json(const timing::TimingResult& r, const timing::GpuConfig& cfg,
                 const ptx::Module& module) {
  const timing::MemoryTable& m = r.memory;
  json j = json::object();
  j["mode"] = "timing";
  j["config"] = cfg.name;
  // The clock the launch ran at: lower than the preset's under tensor-core work (sm_clock.h).
  j["clock_mhz"] = r.clock_mhz > 0 ? r.clock_mhz : cfg.core.clock_mhz;
  j["preset_clock_mhz"] = cfg.core.clock_mhz;
  j["cycles"] = r.cycles;
  if (r.sampling.requested) {  // sampled simulation (sim/timing/sampling.h): never silent
    const timing::SamplingReport& sp = r.sampling;
    j["sampled"] = {{"applied", sp.applied},
                    {"detailed_fraction", sp.detailed_fraction()},
                    {"waves", sp.waves},
                    {"detailed_waves", sp.detailed_waves},
                    {"wave_blocks", sp.wave_blocks},
                    {"blocks", sp.blocks},
                    {"detailed_blocks", sp.detailed_blocks},
                    {"skipped_cycles", sp.skipped_cycles},
                    {"within_wave", sp.within_wave},
                    {"subset_sms", sp.subset_sms},
                    {"method", sp.method()}};
  }
  j["time_us"] = r.time_us;
  j["kernel_time_us"] = r.kernel_time_us;
  j["launch_overhead_us"] = cfg.core.launch_overhead_us;
  j["ipc"] = finite(r.ipc);
  j["gpu_ipc"] = finite(r.gpu_ipc);
  j["warp_instructions"] = r.stats.warp_instructions;
  json by_class = json::object();
  for (int c = 0; c < ptx::kInstClassCount; ++c)
    by_class[std::string(ptx::inst_class_name(static_cast<ptx::InstClass>(c)))] =
        r.stats.warp_by_class[c];
  j["instructions_by_class"] = by_class;
  const timing::Occupancy& o = r.occupancy;
  j["occupancy"] = {{"theoretical", o.theoretical},
                    {"achieved", finite(r.achieved_occupancy)},
                    {"waves", finite(r.waves)},
                    {"limiter", o.limiter},
                    {"blocks_per_sm", o.blocks_per_sm},
                    {"warps_per_block", o.warps_per_block},
                    {"registers_per_thread", r.registers_per_thread},
                    {"registers_per_warp", o.registers_per_warp},
                    {"shared_per_block", o.shared_per_block},
                    {"l1_bytes", r.l1_bytes},
                    {"limits",
                     {{"warps", o.limit_warps},
                      {"blocks", o.limit_blocks},
                      {"registers", o.limit_registers},
                      {"shared_memory", o.limit_shared}}}};
  // Warp states: every resident warp is in one state per cycle (warp-cycles).
  json ws = json::object();
  ws["total"] = states_json(r.warp_states, false);
  ws["warp_cycles"] = total(r.warp_states);
  json by_ptx = json::array();
  for (const auto& [line, s] : r.warp_states_by_ptx_line)
    if (total(s)) by_ptx.push_back({{"line", line}, {"states", states_json(s, true)}});
  ws["by_ptx_line"] = by_ptx;
  json by_src = json::array();
  for (const auto& [fl, s] : r.warp_states_by_src_line) {
    if (!total(s)) continue;
    std::string file;
    if (fl.first >= 0 && static_cast<size_t>(fl.first) < module.files.size())
      file = module.files[fl.first];
    by_src.push_back({{"file", file}, {"line", fl.second}, {"states", states_json(s, true)}});
  }
  ws["by_source_line"] = by_src;
  j["warp_states"] = ws;
  // Memory: the Nsight-style table.
  const double peak = r.peak_dram_bytes_per_second;
  j["memory"] = {{"global_load",
                  {{"requests", m.l1.global_ld_requests},
                   {"sectors", m.l1.global_ld_sectors},
                   {"sectors_per_request", finite(m.global_ld_sectors_per_request())},
                   {"l1_sector_hits", m.l1.global_ld_sector_hits}}},
                 {"global_store",
                  {{"requests", m.l1.global_st_requests},
                   {"sectors", m.l1.global_st_sectors},
                   {"sectors_per_request", finite(m.global_st_sectors_per_request())}}},
                 {"local", {{"requests", m.l1.local_requests}, {"sectors", m.l1.local_sectors}}},
                 {"atomic_requests", m.l1.atomic_requests},
                 {"l1_hit_rate", finite(m.l1_hit_rate())},
                 {"l2_hit_rate", finite(m.l2_hit_rate())},
                 {"l2_read_sector_hits", m.l2_read_sector_hits},
                 {"l2_read_sector_misses", m.l2_read_sector_misses},
                 {"l2_write_sectors", m.l2_write_sectors},
                 {"l2_atomic_requests", m.l2_atomic_requests},
                 {"dram_bytes_read", m.dram_bytes_read},
                 {"dram_bytes_written", m.dram_bytes_written},
                 {"dram_bytes_per_second", finite(r.dram_bytes_per_second)},
                 {"peak_dram_bytes_per_second", peak},
                 {"dram_pct_of_peak", peak > 0 ? 100 * r.dram_bytes_per_second / peak : 0.0},
                 {"shared",
                  {{"load_requests", m.l1.shared_ld_requests},
                   {"store_requests", m.l1.shared_st_requests},
                   {"load_wavefronts", m.l1.shared_ld_wavefronts},
                   {"store_wavefronts", m.l1.shared_st_wavefronts},
                   {"bank_conflicts", m.l1.shared_bank_conflicts}}}};
  // The keys the GPU's counters use (gpu/counters.h), for the side-by-side table.
  j["counters"] = {{"elapsed_cycles", r.cycles},
                   {"gpu_time_ns", r.kernel_time_us * 1000},
                   {"warp_instructions", r.stats.warp_instructions},
                   {"global_load_requests", m.l1.global_ld_requests},
                   {"global_load_sectors", m.l1.global_ld_sectors},
                   {"global_store_requests", m.l1.global_st_requests},
                   {"global_store_sectors", m.l1.global_st_sectors},
                   {"l1_hit_rate_pct", 100 * finite(m.l1_hit_rate())},
                   {"l2_hit_rate_pct", 100 * finite(m.l2_hit_rate())},
                   {"dram_bytes_read", m.dram_bytes_read},
                   {"dram_bytes_written", m.dram_bytes_written},
                   {"shared_bank_conflicts", m.l1.shared_bank_conflicts},
                   {"achieved_occupancy_pct", 100 * finite(r.achieved_occupancy)}};
  json metrics = json::object();
  for (const timing::Metric& mt : r.metrics()) metrics[mt.name] = finite(mt.value);
  j["metrics"] = metrics;
  return j;
}

json gpu_json(const gpu::GpuLaunchResult& r, const gpu::TimingOptions& t) {
  const gpu::TimingResult& tm = r.timing;
  json j{{"time_us", tm.median_us},
         {"min_us", tm.min_us},
         {"max_us", tm.max_us},
         {"mean_us", tm.mean_us},
         {"samples_us", tm.samples_us},
         {"warmup", tm.warmup},
         {"repeats", t.repeats},
         {"l2_flushed", tm.l2_flushed},
         {"buffers_restored", tm.buffers_restored},
         {"registers", r.attributes.registers_per_thread},
         {"static_shared_bytes", r.attributes.static_shared_bytes},
         {"local_bytes", r.attributes.local_bytes_per_thread}};
  const gpu::GpuCounters& c = r.counters;
  json cj{{"available", c.available}};
  if (!c.available) {
    cj["reason"] = c.reason;
  } else {
    cj["chip"] = c.chip;
    cj["passes"] = c.passes;
    cj["l2_flushed"] = c.l2_flushed;
    json values = json::object(), notes = json::object();
    std::optional<double> conflicts;
    for (const gpu::CounterValue& v : c.values) {
      if (v.value) {
        values[v.key] = *v.value;
        if (v.key.rfind("shared_bank_conflicts", 0) == 0)
          conflicts = conflicts.value_or(0) + *v.value;
      } else {
        values[v.key] = nullptr;
        notes[v.key] = v.note;
      }
    }
    if (conflicts) values["shared_bank_conflicts"] = *conflicts;
    cj["values"] = values;
    if (!notes.empty()) cj["notes"] = notes;
  }
  j["counters"] = cj;
  return j;
}

json compare_json(const std::string& buffer, const gpu::CompareResult& c,
                  const gpu::Tolerance& tol) {
  json worst = json::array();
  for (const gpu::Mismatch& m : c.worst)
    worst.push_back(
        {{"index", m.index}, {"gpu", m.gpu}, {"sim", m.sim}, {"abs_error", finite(m.abs_error)}});
  json j{{"buffer", buffer},
         {"passed", c.passed},
         {"elements", c.elements},
         {"mismatches", c.mismatches},
         {"max_abs_error", finite(c.max_abs_error)},
         {"max_ulp_error", c.max_ulp_error},
         {"tolerance", tol.exact ? json("bit-exact")
                                 : json{{"abs", tol.abs}, {"rel", tol.rel}, {"ulps", tol.ulps}}},
         {"worst", worst}};
  if (!c.size_note.empty()) j["note"] = c.size_note;
  return j;
}

std::vector<SideBySideRow> side_by_side_rows(const json& sim, const json& gpu,
                                             std::optional<uint64_t> warp_instructions) {
  auto num = [](const json& obj, const char* key) -> std::optional<double> {
    if (!obj.is_object() || !obj.contains(key) || !obj[key].is_number()) return std::nullopt;
    return obj[key].get<double>();
  };
  const json none = json::object();
  const json& sc = sim.contains("counters") ? sim["counters"] : none;
  const json& gc = gpu.contains("counters") && gpu["counters"].contains("values")
                       ? gpu["counters"]["values"]
                       : none;
  std::vector<SideBySideRow> rows;
  rows.push_back(
      {"time (events / model + launch)", "us", num(sim, "time_us"), num(gpu, "time_us")});
  rows.push_back({"kernel duration", "us", num(sim, "kernel_time_us"),
                  num(gc, "gpu_time_ns") ? std::optional<double>(*num(gc, "gpu_time_ns") / 1000)
                                         : std::nullopt});
  rows.push_back(
      {"cycles (elapsed)", "cycles", num(sc, "elapsed_cycles"), num(gc, "elapsed_cycles")});
  auto wi = num(sc, "warp_instructions");
  if (!wi && warp_instructions) wi = double(*warp_instructions);
  rows.push_back({"warp instructions", "inst", wi, num(gc, "warp_instructions")});
  const std::pair<const char*, const char*> keys[] = {
      {"global_load_requests", "global load requests"},
      {"global_load_sectors", "global load sectors"},
      {"global_store_requests", "global store requests"},
      {"global_store_sectors", "global store sectors"},
      {"l1_hit_rate_pct", "L1 hit rate"},
      {"l2_hit_rate_pct", "L2 hit rate"},
      {"dram_bytes_read", "DRAM bytes read"},
      {"dram_bytes_written", "DRAM bytes written"},
      {"shared_bank_conflicts", "shared bank conflicts"},
      {"achieved_occupancy_pct", "achieved occupancy"}};
  for (const auto& [k, label] : keys) {
    std::string unit = std::string(k).find("pct") != std::string::npos     ? "%"
                       : std::string(k).find("bytes") != std::string::npos ? "B"
                                                                           : "";
    rows.push_back({label, unit, num(sc, k), num(gc, k)});
  }
  return rows;
}

}  // namespace warplab::lab
