#include "lab/report.h"

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <sstream>

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
  j["sim"] = r.sim;
  if (!r.gpu.empty()) j["gpu"] = r.gpu;
  return j;
}

json check_json(const CheckResult& c) {
  json mm = json::array();
  for (const Mismatch& m : c.mismatches)
    mm.push_back(
        {{"index", m.index}, {"got", number_json(m.got)}, {"expected", number_json(m.expected)}});
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
         {"mode", result.mode}};
  json params = json::object();
  for (const ParamDef& p : exp.params) params[p.name] = value_json(p.value);
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

std::string format_launch(const LaunchRecord& r) {
  std::ostringstream o;
  o << "launch " << r.launch_index;
  if (r.repeat_index) o << "." << r.repeat_index;
  o << "  " << r.kernel << "  grid " << dim_text(r.grid) << " block " << dim_text(r.block);
  if (r.shared_bytes) o << " dynamic shared " << r.shared_bytes << " B";
  o << "\n";
  if (r.stats)
    o << "    warp instructions " << group_thousands(r.stats->warp_instructions)
      << "   thread instructions " << group_thousands(r.stats->thread_instructions) << "\n";
  if (r.resources)
    o << "    registers " << r.resources->registers << "   static shared "
      << r.resources->static_shared_bytes << " B   local " << r.resources->local_bytes
      << " B   barriers " << r.resources->barriers << "\n";
  for (const auto& [k, v] : r.sim.items())
    if (k != "wall_s" && k != "mode" && v.is_primitive())
      o << "    " << k << " " << v.dump() << "\n";
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
      std::snprintf(b, sizeof b, "    %12" PRIu64 "  %18.9g  %18.9g\n", m.index, m.got, m.expected);
      o << b;
    }
  }
  return o.str();
}

std::string format_sweep_table(const SweepResult& s) {
  // Columns: swept parameters, then per launch its warp instructions (and any numeric sim
  // metric the timing model adds: cycles, time_us), then the verdict.
  std::vector<std::string> head = s.axes;
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> extra_keys = {"cycles", "time_us"};
  if (!s.runs.empty())
    for (const LaunchRecord& l : s.runs.front().launches) {
      std::string tag = "L" + std::to_string(l.launch_index) +
                        (l.repeat_index ? "." + std::to_string(l.repeat_index) : "") + " " +
                        l.kernel;
      head.push_back(tag + " warp_inst");
      for (const std::string& k : extra_keys)
        if (l.sim.contains(k)) head.push_back(tag + " " + k);
    }
  head.push_back("result");
  for (const RunResult& r : s.runs) {
    std::vector<std::string> row;
    for (const std::string& a : s.axes)
      for (const auto& [name, v] : r.params)
        if (name == a) row.push_back(v.to_string());
    for (const LaunchRecord& l : r.launches) {
      row.push_back(l.stats ? group_thousands(l.stats->warp_instructions) : "-");
      for (const std::string& k : extra_keys)
        if (l.sim.contains(k)) row.push_back(l.sim[k].dump());
    }
    row.resize(head.size() - 1, "-");
    row.push_back(r.faulted() ? "FAULT" : r.passed() ? "pass" : "FAIL");
    rows.push_back(std::move(row));
  }
  std::vector<size_t> w(head.size(), 0);
  for (size_t c = 0; c < head.size(); ++c) {
    w[c] = head[c].size();
    for (const auto& row : rows) w[c] = std::max(w[c], row[c].size());
  }
  std::ostringstream o;
  auto line = [&](const std::vector<std::string>& cells) {
    for (size_t c = 0; c < cells.size(); ++c)
      o << (c ? "  " : "") << std::string(w[c] - cells[c].size(), ' ') << cells[c];
    o << "\n";
  };
  line(head);
  for (const auto& row : rows) line(row);
  return o.str();
}

std::string format_summary(const Experiment& exp, const ExperimentResult& result) {
  std::ostringstream o;
  o << exp.name << " (" << exp.path << ")  backend " << result.backend << ", mode " << result.mode
    << "\n";
  if (!exp.description.empty()) o << "  " << exp.description << "\n";
  auto params_line = [](const std::vector<std::pair<std::string, Value>>& ps) {
    std::string s;
    for (const auto& [n, v] : ps) s += (s.empty() ? "" : " ") + n + "=" + v.to_string();
    return s;
  };
  auto print_run = [&](const RunResult& r) {
    if (!r.params.empty()) o << "params: " << params_line(r.params) << "\n";
    if (r.unit && !r.unit->compile_log.empty()) o << "compiler: " << r.unit->compile_log << "\n";
    for (const LaunchRecord& l : r.launches) {
      o << format_launch(l);
      if (l.fault) o << format_fault(l);
    }
    for (const CheckResult& c : r.checks) o << format_check(c, exp.path);
  };
  if (result.run) print_run(*result.run);
  if (result.sweep) {
    o << "sweep over " << result.sweep->axes.size() << " parameter(s), "
      << result.sweep->runs.size() << " runs:\n";
    o << format_sweep_table(*result.sweep);
    for (const RunResult& r : result.sweep->runs)
      if (!r.passed()) {
        o << "\nfailed run: " << params_line(r.params) << "\n";
        print_run(r);
      }
  }
  for (const std::string& n : result.notes) o << "note: " << n << "\n";
  o << (result.passed() ? "PASSED" : "FAILED") << "\n";
  return o.str();
}

}  // namespace warplab::lab
