#include "lab/grade.h"

#include <toml++/toml.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "lab/compile.h"
#include "lab/runner.h"
#include "lab/toml_keys.h"
#include "sim/common/input_file.h"

namespace warplab::lab {
namespace fs = std::filesystem;

namespace {

int line_of(const toml::node& n) { return static_cast<int>(n.source().begin.line); }

uint64_t cycles_of(const RunResult& r) {
  uint64_t c = 0;
  for (const LaunchRecord& l : r.launches)
    if (l.timing) c += l.timing->cycles;
  return c;
}

}  // namespace

Expected<Assignment> load_assignment(const std::string& path) {
  auto parsed = parse_toml_file(path, "assignment file");
  if (!parsed) return parsed.error();
  toml::table& root = *parsed;
  if (auto s = only_keys(path, root, "assignment.toml", {"assignment", "tests"}); !s)
    return s.error();
  const toml::table* a = root["assignment"].as_table();
  if (!a) return Error{path, 1, "missing [assignment]"};
  if (auto s = only_keys(
          path, *a, "assignment",
          {"name", "description", "kernel", "signature", "reference", "experiment", "outputs",
           "atol", "rtol", "preset", "target_speed", "max_instructions", "max_cycles"});
      !s)
    return s.error();
  Assignment out;
  out.path = path;
  out.dir = fs::path(path).parent_path().string();
  auto str = [&](const char* k, std::string& dst, bool required) -> Status {
    const toml::node* n = a->get(k);
    if (!n) {
      if (required) return Error{path, line_of(*a), std::string("assignment: missing '") + k + "'"};
      return Ok{};
    }
    if (!n->is_string())
      return Error{path, line_of(*n), std::string("assignment.") + k + ": expected a string"};
    dst = *n->value<std::string>();
    return Ok{};
  };
  for (auto [k, dst, req] : {std::tuple{"name", &out.name, true},
                             {"description", &out.description, false},
                             {"kernel", &out.kernel, true},
                             {"signature", &out.signature, true},
                             {"reference", &out.reference, true},
                             {"experiment", &out.experiment, true},
                             {"preset", &out.preset, false}})
    if (auto s = str(k, *dst, req); !s) return s.error();
  for (std::string* f : {&out.reference, &out.experiment}) {
    const fs::path p = fs::path(out.dir) / *f;
    std::error_code ec;
    if (!fs::is_regular_file(p, ec))
      return Error{path, line_of(*a), "assignment: no file '" + *f + "' in " + out.dir};
    *f = p.string();
  }
  auto number = [&](const char* k, double& dst) -> Status {
    if (const toml::node* n = a->get(k)) {
      if (!n->is_number())
        return Error{path, line_of(*n), std::string("assignment.") + k + ": expected a number"};
      dst = *n->value<double>();
      if (!std::isfinite(dst))
        return Error{path, line_of(*n), std::string("assignment.") + k + ": must be finite"};
      if (dst < 0)
        return Error{path, line_of(*n), std::string("assignment.") + k + ": must not be negative"};
    }
    return Ok{};
  };
  double mi = double(out.max_instructions), mc = double(out.max_cycles);
  for (auto [k, dst] : {std::pair{"atol", &out.atol},
                        {"rtol", &out.rtol},
                        {"target_speed", &out.target_speed},
                        {"max_instructions", &mi},
                        {"max_cycles", &mc}})
    if (auto s = number(k, *dst); !s) return s.error();
  out.max_instructions = static_cast<uint64_t>(mi);
  out.max_cycles = static_cast<uint64_t>(mc);
  if (const toml::node* o = a->get("outputs")) {
    const toml::array* arr = o->as_array();
    if (!arr)
      return Error{path, line_of(*o), "assignment.outputs: expected an array of buffer names"};
    for (auto&& v : *arr) {
      if (!v.is_string())
        return Error{path, line_of(v), "assignment.outputs: expected buffer names"};
      out.outputs.push_back(*v.value<std::string>());
    }
  }
  if (out.outputs.empty())
    return Error{path, line_of(*a), "assignment: missing 'outputs' (the buffers to compare)"};
  // The experiment must load and declare the outputs.
  auto exp = load_experiment(out.experiment);
  if (!exp) return exp.error();
  for (const std::string& o : out.outputs)
    if (!exp->find_buffer(o))
      return Error{path, line_of(*a),
                   "assignment.outputs: '" + o + "' is not a buffer of " + out.experiment};
  const toml::array* tests = root["tests"].as_array();
  if (!tests || tests->empty()) return Error{path, 1, "missing [[tests]]"};
  for (size_t i = 0; i < tests->size(); ++i) {
    const toml::table* t = tests->get(i)->as_table();
    const std::string key = "tests[" + std::to_string(i) + "]";
    if (!t) return Error{path, line_of(*tests->get(i)), key + ": expected a table"};
    if (auto s = only_keys(path, *t, key, {"name", "set"}); !s) return s.error();
    GradeTest g;
    g.line = line_of(*t);
    if (const toml::node* n = t->get("name"); n && n->is_string())
      g.name = *n->value<std::string>();
    else
      return Error{path, g.line, key + ": missing 'name'"};
    if (const toml::node* s = t->get("set")) {
      const toml::table* st = s->as_table();
      if (!st) return Error{path, line_of(*s), key + ".set: expected a table such as { N = 1000 }"};
      for (auto&& [k, v] : *st) {
        if (v.is_integer())
          g.set.emplace_back(std::string(k.str()), std::to_string(*v.value<int64_t>()));
        else if (v.is_string())
          g.set.emplace_back(std::string(k.str()), *v.value<std::string>());
        else
          return Error{path, line_of(v),
                       key + ".set." + std::string(k.str()) + ": expected an integer"};
        if (auto e = *exp; !set_param(e, g.set.back().first + "=" + g.set.back().second))
          return Error{
              path, line_of(v),
              key + ".set." + std::string(k.str()) + ": " +
                  set_param(e, g.set.back().first + "=" + g.set.back().second).error().message};
      }
    }
    out.tests.push_back(std::move(g));
  }
  return out;
}

std::string GradeResult::line() const {
  char b[256];
  std::snprintf(b, sizeof b,
                "GRADE assignment=%s correct=%s hazards=%d faults=%d speed=%.2f score=%d",
                assignment.c_str(), correct ? "yes" : "no", hazards, faults, speed, score);
  return b;
}

Expected<GradeResult> grade(const Assignment& a, const std::string& student_cu) {
  if (std::string why = input_file_problem(student_cu); !why.empty())
    return Error{student_cu, 0, why};
  Toolchain toolchain;
  RunOptions opt;
  opt.backend = BackendKind::Sim;
  opt.mode = SimMode::Timing;
  opt.config = a.preset;
  opt.count_lines = false;
  opt.synccheck = opt.racecheck = true;
  opt.max_instructions = a.max_instructions;
  opt.max_cycles = a.max_cycles;
  GradeResult g;
  g.assignment = a.name;
  g.correct = true;
  uint64_t ref_total = 0, stu_total = 0;
  bool all_ran = true;
  int clean = 0;
  for (const GradeTest& t : a.tests) {
    auto exp = load_experiment(a.experiment);
    if (!exp) return exp.error();
    for (const auto& [k, v] : t.set)
      if (auto s = set_param(*exp, k + "=" + v); !s)
        return Error{a.path, t.line, s.error().message};
    exp->checks.clear();
    exp->sweep.clear();
    GradeTestResult r;
    r.name = t.name;
    // 1. The reference: the outputs to match, the cycles to beat.
    Experiment ref = *exp;
    ref.source = a.reference;
    ref.source_kind = Experiment::SourceKind::Cuda;
    Runner rr(toolchain, opt);
    auto rres = rr.run(ref);
    if (!rres) return Error{a.path, t.line, "the reference failed: " + rres.error().to_string()};
    if (!rres->run || rres->run->faulted() || !rres->passed())
      return Error{a.path, t.line, "the reference faults or has hazards in test '" + t.name + "'"};
    r.reference_cycles = cycles_of(*rres->run);
    // 2. The student's file, same launches and buffers.
    Experiment stu = *exp;
    stu.source = student_cu;
    stu.source_kind = Experiment::SourceKind::Cuda;
    Runner sr(toolchain, opt);
    auto sres = sr.run(stu);
    if (!sres) return sres.error();  // compile error or a signature mismatch: bad input
    const RunResult& run = *sres->run;
    for (const LaunchRecord& l : run.launches) {
      r.hazards += static_cast<int>(l.hazards.size());
      for (const auto& h : l.hazards) r.detail += h.message + "\n";
      if (l.fault) {
        ++r.faults;
        r.detail += l.fault->message + "\n";
      }
    }
    r.student_cycles = cycles_of(run);
    // 3. Outputs against the reference's.
    r.outputs_match = r.faults == 0;
    for (const std::string& name : a.outputs) {
      const HostBuffer *want = nullptr, *got = nullptr;
      for (const HostBuffer& b : rres->run->buffers)
        if (b.name == name) want = &b;
      for (const HostBuffer& b : run.buffers)
        if (b.name == name) got = &b;
      if (!want || !got || want->count != got->count) {
        r.outputs_match = false;
        r.detail += "output '" + name + "' missing\n";
        continue;
      }
      uint64_t bad = 0, first = 0;
      for (uint64_t i = 0; i < want->count; ++i) {
        const double w = want->at(i), s = got->at(i);
        const bool ok =
            (std::isnan(w) && std::isnan(s)) || std::fabs(w - s) <= a.atol + a.rtol * std::fabs(w);
        if (!ok && bad++ == 0) first = i;
      }
      if (bad) {
        r.outputs_match = false;
        char b[200];
        std::snprintf(
            b, sizeof b,
            "output '%s': %llu of %llu elements differ (first at %llu: got %.9g, expected %.9g)\n",
            name.c_str(), (unsigned long long)bad, (unsigned long long)want->count,
            (unsigned long long)first, got->at(first), want->at(first));
        r.detail += b;
      }
    }
    r.passed = r.outputs_match && r.hazards == 0 && r.faults == 0;
    clean += r.passed;
    g.correct = g.correct && r.outputs_match;
    g.hazards += r.hazards;
    g.faults += r.faults;
    if (r.faults || !r.student_cycles) all_ran = false;
    ref_total += r.reference_cycles;
    stu_total += r.student_cycles;
    g.tests.push_back(std::move(r));
  }
  g.speed = all_ran && stu_total ? double(ref_total) / double(stu_total) : 0.0;
  const bool clean_all = clean == static_cast<int>(a.tests.size());
  double score = 70.0 * clean / std::max<size_t>(1, a.tests.size());
  if (clean_all && a.target_speed > 0) score += 30.0 * std::min(1.0, g.speed / a.target_speed);
  g.score = static_cast<int>(std::lround(score));
  return g;
}

}  // namespace warplab::lab
