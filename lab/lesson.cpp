#include "lab/lesson.h"

#include <toml++/toml.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include "lab/lesson_page.h"
#include "lab/presets.h"
#include "lab/toml_keys.h"
#include "sim/ptx/isa.h"
#include "sim/timing/config.h"
#include "sim/timing/warp_state.h"

namespace warplab::lab {
namespace fs = std::filesystem;
using json = nlohmann::json;

// ---------------------------------------------------------------- metrics of launches
namespace {

struct Metrics {
  double time = 0, time_min = 0, time_max = 0, cycles = 0, dram_bytes = 0, warp_instructions = 0,
         thread_instructions = 0;
  double ld_requests = 0, ld_sectors = 0, st_requests = 0, st_sectors = 0, bank_conflicts = 0;
  double l1_hit_sum = 0, l2_hit_sum = 0, occupancy_sum = 0, blocks_per_sm = 0;
  // Warp-cycles per warp state (sim/timing/warp_state.h), summed over launches: a state's metric
  // (`stall_long_scoreboard`, `selected`, ...) is its share of all warp-cycles, 0..1.
  std::array<double, timing::kWarpStateCount> states{};
  double state_cycles = 0;
  // Executed warp instructions by class (simulator only: "int", "fp32", "load", "tensor", ...;
  // ptx::inst_class_name), read as inst_int, inst_fp32, ...: the instruction mix of a kernel.
  std::map<std::string, double> by_class;
  int launches = 0;

  Expected<double> field(const std::string& f) const {
    auto ratio = [](double a, double b) { return b > 0 ? a / b : 0.0; };
    if (f == "time") return time;
    if (f == "time_min") return time_min;
    if (f == "time_max") return time_max;
    if (f == "cycles") return cycles;
    if (f == "dram_bytes") return dram_bytes;
    if (f == "warp_instructions") return warp_instructions;
    if (f == "thread_instructions") return thread_instructions;
    if (f == "sectors_per_request") return ratio(ld_sectors, ld_requests);
    if (f == "store_sectors_per_request") return ratio(st_sectors, st_requests);
    if (f == "load_sectors") return ld_sectors;
    if (f == "load_requests") return ld_requests;
    if (f == "store_requests") return st_requests;
    if (f == "store_sectors") return st_sectors;
    if (f == "bank_conflicts") return bank_conflicts;
    if (f == "l2_hit_rate") return launches ? l2_hit_sum / launches : 0.0;
    if (f == "l1_hit_rate") return launches ? l1_hit_sum / launches : 0.0;
    if (f == "occupancy") return launches ? occupancy_sum / launches : 0.0;
    if (f == "blocks_per_sm") return blocks_per_sm;
    if (f == "launches") return double(launches);
    for (int i = 0; i < timing::kWarpStateCount; ++i)
      if (f == timing::warp_state_name(static_cast<timing::WarpState>(i)))
        return ratio(states[i], state_cycles);
    if (f.rfind("inst_", 0) == 0) {
      for (int c = 0; c < ptx::kInstClassCount; ++c)
        if (f.substr(5) == ptx::inst_class_name(static_cast<ptx::InstClass>(c))) {
          auto it = by_class.find(f.substr(5));
          return it == by_class.end() ? 0.0 : it->second;
        }
      std::string names;
      for (int c = 0; c < ptx::kInstClassCount; ++c)
        names += (c ? ", inst_" : "inst_") +
                 std::string(ptx::inst_class_name(static_cast<ptx::InstClass>(c)));
      return Error{"", 0, "unknown metric '" + f + "' (the instruction classes are " + names + ")"};
    }
    return Error{"", 0,
                 "unknown metric '" + f +
                     "' (expected time, time_min, time_max, cycles, dram_bytes, warp_instructions, "
                     "thread_instructions, sectors_per_request, store_sectors_per_request, "
                     "load_sectors, store_sectors, load_requests, store_requests, bank_conflicts, "
                     "l1_hit_rate, l2_hit_rate, occupancy, "
                     "blocks_per_sm, launches, inst_CLASS, or a warp state's share of warp-cycles: "
                     "selected, not_selected, stall_long_scoreboard, stall_barrier, ...)"};
  }
};

std::string text_of(const json& o, const char* k, const std::string& def = "") {
  return o.is_object() && o.contains(k) && o[k].is_string() ? o[k].get<std::string>() : def;
}

double num(const json& o, const char* k) {
  return o.is_object() && o.contains(k) && o[k].is_number() ? o[k].get<double>() : 0.0;
}

// Adds one launch's figures, from the simulator's record or the GPU's.
Status add_launch(Metrics& m, const LaunchRecord& rec, bool gpu) {
  const json& src = gpu ? rec.gpu : rec.sim;
  if (!src.is_object() || !src.contains("time_us"))
    return Error{"", 0,
                 gpu ? "launch " + rec.kernel + " has no GPU time (run with --backend gpu or both)"
                     : "launch " + rec.kernel +
                           " has no simulated time (the timing model must run: --mode timing)"};
  const json& c = gpu ? (src.contains("counters") && src["counters"].contains("values")
                             ? src["counters"]["values"]
                             : json::object())
                      : (src.contains("counters") ? src["counters"] : json::object());
  m.time += num(src, "time_us");
  // The fastest and slowest of the timed launches (the GPU's samples; the model has no spread).
  m.time_min += src.contains("min_us") ? num(src, "min_us") : num(src, "time_us");
  m.time_max += src.contains("max_us") ? num(src, "max_us") : num(src, "time_us");
  m.cycles += gpu ? num(c, "elapsed_cycles") : num(src, "cycles");
  m.dram_bytes += num(c, "dram_bytes_read") + num(c, "dram_bytes_written");
  m.warp_instructions += num(c, "warp_instructions");
  if (!gpu && rec.stats) m.thread_instructions += double(rec.stats->thread_instructions);
  if (!gpu && src.contains("instructions_by_class") && src["instructions_by_class"].is_object())
    for (const auto& [k, v] : src["instructions_by_class"].items())
      if (v.is_number()) m.by_class[k] += v.get<double>();
  m.ld_requests += num(c, "global_load_requests");
  m.ld_sectors += num(c, "global_load_sectors");
  m.st_requests += num(c, "global_store_requests");
  m.st_sectors += num(c, "global_store_sectors");
  m.bank_conflicts += num(c, "shared_bank_conflicts");
  m.l2_hit_sum += num(c, "l2_hit_rate_pct") / 100.0;
  m.l1_hit_sum += num(c, "l1_hit_rate_pct") / 100.0;
  m.occupancy_sum += num(c, "achieved_occupancy_pct") / 100.0;
  if (src.contains("warp_states") && src["warp_states"].contains("total"))
    for (int i = 0; i < timing::kWarpStateCount; ++i) {
      const double v = num(src["warp_states"]["total"],
                           std::string(timing::warp_state_name(timing::WarpState(i))).c_str());
      m.states[i] += v;
      m.state_cycles += v;
    }
  if (!gpu && src.contains("occupancy"))
    m.blocks_per_sm = std::max(m.blocks_per_sm, num(src["occupancy"], "blocks_per_sm"));
  ++m.launches;
  return Ok{};
}

bool glob_match(const std::string& pat, const std::string& s) {
  size_t p = 0, i = 0, star = std::string::npos, mark = 0;
  while (i < s.size()) {
    if (p < pat.size() && (pat[p] == '?' || pat[p] == s[i])) {
      ++p, ++i;
    } else if (p < pat.size() && pat[p] == '*') {
      star = p++, mark = i;
    } else if (star != std::string::npos) {
      p = star + 1, i = ++mark;
    } else {
      return false;
    }
  }
  while (p < pat.size() && pat[p] == '*') ++p;
  return p == pat.size();
}

// ---------------------------------------------------------------- expressions
struct Arg {
  std::string str;   // a string argument ("gelu_fused")
  std::string name;  // a selector name=value
  double value = 0;
  bool is_string = false, is_selector = false;
};

class ExprEval {
 public:
  ExprEval(const std::string& text, const ExperimentResult* result, bool gpu,
           const ExprEnv* env = nullptr)
      : s_(text), r_(result), gpu_(gpu), env_(env), check_(env ? env->check : !result) {}

  bool pending() const { return pending_; }
  const std::vector<std::string>& sources() const { return sources_; }

  Expected<ClaimValue> claim() {
    auto lhs = sum();
    if (!lhs) return lhs.error();
    ws();
    ClaimValue v;
    for (const char* op : {"<=", ">=", "==", "!=", "<", ">"})
      if (s_.compare(i_, std::strlen(op), op) == 0) {
        v.op = op;
        i_ += v.op.size();
        break;
      }
    if (v.op.empty()) return fail("expected a comparison (<, <=, >, >=, ==, !=)");
    auto rhs = sum();
    if (!rhs) return rhs.error();
    v.lhs = *lhs, v.rhs = *rhs;
    // A range: `1.1 <= x <= 2` (both comparisons the same direction, < / <= or > / >=).
    ws();
    for (const char* op : {"<=", ">=", "<", ">"})
      if (s_.compare(i_, std::strlen(op), op) == 0) {
        const bool up = v.op[0] == '<', up2 = op[0] == '<';
        if ((v.op != "<" && v.op != "<=" && v.op != ">" && v.op != ">=") || up != up2)
          return fail("a range needs two comparisons the same way, e.g. 1.1 <= x <= 2");
        v.op2 = op;
        i_ += v.op2.size();
        auto upper = sum();
        if (!upper) return upper.error();
        v.upper = *upper;
        break;
      }
    if (auto e = end(); !e) return e.error();
    auto holds = [](double a, const std::string& op, double b) {
      const double tol = 1e-9 * std::max(std::fabs(a), std::fabs(b));
      if (op == "<") return a < b;
      if (op == "<=") return a <= b + tol;
      if (op == ">") return a > b;
      if (op == ">=") return a + tol >= b;
      if (op == "==") return std::fabs(a - b) <= tol;
      return std::fabs(a - b) > tol;  // !=
    };
    v.holds = holds(v.lhs, v.op, v.rhs) && (v.op2.empty() || holds(v.rhs, v.op2, v.upper));
    return v;
  }

  Expected<double> value() {
    auto v = sum();
    if (!v) return v;
    if (auto e = end(); !e) return e.error();
    return v;
  }

 private:
  Error fail(const std::string& what) const {
    return Error{"", 0, "in \"" + s_ + "\" at column " + std::to_string(i_ + 1) + ": " + what};
  }
  void ws() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  Status end() {
    ws();
    if (i_ != s_.size()) return fail("unexpected '" + s_.substr(i_, 12) + "'");
    return Ok{};
  }
  bool eat(char c) {
    ws();
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  std::string ident() {
    ws();
    const size_t b = i_;
    while (i_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '_'))
      ++i_;
    return s_.substr(b, i_ - b);
  }
  Expected<double> sum() {
    if (++depth_ > 64) return fail("nested too deeply");
    auto a = prod();
    if (!a) return a;
    double v = *a;
    for (;;) {
      if (eat('+')) {
        auto b = prod();
        if (!b) return b;
        v += *b;
      } else if (eat('-')) {
        auto b = prod();
        if (!b) return b;
        v -= *b;
      } else {
        break;
      }
    }
    --depth_;
    return v;
  }
  Expected<double> prod() {
    auto a = unary();
    if (!a) return a;
    double v = *a;
    for (;;) {
      if (eat('*')) {
        auto b = unary();
        if (!b) return b;
        v *= *b;
      } else if (eat('/')) {
        auto b = unary();
        if (!b) return b;
        if (*b == 0 && r_) return fail("division by zero");
        v = *b == 0 ? 0 : v / *b;
      } else {
        break;
      }
    }
    return v;
  }
  Expected<double> unary() {
    if (eat('-')) {
      auto v = unary();
      if (!v) return v;
      return -*v;
    }
    return primary();
  }
  Expected<double> primary() {
    ws();
    if (eat('(')) {
      auto v = sum();
      if (!v) return v;
      if (!eat(')')) return fail("expected ')'");
      return v;
    }
    if (i_ < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[i_])) || s_[i_] == '.')) {
      const char* b = s_.c_str() + i_;
      char* e = nullptr;
      const double v = std::strtod(b, &e);
      i_ += static_cast<size_t>(e - b);
      return v;
    }
    const std::string fn = ident();
    if (fn.empty()) return fail("expected a number, '(' or a function such as launch(\"k\")");
    if (fn == "step") return step_call();
    if (!eat('(')) return fail("expected '(' after " + fn);
    std::vector<Arg> args;
    if (!eat(')')) {
      for (;;) {
        auto a = arg();
        if (!a) return a.error();
        args.push_back(*a);
        if (eat(')')) break;
        if (!eat(',')) return fail("expected ',' or ')'");
      }
    }
    std::string field;
    if (eat('.')) {
      field = ident();
      if (field.empty()) return fail("expected a metric name after '.'");
    }
    return call(fn, args, field);
  }
  Expected<Arg> arg() {
    ws();
    Arg a;
    if (i_ < s_.size() && s_[i_] == '"') {
      const size_t e = s_.find('"', i_ + 1);
      if (e == std::string::npos) return fail("unterminated string");
      a.str = s_.substr(i_ + 1, e - i_ - 1);
      a.is_string = true;
      i_ = e + 1;
      return a;
    }
    const size_t save = i_;
    const std::string name = ident();
    if (!name.empty() && eat('=')) {
      auto v = unary();
      if (!v) return v.error();
      a.name = name, a.value = *v, a.is_selector = true;
      return a;
    }
    i_ = save;
    auto v = sum();
    if (!v) return v.error();
    a.value = *v;
    return a;
  }

  // The runs (a sweep's rows, or the one run) whose parameters match every selector.
  Expected<std::vector<const RunResult*>> runs(const std::vector<Arg>& args) {
    std::vector<const RunResult*> all;
    if (r_->run) all.push_back(&*r_->run);
    if (r_->sweep)
      for (const RunResult& rr : r_->sweep->runs) all.push_back(&rr);
    std::vector<const RunResult*> out;
    for (const RunResult* rr : all) {
      bool ok = true;
      for (const Arg& a : args) {
        if (!a.is_selector) continue;
        bool found = false;
        for (const auto& [n, v] : rr->params)
          if (n == a.name) found = true, ok = ok && std::fabs(v.as_double() - a.value) < 1e-9;
        if (!found) return fail("no parameter '" + a.name + "' in the experiment");
      }
      if (ok) out.push_back(rr);
    }
    if (out.empty()) return fail("no run of the experiment has those parameter values");
    if (out.size() > 1)
      return fail(std::to_string(out.size()) +
                  " sweep rows match: name the swept values, e.g. sweep(stride=32)");
    return out;
  }

  // step(N).CALL: CALL reads the run of the lesson's step N (1-based) instead of this one.
  Expected<double> step_call() {
    if (!env_)
      return fail("step(N) reads another step's run: it is for a lesson's pages and claims");
    if (!eat('(')) return fail("expected '(' after step");
    auto n = sum();
    if (!n) return n;
    if (!eat(')')) return fail("expected ')'");
    if (!eat('.')) return fail("expected step(N).launch(...) or another call after step(N)");
    const double k = *n;
    const size_t count = std::max(env_->steps.size(), env_->step_runs.size());
    if (k < 1 || k != std::floor(k) || k > double(count))
      return fail("no step " + lesson_number_text(k) + " (the lesson has " + std::to_string(count) +
                  ")");
    const size_t idx = size_t(k) - 1;
    if (idx < env_->step_runs.size() && !env_->step_runs[idx])
      return fail("step " + lesson_number_text(k) + " runs no experiment");
    const ExperimentResult* saved = r_;
    const bool saved_step = in_step_;
    r_ = idx < env_->steps.size() ? env_->steps[idx] : nullptr;
    in_step_ = true;
    ws();
    auto v = primary();
    r_ = saved, in_step_ = saved_step;
    return v;
  }
  static std::string lesson_number_text(double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%g", v);
    return b;
  }

  // gpu("ID"[, "kernel"]).METRIC: a point of the committed GPU data.
  Expected<double> gpu_point(const std::vector<Arg>& args, const std::string& field) {
    if (!env_ || !env_->data)
      return fail("gpu(\"ID\") reads committed GPU data, which is not loaded");
    if (args.empty() || !args[0].is_string || args.size() > 2 ||
        (args.size() == 2 && !args[1].is_string))
      return fail("gpu needs a point id and optionally a kernel: gpu(\"l2.stride8.ref\", \"k\")");
    if (field.empty()) return fail("gpu(...) needs a metric, e.g. gpu(\"ID\").time");
    std::string set = "h100", id = args[0].str;
    if (const size_t c = id.find(':'); c != std::string::npos)
      set = id.substr(0, c), id = id.substr(c + 1);
    const GpuDataset* d = nullptr;
    std::string names;
    for (const GpuDataset& g : *env_->data) {
      names += (names.empty() ? "" : ", ") + g.name;
      if (g.name == set) d = &g;
    }
    if (!d) return fail("no GPU data '" + set + "' (have: " + names + ")");
    if (!d->points.contains(id)) return fail("no point '" + id + "' in " + d->path);
    const json& pt = d->points[id];
    Metrics m;
    const json launches = pt.contains("launches") ? pt["launches"] : json::array();
    for (const json& l : launches) {
      if (args.size() == 2 && text_of(l, "kernel") != args[1].str) continue;
      LaunchRecord rec;
      rec.kernel = text_of(l, "kernel");
      if (l.is_object() && l.contains("gpu")) rec.gpu = l["gpu"];
      if (auto s = add_launch(m, rec, true); !s) return fail(s.error().message);
    }
    if (m.launches == 0)
      return fail("point '" + id + "' has no launch" +
                  (args.size() == 2 ? " of " + args[1].str : ""));
    auto v = m.field(field);
    if (!v) return fail(v.error().message);
    const std::string src = d->device + ", " + d->date_of(id);
    if (std::find(sources_.begin(), sources_.end(), src) == sources_.end()) sources_.push_back(src);
    return v;
  }

  // gpu_info("[h200:]a.b"): a number of a dataset's device_info (what the GPU backend measured
  // about the device itself: its launch overhead, its DRAM bandwidth ...).
  Expected<double> gpu_info(const std::vector<Arg>& args, const std::string& field) {
    if (!env_ || !env_->data) return fail("gpu_info reads committed GPU data, which is not loaded");
    if (args.size() != 1 || !args[0].is_string || !field.empty())
      return fail("gpu_info needs one quoted field: gpu_info(\"launch_overhead_us.empty_kernel\")");
    std::string set = "h100", path = args[0].str;
    if (const size_t c = path.find(':'); c != std::string::npos)
      set = path.substr(0, c), path = path.substr(c + 1);
    for (const GpuDataset& g : *env_->data) {
      if (g.name != set) continue;
      const json* at = &g.device_info;
      for (size_t b = 0; b <= path.size();) {
        const size_t e = std::min(path.find('.', b), path.size());
        const std::string key = path.substr(b, e - b);
        if (!at->is_object() || !at->contains(key))
          return fail("no device_info field '" + path + "' in " + g.path);
        at = &(*at)[key];
        b = e + 1;
      }
      if (!at->is_number()) return fail("device_info field '" + path + "' is not a number");
      const std::string src = g.device + ", " + g.date_of("");
      if (std::find(sources_.begin(), sources_.end(), src) == sources_.end())
        sources_.push_back(src);
      return at->get<double>();
    }
    return fail("no GPU data '" + set + "'");
  }

  // preset("NAME", "section.key"): a field of a timing-model preset.
  Expected<double> preset_field(const std::vector<Arg>& args, const std::string& field) {
    if (args.size() != 2 || !args[0].is_string || !args[1].is_string || !field.empty())
      return fail("preset needs a preset and a field: preset(\"h100-sxm\", \"l2.size_bytes\")");
    auto cfg = load_gpu_config(args[0].str);
    if (!cfg) return fail(cfg.error().message);
    std::string keys;
    for (const timing::FieldView& f : timing::describe_config(**cfg)) {
      const std::string k = f.section.empty() ? f.key : f.section + "." + f.key;
      if (k != args[1].str) continue;
      char* e = nullptr;
      const double v = std::strtod(f.value.c_str(), &e);
      if (e == f.value.c_str()) return fail("preset field " + k + " is not a number");
      return v;
    }
    return fail("no field '" + args[1].str + "' in preset " + args[0].str +
                " (warplab configs --describe lists them as section.key)");
  }

  // param("NAME", NAME=V, ...): a parameter's value in the runs the selectors pick; every row
  // of a sweep when they pick several, which must then agree (sizes that a sweep does not vary).
  // A claim that compares two steps run at different sizes (a step's ci_set) divides by them.
  Expected<double> param_value(const std::vector<Arg>& args) {
    std::vector<const RunResult*> all;
    if (r_->run) all.push_back(&*r_->run);
    if (r_->sweep)
      for (const RunResult& rr : r_->sweep->runs) all.push_back(&rr);
    std::optional<double> out;
    for (const RunResult* rr : all) {
      bool match = true;
      for (const Arg& a : args)
        if (a.is_selector)
          for (const auto& [n, v] : rr->params)
            if (n == a.name) match = match && std::fabs(v.as_double() - a.value) < 1e-9;
      if (!match) continue;
      bool found = false;
      for (const auto& [n, v] : rr->params) {
        if (n != args[0].str) continue;
        found = true;
        if (out && std::fabs(*out - v.as_double()) > 1e-9)
          return fail("parameter '" + args[0].str +
                      "' differs between the runs that match: name the swept values, e.g. "
                      "param(\"" +
                      args[0].str + "\", stride=32)");
        out = v.as_double();
      }
      if (!found) return fail("no parameter '" + args[0].str + "' in the experiment");
    }
    if (!out) return fail("no run of the experiment has those parameter values");
    return *out;
  }

  Expected<double> call(const std::string& fn, const std::vector<Arg>& args,
                        const std::string& field) {
    static const char* kFns =
        "launch(\"kernel\", ...), launch_sum(\"pattern*\", ...), sweep(name=value, ...), run(), "
        "sectors_per_request(...), buffer(\"name\", index, ...), which_max(a, b, ...), "
        "which_min(a, b, ...), param(\"NAME\", ...), step(N).CALL, and in pages "
        "gpu(\"ID\").METRIC, preset(\"NAME\", \"section.key\")";
    if (fn == "gpu") {
      if (in_step_) return fail("step(N).gpu(...): gpu data belongs to no step");
      return gpu_point(args, field);
    }
    if (fn == "gpu_info") {
      if (in_step_) return fail("step(N).gpu_info(...): gpu data belongs to no step");
      return gpu_info(args, field);
    }
    if (fn == "preset") {
      if (in_step_) return fail("step(N).preset(...): a preset belongs to no step");
      return preset_field(args, field);
    }
    if (fn == "which_max" || fn == "which_min") {  // the index of the largest / smallest
      if (args.size() < 2) return fail(fn + " compares two or more values");
      size_t best = 0;
      for (size_t i = 0; i < args.size(); ++i) {
        if (args[i].is_string || args[i].is_selector) return fail(fn + " takes numbers");
        if (fn == "which_max" ? args[i].value > args[best].value : args[i].value < args[best].value)
          best = i;
      }
      if (!field.empty()) return fail(fn + "(...) is a number, not a run: no ." + field);
      return double(best);
    }
    const bool known = fn == "launch" || fn == "launch_sum" || fn == "sweep" || fn == "run" ||
                       fn == "sectors_per_request" || fn == "buffer" || fn == "param";
    if (!known) return fail("unknown function '" + fn + "' (expected " + kFns + ")");
    if ((fn == "launch" || fn == "launch_sum" || fn == "buffer" || fn == "param") &&
        (args.empty() || !args[0].is_string))
      return fail(fn + " needs a quoted name first, e.g. " + fn + "(\"x\")");
    if (fn == "param" && !field.empty())
      return fail("param(\"NAME\") is a number, not a run: no ." + field);
    if (fn != "sectors_per_request" && fn != "buffer" && fn != "param" && field.empty())
      return fail(fn + "(...) needs a metric, e.g. " + fn + "(...).time");
    if (env_ && !in_step_ && !env_->own_run)
      return fail(fn +
                  "(...) reads a run, and this page's step runs no experiment: name one, "
                  "step(N)." +
                  fn + "(...)");
    if (!r_ || check_) {  // syntax check only, or a step that has not run yet
      if (!field.empty()) {
        Metrics m;
        if (auto f = m.field(field); !f) return fail(f.error().message);
      }
      if (!check_) pending_ = true;
      return 1.0;
    }
    if (fn == "param") return param_value(args);
    auto rs = runs(args);
    if (!rs) return rs.error();
    const RunResult& run = *rs->front();
    if (fn == "buffer") {
      if (args.size() < 2 || args[1].is_string || args[1].is_selector)
        return fail("buffer(\"name\", index) needs an element index");
      for (const HostBuffer& b : run.buffers)
        if (b.name == args[0].str) {
          const double idx = args[1].value;
          if (idx < 0 || idx >= double(b.count) || idx != std::floor(idx))
            return fail("index " + std::to_string(idx) + " is outside " + b.name + " (" +
                        std::to_string(b.count) + " elements)");
          return b.at(static_cast<uint64_t>(idx));
        }
      return fail("no buffer '" + args[0].str + "'");
    }
    Metrics m;
    for (const LaunchRecord& rec : run.launches) {
      if (fn == "launch" && rec.kernel != args[0].str && rec.entry != args[0].str) continue;
      if (fn == "launch_sum" && !glob_match(args[0].str, rec.kernel)) continue;
      if (auto s = add_launch(m, rec, gpu_); !s) return fail(s.error().message);
    }
    if (m.launches == 0)
      return fail("no launch of '" + (args.empty() ? std::string() : args[0].str) + "' in the run");
    auto v = m.field(fn == "sectors_per_request" && field.empty() ? "sectors_per_request" : field);
    if (!v) return fail(v.error().message);
    return v;
  }

  std::string s_;
  size_t i_ = 0;
  int depth_ = 0;
  const ExperimentResult* r_;
  bool gpu_;
  const ExprEnv* env_ = nullptr;
  bool check_ = false;
  bool in_step_ = false;  // inside step(N).CALL
  bool pending_ = false;
  std::vector<std::string> sources_;
};

}  // namespace

Expected<double> eval_lesson_expr(const std::string& expr, const ExperimentResult& result,
                                  bool gpu) {
  return ExprEval(expr, &result, gpu).value();
}

Expected<ClaimValue> eval_claim(const std::string& expr, const ExperimentResult& result, bool gpu) {
  return ExprEval(expr, &result, gpu).claim();
}

Expected<ClaimValue> eval_env_claim(const std::string& expr, const ExprEnv& env, bool* pending) {
  ExprEval e(expr, env.result, env.gpu, &env);
  auto v = e.claim();
  if (pending) *pending = e.pending();
  return v;
}

std::vector<size_t> claim_run_steps(const Lesson& lesson, size_t step) {
  std::vector<size_t> out;
  if (step >= lesson.steps.size()) return out;
  for (const LessonClaim& c : lesson.steps[step].claims)
    for (size_t at = c.expr.find("step("); at != std::string::npos;
         at = c.expr.find("step(", at + 5)) {
      const size_t n = std::strtoul(c.expr.c_str() + at + 5, nullptr, 10);
      if (n >= 1 && n <= lesson.steps.size() && n - 1 != step &&
          std::find(out.begin(), out.end(), n - 1) == out.end())
        out.push_back(n - 1);
    }
  std::sort(out.begin(), out.end());
  return out;
}

std::string claim_value_text(const ClaimValue& v) {
  char b[64];
  auto num = [&](double x) {
    std::snprintf(b, sizeof b, "%.6g", x);
    return std::string(b);
  };
  std::string s = num(v.lhs) + " " + v.op + " " + num(v.rhs);
  if (!v.op2.empty()) s += " " + v.op2 + " " + num(v.upper);
  return s;
}

Expected<EnvValue> eval_env_expr(const std::string& expr, const ExprEnv& env) {
  ExprEval e(expr, env.result, env.gpu, &env);
  auto v = e.value();
  if (!v) return v.error();
  EnvValue out;
  out.value = *v;
  out.pending = e.pending();
  out.sources = e.sources();
  return out;
}

std::string GpuDataset::date_of(const std::string& id) const {
  std::string d = date;
  if (points.contains(id) && points[id].contains("date") && points[id]["date"].is_string())
    d = points[id]["date"].get<std::string>();
  return d.substr(0, 10);
}

namespace {

bool is_gpu_data(const json& j) {
  return j.is_object() && j.contains("schema") && j["schema"].is_string() &&
         j["schema"].get<std::string>().starts_with("warplab.validation-data");
}

Expected<GpuDataset> gpu_dataset_from(json j, const std::string& path) {
  if (j.is_discarded() || !j.is_object() || !j.contains("points") || !j["points"].is_array())
    return Error{path, 0, "not GPU data (expected a warplab.validation-data JSON with points)"};
  GpuDataset d;
  d.path = path;
  d.name = fs::path(path).stem().string();
  d.device = text_of(j, "device", d.name);
  if (j.contains("device_info") && j["device_info"].is_object()) d.device_info = j["device_info"];
  const std::string file_date = text_of(j, "date");
  d.date = file_date;
  d.points = json::object();
  for (json& p : j["points"]) {
    if (!p.is_object() || !p.contains("id") || !p["id"].is_string()) continue;
    if (!p.contains("date") || !p["date"].is_string()) p["date"] = file_date;
    const std::string id = p["id"].get<std::string>();
    d.points[id] = std::move(p);
  }
  return d;
}

}  // namespace

Expected<GpuDataset> load_gpu_dataset(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Error{path, 0, "cannot open the GPU data file"};
  return gpu_dataset_from(json::parse(in, nullptr, false), path);
}

// Every GPU data file of a folder. The folder holds other JSON too (first-answers.json, ...): a
// file is GPU data when its schema says so, and one that says so but is malformed is an error.
Expected<std::vector<GpuDataset>> load_gpu_datasets(const std::string& dir) {
  std::vector<GpuDataset> out;
  std::error_code ec;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const fs::path& f : files) {
    std::ifstream in(f);
    if (!in) return Error{f.string(), 0, "cannot open the GPU data file"};
    json j = json::parse(in, nullptr, false);
    if (!is_gpu_data(j)) continue;
    auto d = gpu_dataset_from(std::move(j), f.string());
    if (!d) return d.error();
    out.push_back(std::move(*d));
  }
  return out;
}

Status check_lesson_expr(const std::string& expr, bool comparison) {
  if (comparison) {
    auto c = ExprEval(expr, nullptr, false).claim();
    if (!c) return c.error();
  } else {
    auto v = ExprEval(expr, nullptr, false).value();
    if (!v) return v.error();
  }
  return Ok{};
}

// ---------------------------------------------------------------- lesson.toml
namespace {

int line_of(const toml::node& n) { return static_cast<int>(n.source().begin.line); }

class LessonReader {
 public:
  explicit LessonReader(std::string path) : path_(std::move(path)) {}
  Error err(const toml::node& n, const std::string& key, const std::string& what) const {
    return Error{path_, line_of(n), key + ": " + what};
  }
  Status only(const toml::table& t, const std::string& key,
              std::initializer_list<const char*> allowed) const {
    return only_keys(path_, t, key, allowed);
  }
  Expected<std::string> str(const toml::table& t, const char* k, const std::string& key,
                            bool required) const {
    const toml::node* n = t.get(k);
    if (!n) {
      if (required) return Error{path_, line_of(t), key + ": missing '" + k + "'"};
      return std::string();
    }
    if (!n->is_string()) return err(*n, key + "." + k, "expected a string");
    return *n->value<std::string>();
  }
  Expected<std::vector<std::pair<std::string, std::string>>> assignments(
      const toml::table& t, const char* k, const std::string& key) const {
    std::vector<std::pair<std::string, std::string>> out;
    const toml::node* n = t.get(k);
    if (!n) return out;
    const toml::table* tt = n->as_table();
    if (!tt) return err(*n, key + "." + k, "expected a table such as { N = 1048576 }");
    for (auto&& [name, v] : *tt) {
      if (v.is_integer())
        out.emplace_back(std::string(name.str()), std::to_string(*v.value<int64_t>()));
      else if (v.is_floating_point())
        out.emplace_back(std::string(name.str()), std::to_string(*v.value<double>()));
      else if (v.is_string())
        out.emplace_back(std::string(name.str()), *v.value<std::string>());
      else
        return err(v, key + "." + k + "." + std::string(name.str()), "expected a number");
    }
    return out;
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

Status read_step(const LessonReader& r, const toml::table& t, const std::string& key,
                 const std::string& dir, LessonStep& st) {
  if (auto s = r.only(
          t, key, {"page", "experiment", "set", "ci_set", "editable", "l2", "questions", "claims"});
      !s)
    return s;
  st.line = line_of(t);
  auto page = r.str(t, "page", key, false);
  if (!page) return page.error();
  auto ex = r.str(t, "experiment", key, false);
  if (!ex) return ex.error();
  if (page->empty() && ex->empty())
    return Error{r.path(), st.line, key + ": a step needs a page, an experiment or both"};
  auto exists = [&](const std::string& f, const char* what) -> Status {
    if (f.empty()) return Ok{};
    std::error_code ec;
    if (!fs::is_regular_file(fs::path(dir) / f, ec))
      return Error{r.path(), st.line, key + "." + what + ": no file '" + f + "' in " + dir};
    return Ok{};
  };
  if (auto s = exists(*page, "page"); !s) return s;
  if (auto s = exists(*ex, "experiment"); !s) return s;
  st.page = page->empty() ? "" : (fs::path(dir) / *page).string();
  st.experiment = ex->empty() ? "" : (fs::path(dir) / *ex).string();
  auto set = r.assignments(t, "set", key);
  if (!set) return set.error();
  st.set = *set;
  auto ci = r.assignments(t, "ci_set", key);
  if (!ci) return ci.error();
  st.ci_set = *ci;
  auto l2 = r.str(t, "l2", key, false);
  if (!l2) return l2.error();
  if (!l2->empty()) {
    if (!parse_l2_start(*l2))
      return r.err(*t.get("l2"), key + ".l2", "expected \"cold\" or \"warm\"");
    st.l2 = *l2;
  }
  if (const toml::node* e = t.get("editable")) {
    const toml::array* a = e->as_array();
    if (!a) return r.err(*e, key + ".editable", "expected an array of parameter names");
    for (auto&& v : *a) {
      if (!v.is_string()) return r.err(v, key + ".editable", "expected parameter names");
      st.editable.push_back(*v.value<std::string>());
    }
  }
  if ((!st.questions.empty() || t.get("questions") || t.get("claims")) && st.experiment.empty())
    return Error{r.path(), st.line, key + ": questions and claims need an experiment"};
  if (const toml::node* qs = t.get("questions")) {
    const toml::array* a = qs->as_array();
    if (!a) return r.err(*qs, key + ".questions", "expected [[steps.questions]] tables");
    for (size_t i = 0; i < a->size(); ++i) {
      const toml::table* q = a->get(i)->as_table();
      const std::string qk = key + ".questions[" + std::to_string(i) + "]";
      if (!q) return r.err(*a->get(i), qk, "expected a table");
      if (auto s = r.only(*q, qk,
                          {"text", "kind", "choices", "answer", "tolerance", "accept", "hint",
                           "explain", "predict"});
          !s)
        return s;
      LessonQuestion lq;
      lq.line = line_of(*q);
      auto text = r.str(*q, "text", qk, true);
      if (!text) return text.error();
      lq.text = *text;
      auto kind = r.str(*q, "kind", qk, false);
      if (!kind) return kind.error();
      if (*kind == "choice")
        lq.kind = LessonQuestion::Kind::Choice;
      else if (!kind->empty() && *kind != "number")
        return Error{r.path(), lq.line, qk + ".kind: expected \"number\" or \"choice\""};
      if (const toml::node* c = q->get("choices")) {
        const toml::array* ca = c->as_array();
        if (!ca) return r.err(*c, qk + ".choices", "expected an array of strings");
        for (auto&& v : *ca) {
          if (!v.is_string()) return r.err(v, qk + ".choices", "expected strings");
          lq.choices.push_back(*v.value<std::string>());
        }
      }
      if (lq.kind == LessonQuestion::Kind::Choice && lq.choices.size() < 2)
        return Error{r.path(), lq.line, qk + ".choices: a choice question needs two or more"};
      auto ans = r.str(*q, "answer", qk, true);
      if (!ans) return ans.error();
      lq.answer = *ans;
      if (auto s = check_lesson_expr(lq.answer, false); !s)
        return Error{r.path(), lq.line, qk + ".answer: " + s.error().message};
      if (const toml::node* tol = q->get("tolerance")) {
        if (!tol->is_number()) return r.err(*tol, qk + ".tolerance", "expected a number");
        lq.tolerance = *tol->value<double>();
        if (lq.tolerance < 0) return r.err(*tol, qk + ".tolerance", "expected a number >= 0");
      }
      if (const toml::node* acc = q->get("accept")) {
        const toml::array* aa = acc->as_array();
        if (!aa || aa->size() != 2 || !aa->get(0)->is_number() || !aa->get(1)->is_number())
          return r.err(*acc, qk + ".accept",
                       "expected [low, high]: replies in that range are right");
        lq.accept_lo = *aa->get(0)->value<double>();
        lq.accept_hi = *aa->get(1)->value<double>();
        if (*lq.accept_lo > *lq.accept_hi)
          return r.err(*acc, qk + ".accept", "expected [low, high] with low <= high");
      }
      auto hint = r.str(*q, "hint", qk, false);
      if (!hint) return hint.error();
      lq.hint = *hint;
      auto ex2 = r.str(*q, "explain", qk, false);
      if (!ex2) return ex2.error();
      lq.explain = *ex2;
      if (const toml::node* pr = q->get("predict")) {
        if (!pr->is_boolean()) return r.err(*pr, qk + ".predict", "expected true or false");
        lq.predict = *pr->value<bool>();
      }
      st.questions.push_back(std::move(lq));
    }
  }
  if (const toml::node* cs = t.get("claims")) {
    const toml::array* a = cs->as_array();
    if (!a) return r.err(*cs, key + ".claims", "expected [[steps.claims]] tables");
    for (size_t i = 0; i < a->size(); ++i) {
      const toml::table* c = a->get(i)->as_table();
      const std::string ck = key + ".claims[" + std::to_string(i) + "]";
      if (!c) return r.err(*a->get(i), ck, "expected a table");
      if (auto s = r.only(*c, ck, {"text", "expr", "where"}); !s) return s;
      LessonClaim lc;
      lc.line = line_of(*c);
      auto text = r.str(*c, "text", ck, true);
      if (!text) return text.error();
      auto ex3 = r.str(*c, "expr", ck, true);
      if (!ex3) return ex3.error();
      auto where = r.str(*c, "where", ck, false);
      if (!where) return where.error();
      lc.text = *text, lc.expr = *ex3;
      if (*where == "gpu")
        lc.where = LessonClaim::Where::Gpu;
      else if (*where == "both")
        lc.where = LessonClaim::Where::Both;
      else if (!where->empty() && *where != "sim")
        return Error{r.path(), lc.line, ck + ".where: expected \"sim\", \"gpu\" or \"both\""};
      // A claim that reads another step (step(N)) is checked once every step is read.
      if (lc.expr.find("step(") == std::string::npos)
        if (auto s = check_lesson_expr(lc.expr, true); !s)
          return Error{r.path(), lc.line, ck + ".expr: " + s.error().message};
      st.claims.push_back(std::move(lc));
    }
  }
  return Ok{};
}

}  // namespace

namespace {

fs::path exe_dir() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : exe.parent_path();
}

bool has_lessons(const fs::path& d) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(d, ec))
    if (fs::is_regular_file(e.path() / "lesson.toml", ec)) return true;
  return false;
}

bool has_data(const fs::path& d) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(d, ec))
    if (e.path().extension() == ".json") return true;
  return false;
}

#ifndef WARPLAB_SOURCE_DIR
#define WARPLAB_SOURCE_DIR "."
#endif

}  // namespace

std::string lessons_dir() {
  std::vector<fs::path> c;
  if (const char* env = std::getenv("WARPLAB_LESSONS_DIR"); env && *env) c.emplace_back(env);
  if (const fs::path exe = exe_dir(); !exe.empty()) {
    c.push_back(exe / "lessons");
    c.push_back(exe.parent_path() / "lessons");
    c.push_back(exe.parent_path() / "share" / "warplab" / "lessons");
  }
  std::error_code ec;
  c.push_back(fs::current_path(ec) / "lessons");
  c.push_back(fs::path(WARPLAB_SOURCE_DIR) / "lessons");
  for (const fs::path& p : c)
    if (has_lessons(p)) return p.string();
  return "";
}

std::string gpu_data_dir(const std::string& near) {
  std::vector<fs::path> c;
  if (const char* env = std::getenv("WARPLAB_DATA_DIR"); env && *env) c.emplace_back(env);
  std::error_code ec;
  if (!near.empty())
    for (fs::path p = fs::absolute(near, ec); !p.empty(); p = p.parent_path()) {
      c.push_back(p / "validation" / "data");
      if (p == p.parent_path()) break;
    }
  if (const fs::path exe = exe_dir(); !exe.empty()) {
    c.push_back(exe / "data");
    c.push_back(exe.parent_path() / "validation" / "data");
    c.push_back(exe.parent_path() / "share" / "warplab" / "data");
    c.push_back(exe.parent_path() / "share" / "warplab" / "validation" /
                "data");  // cmake --install
  }
  c.push_back(fs::path(WARPLAB_SOURCE_DIR) / "validation" / "data");
  for (const fs::path& p : c)
    if (has_data(p)) return p.string();
  return "";
}

namespace {
Expected<std::shared_ptr<const std::vector<GpuDataset>>> find_data(const std::string& near) {
  const std::string dir = gpu_data_dir(near);
  if (dir.empty()) return std::make_shared<const std::vector<GpuDataset>>();
  auto d = load_gpu_datasets(dir);
  if (!d) return d.error();
  return std::make_shared<const std::vector<GpuDataset>>(std::move(*d));
}
}  // namespace

namespace {

// The names an expression uses: kernels of launch("k") / launch_sum("pattern"), and selectors
// NAME=value (an '=' that is not part of ==, <=, >=, !=).
struct ExprNames {
  std::vector<std::pair<std::string, bool>> kernels;  // name, is a launch_sum pattern
  std::vector<std::string> selectors;
};
ExprNames expr_names(const std::string& s) {
  ExprNames n;
  for (const char* fn : {"launch(\"", "launch_sum(\""})
    for (size_t p = s.find(fn); p != std::string::npos; p = s.find(fn, p + 1)) {
      if (p > 0 && (std::isalnum(static_cast<unsigned char>(s[p - 1])) || s[p - 1] == '_'))
        continue;
      const size_t b = p + std::strlen(fn), e = s.find('"', b);
      if (e != std::string::npos) n.kernels.emplace_back(s.substr(b, e - b), fn[6] == '_');
    }
  bool quoted = false;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '"') quoted = !quoted;
    if (quoted || s[i] != '=' || (i + 1 < s.size() && s[i + 1] == '=') ||
        (i > 0 && std::strchr("<>!=", s[i - 1])))
      continue;
    size_t e = i;
    while (e > 0 && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
    size_t b = e;
    while (b > 0 && (std::isalnum(static_cast<unsigned char>(s[b - 1])) || s[b - 1] == '_')) --b;
    if (b < e) n.selectors.push_back(s.substr(b, e - b));
  }
  return n;
}

// Checks a step's names against its experiment: set, ci_set and editable name parameters; the
// kernels and selectors of its claims and answers exist. Errors name the lesson file's line.
Status check_step_names(const std::string& path, const LessonStep& st, const std::string& key) {
  if (st.experiment.empty()) return Ok{};
  auto exp = load_experiment(st.experiment);
  if (!exp) return exp.error();
  std::string params, kernels;
  for (const ParamDef& p : exp->params) params += (params.empty() ? "" : ", ") + p.name;
  for (const LaunchDef& l : exp->launches)
    if (l.kind == LaunchDef::Kind::Kernel) kernels += (kernels.empty() ? "" : ", ") + l.kernel;
  auto is_param = [&](const std::string& n) {
    for (const ParamDef& p : exp->params)
      if (p.name == n) return true;
    return false;
  };
  auto check_params = [&](const std::vector<std::string>& names,
                          const std::string& what) -> Status {
    for (const std::string& n : names)
      if (!is_param(n))
        return Error{path, st.line,
                     key + "." + what + ": no parameter '" + n + "' in " + st.experiment +
                         " (it has " + params + ")"};
    return Ok{};
  };
  std::vector<std::string> set, ci;
  for (const auto& [k, v] : st.set) set.push_back(k);
  for (const auto& [k, v] : st.ci_set) ci.push_back(k);
  if (auto s = check_params(set, "set"); !s) return s;
  if (auto s = check_params(ci, "ci_set"); !s) return s;
  if (auto s = check_params(st.editable, "editable"); !s) return s;
  auto check_expr = [&](const std::string& e, int line, const std::string& what,
                        const std::string& file) -> Status {
    const ExprNames n = expr_names(e);
    for (const auto& [k, pattern] : n.kernels) {
      bool found = false;
      for (const LaunchDef& l : exp->launches)
        if (l.kind == LaunchDef::Kind::Kernel &&
            (pattern ? glob_match(k, l.kernel) : l.kernel == k))
          found = true;
      if (!found)
        return Error{file, line,
                     what + ": no kernel " + (pattern ? "matches '" : "'") + k + "' in " +
                         st.experiment + " (it launches " + kernels + ")"};
    }
    for (const std::string& sel : n.selectors)
      if (!is_param(sel))
        return Error{
            file, line,
            what + ": no parameter '" + sel + "' in " + st.experiment + " (it has " + params + ")"};
    return Ok{};
  };
  for (size_t i = 0; i < st.questions.size(); ++i)
    if (auto s = check_expr(st.questions[i].answer, st.questions[i].line,
                            key + ".questions[" + std::to_string(i) + "].answer", path);
        !s)
      return s;
  for (size_t i = 0; i < st.claims.size(); ++i)
    if (st.claims[i].expr.find("step(") == std::string::npos)  // load_lesson checks those
      if (auto s = check_expr(st.claims[i].expr, st.claims[i].line,
                              key + ".claims[" + std::to_string(i) + "].expr", path);
          !s)
        return s;
  // The page's embeds that read this step's own run (step(N) and gpu(...) read elsewhere).
  if (!st.page.empty()) {
    std::ifstream in(st.page);
    std::stringstream text;
    text << in.rdbuf();
    auto embeds = parse_page_embeds(text.str(), st.page);
    if (!embeds) return embeds.error();
    for (const PageEmbed& e : *embeds)
      if (e.expr.find("step(") == std::string::npos && e.expr.find("gpu(") == std::string::npos)
        if (auto s = check_expr(e.expr, e.line, "embedded value", st.page); !s) return s;
  }
  return Ok{};
}

}  // namespace

Expected<Lesson> load_lesson(const std::string& given,
                             std::shared_ptr<const std::vector<GpuDataset>> data) {
  std::string path = given;
  {
    std::error_code ec;
    if (fs::is_directory(given, ec)) path = (fs::path(given) / "lesson.toml").string();
  }
  auto parsed = parse_toml_file(path, "lesson file");
  if (!parsed) return parsed.error();
  toml::table& root = *parsed;
  LessonReader r(path);
  if (auto s = r.only(root, "lesson.toml", {"lesson", "steps"}); !s) return s.error();
  Lesson l;
  l.path = path;
  l.dir = fs::path(path).parent_path().string();
  const toml::table* head = root["lesson"].as_table();
  if (!head) return Error{path, 1, "missing [lesson] (id, title, summary, order)"};
  if (auto s = r.only(*head, "lesson", {"id", "title", "summary", "order", "prerequisites"}); !s)
    return s.error();
  for (auto [field, dst] :
       {std::pair{"id", &l.id}, std::pair{"title", &l.title}, std::pair{"summary", &l.summary}}) {
    auto v = r.str(*head, field, "lesson", std::string(field) != "summary");
    if (!v) return v.error();
    *dst = *v;
  }
  if (const toml::node* o = head->get("order")) {
    if (!o->is_integer()) return r.err(*o, "lesson.order", "expected an integer");
    l.order = static_cast<int>(*o->value<int64_t>());
  }
  if (const toml::node* p = head->get("prerequisites")) {
    const toml::array* a = p->as_array();
    if (!a) return r.err(*p, "lesson.prerequisites", "expected an array of lesson ids");
    for (auto&& v : *a) {
      if (!v.is_string()) return r.err(v, "lesson.prerequisites", "expected lesson ids");
      l.prerequisites.push_back(*v.value<std::string>());
    }
  }
  const toml::array* steps = root["steps"].as_array();
  if (!steps || steps->empty()) return Error{path, 1, "missing [[steps]] (at least one page)"};
  for (size_t i = 0; i < steps->size(); ++i) {
    const toml::table* t = steps->get(i)->as_table();
    const std::string key = "steps[" + std::to_string(i) + "]";
    if (!t) return r.err(*steps->get(i), key, "expected a table");
    LessonStep st;
    if (auto s = read_step(r, *t, key, l.dir, st); !s) return s.error();
    l.steps.push_back(std::move(st));
  }
  for (size_t i = 0; i < l.steps.size(); ++i)
    if (auto s = check_step_names(path, l.steps[i], "steps[" + std::to_string(i) + "]"); !s)
      return s.error();
  // Claims that read another step's run: the syntax, and that step N exists and runs an
  // experiment (its kernel names are not checked here, as for pages).
  for (size_t i = 0; i < l.steps.size(); ++i)
    for (const LessonClaim& c : l.steps[i].claims) {
      if (c.expr.find("step(") == std::string::npos) continue;
      ExprEnv env;
      env.steps.resize(l.steps.size(), nullptr);
      for (const LessonStep& st : l.steps) env.step_runs.push_back(!st.experiment.empty());
      env.own_run = !l.steps[i].experiment.empty();
      env.check = true;
      if (auto v = eval_env_claim(c.expr, env); !v)
        return Error{path, c.line,
                     "steps[" + std::to_string(i) + "].claims.expr: " + v.error().message};
    }
  if (!data) {
    auto d = find_data(l.dir);
    if (!d) return d.error();
    data = *d;
  }
  l.data = data;
  if (auto s = check_lesson_pages(l, *l.data); !s) return s.error();
  return l;
}

Expected<std::vector<Lesson>> load_lessons(const std::string& root, std::vector<Error>* broken) {
  auto data = find_data(root);
  if (!data) return data.error();
  std::vector<Lesson> out;
  std::error_code ec;
  std::vector<fs::path> files;
  for (const auto& d : fs::directory_iterator(root, ec))
    if (d.is_directory() && fs::is_regular_file(d.path() / "lesson.toml"))
      files.push_back(d.path() / "lesson.toml");
  if (ec) return Error{root, 0, "cannot list the lessons folder: " + ec.message()};
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    auto l = load_lesson(f.string(), *data);
    if (!l) {
      if (!broken) return l.error();
      broken->push_back(l.error());
      continue;
    }
    out.push_back(std::move(*l));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const Lesson& a, const Lesson& b) { return a.order < b.order; });
  return out;
}

}  // namespace warplab::lab
