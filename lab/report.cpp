#include "lab/report.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <functional>
#include <sstream>

#include "lab/metrics_json.h"

namespace warplab::lab {
namespace {

using nlohmann::json;

json dim_json(const func::Dim3& d) { return json::array({d.x, d.y, d.z}); }
std::string dim_text(const func::Dim3& d) {
  return "(" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + ")";
}
json value_json(const Value& v) { return v.is_float ? json(v.f) : json(v.i); }

// JSON has no Inf/NaN; nlohmann writes them as null. Errors that are infinite become the string
// "inf" so a reader can tell them from "not computed".
json number_json(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

std::string fmt(double v) {
  char b[64];
  std::snprintf(b, sizeof b, "%.9g", v);
  return b;
}

std::string_view fault_kind_name(func::LaunchFault::Kind k) {
  switch (k) {
    case func::LaunchFault::Kind::OutOfBounds:
      return "out_of_bounds";
    case func::LaunchFault::Kind::Misaligned:
      return "misaligned";
    case func::LaunchFault::Kind::Trap:
      return "trap";
    case func::LaunchFault::Kind::InvalidAddress:
      return "invalid_address";
    case func::LaunchFault::Kind::Deadlock:
      return "deadlock";
    case func::LaunchFault::Kind::BadLaunch:
      return "bad_launch";
    case func::LaunchFault::Kind::Hang:
      return "hang";
    case func::LaunchFault::Kind::StackOverflow:
      return "stack_overflow";
  }
  return "unknown";
}

}  // namespace

std::string group_thousands(uint64_t v) {
  std::string s = std::to_string(v), out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (i && (s.size() - i) % 3 == 0) out += ',';
    out += s[i];
  }
  return out;
}

namespace {

double num(const json& j, const char* key, double dflt = 0) {
  return j.is_object() && j.contains(key) && j[key].is_number() ? j[key].get<double>() : dflt;
}

std::string printf_str(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

// 1234567 -> "1.23 MB"
std::string bytes_text(double v) {
  const char* units[] = {"B", "KB", "MB", "GB", "TB"};
  int u = 0;
  while (v >= 1000 && u < 4) v /= 1000, ++u;
  char b[64];
  std::snprintf(b, sizeof b, u ? "%.2f %s" : "%.0f %s", v, units[u]);
  return b;
}

// A value for a table cell: integers grouped, fractions with 3 significant decimals.
std::string cell(std::optional<double> v, const std::string& unit = "") {
  if (!v) return "n/a";
  if (unit == "%") return printf_str("%.1f%%", *v);
  if (unit == "us") return printf_str("%.2f", *v);
  if (std::fabs(*v - std::round(*v)) < 1e-9 && std::fabs(*v) < 1e18)
    return (*v < 0 ? "-" : "") + group_thousands(static_cast<uint64_t>(std::fabs(std::round(*v))));
  return printf_str("%.4g", *v);
}

std::string table(const std::vector<std::vector<std::string>>& rows, const std::string& indent,
                  size_t left_aligned = 1) {
  std::vector<size_t> w;
  for (const auto& r : rows)
    for (size_t c = 0; c < r.size(); ++c) {
      if (w.size() <= c) w.push_back(0);
      w[c] = std::max(w[c], r[c].size());
    }
  std::ostringstream o;
  for (const auto& r : rows) {
    o << indent;
    for (size_t c = 0; c < r.size(); ++c) {
      const std::string pad(w[c] - r[c].size(), ' ');
      o << (c ? "  " : "") << (c < left_aligned ? r[c] + pad : pad + r[c]);
    }
    o << "\n";
  }
  return o.str();
}

}  // namespace

std::string format_timing(const LaunchRecord& r) {
  const json& s = r.sim;
  std::ostringstream o;
  std::string sampled;
  if (s.contains("sampled") && s["sampled"].value("applied", false))
    sampled = ", sampled: " + printf_str("%.1f%%", 100 * num(s["sampled"], "detailed_fraction")) +
              (s["sampled"].value("within_wave", false) ? " of warp instructions in detail"
                                                        : " of blocks in detail");
  o << "    timing (" << s.value("config", std::string("?")) << sampled
    << "): " << group_thousands(static_cast<uint64_t>(num(s, "cycles")))
    << " cycles = " << printf_str("%.2f", num(s, "kernel_time_us")) << " us"
    << (num(s, "clock_mhz") > 0 && num(s, "preset_clock_mhz") > 0 &&
                num(s, "clock_mhz") != num(s, "preset_clock_mhz")
            ? " at " + printf_str("%.0f", num(s, "clock_mhz")) +
                  " MHz (the SM clock under tensor-core work)"
            : std::string())
    << " (+ "
    << printf_str("%.1f", num(s, "launch_overhead_us"))
    << " us launch = " << printf_str("%.2f", num(s, "time_us")) << " us)   IPC "
    << printf_str("%.2f", num(s, "ipc")) << " per SM (" << printf_str("%.1f", num(s, "gpu_ipc"))
    << " GPU-wide)\n";
  if (s.contains("sampled")) {
    const json& sp = s["sampled"];
    if (sp.value("within_wave", false))  // within waves: no wave ran whole in detail
      o << "    sampled: " << sp.value("waves", uint64_t{0}) << " wave"
        << (sp.value("waves", uint64_t{0}) == 1 ? "" : "s") << ", "
        << printf_str("%.1f%%", 100 * num(sp, "detailed_fraction"))
        << " of the warp instructions in detail; " << sp.value("method", std::string()) << "\n";
    else
      o << "    sampled: " << sp.value("detailed_waves", uint64_t{0}) << " of "
        << sp.value("waves", uint64_t{0}) << " waves in detail ("
        << printf_str("%.1f%%", 100 * num(sp, "detailed_fraction")) << " of the blocks); "
        << sp.value("method", std::string()) << "\n";
  }
  const json& occ = s["occupancy"];
  o << "    occupancy: theoretical " << printf_str("%.1f%%", 100 * num(occ, "theoretical")) << " ("
    << occ.value("blocks_per_sm", 0) << " blocks/SM, limited by "
    << occ.value("limiter", std::string("?")) << "), achieved "
    << printf_str("%.1f%%", 100 * num(occ, "achieved")) << ", waves "
    << printf_str("%.2f", num(occ, "waves")) << ", " << occ.value("registers_per_thread", 0)
    << " registers/thread, L1 " << occ.value("l1_bytes", int64_t{0}) / 1024 << " KiB\n";
  std::string classes;
  for (const auto& [k, v] : s["instructions_by_class"].items())
    if (v.is_number() && v.get<double>() > 0)
      classes += (classes.empty() ? "" : ", ") + k + " " + cell(v.get<double>());
  o << "    instructions by class: " << (classes.empty() ? "none" : classes) << "\n";
  // Warp states: the largest shares of warp-cycles.
  const json& total = s["warp_states"]["total"];
  const double all = num(s["warp_states"], "warp_cycles");
  std::vector<std::pair<double, std::string>> st;
  for (const auto& [k, v] : total.items())
    if (v.is_number() && v.get<double>() > 0) st.emplace_back(v.get<double>(), k);
  std::sort(st.rbegin(), st.rend());
  o << "    warp states (share of " << cell(all) << " warp-cycles):";
  for (size_t i = 0; i < st.size() && i < 6; ++i)
    o << (i ? "," : "") << " " << st[i].second << " "
      << printf_str("%.1f%%", all > 0 ? 100 * st[i].first / all : 0);
  o << "\n";
  const json& m = s["memory"];
  std::vector<std::vector<std::string>> rows = {{"memory", "requests", "sectors", "sectors/req"}};
  for (const char* k : {"global_load", "global_store"})
    rows.push_back({std::string(k) == "global_load" ? "global load" : "global store",
                    cell(num(m[k], "requests")), cell(num(m[k], "sectors")),
                    printf_str("%.2f", num(m[k], "sectors_per_request"))});
  o << table(rows, "    ");
  o << "    L1 hit rate " << printf_str("%.1f%%", 100 * num(m, "l1_hit_rate")) << "   L2 hit rate "
    << printf_str("%.1f%%", 100 * num(m, "l2_hit_rate")) << "   DRAM read "
    << bytes_text(num(m, "dram_bytes_read")) << ", written "
    << bytes_text(num(m, "dram_bytes_written")) << "\n    DRAM bandwidth "
    << printf_str("%.1f", num(m, "dram_bytes_per_second") / 1e9) << " GB/s achieved of "
    << printf_str("%.0f", num(m, "peak_dram_bytes_per_second") / 1e9) << " GB/s peak ("
    << printf_str("%.1f%%", num(m, "dram_pct_of_peak")) << ")\n";
  const json& sh = m["shared"];
  if (num(sh, "load_requests") + num(sh, "store_requests") > 0)
    o << "    shared: " << cell(num(sh, "load_requests")) << " load / "
      << cell(num(sh, "store_requests")) << " store requests, " << cell(num(sh, "load_wavefronts"))
      << " / " << cell(num(sh, "store_wavefronts")) << " wavefronts, "
      << cell(num(sh, "bank_conflicts")) << " bank conflicts\n";
  if (num(m, "atomic_requests") > 0)
    o << "    atomics: " << cell(num(m, "atomic_requests")) << " requests\n";
  if (s.contains("note")) o << "    note: " << s["note"].get<std::string>() << "\n";
  if (s.contains("trace_file"))
    o << "    trace written to " << s["trace_file"].get<std::string>()
      << (s.value("trace_truncated", false) ? " (detail truncated at the event limit)" : "")
      << "\n";
  return o.str();
}

std::string format_gpu(const LaunchRecord& r) {
  const json& g = r.gpu;
  std::ostringstream o;
  if (g.contains("error")) {
    o << "    GPU: launch failed: " << g["error"].get<std::string>() << "\n";
    return o.str();
  }
  if (g.contains("skipped")) {
    o << "    GPU: skipped (" << g["skipped"].get<std::string>() << ")\n";
    return o.str();
  }
  o << "    GPU: median " << printf_str("%.2f", num(g, "time_us")) << " us (min "
    << printf_str("%.2f", num(g, "min_us")) << ", max " << printf_str("%.2f", num(g, "max_us"))
    << ") over " << g.value("repeats", 0) << " timed launches after " << g.value("warmup", 0)
    << " warm-up" << (g.value("buffers_restored", false) ? ", buffers restored" : "")
    << (g.value("l2_flushed", false) ? ", L2 flushed before each" : ", warm L2")
    << "; " << g.value("registers", 0) << " registers/thread\n";
  const json& c = g["counters"];
  if (!c.value("available", false))
    o << "    GPU counters unavailable: " << c.value("reason", std::string("not requested"))
      << "\n";
  std::vector<std::vector<std::string>> rows = {{"metric", "simulator", "GPU", "sim/GPU"}};
  for (const SideBySideRow& row : side_by_side_rows(
           r.sim, g,
           r.stats ? std::optional<uint64_t>(r.stats->warp_instructions) : std::nullopt)) {
    if (!row.sim && !row.gpu) continue;
    std::string ratio = "-";
    if (row.sim && row.gpu && *row.gpu != 0 && row.unit != "%")
      ratio = printf_str("%.2f", *row.sim / *row.gpu);
    rows.push_back({row.metric + (row.unit.empty() || row.unit == "%" ? "" : " (" + row.unit + ")"),
                    cell(row.sim, row.unit), cell(row.gpu, row.unit), ratio});
  }
  o << table(rows, "    ");
  if (g.contains("compare")) {
    size_t differ = 0;
    for (const json& cb : g["compare"]) {
      if (cb.value("passed", true)) continue;
      ++differ;
      o << "    GPU vs simulator: buffer " << cb.value("buffer", std::string()) << ": "
        << cell(num(cb, "mismatches")) << " of " << cell(num(cb, "elements"))
        << " elements differ (max abs error " << printf_str("%.3g", num(cb, "max_abs_error"))
        << ", max ULP " << cell(num(cb, "max_ulp_error")) << ")\n";
      for (const json& w : cb["worst"])
        o << "      [" << w.value("index", 0) << "] gpu " << w.value("gpu", std::string())
          << "  sim " << w.value("sim", std::string()) << "\n";
    }
    if (!differ)
      o << "    GPU vs simulator: all " << g["compare"].size() << " buffers equal ("
        << (g.value("approximate_math", false)
                ? "within rel 1e-5 / 4 ULP / abs 1e-6: approximate math (ex2, tanh, rcp.approx "
                  "...) reached these buffers"
                : "bit-exact")
        << ")\n";
  }
  return o.str();
}

json fault_json(const func::LaunchFault& f) {
  char addr[32];
  std::snprintf(addr, sizeof addr, "0x%" PRIx64, f.address);
  return json{{"kind", fault_kind_name(f.kind)},
              {"kernel", f.kernel},
              {"block", dim_json(f.block)},
              {"thread", dim_json(f.thread)},
              {"address", addr},
              {"size", f.size},
              {"is_write", f.is_write},
              {"space", ptx::space_name(f.space)},
              {"ptx_line", f.ptx_line},
              {"src_file", f.src_file},
              {"src_line", f.src_line},
              {"message", f.message}};
}

json hazard_json(const func::Hazard& h) {
  char addr[32];
  std::snprintf(addr, sizeof addr, "0x%" PRIx64, h.address);
  json j{{"kind", func::hazard_kind_name(h.kind)},
         {"kernel", h.kernel},
         {"block", dim_json(h.block)},
         {"thread", dim_json(h.thread)},
         {"ptx_line", h.ptx_line},
         {"src_file", h.src_file},
         {"src_line", h.src_line},
         {"count", h.count},
         {"message", h.message}};
  if (h.kind == func::Hazard::Kind::RaceRAW || h.kind == func::Hazard::Kind::RaceWAR ||
      h.kind == func::Hazard::Kind::RaceWAW) {
    j["other_thread"] = dim_json(h.other_thread);
    j["other_ptx_line"] = h.other_ptx_line;
    j["other_src_file"] = h.other_src_file;
    j["other_src_line"] = h.other_src_line;
    j["address"] = addr;
    j["space"] = ptx::space_name(h.space);
  }
  return j;
}

json launch_json(const LaunchRecord& r, const ptx::Module* module) {
  json j{{"kernel", r.kernel},
         {"entry", r.entry},
         {"launch_index", r.launch_index},
         {"repeat_index", r.repeat_index},
         {"grid", dim_json(r.grid)},
         {"block", dim_json(r.block)},
         {"shared_bytes", r.shared_bytes},
         {"backend", r.backend},
         {"args", r.args}};
  if (!r.loop.empty()) {
    json lj = json::object();
    for (const auto& [name, v] : r.loop) lj[name] = v.is_float ? json(v.f) : json(v.i);
    j["loop"] = lj;  // the [[launches]] entry's `for` variables in this launch
  }
  if (r.stats) {
    const func::LaunchStats& s = *r.stats;
    j["warp_instructions"] = s.warp_instructions;
    j["thread_instructions"] = s.thread_instructions;
    j["blocks"] = s.blocks;
    j["warps"] = s.warps;
    j["threads"] = s.threads;
    json by_class = json::object(), thread_by_class = json::object();
    for (int c = 0; c < ptx::kInstClassCount; ++c) {
      std::string name(ptx::inst_class_name(static_cast<ptx::InstClass>(c)));
      by_class[name] = s.warp_by_class[c];
      thread_by_class[name] = s.thread_by_class[c];
    }
    j["instructions_by_class"] = by_class;
    j["thread_instructions_by_class"] = thread_by_class;
    json ptx_lines = json::array();
    for (const auto& [line, c] : s.by_ptx_line)
      ptx_lines.push_back({{"line", line},
                           {"warp_instructions", c.warp_instructions},
                           {"thread_instructions", c.thread_instructions}});
    j["by_ptx_line"] = ptx_lines;
    json src_lines = json::array();
    for (const auto& [fl, c] : s.by_src_line) {
      std::string file;
      if (module && fl.first >= 0 && static_cast<size_t>(fl.first) < module->files.size())
        file = module->files[fl.first];
      src_lines.push_back({{"file", file},
                           {"line", fl.second},
                           {"warp_instructions", c.warp_instructions},
                           {"thread_instructions", c.thread_instructions}});
    }
    j["by_source_line"] = src_lines;
  } else {
    j["warp_instructions"] = nullptr;
    j["thread_instructions"] = nullptr;
  }
  if (r.resources) {
    j["registers"] = r.resources->registers;
    j["resources_source"] = r.resources_source;
    if (r.resources_source == "gpu")
      j["barriers"] = nullptr;  // the driver does not report it
    else
      j["barriers"] = r.resources->barriers;
    j["static_shared_bytes"] = r.resources->static_shared_bytes;
    j["local_bytes"] = r.resources->local_bytes;
    j["const_bytes"] = r.resources->const_bytes;
    j["spill_store_bytes"] = r.resources->spill_store_bytes;
    j["spill_load_bytes"] = r.resources->spill_load_bytes;
  } else {
    j["registers"] = nullptr;
    j["static_shared_bytes"] = r.ptx_static_shared_bytes;
  }
  if (r.fault) j["fault"] = fault_json(*r.fault);
  json hz = json::array();
  for (const func::Hazard& h : r.hazards) hz.push_back(hazard_json(h));
  j["hazards"] = hz;
  if (!r.printf_output.empty()) j["printf"] = r.printf_output;
  j["sim"] = r.sim;
  if (!r.gpu.empty()) {
    j["gpu"] = r.gpu;
    j["gpu_failed"] = r.gpu_failed;
    j["backends_differ"] = r.backends_differ;
  }
  return j;
}

json check_json(const CheckResult& c) {
  json mm = json::array();
  for (const Mismatch& m : c.mismatches) {
    if (c.integer && c.unsigned_int)
      mm.push_back({{"index", m.index},
                    {"got", static_cast<uint64_t>(m.got_int)},
                    {"expected", static_cast<uint64_t>(m.expected_int)}});
    else if (c.integer)
      mm.push_back({{"index", m.index}, {"got", m.got_int}, {"expected", m.expected_int}});
    else
      mm.push_back(
          {{"index", m.index}, {"got", number_json(m.got)}, {"expected", number_json(m.expected)}});
  }
  json j{{"buffer", c.buffer},
         {"expected", c.expected},
         {"passed", c.passed},
         {"exact", c.exact},
         {"atol", c.atol},
         {"rtol", c.rtol},
         {"count", c.count},
         {"mismatch_count", c.mismatch_count},
         {"max_abs_error", number_json(c.max_abs_error)},
         {"max_rel_error", number_json(c.max_rel_error)},
         {"mismatches", mm}};
  if (!c.note.empty()) j["note"] = c.note;
  if (!c.bitwise_note.empty()) j["bitwise_note"] = c.bitwise_note;
  return j;
}

json experiment_json(const Experiment& exp, const ExperimentResult& result) {
  json j{{"schema", kRunSchema},
         {"experiment",
          {{"name", exp.name},
           {"file", exp.path},
           {"description", exp.description},
           {"source", exp.source}}},
         {"backend", result.backend},
         {"mode", result.mode},
         {"l2", result.l2}};
  if (!result.config.empty()) j["config"] = result.config;
  if (!result.gpu_info.empty()) j["gpu_device"] = result.gpu_info;
  json params = json::object();
  const Env env = exp.env();  // derived parameters evaluated
  for (const ParamDef& p : exp.params)
    params[p.name] = value_json(env.count(p.name) ? env.at(p.name) : p.value);
  j["params"] = params;
  json launches = json::array(), checks = json::array();
  auto add_run = [&](const RunResult& r, int row) {
    const ptx::Module* m = r.unit ? &r.unit->program->module() : nullptr;
    for (const LaunchRecord& l : r.launches) {
      json lj = launch_json(l, m);
      if (row >= 0) lj["sweep_row"] = row;
      launches.push_back(std::move(lj));
    }
    for (const CheckResult& c : r.checks) {
      json cj = check_json(c);
      if (row >= 0) cj["sweep_row"] = row;
      checks.push_back(std::move(cj));
    }
  };
  if (result.run) add_run(*result.run, -1);
  if (result.sweep) {
    json rows = json::array();
    for (size_t i = 0; i < result.sweep->runs.size(); ++i) {
      const RunResult& r = result.sweep->runs[i];
      add_run(r, static_cast<int>(i));
      json rp = json::object();
      for (const auto& [name, v] : r.params) rp[name] = value_json(v);
      json rl = json::array();
      for (const LaunchRecord& l : r.launches) {
        json e{{"kernel", l.kernel},
               {"grid", dim_json(l.grid)},
               {"block", dim_json(l.block)},
               {"warp_instructions", l.stats ? json(l.stats->warp_instructions) : json()},
               {"thread_instructions", l.stats ? json(l.stats->thread_instructions) : json()},
               {"faulted", l.fault.has_value()},
               {"hazards", l.hazards.size()},
               {"sim", l.sim}};
        if (!l.gpu.empty()) e["gpu"] = l.gpu;
        rl.push_back(std::move(e));
      }
      rows.push_back({{"params", rp}, {"passed", r.passed()}, {"launches", rl}});
    }
    j["sweep"] = {{"params", result.sweep->axes}, {"rows", rows}};
  }
  j["launches"] = launches;
  j["checks"] = checks;
  bool faulted = result.run ? result.run->faulted() : false;
  if (result.sweep)
    for (const RunResult& r : result.sweep->runs) faulted = faulted || r.faulted();
  j["faulted"] = faulted;
  const RunResult* first = result.run                                    ? &*result.run
                           : result.sweep && !result.sweep->runs.empty() ? &result.sweep->runs[0]
                                                                         : nullptr;
  j["synccheck"] = first && first->synccheck;
  j["racecheck"] = first && first->racecheck;
  uint64_t hazards = 0;
  auto count_hazards = [&](const RunResult& r) {
    for (const LaunchRecord& l : r.launches)
      for (const func::Hazard& h : l.hazards) hazards += h.count;
  };
  if (result.run) count_hazards(*result.run);
  if (result.sweep)
    for (const RunResult& r : result.sweep->runs) count_hazards(r);
  j["hazards"] = hazards;
  if (result.run) j["skipped_launches"] = result.run->skipped_launches;
  j["passed"] = result.passed();
  j["notes"] = result.notes;
  return j;
}

std::string format_fault(const LaunchRecord& r) {
  const func::LaunchFault& f = *r.fault;
  std::ostringstream o;
  char addr[32];
  std::snprintf(addr, sizeof addr, "0x%" PRIx64, f.address);
  o << "KERNEL FAULT in launch " << r.launch_index << " (" << r.kernel
    << "): " << fault_kind_name(f.kind);
  if (f.size) {
    o << ", " << (f.is_write ? "write" : "read") << " of " << f.size << " bytes";
    if (f.space != ptx::Space::None) o << " (" << ptx::space_name(f.space) << ")";
    o << " at " << addr;
  }
  o << "\n";
  if (!f.message.empty()) {  // the executor's full report (block, thread, PTX and CUDA lines)
    std::istringstream in(f.message);
    std::string line;
    while (std::getline(in, line)) o << "    " << line << "\n";
    return o.str();
  }
  o << "    block " << dim_text(f.block) << ", thread " << dim_text(f.thread) << "\n";
  o << "    PTX line " << f.ptx_line;
  if (!f.src_file.empty()) o << ", CUDA " << f.src_file << ":" << f.src_line;
  o << "\n";
  return o.str();
}

std::string format_hazards(const LaunchRecord& r) {
  std::ostringstream o;
  // The first reports in full; an unrolled loop can give dozens of PTX line pairs for one bug.
  constexpr size_t kShown = 8;
  uint64_t rest = 0;
  for (size_t i = kShown; i < r.hazards.size(); ++i) rest += r.hazards[i].count;
  for (size_t i = 0; i < r.hazards.size() && i < kShown; ++i) {
    const func::Hazard& h = r.hazards[i];
    const bool race = h.kind == func::Hazard::Kind::RaceRAW ||
                      h.kind == func::Hazard::Kind::RaceWAR ||
                      h.kind == func::Hazard::Kind::RaceWAW;
    o << (race ? "RACECHECK" : "SYNCCHECK") << " in launch " << r.launch_index << " (" << r.kernel
      << "): " << func::hazard_kind_name(h.kind) << ", " << group_thousands(h.count)
      << (h.count == 1 ? " hazard" : " hazards") << " (the first one seen:)\n";
    std::istringstream in(h.message);
    for (std::string line; std::getline(in, line);) o << "    " << line << "\n";
  }
  if (r.hazards.size() > kShown)
    o << "... and " << r.hazards.size() - kShown << " more hazard reports in launch "
      << r.launch_index << " (" << group_thousands(rest)
      << " hazards between other PTX lines; all are in --json)\n";
  return o.str();
}

std::string format_launch(const LaunchRecord& r) {
  std::ostringstream o;
  o << "launch " << r.launch_index;
  if (r.repeat_index) o << "." << r.repeat_index;
  for (const auto& [name, v] : r.loop) o << " " << name << "=" << v.to_string();
  o << "  " << r.kernel << "  grid " << dim_text(r.grid) << " block " << dim_text(r.block);
  if (r.shared_bytes) o << " dynamic shared " << r.shared_bytes << " B";
  o << "\n";
  if (r.stats)
    o << "    warp instructions " << group_thousands(r.stats->warp_instructions)
      << "   thread instructions " << group_thousands(r.stats->thread_instructions) << "\n";
  if (r.resources)
    o << "    registers " << r.resources->registers << "   static shared "
      << r.resources->static_shared_bytes << " B   local " << r.resources->local_bytes << " B"
      << (r.resources_source == "gpu"
              ? std::string("   (the driver's JIT: nvJitLink is not available)")
              : "   barriers " + std::to_string(r.resources->barriers))
      << "\n";
  if (!r.printf_output.empty()) {
    o << "    printf (simulator; lane order within a warp, warps in execution order):\n";
    std::istringstream lines(r.printf_output);
    for (std::string line; std::getline(lines, line);) o << "      | " << line << "\n";
  }
  if (r.sim.value("mode", "") == "timing") o << format_timing(r);
  if (r.sim.contains("skipped"))
    o << "    simulator: skipped (" << r.sim["skipped"].get<std::string>() << ")\n";
  if (!r.gpu.empty()) o << format_gpu(r);
  return o.str();
}

std::string format_check(const CheckResult& c, const std::string& path) {
  std::ostringstream o;
  o << "check " << c.buffer << " vs " << c.expected << ": " << (c.passed ? "PASS" : "FAIL");
  if (!c.note.empty()) {
    o << " (" << path << ":" << c.line << ": " << c.note << ")\n";
    return o.str();
  }
  o << "  (" << group_thousands(c.count) << " elements, "
    << (c.exact ? std::string("exact") : "atol " + fmt(c.atol) + " rtol " + fmt(c.rtol))
    << ", max abs error " << fmt(c.max_abs_error) << ", max rel error " << fmt(c.max_rel_error)
    << ")\n";
  if (!c.passed) {
    o << "    " << group_thousands(c.mismatch_count) << " element(s) differ; worst:\n";
    char b[160];
    std::snprintf(b, sizeof b, "    %12s  %18s  %18s\n", "index", "got", "expected");
    o << b;
    for (const Mismatch& m : c.mismatches) {
      if (c.integer && c.unsigned_int)
        std::snprintf(b, sizeof b, "    %12" PRIu64 "  %18" PRIu64 "  %18" PRIu64 "\n", m.index,
                      static_cast<uint64_t>(m.got_int), static_cast<uint64_t>(m.expected_int));
      else if (c.integer)
        std::snprintf(b, sizeof b, "    %12" PRIu64 "  %18" PRId64 "  %18" PRId64 "\n", m.index,
                      m.got_int, m.expected_int);
      else
        std::snprintf(b, sizeof b, "    %12" PRIu64 "  %18.9g  %18.9g\n", m.index, m.got,
                      m.expected);
      o << b;
    }
    if (!c.bitwise_note.empty()) o << "    " << c.bitwise_note << "\n";
  }
  return o.str();
}

std::string format_sweep_table(const SweepResult& s) {
  // Columns: swept parameters, then per launch its warp instructions and, when the timing model
  // ran, cycles, µs, global-load sectors per request, DRAM bandwidth and achieved occupancy; with
  // a GPU, its median µs and the ratio simulated / measured. Then the verdict.
  struct Col {
    std::string head;
    std::function<std::string(const LaunchRecord&)> get;
    size_t launch = 0;  // position in each run's launches
  };
  std::vector<Col> cols;
  const bool timing = !s.runs.empty() && !s.runs.front().launches.empty() &&
                      s.runs.front().launches.front().sim.value("mode", "") == "timing";
  bool gpu = false;
  for (const RunResult& r : s.runs)
    for (const LaunchRecord& l : r.launches) gpu = gpu || l.gpu.contains("time_us");
  auto metric = [](const char* obj, const char* key) {
    return [=](const LaunchRecord& l) -> std::optional<double> {
      const json& o = obj ? l.sim.value(obj, json::object()) : l.sim;
      if (!o.is_object() || !o.contains(key) || !o[key].is_number()) return std::nullopt;
      return o[key].get<double>();
    };
  };
  const size_t per_run = s.runs.empty() ? 0 : s.runs.front().launches.size();
  for (size_t i = 0; i < per_run; ++i) {
    const LaunchRecord& l = s.runs.front().launches[i];
    const std::string tag = "L" + std::to_string(l.launch_index) +
                            (l.repeat_index ? "." + std::to_string(l.repeat_index) : "") + " " +
                            (per_run > 1 ? l.kernel + " " : "");
    const size_t before = cols.size();
    cols.push_back(
        {tag + (per_run > 1 ? "" : l.kernel + " ") + "warp_inst", [](const LaunchRecord& l) {
           return l.stats ? group_thousands(l.stats->warp_instructions) : std::string("-");
         }});
    if (timing) {
      auto cycles = metric(nullptr, "cycles");
      auto us = metric(nullptr, "time_us");
      auto spr = [](const LaunchRecord& l) -> std::optional<double> {
        const json m = l.sim.value("memory", json::object());
        if (!m.contains("global_load")) return std::nullopt;
        return num(m["global_load"], "sectors_per_request");
      };
      auto bw = metric("memory", "dram_bytes_per_second");
      auto occ = metric("occupancy", "achieved");
      cols.push_back({tag + "cycles", [=](const LaunchRecord& l) { return cell(cycles(l)); }});
      cols.push_back({tag + "sim_us", [=](const LaunchRecord& l) { return cell(us(l), "us"); }});
      cols.push_back({tag + "ld_sect/req", [=](const LaunchRecord& l) {
                        auto v = spr(l);
                        return v ? printf_str("%.2f", *v) : std::string("-");
                      }});
      cols.push_back({tag + "DRAM_GB/s", [=](const LaunchRecord& l) {
                        auto v = bw(l);
                        return v ? printf_str("%.0f", *v / 1e9) : std::string("-");
                      }});
      cols.push_back({tag + "occ", [=](const LaunchRecord& l) {
                        auto v = occ(l);
                        return v ? printf_str("%.0f%%", 100 * *v) : std::string("-");
                      }});
    }
    if (gpu) {
      cols.push_back({tag + "gpu_us", [](const LaunchRecord& l) {
                        return l.gpu.contains("time_us") ? cell(num(l.gpu, "time_us"), "us")
                                                         : std::string("-");
                      }});
      if (timing)
        cols.push_back({tag + "sim/gpu", [](const LaunchRecord& l) {
                          const double g = num(l.gpu, "time_us");
                          return g > 0 && l.sim.contains("time_us")
                                     ? printf_str("%.2f", num(l.sim, "time_us") / g)
                                     : std::string("-");
                        }});
    }
    for (size_t c = before; c < cols.size(); ++c) cols[c].launch = i;
  }
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> head = s.axes;
  for (const Col& c : cols) head.push_back(c.head);
  head.push_back("result");
  rows.push_back(head);
  for (const RunResult& r : s.runs) {
    std::vector<std::string> row;
    for (const std::string& a : s.axes)
      for (const auto& [name, v] : r.params)
        if (name == a) row.push_back(v.to_string());
    for (size_t c = 0; c < cols.size(); ++c) {
      const size_t li = cols[c].launch;
      row.push_back(li < r.launches.size() ? cols[c].get(r.launches[li]) : "-");
    }
    row.resize(head.size() - 1, "-");
    bool differ = false, gpu_failed = false;
    for (const LaunchRecord& l : r.launches) {
      differ = differ || l.backends_differ;
      gpu_failed = gpu_failed || l.gpu_failed;
    }
    row.push_back(r.faulted()        ? "FAULT"
                  : r.has_hazards()  ? "HAZARD"
                  : gpu_failed       ? "GPU-FAIL"
                  : differ           ? "DIFFER"
                  : !r.passed()      ? "FAIL"
                  : r.checks.empty() ? "done"  // nothing was compared: not a pass
                                     : "pass");
    rows.push_back(std::move(row));
  }
  return table(rows, "", 0);
}

std::string format_head(const Experiment& exp, const ExperimentResult& result) {
  std::ostringstream o;
  o << exp.name << " (" << exp.path << ")  backend " << result.backend;
  if (result.backend != "gpu") o << ", mode " << result.mode;
  if (!result.config.empty()) o << ", config " << result.config;
  const bool timed = result.backend != "sim" || result.mode == "timing";
  if (timed) o << ", L2 " << result.l2;
  o << "\n";
  if (timed)
    o << (result.l2 == "cold"
              ? "  L2 cold: every timed launch starts with an empty L2 (GPU: flushed before each; "
                "simulator: empty at each launch); --l2 warm times after warm-up launches\n"
              : "  L2 warm: every timed launch follows untimed ones of the same kernel (GPU: "
                "--gpu-warmup of them; simulator: one, device memory restored after it)\n");
  if (!result.gpu_device.empty()) {
    o << "  GPU: " << result.gpu_device;
    if (result.gpu_info.contains("launch_overhead_us"))
      o << " (empty-kernel launch "
        << printf_str("%.2f", num(result.gpu_info["launch_overhead_us"], "empty_kernel")) << " us)";
    o << "\n";
  }
  if (!exp.description.empty()) o << "  " << exp.description << "\n";
  return o.str();
}

std::string format_launch_report(const LaunchRecord& l) {
  std::string s = format_launch(l);
  if (l.fault) s += format_fault(l);
  return s + format_hazards(l);
}

namespace {

std::string params_line(const std::vector<std::pair<std::string, Value>>& ps) {
  std::string s;
  for (const auto& [n, v] : ps) s += (s.empty() ? "" : " ") + n + "=" + v.to_string();
  return s;
}

// What did not run after a fault, and what was checked.
std::string format_run_end(const Experiment& exp, const RunResult& r) {
  std::ostringstream o;
  if (!r.skipped_launches.empty()) {
    o << "skipped after the fault (they would read a half-written state): ";
    for (size_t i = 0; i < r.skipped_launches.size(); ++i) {
      const size_t li = r.skipped_launches[i];
      o << (i ? ", " : "") << "launch " << li;
      if (li < exp.launches.size()) o << " (" << exp.launches[li].kernel << ")";
      if (!r.launches.empty() && r.launches.back().launch_index == li) o << " remaining repeats";
    }
    o << "\n";
  }
  for (const CheckResult& c : r.checks) o << format_check(c, exp.path);
  return o.str();
}

}  // namespace

std::string format_tail(const Experiment& exp, const ExperimentResult& result,
                        bool launches_printed) {
  std::ostringstream o;
  auto print_run = [&](const RunResult& r, bool launches) {
    if (launches) {
      if (!r.params.empty()) o << "params: " << params_line(r.params) << "\n";
      if (r.unit && !r.unit->compile_log.empty()) o << "compiler: " << r.unit->compile_log << "\n";
      for (const LaunchRecord& l : r.launches) o << format_launch_report(l);
    }
    o << format_run_end(exp, r);
  };
  if (result.run) print_run(*result.run, !launches_printed);
  if (result.sweep) {
    o << "sweep over " << result.sweep->axes.size() << " parameter(s), "
      << result.sweep->runs.size() << " runs:\n";
    o << format_sweep_table(*result.sweep);
    for (const RunResult& r : result.sweep->runs)
      if (!r.passed()) {
        o << "\nfailed run: " << params_line(r.params) << "\n";
        print_run(r, true);
      }
  }
  for (const std::string& n : result.notes) o << "note: " << n << "\n";
  // The verdict says what was checked: no checks is not a pass.
  const RunResult* first = result.run                                    ? &*result.run
                           : result.sweep && !result.sweep->runs.empty() ? &result.sweep->runs[0]
                                                                         : nullptr;
  std::string checkers;
  if (first && first->synccheck) checkers = "synccheck";
  if (first && first->racecheck)
    checkers += std::string(checkers.empty() ? "" : ", ") + "racecheck";
  bool any_check = false;
  if (result.run) any_check = !result.run->checks.empty();
  if (result.sweep)
    for (const RunResult& r : result.sweep->runs) any_check = any_check || !r.checks.empty();
  if (!result.passed())
    o << "FAILED\n";
  else if (any_check)
    o << "PASSED" << (checkers.empty() ? "" : " (" + checkers + ": no hazards)") << "\n";
  else
    o << "DONE (no checks: the results were not compared with anything"
      << (checkers.empty() ? "" : "; " + checkers + ": no hazards") << ")\n";
  return o.str();
}

std::string format_summary(const Experiment& exp, const ExperimentResult& result) {
  return format_head(exp, result) + format_tail(exp, result, false);
}

}  // namespace warplab::lab
