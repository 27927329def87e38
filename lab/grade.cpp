#include "lab/grade.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <toml++/toml.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "lab/compile_cache.h"
#include "lab/buffers.h"
#include "lab/compile.h"
#include "lab/runner.h"
#include "lab/sandbox.h"
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
  if (auto s = only_keys(path, *a, "assignment",
                         {"name", "description", "kernel", "signature", "reference", "experiment",
                          "outputs", "atol", "rtol", "preset", "target_speed", "max_instructions",
                          "max_cycles", "test_time_limit", "total_time_limit", "inputs"});
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
                        {"max_cycles", &mc},
                        {"test_time_limit", &out.test_time_limit},
                        {"total_time_limit", &out.total_time_limit}})
    if (auto s = number(k, *dst); !s) return s.error();
  for (const char* k : {"test_time_limit", "total_time_limit"})
    if (const toml::node* n = a->get(k);
        n && !(*n->value<double>() > 0 && *n->value<double>() <= 86400))
      return Error{path, line_of(*n),
                   std::string("assignment.") + k + ": expected seconds in (0, 86400]"};
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
  int inputs_line = line_of(*a);
  if (const toml::node* o = a->get("inputs")) {
    const toml::array* arr = o->as_array();
    inputs_line = line_of(*o);
    if (!arr)
      return Error{path, line_of(*o), "assignment.inputs: expected an array of buffer names"};
    for (auto&& v : *arr) {
      if (!v.is_string())
        return Error{path, line_of(v), "assignment.inputs: expected buffer names"};
      out.inputs.push_back(*v.value<std::string>());
    }
  }
  // The experiment must load and declare the outputs and inputs.
  auto exp = load_experiment(out.experiment);
  if (!exp) return exp.error();
  for (const std::string& o : out.outputs)
    if (!exp->find_buffer(o))
      return Error{path, line_of(*a),
                   "assignment.outputs: '" + o + "' is not a buffer of " + out.experiment};
  for (const std::string& o : out.inputs)
    if (!exp->find_buffer(o))
      return Error{path, inputs_line,
                   "assignment.inputs: '" + o + "' is not a buffer of " + out.experiment};
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
  std::snprintf(
      b, sizeof b,
      "GRADE assignment=%s correct=%s hazards=%d faults=%d timeouts=%d speed=%.2f score=%d",
      assignment.c_str(), correct ? "yes" : "no", hazards, faults, timeouts, speed, score);
  return b;
}

std::vector<std::string> input_buffers(const Assignment& a, const Experiment& exp) {
  if (!a.inputs.empty()) return a.inputs;
  // The signature's parameters, split at top-level commas: a `const` pointer is an input.
  std::vector<bool> is_const_ptr;
  const size_t open = a.signature.find('('), close = a.signature.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close < open) return {};
  std::string param;
  int depth = 0;
  for (size_t i = open + 1; i <= close; ++i) {
    const char c = a.signature[i];
    if ((c == ',' && depth == 0) || i == close) {
      const size_t star = param.find('*');
      const size_t cst = param.find("const");
      is_const_ptr.push_back(star != std::string::npos && cst != std::string::npos && cst < star);
      param.clear();
      continue;
    }
    depth += c == '<' || c == '(' ? 1 : c == '>' || c == ')' ? -1 : 0;
    param += c;
  }
  std::vector<std::string> out;
  for (const LaunchDef& l : exp.launches) {
    if (l.kind != LaunchDef::Kind::Kernel || l.kernel != a.kernel) continue;
    for (size_t i = 0; i < l.args.size() && i < is_const_ptr.size(); ++i)
      if (is_const_ptr[i] && l.args[i].kind == ArgDef::Kind::Buffer &&
          std::find(out.begin(), out.end(), l.args[i].buffer) == out.end())
        out.push_back(l.args[i].buffer);
  }
  return out;
}

namespace {

using Clock = std::chrono::steady_clock;

// The student's run of one test, compared with the reference's; runs in the per-test child.
Expected<GradeTestResult> run_student_test(const Assignment& a, const Experiment& stu,
                                           const RunResult& ref, Runner& sr, GradeTestResult r) {
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
  auto find = [](const RunResult& rr, const std::string& name) -> const HostBuffer* {
    for (const HostBuffer& b : rr.buffers)
      if (b.name == name) return &b;
    return nullptr;
  };
  // Outputs against the reference's.
  r.outputs_match = r.faults == 0;
  for (const std::string& name : a.outputs) {
    const HostBuffer *want = find(ref, name), *got = find(run, name);
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
  // Inputs as they were made: a kernel that writes its const input (to read what it wrote) fails.
  auto env = stu.eval_env();
  auto initial = env ? make_buffers(stu, *env) : Expected<std::vector<HostBuffer>>(env.error());
  for (const std::string& name : input_buffers(a, stu)) {
    const HostBuffer* got = find(run, name);
    const HostBuffer* was = nullptr;
    if (initial)
      for (const HostBuffer& b : *initial)
        if (b.name == name) was = &b;
    if (!got || !was || got->bytes == was->bytes) continue;
    uint64_t first = 0;
    while (first < got->count && got->at(first) == was->at(first)) ++first;
    r.outputs_match = false;
    char b[240];
    std::snprintf(b, sizeof b,
                  "input '%s' was changed by your kernel (first at %llu: now %.9g, was %.9g): "
                  "inputs are read-only\n",
                  name.c_str(), (unsigned long long)first, got->at(first), was->at(first));
    r.detail += b;
  }
  r.passed = r.outputs_match && r.hazards == 0 && r.faults == 0;
  return r;
}

std::string encode(const Expected<GradeTestResult>& e) {
  std::string out;
  if (!e) {
    put_field(out, "error");
    put_field(out, e.error().file);
    put_field(out, std::to_string(e.error().line));
    put_field(out, e.error().message);
    return out;
  }
  const GradeTestResult& r = *e;
  put_field(out, "ok");
  for (const std::string& f :
       {std::to_string(r.passed), std::to_string(r.outputs_match), std::to_string(r.hazards),
        std::to_string(r.faults), std::to_string(r.student_cycles), r.detail})
    put_field(out, f);
  return out;
}

// Decodes the child's answer into `r`; an Error when it says the submission is bad input.
std::optional<Error> decode(const std::string& in, GradeTestResult& r) {
  size_t pos = 0;
  std::string kind, f[6];
  if (!get_field(in, pos, kind)) return std::nullopt;
  if (kind == "error") {
    if (!get_field(in, pos, f[0]) || !get_field(in, pos, f[1]) || !get_field(in, pos, f[2]))
      return std::nullopt;
    return Error{f[0], std::atoi(f[1].c_str()), f[2]};
  }
  for (std::string& s : f)
    if (!get_field(in, pos, s)) return std::nullopt;
  r.passed = f[0] == "1";
  r.outputs_match = f[1] == "1";
  r.hazards = std::atoi(f[2].c_str());
  r.faults = std::atoi(f[3].c_str());
  r.student_cycles = std::strtoull(f[4].c_str(), nullptr, 10);
  r.detail = f[5];
  return std::nullopt;
}

// Runs the student's side of one test in a child process killed after `seconds`.
// `r.timed_out` when it was; a crash of the child is a fault.
Expected<GradeTestResult> run_student_test_limited(const Assignment& a, const Experiment& stu,
                                                   const RunResult& ref, Runner& sr,
                                                   GradeTestResult r, double seconds,
                                                   const std::string& which_limit) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0)
    return Error{a.path, 0, std::string("pipe: ") + std::strerror(errno)};
  const pid_t pid = fork();
  if (pid < 0) {
    ::close(fds[0]), ::close(fds[1]);
    return Error{a.path, 0, std::string("fork: ") + std::strerror(errno)};
  }
  if (pid == 0) {
    setpgid(0, 0);  // its own group: the sandboxed compile it starts dies with it
    ::close(fds[0]);
    struct rlimit core {
      0, 0
    };
    setrlimit(RLIMIT_CORE, &core);
    const std::string answer = encode(run_student_test(a, stu, ref, sr, r));
    size_t done = 0;
    while (done < answer.size()) {
      const ssize_t n = ::write(fds[1], answer.data() + done, answer.size() - done);
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    _exit(0);
  }
  setpgid(pid, pid);
  ::close(fds[1]);
  std::string answer;
  const bool finished = read_with_deadline(fds[0], seconds, answer, 64ull << 20);
  ::close(fds[0]);
  if (!finished) kill(-pid, SIGKILL), kill(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  kill(-pid, SIGKILL);  // anything it left behind
  if (!finished) {
    char b[300];
    std::snprintf(b, sizeof b,
                  "TIMEOUT: your kernel was still being compiled or simulated after %.0f s of "
                  "wall-clock time (%s); the test fails as too slow\n",
                  seconds, which_limit.c_str());
    r.timed_out = true;
    r.detail += b;
    return r;
  }
  if (auto bad = decode(answer, r)) return *bad;
  if (answer.empty()) {
    ++r.faults;
    r.detail += WIFSIGNALED(status) ? std::string("the run of your kernel ended on signal ") +
                                          strsignal(WTERMSIG(status)) + "\n"
                                    : "the run of your kernel ended without a result\n";
  }
  return r;
}

}  // namespace

Expected<GradeResult> grade(const Assignment& a, const std::string& student_cu,
                            const GradeOptions& options) {
  const auto start = Clock::now();
  if (std::string why = input_file_problem(student_cu); !why.empty())
    return Error{student_cu, 0, why};
  const double test_limit =
      options.test_time_limit > 0 ? options.test_time_limit : a.test_time_limit;
  const double total_limit =
      options.total_time_limit > 0 ? options.total_time_limit : a.total_time_limit;
  Toolchain toolchain;
  RunOptions opt;
  opt.backend = BackendKind::Sim;
  opt.mode = SimMode::Timing;
  opt.config = a.preset;
  opt.count_lines = false;
  opt.synccheck = opt.racecheck = true;
  opt.max_instructions = a.max_instructions;
  opt.max_cycles = a.max_cycles;
  opt.threads = options.threads;
  // The student's compile: sandboxed, reading nothing but the toolkit and the submission, never
  // through the PTX cache, within the test's time.
  RunOptions sopt = opt;
  sopt.ptx_cache = false;
  SandboxPolicy policy;
  policy.read_files = {student_cu};
  policy.allow_unconfined = options.allow_unsandboxed;
  policy.helper = options.sandbox_helper;
  policy.wall_seconds = std::min(policy.wall_seconds, test_limit);
  policy.cpu_seconds = std::min(policy.cpu_seconds, std::max(1.0, test_limit));
  sopt.sandbox = policy;
  Runner rr(toolchain, opt), sr(toolchain, sopt);
  GradeResult g;
  g.assignment = a.name;
  g.correct = true;
  uint64_t ref_total = 0, stu_total = 0;
  bool all_ran = true;
  int clean = 0;
  bool compiled = false;
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
    Experiment stu = *exp;
    stu.source = student_cu;
    stu.source_kind = Experiment::SourceKind::Cuda;
    // 1. The student's file compiles (once, here: a compile error is bad input, exit 2).
    if (!compiled) {
      auto env = stu.eval_env();
      if (!env) return env.error();
      if (auto u = sr.compile(stu, *env); !u) return u.error();
      compiled = true;
    }
    const double spent = std::chrono::duration<double>(Clock::now() - start).count();
    if (spent >= total_limit) {
      char b[200];
      std::snprintf(b, sizeof b,
                    "TIMEOUT: not run, the grade's total time limit of %.0f s was spent\n",
                    total_limit);
      r.timed_out = true;
      r.detail = b;
    } else {
      // 2. The reference: the outputs to match, the cycles to beat.
      Experiment ref = *exp;
      ref.source = a.reference;
      ref.source_kind = Experiment::SourceKind::Cuda;
      auto rres = rr.run(ref);
      if (!rres) return Error{a.path, t.line, "the reference failed: " + rres.error().to_string()};
      if (!rres->run || rres->run->faulted() || !rres->passed())
        return Error{a.path, t.line,
                     "the reference faults or has hazards in test '" + t.name + "'"};
      r.reference_cycles = cycles_of(*rres->run);
      // 3. The student's run, same launches and freshly made buffers, in a child with a deadline.
      const double total_left =
          total_limit - std::chrono::duration<double>(Clock::now() - start).count();
      char which[160];
      if (test_limit <= total_left)
        std::snprintf(which, sizeof which, "the per-test limit, test_time_limit = %.0f s",
                      test_limit);
      else
        std::snprintf(which, sizeof which, "what was left of total_time_limit = %.0f s",
                      total_limit);
      auto done = run_student_test_limited(a, stu, *rres->run, sr, r,
                                           std::max(0.0, std::min(test_limit, total_left)), which);
      if (!done) return done.error();
      r = std::move(*done);
    }
    clean += r.passed;
    g.correct = g.correct && r.outputs_match && !r.timed_out;
    g.hazards += r.hazards;
    g.faults += r.faults;
    g.timeouts += r.timed_out;
    if (r.faults || r.timed_out || !r.student_cycles) all_ran = false;
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
