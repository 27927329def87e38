#include "lab/line_stalls.h"

#include <algorithm>
#include <array>
#include <fstream>
#include <sstream>

#include "sim/timing/gpu_model.h"

namespace warplab::lab {
namespace {

using nlohmann::json;

constexpr std::string_view kCuptiPrefix = "smsp__pcsamp_warps_issue_stalled_";
constexpr std::string_view kNotIssued = "_not_issued";

// CUPTI's reason tails (after kCuptiPrefix) that mean what a model warp state means. The tails
// missing here (dispatch_stall, imc_miss, misc, sleeping, tex_throttle, gmma, ...) have no model
// state and keep their CUPTI names.
struct ReasonPair {
  std::string_view cupti_tail;
  timing::WarpState state;
};
constexpr std::array<ReasonPair, 13> kReasonPairs = {{
    {"selected", timing::WarpState::Selected},
    {"not_selected", timing::WarpState::NotSelected},
    {"long_scoreboard", timing::WarpState::LongScoreboard},
    {"short_scoreboard", timing::WarpState::ShortScoreboard},
    {"wait", timing::WarpState::Wait},
    {"math_pipe_throttle", timing::WarpState::MathPipeThrottle},
    {"lg_throttle", timing::WarpState::LgThrottle},
    {"mio_throttle", timing::WarpState::MioThrottle},
    {"barrier", timing::WarpState::Barrier},
    {"branch_resolving", timing::WarpState::BranchResolving},
    {"no_instructions", timing::WarpState::NoInstruction},
    {"drain", timing::WarpState::Drain},
    {"membar", timing::WarpState::Membar},
}};

bool ends_with(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

json mix_json(const StallMix& m) {
  json j = json::object();
  for (const auto& [k, v] : m)
    if (v) j[k] = v;
  return j;
}

std::vector<std::pair<int32_t, std::pair<std::string, int32_t>>> ptx_to_source(
    const ptx::Module& module) {
  std::vector<std::pair<int32_t, std::pair<std::string, int32_t>>> out;
  for (const ptx::Function& f : module.functions)
    for (const ptx::Instruction& i : f.instructions) {
      if (i.user_loc.line <= 0) continue;
      std::string file;
      if (i.user_loc.file >= 0 && static_cast<size_t>(i.user_loc.file) < module.files.size())
        file = module.files[i.user_loc.file];
      out.push_back({i.ptx_line, {file, i.user_loc.line}});
    }
  return out;
}

// Sorted, zero-free rows from maps.
void fill_rows(KernelLineStalls& k, const std::map<int32_t, StallMix>& by_ptx,
               const std::map<std::pair<std::string, int32_t>, StallMix>& by_src) {
  for (const auto& [line, m] : by_ptx)
    if (line > 0 && mix_total(m)) k.by_ptx_line.push_back({line, m});
  for (const auto& [fl, m] : by_src)
    if (mix_total(m)) k.by_source_line.push_back({fl.first, fl.second, m});
}

// JSON reading with errors that name the path inside the document.
struct Reader {
  std::string where;
  Error error(const std::string& path, const std::string& what) const {
    return Error{where, 0, path + ": expected " + what};
  }
  Expected<std::string> str(const json& j, const char* key, const std::string& path,
                            bool required = false) const {
    if (!j.contains(key)) {
      if (required) return error(path + "." + key, "a string (missing)");
      return std::string();
    }
    if (!j[key].is_string()) return error(path + "." + key, "a string");
    return j[key].get<std::string>();
  }
  Expected<uint64_t> count(const json& j, const std::string& path) const {
    if (!j.is_number_unsigned() && !(j.is_number_integer() && j.get<int64_t>() >= 0))
      return error(path, "a non-negative integer");
    return j.get<uint64_t>();
  }
  Expected<int32_t> line(const json& j, const std::string& path) const {
    if (!j.is_number_integer() || j.get<int64_t>() < 0 || j.get<int64_t>() > INT32_MAX)
      return error(path, "a line number (integer >= 0)");
    return static_cast<int32_t>(j.get<int64_t>());
  }
  Expected<StallMix> mix(const json& j, const std::string& path) const {
    if (!j.is_object()) return error(path, "an object of reason: count");
    StallMix m;
    for (const auto& [k, v] : j.items()) {
      auto c = count(v, path + "." + k);
      if (!c) return c.error();
      if (*c) m[k] = *c;
    }
    return m;
  }
};

}  // namespace

uint64_t mix_total(const StallMix& m) {
  uint64_t t = 0;
  for (const auto& [k, v] : m) t += v;
  return t;
}

std::string mix_top(const StallMix& m) {
  std::string best;
  uint64_t most = 0;
  for (const auto& [k, v] : m)
    if (v > most) {
      most = v;
      best = k;
    }
  return best;
}

void mix_add(StallMix& a, const StallMix& b) {
  for (const auto& [k, v] : b)
    if (v) a[k] += v;
}

const StallMix* KernelLineStalls::source_line(const std::string& file, int32_t line) const {
  for (const SourceLineStalls& s : by_source_line)
    if (s.line == line && s.file == file) return &s.mix;
  return nullptr;
}

const StallMix* KernelLineStalls::ptx_line(int32_t line) const {
  for (const PtxLineStalls& p : by_ptx_line)
    if (p.line == line) return &p.mix;
  return nullptr;
}

const KernelLineStalls* LineStalls::kernel(std::string_view name, int launch) const {
  for (const KernelLineStalls& k : kernels)
    if (k.kernel == name && (launch < 0 || k.launch == launch)) return &k;
  return nullptr;
}

std::string model_reason_for_cupti(std::string_view cupti_name) {
  std::string_view tail = cupti_name;
  if (tail.substr(0, kCuptiPrefix.size()) == kCuptiPrefix) tail.remove_prefix(kCuptiPrefix.size());
  for (const ReasonPair& p : kReasonPairs)
    if (tail == p.cupti_tail) return std::string(timing::warp_state_name(p.state));
  return std::string(cupti_name);
}

bool is_cupti_not_issued_reason(std::string_view cupti_name) {
  return ends_with(cupti_name, kNotIssued);
}

KernelLineStalls kernel_stalls_from_timing(const timing::TimingResult& r, const ptx::Module& module,
                                           const std::string& kernel, int launch) {
  KernelLineStalls k;
  k.kernel = kernel;
  k.launch = launch;
  auto to_mix = [](const timing::WarpStateCycles& c) {
    StallMix m;
    for (int s = 0; s < timing::kWarpStateCount; ++s)
      if (c[s]) m[std::string(timing::warp_state_name(static_cast<timing::WarpState>(s)))] = c[s];
    return m;
  };
  k.total = to_mix(r.warp_states);
  std::map<int32_t, StallMix> by_ptx;
  for (const auto& [line, c] : r.warp_states_by_ptx_line) by_ptx[line] = to_mix(c);
  std::map<std::pair<std::string, int32_t>, StallMix> by_src;
  for (const auto& [fl, c] : r.warp_states_by_src_line) {
    std::string file;
    if (fl.first >= 0 && static_cast<size_t>(fl.first) < module.files.size())
      file = module.files[fl.first];
    mix_add(by_src[{file, fl.second}], to_mix(c));
  }
  // A warp that has exited and waits for its stores to drain has no instruction left, so the
  // model charges those cycles to no line. The GPU's sampler reports them at the warp's EXIT.
  // When the kernel has exactly one ret/exit, that is where every warp ended: charge them there.
  StallMix off_lines = k.total;
  for (const auto& [line, m] : by_ptx)
    for (const auto& [r, v] : m) off_lines[r] -= std::min(off_lines[r], v);
  const ptx::Function* fn = module.find_function(kernel);
  const ptx::Instruction* only_exit = nullptr;
  int exits = 0;
  if (fn)
    for (const ptx::Instruction& i : fn->instructions)
      if (i.op == ptx::Opcode::Ret || i.op == ptx::Opcode::Exit) {
        ++exits;
        only_exit = &i;
      }
  const std::string drain(timing::warp_state_name(timing::WarpState::Drain));
  if (exits == 1 && off_lines[drain] > 0) {
    const uint64_t d = off_lines[drain];
    by_ptx[only_exit->ptx_line][drain] += d;
    if (only_exit->user_loc.line > 0) {
      std::string file;
      if (only_exit->user_loc.file >= 0 &&
          static_cast<size_t>(only_exit->user_loc.file) < module.files.size())
        file = module.files[only_exit->user_loc.file];
      by_src[{file, only_exit->user_loc.line}][drain] += d;
    }
  }
  fill_rows(k, by_ptx, by_src);
  uint64_t on_lines = 0;
  for (const PtxLineStalls& p : k.by_ptx_line) on_lines += mix_total(p.mix);
  k.unmapped = mix_total(k.total) - std::min(on_lines, mix_total(k.total));
  return k;
}

KernelLineStalls kernel_stalls_from_ptx_lines(const std::map<int32_t, StallMix>& ptx_samples,
                                              const ptx::Module& module, const std::string& kernel,
                                              int launch) {
  KernelLineStalls k;
  k.kernel = kernel;
  k.launch = launch;
  std::map<int32_t, std::pair<std::string, int32_t>> src_of;
  for (const auto& [ptx_line, fl] : ptx_to_source(module)) src_of.emplace(ptx_line, fl);
  std::map<std::pair<std::string, int32_t>, StallMix> by_src;
  for (const auto& [line, m] : ptx_samples) {
    mix_add(k.total, m);
    if (line <= 0) {
      k.unmapped += mix_total(m);
      continue;
    }
    if (auto it = src_of.find(line); it != src_of.end()) mix_add(by_src[it->second], m);
  }
  fill_rows(k, ptx_samples, by_src);
  return k;
}

std::optional<StallAgreement> compare_line_stalls(const KernelLineStalls& model,
                                                  const KernelLineStalls& gpu) {
  StallAgreement a;
  a.samples_total = mix_total(gpu.total);
  // Pairs of (model mix, GPU mix) on the lines both have.
  std::vector<std::pair<const StallMix*, const StallMix*>> pairs;
  const bool source = !model.by_source_line.empty() && !gpu.by_source_line.empty();
  a.lines = source ? "source" : "ptx";
  if (source) {
    for (const SourceLineStalls& g : gpu.by_source_line)
      if (const StallMix* m = model.source_line(g.file, g.line)) pairs.push_back({m, &g.mix});
  } else {
    for (const PtxLineStalls& g : gpu.by_ptx_line)
      if (const StallMix* m = model.ptx_line(g.line)) pairs.push_back({m, &g.mix});
  }
  double agree = 0, distance = 0;
  for (const auto& [m, g] : pairs) {
    const uint64_t mt = mix_total(*m), gt = mix_total(*g);
    if (!mt || !gt) continue;
    ++a.lines_compared;
    a.samples_compared += gt;
    if (mix_top(*m) == mix_top(*g)) agree += double(gt);
    std::map<std::string, double> diff;
    for (const auto& [r, v] : *m) diff[r] += double(v) / double(mt);
    for (const auto& [r, v] : *g) diff[r] -= double(v) / double(gt);
    double tv = 0;
    for (const auto& [r, d] : diff) tv += d < 0 ? -d : d;
    distance += double(gt) * tv / 2;
  }
  if (!a.lines_compared) return std::nullopt;
  a.top_agreement = agree / double(a.samples_compared);
  a.distance = distance / double(a.samples_compared);
  return a;
}

json to_json(const KernelLineStalls& k) {
  json src = json::array();
  for (const SourceLineStalls& s : k.by_source_line)
    src.push_back({{"file", s.file}, {"line", s.line}, {"states", mix_json(s.mix)}});
  json ptx = json::array();
  for (const PtxLineStalls& p : k.by_ptx_line)
    ptx.push_back({{"line", p.line}, {"states", mix_json(p.mix)}});
  json j = {{"kernel", k.kernel},     {"launch", k.launch},   {"total", mix_json(k.total)},
            {"unmapped", k.unmapped}, {"dropped", k.dropped}, {"by_source_line", src},
            {"by_ptx_line", ptx}};
  if (!k.point.empty()) j["point"] = k.point;
  return j;
}

json to_json(const LineStalls& s) {
  json kernels = json::array();
  for (const KernelLineStalls& k : s.kernels) kernels.push_back(to_json(k));
  json j = {{"source", s.source}, {"unit", s.unit},     {"device", s.device},
            {"driver", s.driver}, {"date", s.date},     {"method", s.method},
            {"experiment", s.experiment}, {"set", s.set}, {"kernels", kernels}};
  if (s.sampling_period_log2) j["sampling_period_log2"] = s.sampling_period_log2;
  return j;
}

Expected<KernelLineStalls> kernel_line_stalls_from_json(const json& kj, const std::string& where,
                                                        const std::string& kp) {
  Reader rd{where};
  if (!kj.is_object()) return rd.error(kp, "an object");
  KernelLineStalls k;
  auto name = rd.str(kj, "kernel", kp, true);
  if (!name) return name.error();
  k.kernel = *name;
  auto point = rd.str(kj, "point", kp);
  if (!point) return point.error();
  k.point = *point;
  if (kj.contains("launch")) {
    if (!kj["launch"].is_number_integer()) return rd.error(kp + ".launch", "an integer");
    k.launch = kj["launch"].get<int>();
  }
  for (auto [key, dst] : {std::pair{"unmapped", &k.unmapped}, std::pair{"dropped", &k.dropped}}) {
    if (!kj.contains(key)) continue;
    auto c = rd.count(kj[key], kp + "." + key);
    if (!c) return c.error();
    *dst = *c;
  }
  if (kj.contains("total")) {
    auto m = rd.mix(kj["total"], kp + ".total");
    if (!m) return m.error();
    k.total = *m;
  }
  for (const char* rows : {"by_source_line", "by_ptx_line"}) {
    if (!kj.contains(rows)) continue;
    if (!kj[rows].is_array()) return rd.error(kp + "." + rows, "an array");
    for (size_t ri = 0; ri < kj[rows].size(); ++ri) {
      const json& r = kj[rows][ri];
      const std::string rp = kp + "." + rows + "[" + std::to_string(ri) + "]";
      if (!r.is_object() || !r.contains("line") || !r.contains("states"))
        return rd.error(rp, "an object with \"line\" and \"states\"");
      auto line = rd.line(r["line"], rp + ".line");
      if (!line) return line.error();
      auto m = rd.mix(r["states"], rp + ".states");
      if (!m) return m.error();
      if (std::string_view(rows) == "by_ptx_line") {
        k.by_ptx_line.push_back({*line, *m});
      } else {
        auto file = rd.str(r, "file", rp);
        if (!file) return file.error();
        k.by_source_line.push_back({*file, *line, *m});
      }
    }
  }
  return k;
}

Expected<LineStalls> line_stalls_from_json(const json& j, const std::string& where) {
  Reader rd{where};
  if (!j.is_object()) return rd.error("line_stalls", "an object");
  LineStalls s;
  auto source = rd.str(j, "source", "line_stalls", true);
  if (!source) return source.error();
  if (*source != "sim" && *source != "gpu")
    return rd.error("line_stalls.source", "\"sim\" or \"gpu\", not \"" + *source + "\"");
  s.source = *source;
  for (auto [key, dst] : {std::pair{"unit", &s.unit}, std::pair{"device", &s.device},
                          std::pair{"driver", &s.driver}, std::pair{"date", &s.date},
                          std::pair{"method", &s.method}, std::pair{"experiment", &s.experiment}}) {
    auto v = rd.str(j, key, "line_stalls");
    if (!v) return v.error();
    *dst = *v;
  }
  if (j.contains("sampling_period_log2")) {
    if (!j["sampling_period_log2"].is_number_integer())
      return rd.error("line_stalls.sampling_period_log2", "an integer");
    s.sampling_period_log2 = j["sampling_period_log2"].get<int>();
  }
  if (j.contains("set")) {
    if (!j["set"].is_array()) return rd.error("line_stalls.set", "an array of strings");
    for (const json& v : j["set"]) {
      if (!v.is_string()) return rd.error("line_stalls.set", "an array of strings");
      s.set.push_back(v.get<std::string>());
    }
  }
  if (!j.contains("kernels") || !j["kernels"].is_array())
    return rd.error("line_stalls.kernels", "an array");
  for (size_t ki = 0; ki < j["kernels"].size(); ++ki) {
    auto k = kernel_line_stalls_from_json(j["kernels"][ki], where,
                                          "line_stalls.kernels[" + std::to_string(ki) + "]");
    if (!k) return k.error();
    s.kernels.push_back(std::move(*k));
  }
  return s;
}

Status write_line_stalls_file(const std::string& path, const std::vector<LineStalls>& runs) {
  json j = {{"schema", kLineStallsSchema}, {"runs", json::array()}};
  for (const LineStalls& s : runs) j["runs"].push_back(to_json(s));
  std::ofstream f(path);
  if (!f) return Error{path, 0, "cannot open for writing"};
  f << j.dump(1) << "\n";
  if (!f) return Error{path, 0, "write failed"};
  return Ok{};
}

Expected<std::vector<LineStalls>> read_line_stalls_file(const std::string& path) {
  std::ifstream f(path);
  if (!f) return Error{path, 0, "cannot open"};
  std::stringstream ss;
  ss << f.rdbuf();
  json j = json::parse(ss.str(), nullptr, false);
  if (j.is_discarded()) return Error{path, 0, "not valid JSON"};
  if (!j.is_object() || j.value("schema", std::string()) != kLineStallsSchema)
    return Error{path, 0, std::string("expected an object with \"schema\": \"") +
                              kLineStallsSchema + "\""};
  if (!j.contains("runs") || !j["runs"].is_array())
    return Error{path, 0, "runs: expected an array"};
  std::vector<LineStalls> out;
  for (size_t i = 0; i < j["runs"].size(); ++i) {
    auto s = line_stalls_from_json(j["runs"][i], path);
    if (!s) {
      Error e = s.error();
      e.message = "runs[" + std::to_string(i) + "]." + e.message;
      return e;
    }
    out.push_back(std::move(*s));
  }
  return out;
}

}  // namespace warplab::lab
