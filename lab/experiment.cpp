// Reading experiment files with toml++ (source regions give every node's line).
#include "lab/experiment.h"

#include <toml++/toml.h>

#include <algorithm>
#include <climits>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include "sim/common/input_file.h"

namespace warplab::lab {
namespace fs = std::filesystem;

const ParamDef* Experiment::find_param(const std::string& n) const {
  for (const ParamDef& p : params)
    if (p.name == n) return &p;
  return nullptr;
}
int Experiment::buffer_index(const std::string& n) const {
  for (size_t k = 0; k < buffers.size(); ++k)
    if (buffers[k].name == n) return static_cast<int>(k);
  return -1;
}
const BufferDef* Experiment::find_buffer(const std::string& n) const {
  int k = buffer_index(n);
  return k < 0 ? nullptr : &buffers[k];
}
Expected<Env> Experiment::eval_env() const {
  Env e;
  for (const ParamDef& p : params)
    if (p.derived.empty()) e[p.name] = p.value;
  // Derived parameters in dependency order: evaluate whichever has all its inputs, until none is
  // left (the loader has rejected cycles and unknown names, so each pass makes progress).
  std::vector<const ParamDef*> todo;
  for (const ParamDef& p : params)
    if (!p.derived.empty()) todo.push_back(&p);
  while (!todo.empty()) {
    bool progress = false;
    for (auto it = todo.begin(); it != todo.end();) {
      const ParamDef& p = **it;
      bool ready = true;
      for (const std::string& n : p.derived.names()) ready = ready && e.count(n);
      if (!ready) {
        ++it;
        continue;
      }
      auto v = p.derived.eval(e);
      if (!v)
        return Error{path, p.line,
                     "params." + p.name + " (\"" + p.derived.text() + "\"): " + v.error().message};
      e[p.name] = *v;
      it = todo.erase(it);
      progress = true;
    }
    if (!progress)
      return Error{path, todo.front()->line,
                   "params." + todo.front()->name + ": depends on itself (a cycle)"};
  }
  return e;
}

Env Experiment::env() const {
  auto e = eval_env();
  if (e) return *e;
  Env partial;
  for (const ParamDef& p : params)
    if (p.derived.empty()) partial[p.name] = p.value;
  return partial;
}

namespace {

int line_of(const toml::node& n) { return static_cast<int>(n.source().begin.line); }

// Letters, digits and '_', not starting with a digit (a C identifier; an expression's name).
bool is_identifier(const std::string& s) {
  return !s.empty() && !std::isdigit(static_cast<unsigned char>(s[0])) &&
         std::all_of(s.begin(), s.end(), [](char c) {
           return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
         });
}

// compute_NN or sm_NN (two or three digits), optionally with an 'a' or 'f' suffix: the forms
// NVRTC's --gpu-architecture takes (compute_90, sm_90a, compute_100f). Scanned by hand.
bool is_nvrtc_arch(const std::string& s) {
  size_t at = 0;
  if (s.rfind("compute_", 0) == 0)
    at = 8;
  else if (s.rfind("sm_", 0) == 0)
    at = 3;
  else
    return false;
  size_t digits = 0;
  while (at + digits < s.size() && std::isdigit(static_cast<unsigned char>(s[at + digits])))
    ++digits;
  const std::string rest = s.substr(at + digits);
  return digits >= 2 && digits <= 3 && (rest.empty() || rest == "a" || rest == "f");
}

// Why `o` cannot be one NVRTC option ("" when it can): WarpLab passes each string as one argument.
std::string nvrtc_option_problem(const std::string& o) {
  const std::string example = " (such as \"-use_fast_math\" or \"-DTILE=16\")";
  if (o.empty()) return "an empty option; expected an NVRTC option" + example;
  if (o[0] != '-') return "'" + o + "' is not an option: NVRTC options start with '-'" + example;
  const std::string name = o.substr(0, o.find('='));
  if (name.find_first_of(" \t") != std::string::npos)
    return "'" + o + "' holds more than one option: give each its own string, [\"-O3\", " +
           "\"-use_fast_math\"]";
  if (name == "--gpu-architecture" || name == "-arch")
    return "'" + o +
           "': give the architecture as 'arch = \"compute_90\"' in [experiment] (WarpLab passes "
           "--gpu-architecture to NVRTC itself)";
  return "";
}

// Reads one file's tables, producing errors that name file:line and the key path.
class Reader {
 public:
  explicit Reader(std::string path) : path_(std::move(path)) {}

  Error err(int line, const std::string& key, const std::string& what) const {
    return Error{path_, line, (key.empty() ? "" : key + ": ") + what};
  }
  Error err(const toml::node& n, const std::string& key, const std::string& what) const {
    return err(line_of(n), key, what);
  }

  // Every key of `t` must be in `allowed`.
  Status only_keys(const toml::table& t, const std::string& where,
                   std::initializer_list<const char*> allowed) const {
    for (auto&& [k, v] : t) {
      bool ok = false;
      for (const char* a : allowed) ok = ok || k.str() == a;
      if (!ok) {
        std::string list;
        for (const char* a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
        return err(static_cast<int>(k.source().begin.line), join(where, std::string(k.str())),
                   "unknown key (expected one of: " + list + ")");
      }
    }
    return Ok{};
  }

  static std::string join(const std::string& a, const std::string& b) {
    return a.empty() ? b : a + "." + b;
  }

  Expected<std::string> string(const toml::node& n, const std::string& key) const {
    if (auto s = n.value<std::string>(); s && n.is_string()) return *s;
    return err(n, key, "expected a string");
  }

  // A number literal or an expression string that reads no parameters.
  Expected<Value> constant(const toml::node& n, const std::string& key) const {
    if (n.is_integer()) return Value::integer(*n.value<int64_t>());
    if (n.is_floating_point()) return Value::real(*n.value<double>());
    if (n.is_string()) {
      auto v = parse_value(*n.value<std::string>());
      if (!v) return err(n, key, v.error().message);
      return v;
    }
    return err(n, key, "expected a number");
  }

  Expected<double> number(const toml::node& n, const std::string& key) const {
    auto v = constant(n, key);
    if (!v) return v.error();
    return v->as_double();
  }

  // An expression: an integer/float literal or a string over the declared parameters.
  // `scope`: more names the expression may read (loop variables of a launch).
  Expected<Expr> expr(const toml::node& n, const std::string& key, const Experiment& exp,
                      const std::vector<std::string>& scope = {}) const {
    if (n.is_integer()) return Expr::constant(Value::integer(*n.value<int64_t>()));
    if (n.is_floating_point()) return Expr::constant(Value::real(*n.value<double>()));
    if (!n.is_string()) return err(n, key, "expected a number or an expression string");
    return expr_text(*n.value<std::string>(), line_of(n), key, exp, scope);
  }
  Expected<Expr> expr_text(const std::string& text, int line, const std::string& key,
                           const Experiment& exp, const std::vector<std::string>& scope) const {
    auto e = Expr::parse(text);
    if (!e) return err(line, key, e.error().message);
    for (const std::string& name : e->names())
      if (!exp.find_param(name) && std::find(scope.begin(), scope.end(), name) == scope.end())
        return err(line, key, unknown_param(name, exp) + scope_text(scope));
    return e;
  }
  static std::string scope_text(const std::vector<std::string>& scope) {
    std::string s;
    for (const std::string& n : scope) s += (s.empty() ? "" : ", ") + n;
    return s.empty() ? "" : " (loop variables: " + s + ")";
  }

  static std::string unknown_param(const std::string& name, const Experiment& exp) {
    std::string known;
    for (const ParamDef& p : exp.params) known += (known.empty() ? "" : ", ") + p.name;
    return "unknown parameter '" + name + "'" +
           (known.empty() ? " ([params] is empty)" : " (parameters: " + known + ")");
  }

  // A path relative to the experiment file; must exist.
  Expected<std::string> file(const toml::node& n, const std::string& key,
                             const std::string& dir) const {
    auto s = string(n, key);
    if (!s) return s;
    fs::path p = fs::path(*s).is_absolute() ? fs::path(*s) : fs::path(dir) / *s;
    if (std::string why = input_file_problem(p.string()); !why.empty())
      return err(n, key, p.lexically_normal().string() + ": " + why);
    return p.lexically_normal().string();
  }

  // A buffer or a range of it: "y", "y[0:N]", "y[N:]", "y[:16]", "y[5]" (expressions over the
  // parameters and `scope`).
  Expected<SliceDef> slice(const toml::node& n, const std::string& key, const Experiment& exp,
                           const std::vector<std::string>& scope = {}) const {
    auto text = string(n, key);
    if (!text) return text.error();
    SliceDef sl;
    sl.text = *text;
    // NAME, then optionally [ ... ] closing the text (scanned by hand: std::regex recurses per
    // character and a long hostile string would overflow the stack).
    const std::string& t = *text;
    size_t i = t.find_first_not_of(" \t");
    const size_t name_begin = i == std::string::npos ? t.size() : i;
    size_t name_end = name_begin;
    while (name_end < t.size() &&
           (std::isalnum(static_cast<unsigned char>(t[name_end])) || t[name_end] == '_'))
      ++name_end;
    size_t after = t.find_first_not_of(" \t", name_end);
    if (after == std::string::npos) after = t.size();
    const size_t last = t.find_last_not_of(" \t");
    const bool bracket = after < t.size() && t[after] == '[' && last != std::string::npos &&
                         t[last] == ']' && last > after;
    if (name_end == name_begin || std::isdigit(static_cast<unsigned char>(t[name_begin])) ||
        (after < t.size() && !bracket))
      return err(n, key, "expected a buffer name or a slice such as \"y[0:N]\", got \"" + t + "\"");
    sl.buffer = t.substr(name_begin, name_end - name_begin);
    if (!exp.find_buffer(sl.buffer)) return err(n, key, "unknown buffer '" + sl.buffer + "'");
    if (!bracket) return sl;
    const std::string inside = t.substr(after + 1, last - after - 1);
    const size_t colon = inside.find(':');
    auto side = [&](const std::string& t, Expr& out) -> Status {
      if (t.find_first_not_of(" \t") == std::string::npos) return Ok{};
      auto e = expr_text(t, line_of(n), key, exp, scope);
      if (!e) return e.error();
      out = *e;
      return Ok{};
    };
    if (colon == std::string::npos) {
      sl.single = true;
      if (auto st = side(inside, sl.begin); !st) return st.error();
      if (sl.begin.empty()) return err(n, key, "empty index in \"" + *text + "\"");
      return sl;
    }
    if (auto st = side(inside.substr(0, colon), sl.begin); !st) return st.error();
    if (auto st = side(inside.substr(colon + 1), sl.end); !st) return st.error();
    return sl;
  }

  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// ---- Triton kernels ([experiment] triton = "kernel.py"; lab/triton.h, lessons/FORMAT.md)

// triton = "k.py": the source is a Triton file; none of NVRTC's keys (source, ptx, arch,
// options, defines) apply. Without `triton`, the Triton keys are errors.
Status read_triton_source(const Reader& r, const toml::table& t, Experiment& exp) {
  const std::string w = "experiment";
  const toml::node* n = t.get("triton");
  if (!n) {
    for (const char* key : {"constexprs", "num_warps", "num_stages", "target"})
      if (const toml::node* k = t.get(key))
        return r.err(*k, w + "." + key,
                     std::string("only used with 'triton = \"kernel.py\"' (a Triton kernel)"));
    return Ok{};
  }
  for (const char* key : {"source", "ptx", "arch", "options", "defines"})
    if (const toml::node* k = t.get(key))
      return r.err(*k, w + "." + key,
                   std::string("not used with 'triton = \"kernel.py\"': Triton compiles the "
                               "kernel (give its settings as constexprs, num_warps, num_stages "
                               "and target)"));
  auto f = r.file(*n, w + ".triton", exp.dir);
  if (!f) return f.error();
  if (fs::path(*f).extension() != ".py")
    return r.err(*n, w + ".triton", "expected a Python file (.py) with @triton.jit kernels");
  exp.source = *f;
  exp.source_line = line_of(*n);
  exp.source_kind = Experiment::SourceKind::Triton;
  exp.triton.line = line_of(*n);
  return Ok{};
}

// constexprs = { BLOCK_SIZE = "BLOCK" }, num_warps = "warps", num_stages = 3, target = "sm_90":
// read after [params], since the values are expressions over them.
Status read_triton_settings(const Reader& r, const toml::table& t, Experiment& exp) {
  if (exp.source_kind != Experiment::SourceKind::Triton) return Ok{};
  const std::string w = "experiment";
  Experiment::TritonDef& td = exp.triton;
  td.num_warps = Expr::constant(Value::integer(4));  // Triton's defaults
  td.num_stages = Expr::constant(Value::integer(3));
  if (const toml::node* n = t.get("constexprs")) {
    const toml::table* c = n->as_table();
    if (!c)
      return r.err(*n, w + ".constexprs",
                   "expected a table { BLOCK_SIZE = \"expression\" } of tl.constexpr values");
    td.constexprs_line = line_of(*n);
    for (auto&& [k, v] : *c) {
      const std::string name(k.str()), key = w + ".constexprs." + name;
      if (!is_identifier(name))
        return r.err(v, key, "'" + name + "' is not a Python parameter name");
      if (v.is_boolean()) {  // a tl.constexpr flag: true / false
        td.constexprs.emplace_back(name, Expr::constant(Value::integer(*v.value<bool>() ? 1 : 0)));
        continue;
      }
      auto e = r.expr(v, key, exp);
      if (!e) return e.error();
      td.constexprs.emplace_back(name, *e);
    }
  }
  for (const char* key : {"num_warps", "num_stages"})
    if (const toml::node* n = t.get(key)) {
      auto e = r.expr(*n, w + "." + key, exp);
      if (!e) return e.error();
      (std::string(key) == "num_warps" ? td.num_warps : td.num_stages) = *e;
    }
  if (const toml::node* n = t.get("target")) {
    auto s = r.string(*n, w + ".target");
    if (!s) return s.error();
    if (*s != "sm_90" && *s != "sm_80")
      return r.err(
          *n, w + ".target",
          "expected \"sm_90\" (Triton emits .target sm_90a) or \"sm_80\"; got \"" + *s + "\"");
    td.target = *s == "sm_90" ? 90 : 80;
  }
  return Ok{};
}

// A launch of a Triton kernel: every launch names the same @triton.jit function; its block is
// 32 * num_warps threads (Triton's launcher sets it: `block` is an error) and its dynamic shared
// memory comes from the compiled kernel's metadata (`shared_bytes` is an error).
Status read_triton_launch(const Reader& r, const toml::table& t, const std::string& key,
                          Experiment& exp, LaunchDef& l) {
  for (const char* k : {"block", "shared_bytes"})
    if (const toml::node* n = t.get(k))
      return r.err(*n, key + "." + k,
                   std::string("not given for a Triton kernel: ") +
                       (std::string(k) == "block"
                            ? "each program runs on 32 * num_warps threads"
                            : "Triton's compiled kernel says how much dynamic shared memory it "
                              "needs, and WarpLab passes that"));
  if (!is_identifier(l.kernel))
    return r.err(l.kernel_line, key + ".kernel",
                 "expected the name of a @triton.jit function in " + exp.source + ", got '" +
                     l.kernel + "'");
  if (exp.triton.function.empty()) exp.triton.function = l.kernel;
  if (l.kernel != exp.triton.function)
    return r.err(l.kernel_line, key + ".kernel",
                 "every launch of a Triton experiment runs the same function (the first launch "
                 "names '" +
                     exp.triton.function + "'): write another experiment for '" + l.kernel + "'");
  auto warps = Expr::parse("32 * (" + exp.triton.num_warps.text() + ")");
  if (!warps) return r.err(l.kernel_line, key, warps.error().message);
  l.block = {*warps, Expr::constant(Value::integer(1)), Expr::constant(Value::integer(1))};
  return Ok{};
}

// After a Triton launch's own arguments: the two pointers Triton 3.x appends to every kernel
// (global scratch, profile scratch), null here; the runner points them at scratch buffers where
// the compiled kernel's metadata asks for scratch memory.
void add_triton_scratch_args(LaunchDef& l) {
  for (const char* what : {"global_scratch", "profile_scratch"}) {
    ArgDef a;
    a.kind = ArgDef::Kind::Scalar;
    a.expr = Expr::constant(Value::integer(0));
    a.text = std::string("0 (") + what + ")";
    a.line = l.args_line;
    l.args.push_back(std::move(a));
  }
}

Status read_experiment_table(const Reader& r, const toml::table& t, Experiment& exp) {
  const std::string w = "experiment";
  if (auto s = r.only_keys(t, w,
                           {"name", "description", "source", "ptx", "arch", "options", "defines",
                            "synccheck", "racecheck", "max_instructions", "max_cycles",
                            // Triton kernels (read_triton_source, read_triton_settings):
                            "triton", "constexprs", "num_warps", "num_stages", "target"});
      !s)
    return s;
  if (auto* n = t.get("name")) {
    auto s = r.string(*n, w + ".name");
    if (!s) return s.error();
    exp.name = *s;
  }
  if (auto* n = t.get("description")) {
    auto s = r.string(*n, w + ".description");
    if (!s) return s.error();
    exp.description = *s;
  }
  const toml::node* src = t.get("source");
  const toml::node* ptx = t.get("ptx");
  if (auto s = read_triton_source(r, t, exp); !s) return s;
  const bool is_triton = exp.source_kind == Experiment::SourceKind::Triton;
  if (!is_triton && src && ptx)
    return r.err(*ptx, w + ".ptx", "give either 'source' (a .cu file) or 'ptx', not both");
  if (!is_triton && !src && !ptx)
    return r.err(line_of(t), w,
                 "missing 'source = \"kernel.cu\"' (or 'ptx = \"kernel.ptx\"', or 'triton = "
                 "\"kernel.py\"')");
  if (!is_triton) {
    const toml::node& sn = src ? *src : *ptx;
    auto f = r.file(sn, w + (src ? ".source" : ".ptx"), exp.dir);
    if (!f) return f.error();
    exp.source = *f;
    exp.source_line = line_of(sn);
  }
  bool is_ptx = !is_triton && (ptx || fs::path(exp.source).extension() == ".ptx");
  if (!is_triton)
    exp.source_kind = is_ptx ? Experiment::SourceKind::Ptx : Experiment::SourceKind::Cuda;
  if (auto* n = t.get("arch")) {
    auto s = r.string(*n, w + ".arch");
    if (!s) return s.error();
    if (!is_nvrtc_arch(*s))
      return r.err(*n, w + ".arch",
                   "expected an architecture for NVRTC's --gpu-architecture: compute_NN (a "
                   "virtual one, PTX) or sm_NN, optionally with an 'a' or 'f' suffix, such as "
                   "\"compute_90\" (the default) or \"sm_90a\"; got \"" +
                       *s + "\"");
    exp.arch = *s;
    exp.arch_line = line_of(*n);
  }
  for (const char* key : {"synccheck", "racecheck"})
    if (auto* n = t.get(key)) {
      if (!n->is_boolean()) return r.err(*n, w + "." + key, "expected true or false");
      (std::string(key) == "synccheck" ? exp.synccheck : exp.racecheck) = *n->value<bool>();
    }
  for (const char* key : {"max_instructions", "max_cycles"})
    if (auto* n = t.get(key)) {
      if (!n->is_integer() || *n->value<int64_t>() < 0)
        return r.err(*n, w + "." + key, "expected a non-negative integer (0 = no limit)");
      (std::string(key) == "max_cycles" ? exp.max_cycles : exp.max_instructions) =
          static_cast<uint64_t>(*n->value<int64_t>());
    }
  if (auto* n = t.get("options")) {
    const toml::array* a = n->as_array();
    if (!a) return r.err(*n, w + ".options", "expected an array of strings");
    exp.options_line = line_of(*n);
    for (size_t i = 0; i < a->size(); ++i) {
      const toml::node& o = *a->get(i);
      const std::string key = w + ".options[" + std::to_string(i) + "]";
      auto s = r.string(o, key);
      if (!s) return s.error();
      if (auto why = nvrtc_option_problem(*s); !why.empty()) return r.err(o, key, why);
      exp.options.push_back(*s);
      exp.option_lines.push_back(line_of(o));
    }
  }
  // With `ptx =` nothing is compiled: NVRTC's keys would be ignored, so they are errors.
  if (is_ptx)
    for (const char* key : {"arch", "options", "defines"})
      if (const toml::node* n = t.get(key))
        return r.err(*n, w + "." + key,
                     std::string("only used to compile a CUDA source with NVRTC, and this "
                                 "experiment runs the PTX file ") +
                         exp.source +
                         " as it is (its .target line gives the architecture): remove '" + key +
                         "', or give 'source = \"kernel.cu\"'");
  return Ok{};
}

Status read_defines(const Reader& r, const toml::table& t, Experiment& exp) {
  if (const toml::node* n = t.get("defines")) {
    const toml::table* d = n->as_table();
    if (!d) return r.err(*n, "experiment.defines", "expected a table { NAME = \"expression\" }");
    for (auto&& [k, v] : *d) {
      const std::string name(k.str()), key = "experiment.defines." + name;
      if (!is_identifier(name))
        return r.err(static_cast<int>(k.source().begin.line), key,
                     "'" + name +
                         "' is not a macro name (expected letters, digits and '_', not "
                         "starting with a digit: it becomes -D" +
                         name + "=...)");
      auto e = r.expr(v, key, exp);
      if (!e) return e.error();
      exp.defines.push_back({name, *e, line_of(v)});
    }
  }
  return Ok{};
}

// A parameter's value written as an expression that reads other parameters ("N / TILE"); nullopt
// for a number or a constant expression (which constant() reads).
std::optional<Expr> derived_expr(const toml::node& n) {
  if (!n.is_string()) return std::nullopt;
  auto e = Expr::parse(*n.value<std::string>());
  if (!e || e->names().empty()) return std::nullopt;
  return *e;
}

// Every derived parameter reads only parameters, and none depends on itself (directly or
// through others): the cycle is reported as "a -> b -> a" at the first parameter on it.
Status check_derived(const Reader& r, const Experiment& exp) {
  for (const ParamDef& p : exp.params)
    for (const std::string& n : p.derived.names())
      if (!exp.find_param(n))
        return r.err(p.line, "params." + p.name, Reader::unknown_param(n, exp));
  enum class Mark { None, Active, Done };
  std::map<std::string, Mark> mark;
  std::vector<std::string> path;
  std::function<Status(const ParamDef&)> visit = [&](const ParamDef& p) -> Status {
    mark[p.name] = Mark::Active;
    path.push_back(p.name);
    for (const std::string& n : p.derived.names()) {
      const ParamDef& q = *exp.find_param(n);
      if (mark[n] == Mark::Active) {
        std::string cycle;
        auto at = std::find(path.begin(), path.end(), n);
        for (auto it = at; it != path.end(); ++it) cycle += *it + " -> ";
        const ParamDef& first = *exp.find_param(*at);
        return r.err(first.line, "params." + first.name,
                     "parameters depend on each other in a cycle: " + cycle + n);
      }
      if (mark[n] == Mark::None)
        if (auto s = visit(q); !s) return s;
    }
    path.pop_back();
    mark[p.name] = Mark::Done;
    return Ok{};
  };
  for (const ParamDef& p : exp.params)
    if (mark[p.name] == Mark::None)
      if (auto s = visit(p); !s) return s;
  return Ok{};
}

Status read_params(const Reader& r, const toml::table& t, Experiment& exp) {
  for (auto&& [k, v] : t) {
    ParamDef p;
    p.name = std::string(k.str());
    p.line = line_of(v);
    std::string key = "params." + p.name;
    if (auto bad = std::find_if(
            p.name.begin(), p.name.end(),
            [](char c) { return !std::isalnum(static_cast<unsigned char>(c)) && c != '_'; });
        p.name.empty() || bad != p.name.end() ||
        std::isdigit(static_cast<unsigned char>(p.name[0])))
      return r.err(v, key,
                   "a parameter name must be letters, digits and '_' (used in expressions)");
    if (const toml::table* pt = v.as_table()) {
      if (auto s = r.only_keys(*pt, key, {"value", "choices", "min", "max", "description"}); !s)
        return s;
      const toml::node* val = pt->get("value");
      if (!val) return r.err(v, key, "missing 'value' (the default)");
      if (auto d = derived_expr(*val); d) {
        if (pt->get("choices") || pt->get("min") || pt->get("max"))
          return r.err(v, key,
                       "a parameter derived from others (\"" + d->text() +
                           "\") cannot have choices, min or max");
        p.derived = *d;
      } else {
        auto c = r.constant(*val, key + ".value");
        if (!c) return c.error();
        p.value = *c;
      }
      if (const toml::node* ch = pt->get("choices")) {
        const toml::array* a = ch->as_array();
        if (!a || a->empty()) return r.err(*ch, key + ".choices", "expected a non-empty array");
        for (const toml::node& e : *a) {
          auto cv = r.constant(e, key + ".choices");
          if (!cv) return cv.error();
          p.choices.push_back(*cv);
        }
      }
      for (const char* bound : {"min", "max"})
        if (const toml::node* b = pt->get(bound)) {
          auto bv = r.constant(*b, key + "." + bound);
          if (!bv) return bv.error();
          (std::string(bound) == "min" ? p.min : p.max) = *bv;
        }
      if (const toml::node* d = pt->get("description")) {
        auto s = r.string(*d, key + ".description");
        if (!s) return s.error();
        p.description = *s;
      }
    } else if (auto d = derived_expr(v); d) {
      p.derived = *d;
    } else {
      auto c = r.constant(v, key);
      if (!c) return c.error();
      p.value = *c;
    }
    exp.params.push_back(std::move(p));
  }
  // toml++ tables are sorted by key; keep the order the instructor wrote.
  std::stable_sort(exp.params.begin(), exp.params.end(),
                   [](const ParamDef& a, const ParamDef& b) { return a.line < b.line; });
  if (auto s = check_derived(r, exp); !s) return s;
  for (const ParamDef& p : exp.params) {
    if (!p.derived.empty()) continue;
    auto s = check_param_value(exp, p, p.value);
    if (!s) return r.err(p.line, "params." + p.name, s.error().message);
  }
  return Ok{};
}

Status read_init(const Reader& r, const toml::node& n, const std::string& key, BufferDef& b,
                 const Experiment& exp) {
  BufferInit& init = b.init;
  if (n.is_string()) {
    std::string s = *n.value<std::string>();
    if (s == "zeros")
      init.kind = BufferInit::Kind::Zeros;
    else if (s == "iota")
      init.kind = BufferInit::Kind::Iota;
    else if (s.size() > 4 && s.substr(s.size() - 4) == ".npy") {
      auto f = r.file(n, key, exp.dir);
      if (!f) return f.error();
      init.kind = BufferInit::Kind::Npy;
      init.npy_path = *f;
    } else {
      return r.err(n, key,
                   "unknown init \"" + s +
                       "\" (expected \"zeros\", \"iota\", \"file.npy\", { constant = 1.5 }, "
                       "{ iota = 0, step = 1 }, { uniform = [-1, 1], seed = 7 } or "
                       "{ npy = \"file.npy\" })");
    }
    return Ok{};
  }
  const toml::table* t = n.as_table();
  if (!t) return r.err(n, key, "expected a string (\"zeros\", \"iota\") or a table");
  if (auto s = r.only_keys(*t, key, {"constant", "iota", "step", "uniform", "seed", "npy"}); !s)
    return s;
  if (const toml::node* c = t->get("constant")) {
    auto v = r.number(*c, key + ".constant");
    if (!v) return v.error();
    init.kind = BufferInit::Kind::Constant;
    init.constant = *v;
  } else if (const toml::node* io = t->get("iota")) {
    auto v = r.number(*io, key + ".iota");
    if (!v) return v.error();
    init.kind = BufferInit::Kind::Iota;
    init.start = *v;
    if (const toml::node* st = t->get("step")) {
      auto sv = r.number(*st, key + ".step");
      if (!sv) return sv.error();
      init.step = *sv;
    }
  } else if (const toml::node* u = t->get("uniform")) {
    const toml::array* a = u->as_array();
    if (!a || a->size() != 2) return r.err(*u, key + ".uniform", "expected [min, max]");
    auto lo = r.number(*a->get(0), key + ".uniform");
    if (!lo) return lo.error();
    auto hi = r.number(*a->get(1), key + ".uniform");
    if (!hi) return hi.error();
    if (!(*lo < *hi)) return r.err(*u, key + ".uniform", "needs min < max");
    init.kind = BufferInit::Kind::Uniform;
    init.lo = *lo;
    init.hi = *hi;
    if (const toml::node* s = t->get("seed")) {
      if (!s->is_integer() || *s->value<int64_t>() < 0)
        return r.err(*s, key + ".seed", "expected a non-negative integer");
      init.seed = static_cast<uint64_t>(*s->value<int64_t>());
    }
  } else if (const toml::node* f = t->get("npy")) {
    auto p = r.file(*f, key + ".npy", exp.dir);
    if (!p) return p.error();
    init.kind = BufferInit::Kind::Npy;
    init.npy_path = *p;
  } else {
    return r.err(n, key, "expected one of constant, iota, uniform, npy");
  }
  return Ok{};
}

Status read_buffers(const Reader& r, const toml::array& arr, Experiment& exp) {
  for (size_t k = 0; k < arr.size(); ++k) {
    const toml::node& n = *arr.get(k);
    std::string key = "buffers[" + std::to_string(k) + "]";
    const toml::table* t = n.as_table();
    if (!t) return r.err(n, key, "expected a table ([[buffers]])");
    if (auto s = r.only_keys(*t, key, {"name", "type", "count", "init", "symbol"}); !s) return s;
    BufferDef b;
    b.line = line_of(n);
    const toml::node* nm = t->get("name");
    if (!nm) return r.err(n, key, "missing 'name'");
    auto name = r.string(*nm, key + ".name");
    if (!name) return name.error();
    b.name = *name;
    // A plain name: it becomes a file name under --dump DIR (no '/', no '..') and an identifier
    // in expressions and checks.
    const bool plain = !b.name.empty() &&
                       (std::isalpha(static_cast<unsigned char>(b.name[0])) || b.name[0] == '_') &&
                       std::all_of(b.name.begin(), b.name.end(), [](char c) {
                         return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
                       });
    if (!plain)
      return r.err(*nm, key + ".name",
                   "'" + b.name +
                       "' is not a plain name (letters, digits and _, not starting "
                       "with a digit): it names the buffer's file under --dump");
    key = "buffers[" + std::to_string(k) + "] (" + b.name + ")";
    if (exp.find_buffer(b.name))
      return r.err(*nm, key + ".name", "buffer '" + b.name + "' is declared twice");
    if (exp.find_param(b.name))
      return r.err(*nm, key + ".name", "'" + b.name + "' is already a parameter name");
    const toml::node* ty = t->get("type");
    if (!ty) return r.err(n, key, "missing 'type' (one of " + elem_type_names() + ")");
    auto tys = r.string(*ty, key + ".type");
    if (!tys) return tys.error();
    auto et = parse_elem_type(*tys);
    if (!et)
      return r.err(
          *ty, key + ".type",
          "unknown element type '" + *tys + "' (expected one of " + elem_type_names() + ")");
    b.type = *et;
    if (const toml::node* in = t->get("init")) {
      if (auto s = read_init(r, *in, key + ".init", b, exp); !s) return s;
      b.has_init = true;
    }
    if (const toml::node* sy = t->get("symbol")) {
      auto sym = r.string(*sy, key + ".symbol");
      if (!sym) return sym.error();
      if (sym->empty())
        return r.err(*sy, key + ".symbol",
                     "expected the name of a __constant__ or __device__ variable");
      b.symbol = *sym;
    }
    if (const toml::node* c = t->get("count")) {
      auto e = r.expr(*c, key + ".count", exp);
      if (!e) return e.error();
      b.count = *e;
    } else if (!b.symbol.empty() && b.init.kind != BufferInit::Kind::Npy) {
      b.count_from_symbol = true;
    } else if (b.init.kind == BufferInit::Kind::Npy) {
      b.count_from_npy = true;
    } else {
      return r.err(n, key, "missing 'count' (number of elements, e.g. count = \"N\")");
    }
    exp.buffers.push_back(std::move(b));
  }
  return Ok{};
}

// grid/block: one expression, or an array of 1 to 3.
Status read_dims(const Reader& r, const toml::node& n, const std::string& key,
                 std::array<Expr, 3>& out, const Experiment& exp,
                 const std::vector<std::string>& scope) {
  out = {Expr::constant(Value::integer(1)), Expr::constant(Value::integer(1)),
         Expr::constant(Value::integer(1))};
  if (const toml::array* a = n.as_array()) {
    if (a->empty() || a->size() > 3) return r.err(n, key, "expected 1 to 3 dimensions [x, y, z]");
    for (size_t d = 0; d < a->size(); ++d) {
      auto e = r.expr(*a->get(d), key + "[" + std::to_string(d) + "]", exp, scope);
      if (!e) return e.error();
      out[d] = *e;
    }
    return Ok{};
  }
  auto e = r.expr(n, key, exp, scope);
  if (!e) return e.error();
  out[0] = *e;
  return Ok{};
}

std::string names_list(const Experiment& exp) {
  std::string bufs, ps;
  for (const BufferDef& b : exp.buffers) bufs += (bufs.empty() ? "" : ", ") + b.name;
  for (const ParamDef& p : exp.params) ps += (ps.empty() ? "" : ", ") + p.name;
  return "buffers: " + (bufs.empty() ? std::string("none") : bufs) +
         "; parameters: " + (ps.empty() ? std::string("none") : ps);
}

// A pointer argument: "x" or "x + 1024" / "x - 4" (elements of x's type); nullopt when the text
// does not start with a buffer name.
Expected<std::optional<ArgDef>> pointer_arg(const Reader& r, const std::string& text, int line,
                                            const std::string& key, const Experiment& exp,
                                            const std::vector<std::string>& scope) {
  // NAME [+|- EXPR], scanned by hand (see slice()).
  size_t i = text.find_first_not_of(" \t");
  if (i == std::string::npos) return std::optional<ArgDef>{};
  size_t end = i;
  while (end < text.size() &&
         (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_'))
    ++end;
  const std::string name = text.substr(i, end - i);
  const BufferDef* b = exp.find_buffer(name);
  if (!b) return std::optional<ArgDef>{};
  size_t op = text.find_first_not_of(" \t", end);
  if (op != std::string::npos && text[op] != '+' && text[op] != '-')
    return r.err(line, key,
                 "'" + name + "' is a buffer: only an offset may follow it (\"" + name +
                     " + 1024\", in elements of its type)");
  if (!b->symbol.empty())
    return r.err(line, key,
                 "'" + b->name + "' is the module variable " + b->symbol +
                     " (symbol = ...): kernels read it by name; it is not passed as an argument");
  ArgDef a;
  a.kind = ArgDef::Kind::Buffer;
  a.buffer = name;
  a.text = text;
  a.line = line;
  if (op != std::string::npos) {
    auto e = r.expr_text((text[op] == '-' ? "-(" : "(") + text.substr(op + 1) + ")", line, key, exp,
                         scope);
    if (!e) return e.error();
    a.offset = *e;
  }
  return std::optional<ArgDef>{std::move(a)};
}

// A scalar argument (a number or an expression) or a pointer argument.
Expected<ArgDef> value_arg(const Reader& r, const toml::node& n, const std::string& key,
                           const Experiment& exp, const std::vector<std::string>& scope) {
  ArgDef arg;
  arg.line = line_of(n);
  if (n.is_string()) {
    const std::string text = *n.value<std::string>();
    auto p = pointer_arg(r, text, arg.line, key, exp, scope);
    if (!p) return p.error();
    if (*p) return std::move(**p);
    auto e = Expr::parse(text);
    if (!e) return r.err(n, key, e.error().message);
    for (const std::string& nm : e->names())
      if (!exp.find_param(nm) && std::find(scope.begin(), scope.end(), nm) == scope.end())
        return r.err(n, key,
                     "'" + nm + "' is neither a buffer nor a parameter (" + names_list(exp) + ")" +
                         Reader::scope_text(scope));
  }
  auto e = r.expr(n, key, exp, scope);
  if (!e) return e.error();
  arg.kind = ArgDef::Kind::Scalar;
  arg.expr = *e;
  arg.text = e->text();
  return arg;
}

// { struct = [ { f32 = "alpha" }, { i32 = "N" }, { ptr = "x" }, { f32 = [1, 2, 3] },
//              { struct = [...], align = 16 } ], align = 16 }
Expected<ArgDef> struct_arg(const Reader& r, const toml::table& t, const std::string& key,
                            const Experiment& exp, const std::vector<std::string>& scope,
                            int depth) {
  if (depth > 8) return r.err(line_of(t), key, "structs nested more than 8 deep");
  if (auto s = r.only_keys(t, key, {"struct", "align"}); !s) return s.error();
  ArgDef st;
  st.kind = ArgDef::Kind::Struct;
  st.typed = true;
  st.line = line_of(t);
  st.text = "struct";
  if (const toml::node* al = t.get("align")) {
    const int64_t v = al->is_integer() ? *al->value<int64_t>() : 0;
    if (v < 1 || v > 256 || (v & (v - 1)) != 0)
      return r.err(*al, key + ".align", "expected a power of two from 1 to 256");
    st.align = static_cast<uint32_t>(v);
  }
  const toml::array* fa = t.get("struct") ? t.get("struct")->as_array() : nullptr;
  if (!fa || fa->empty())
    return r.err(
        line_of(t), key + ".struct",
        "expected a non-empty array of fields such as [{ f32 = \"alpha\" }, { ptr = \"x\" }]");
  for (size_t i = 0; i < fa->size(); ++i) {
    const toml::node& fn = *fa->get(i);
    const std::string fkey = key + ".struct[" + std::to_string(i) + "]";
    const toml::table* ft = fn.as_table();
    const char* hint =
        "expected a field such as { f32 = \"alpha\" }, { i32 = 4 }, { ptr = \"x\" } or "
        "{ struct = [...] }";
    if (!ft) return r.err(fn, fkey, hint);
    if (ft->get("struct")) {
      auto sub = struct_arg(r, *ft, fkey, exp, scope, depth + 1);
      if (!sub) return sub.error();
      st.fields.push_back(std::move(*sub));
      continue;
    }
    if (ft->size() != 1) return r.err(fn, fkey, hint);
    const std::string tname(ft->begin()->first.str());
    const toml::node& val = ft->begin()->second;
    const bool is_ptr = tname == "ptr";
    auto et = parse_elem_type(tname);
    if (!is_ptr && !et)
      return r.err(fn, fkey,
                   "unknown field type '" + tname + "' (expected ptr, struct or one of " +
                       elem_type_names() + ")");
    std::vector<const toml::node*> values;
    if (const toml::array* va = val.as_array()) {
      if (va->empty()) return r.err(val, fkey, "an empty array field");
      for (const toml::node& v : *va) values.push_back(&v);
    } else {
      values.push_back(&val);
    }
    for (size_t j = 0; j < values.size(); ++j) {
      const std::string vkey =
          fkey + "." + tname + (values.size() > 1 ? "[" + std::to_string(j) + "]" : "");
      auto f = value_arg(r, *values[j], vkey, exp, scope);
      if (!f) return f.error();
      // { ptr = 0 } is a null pointer: 8 zero bytes, as a u64.
      const bool null_ptr = is_ptr && f->kind == ArgDef::Kind::Scalar && values[j]->is_integer() &&
                            *values[j]->value<int64_t>() == 0;
      if (is_ptr != (f->kind == ArgDef::Kind::Buffer) && !null_ptr)
        return r.err(*values[j], vkey,
                     is_ptr ? "a ptr field takes a buffer (\"x\" or \"x + 16\") or 0 (null)"
                            : "'" + f->text + "' is a buffer: write { ptr = \"" + f->text + "\" }");
      f->typed = true;
      if (et) f->type = *et;
      if (null_ptr) f->type = ElemType::U64;
      st.fields.push_back(std::move(*f));
    }
  }
  return st;
}

// { tensormap = "A", dims = ["K", "M"], box = [64, 64], strides = ["2 * K"],
//   element_strides = [1, 1], swizzle = "128B", oob_fill = "zero" }: lessons/FORMAT.md,
// "Tensor maps". The shapes are checked against the driver's rules when the launch is bound.
Expected<ArgDef> tensormap_arg(const Reader& r, const toml::table& t, const std::string& key,
                               const Experiment& exp, const std::vector<std::string>& scope) {
  if (auto s = r.only_keys(t, key, {"tensormap", "dims", "box", "strides", "element_strides",
                                    "swizzle", "oob_fill"});
      !s)
    return s.error();
  ArgDef a;
  a.kind = ArgDef::Kind::TensorMap;
  a.line = line_of(t);
  auto name = r.string(*t.get("tensormap"), key + ".tensormap");
  if (!name) return name.error();
  const BufferDef* b = exp.find_buffer(*name);
  if (!b)
    return r.err(*t.get("tensormap"), key + ".tensormap",
                 "'" + *name + "' is not a buffer (" + names_list(exp) + ")");
  if (!b->symbol.empty())
    return r.err(*t.get("tensormap"), key + ".tensormap",
                 "'" + b->name + "' is the module variable " + b->symbol +
                     ": a tensor map needs a buffer of its own");
  a.buffer = b->name;
  a.text = "tensormap " + b->name;
  auto list = [&](const char* field, std::vector<Expr>& out, size_t lo, size_t hi) -> Status {
    const toml::node* n = t.get(field);
    if (!n) {
      if (lo == 0) return Ok{};
      return r.err(line_of(t), key + "." + field,
                   std::string("missing '") + field + "' (innermost dimension first, e.g. " +
                       field + " = [64, 64])");
    }
    const toml::array* arr = n->as_array();
    if (!arr || arr->size() < lo || arr->size() > hi)
      return r.err(*n, key + "." + field,
                   "expected an array of " + std::to_string(lo) + " to " + std::to_string(hi) +
                       " numbers or expressions, innermost dimension first");
    for (size_t i = 0; i < arr->size(); ++i) {
      auto e = r.expr(*arr->get(i), key + "." + field + "[" + std::to_string(i) + "]", exp, scope);
      if (!e) return e.error();
      out.push_back(*e);
    }
    return Ok{};
  };
  if (auto s = list("dims", a.tm_dims, 1, 5); !s) return s.error();
  const size_t rank = a.tm_dims.size();
  if (auto s = list("box", a.tm_box, 1, 5); !s) return s.error();
  if (auto s = list("strides", a.tm_strides, 0, 4); !s) return s.error();
  if (auto s = list("element_strides", a.tm_estrides, 0, 5); !s) return s.error();
  auto same_rank = [&](const char* field, size_t n, size_t want) -> Status {
    if (n == want || (n == 0 && std::string(field) != "box")) return Ok{};
    return r.err(*t.get(field), key + "." + field,
                 std::to_string(n) + " entries, but dims has " + std::to_string(rank) +
                     " dimensions: " + field + " needs " + std::to_string(want));
  };
  if (auto s = same_rank("box", a.tm_box.size(), rank); !s) return s.error();
  if (auto s = same_rank("strides", a.tm_strides.size(), rank - 1); !s) return s.error();
  if (auto s = same_rank("element_strides", a.tm_estrides.size(), rank); !s) return s.error();
  if (const toml::node* n = t.get("swizzle")) {
    auto v = r.string(*n, key + ".swizzle");
    if (!v) return v.error();
    const std::string names[4] = {"none", "32B", "64B", "128B"};
    const auto it = std::find(std::begin(names), std::end(names), *v);
    if (it == std::end(names))
      return r.err(*n, key + ".swizzle", "'" + *v + "': expected none, 32B, 64B or 128B");
    a.tm_swizzle = static_cast<uint8_t>(it - std::begin(names));
  }
  if (const toml::node* n = t.get("oob_fill")) {
    auto v = r.string(*n, key + ".oob_fill");
    if (!v) return v.error();
    if (*v != "zero" && *v != "nan")
      return r.err(*n, key + ".oob_fill", "'" + *v + "': expected zero or nan");
    a.tm_fill = *v == "nan" ? 1 : 0;
  }
  return a;
}

// for = { k = { from = 2, to = "N", mul = 2 }, j = { from = "k / 2", to = 1, div = 2 } }
Status read_loops(const Reader& r, const toml::node& n, const std::string& key, Experiment& exp,
                  LaunchDef& l, std::vector<std::string>& scope) {
  const toml::table* t = n.as_table();
  if (!t || t->empty())
    return r.err(n, key, "expected a table of loop variables: for = { k = { from = 0, to = 3 } }");
  // toml++ sorts keys; the loops nest in the order written (outermost first).
  std::vector<std::pair<std::string, const toml::node*>> vars;
  for (auto&& [k, v] : *t) vars.emplace_back(std::string(k.str()), &v);
  std::stable_sort(vars.begin(), vars.end(), [](const auto& a, const auto& b) {
    const auto& sa = a.second->source().begin;
    const auto& sb = b.second->source().begin;
    return sa.line != sb.line ? sa.line < sb.line : sa.column < sb.column;
  });
  for (const auto& [name, v] : vars) {
    const std::string vkey = key + "." + name;
    if (!is_identifier(name))
      return r.err(*v, vkey,
                   "'" + name +
                       "' is not a loop variable name (expected letters, digits and '_', not "
                       "starting with a digit: expressions read it)");
    if (exp.find_param(name) || exp.find_buffer(name))
      return r.err(*v, vkey, "'" + name + "' is already a parameter or buffer name");
    if (std::find(scope.begin(), scope.end(), name) != scope.end())
      return r.err(*v, vkey, "'" + name + "' is already a loop variable here");
    LoopDef loop;
    loop.var = name;
    loop.line = line_of(*v);
    if (const toml::array* va = v->as_array()) {
      loop.op = LoopDef::Op::List;
      if (va->empty()) return r.err(*v, vkey, "an empty list of values");
      for (const toml::node& e : *va) {
        auto x = r.expr(e, vkey, exp, scope);
        if (!x) return x.error();
        loop.values.push_back(*x);
      }
    } else if (const toml::table* lt = v->as_table()) {
      if (auto s = r.only_keys(*lt, vkey, {"from", "to", "step", "mul", "div"}); !s) return s;
      const toml::node* from = lt->get("from");
      const toml::node* to = lt->get("to");
      if (!from || !to) return r.err(*v, vkey, "needs 'from' and 'to' (inclusive)");
      int ops = !!lt->get("step") + !!lt->get("mul") + !!lt->get("div");
      if (ops > 1) return r.err(*v, vkey, "give one of step, mul, div");
      auto f = r.expr(*from, vkey + ".from", exp, scope);
      if (!f) return f.error();
      auto e = r.expr(*to, vkey + ".to", exp, scope);
      if (!e) return e.error();
      loop.from = *f;
      loop.to = *e;
      loop.step = Expr::constant(Value::integer(1));
      for (const char* op : {"step", "mul", "div"})
        if (const toml::node* on = lt->get(op)) {
          auto x = r.expr(*on, vkey + "." + op, exp, scope);
          if (!x) return x.error();
          loop.step = *x;
          loop.op = std::string(op) == "step"  ? LoopDef::Op::Add
                    : std::string(op) == "mul" ? LoopDef::Op::Mul
                                               : LoopDef::Op::Div;
        }
    } else {
      return r.err(*v, vkey,
                   "expected { from = A, to = B } (with step, mul or div) or a list of values");
    }
    scope.push_back(name);
    l.loops.push_back(std::move(loop));
  }
  return Ok{};
}

// `span = N` after a `for`: how many entries (this one included) its loops cover.
Status read_span(const Reader& r, const toml::table& t, const std::string& key, size_t k,
                 size_t count, size_t enclosing_end, LaunchDef& l) {
  const toml::node* sp = t.get("span");
  if (!sp) return Ok{};
  if (l.loops.empty()) return r.err(*sp, key + ".span", "span needs a 'for' on the same entry");
  const int64_t v = sp->is_integer() ? *sp->value<int64_t>() : 0;
  if (v < 1 || static_cast<uint64_t>(v) > count - k || k + static_cast<size_t>(v) > enclosing_end)
    return r.err(*sp, key + ".span",
                 "expected 1 to " + std::to_string(std::min(count, enclosing_end) - k) +
                     " (the entries the loop covers, this one included" +
                     (enclosing_end < count ? ", inside the enclosing loop's span" : "") + ")");
  l.span = static_cast<size_t>(v);
  return Ok{};
}

Status read_launches(const Reader& r, const toml::array& arr, Experiment& exp) {
  // Loops whose `span` covers later entries: their end (exclusive) and variables, outermost first.
  struct Enclosing {
    size_t end;
    std::vector<std::string> vars;
  };
  std::vector<Enclosing> enclosing;
  for (size_t k = 0; k < arr.size(); ++k) {
    const toml::node& n = *arr.get(k);
    std::string key = "launches[" + std::to_string(k) + "]";
    const toml::table* t = n.as_table();
    if (!t) return r.err(n, key, "expected a table ([[launches]])");
    LaunchDef l;
    l.line = line_of(n);
    while (!enclosing.empty() && enclosing.back().end <= k) enclosing.pop_back();
    std::vector<std::string> scope;  // loop variables: the enclosing spans', then this entry's
    for (const Enclosing& e : enclosing) scope.insert(scope.end(), e.vars.begin(), e.vars.end());
    const size_t outer_vars = scope.size();
    const size_t enclosing_end = enclosing.empty() ? arr.size() : enclosing.back().end;
    auto open_span = [&]() -> Status {
      if (auto s = read_span(r, *t, key, k, arr.size(), enclosing_end, l); !s) return s;
      if (l.span > 1)
        enclosing.push_back(
            {k + l.span, std::vector<std::string>(
                             scope.begin() + static_cast<ptrdiff_t>(outer_vars), scope.end())});
      return Ok{};
    };
    if (t->get("for") && !t->get("kernel") && !t->get("memset") && !t->get("memcpy")) {
      // A loop head: for = {...}, span = N, nothing else.
      if (auto s = r.only_keys(*t, key, {"for", "span"}); !s) return s;
      if (auto s = read_loops(r, *t->get("for"), key + ".for", exp, l, scope); !s) return s;
      if (auto s = open_span(); !s) return s;
      if (l.span < 2)
        return r.err(n, key,
                     "a loop without kernel, memset or memcpy needs span = N: the N - 1 entries "
                     "after it that it repeats");
      l.kind = LaunchDef::Kind::Loop;
      l.kernel = "for";
      l.kernel_line = l.line;
      exp.launches.push_back(std::move(l));
      continue;
    }
    if (t->get("memset") || t->get("memcpy")) {
      // A step between launches: memset = "y[0:N]", value = 0 / memcpy = "y", from = "x".
      const bool set = t->get("memset") != nullptr;
      if (auto s = set ? r.only_keys(*t, key, {"memset", "value", "for", "span"})
                       : r.only_keys(*t, key, {"memcpy", "from", "for", "span"});
          !s)
        return s;
      if (const toml::node* f = t->get("for"))
        if (auto s = read_loops(r, *f, key + ".for", exp, l, scope); !s) return s;
      if (auto s = open_span(); !s) return s;
      l.kind = set ? LaunchDef::Kind::Memset : LaunchDef::Kind::Memcpy;
      const char* what = set ? "memset" : "memcpy";
      auto target = r.slice(*t->get(what), key + "." + what, exp, scope);
      if (!target) return target.error();
      l.target = *target;
      l.kernel = what;
      l.kernel_line = line_of(*t->get(what));
      if (set) {
        l.value = Expr::constant(Value::integer(0));
        if (const toml::node* v = t->get("value")) {
          auto e = r.expr(*v, key + ".value", exp, scope);
          if (!e) return e.error();
          l.value = *e;
        }
      } else {
        const toml::node* f = t->get("from");
        if (!f) return r.err(n, key, "missing 'from' (the buffer or slice to copy)");
        auto src = r.slice(*f, key + ".from", exp, scope);
        if (!src) return src.error();
        l.source = *src;
        const BufferDef* a = exp.find_buffer(l.target.buffer);
        const BufferDef* b = exp.find_buffer(l.source.buffer);
        if (a->type != b->type)
          return r.err(*f, key + ".from",
                       "'" + b->name + "' holds " + std::string(elem_type_name(b->type)) +
                           " but '" + a->name + "' holds " + std::string(elem_type_name(a->type)) +
                           " (memcpy copies bytes: the types must match)");
      }
      exp.launches.push_back(std::move(l));
      continue;
    }
    if (auto s =
            r.only_keys(*t, key,
                        {"kernel", "grid", "block", "shared_bytes", "args", "repeat", "for", "span",
                         "memset", "memcpy", "group", "cluster", "cluster_nonportable"});
        !s)
      return s;
    if (const toml::node* f = t->get("for"))
      if (auto s = read_loops(r, *f, key + ".for", exp, l, scope); !s) return s;
    if (auto s = open_span(); !s) return s;
    const toml::node* kn = t->get("kernel");
    if (!kn)
      return r.err(n, key,
                   "missing 'kernel' (or memset = \"buffer\" / memcpy = \"buffer\" for a step)");
    auto ks = r.string(*kn, key + ".kernel");
    if (!ks) return ks.error();
    l.kernel = *ks;
    l.kernel_line = line_of(*kn);
    const bool triton = exp.source_kind == Experiment::SourceKind::Triton;
    if (triton)
      if (auto s = read_triton_launch(r, *t, key, exp, l); !s) return s;
    for (const char* dim : {"grid", "block"}) {
      if (triton && std::string(dim) == "block") continue;  // 32 * num_warps
      const toml::node* d = t->get(dim);
      if (!d) return r.err(n, key, std::string("missing '") + dim + "'");
      if (auto s = read_dims(r, *d, key + "." + dim, std::string(dim) == "grid" ? l.grid : l.block,
                             exp, scope);
          !s)
        return s;
    }
    if (const toml::node* c = t->get("cluster")) {  // thread-block cluster shape
      if (auto s = read_dims(r, *c, key + ".cluster", l.cluster, exp, scope); !s) return s;
      l.has_cluster = true;
      l.cluster_line = line_of(*c);
    }
    if (const toml::node* c = t->get("cluster_nonportable")) {
      if (!c->is_boolean())
        return r.err(*c, key + ".cluster_nonportable", "expected true or false");
      l.cluster_nonportable = *c->value<bool>();
    }
    l.shared_bytes = Expr::constant(Value::integer(0));
    l.repeat = Expr::constant(Value::integer(1));
    if (const toml::node* sb = t->get("shared_bytes")) {
      auto e = r.expr(*sb, key + ".shared_bytes", exp, scope);
      if (!e) return e.error();
      l.shared_bytes = *e;
    }
    if (const toml::node* g = t->get("group")) {
      auto gs = r.string(*g, key + ".group");
      if (!gs) return gs.error();
      l.group = *gs;
    }
    if (const toml::node* rp = t->get("repeat")) {
      auto e = r.expr(*rp, key + ".repeat", exp, scope);
      if (!e) return e.error();
      l.repeat = *e;
    }
    const toml::node* an = t->get("args");
    if (!an) return r.err(n, key, "missing 'args' (use args = [] for a kernel without parameters)");
    const toml::array* aa = an->as_array();
    if (!aa) return r.err(*an, key + ".args", "expected an array such as [\"x\", \"y\", \"N\"]");
    l.args_line = line_of(*an);
    for (size_t j = 0; j < aa->size(); ++j) {
      const toml::node& a = *aa->get(j);
      std::string akey = key + ".args[" + std::to_string(j) + "]";
      if (const toml::table* st = a.as_table(); st && st->get("tensormap")) {
        auto ta = tensormap_arg(r, *st, akey, exp, scope);
        if (!ta) return ta.error();
        l.args.push_back(std::move(*ta));
        continue;
      }
      if (const toml::table* st = a.as_table()) {
        auto sa = struct_arg(r, *st, akey, exp, scope, 0);
        if (!sa) return sa.error();
        l.args.push_back(std::move(*sa));
        continue;
      }
      auto arg = value_arg(r, a, akey, exp, scope);
      if (!arg) return arg.error();
      l.args.push_back(std::move(*arg));
    }
    if (triton) add_triton_scratch_args(l);
    exp.launches.push_back(std::move(l));
  }
  return Ok{};
}

Status read_checks(const Reader& r, const toml::array& arr, Experiment& exp) {
  for (size_t k = 0; k < arr.size(); ++k) {
    const toml::node& n = *arr.get(k);
    std::string key = "checks[" + std::to_string(k) + "]";
    const toml::table* t = n.as_table();
    if (!t) return r.err(n, key, "expected a table ([[checks]])");
    if (auto s = r.only_keys(*t, key, {"buffer", "expect", "atol", "rtol", "exact", "show"}); !s)
      return s;
    CheckDef c;
    c.line = line_of(n);
    const toml::node* bn = t->get("buffer");
    if (!bn) return r.err(n, key, "missing 'buffer'");
    auto b = r.slice(*bn, key + ".buffer", exp);
    if (!b) return b.error();
    c.slice = *b;
    c.buffer = b->buffer;
    const toml::node* en = t->get("expect");
    if (!en) return r.err(n, key, "missing 'expect' (a buffer name or a .npy file)");
    auto e = r.string(*en, key + ".expect");
    if (!e) return e.error();
    const bool is_npy = e->size() > 4 && e->substr(e->size() - 4) == ".npy";
    if (!is_npy && e->find('[') != std::string::npos) {
      auto es = r.slice(*en, key + ".expect", exp);
      if (!es) return es.error();
      c.expect_slice = *es;
      c.expect_buffer = es->buffer;
    } else if (exp.find_buffer(*e)) {
      c.expect_buffer = *e;
      c.expect_slice.buffer = *e;
      c.expect_slice.text = *e;
    } else if (e->size() > 4 && e->substr(e->size() - 4) == ".npy") {
      auto f = r.file(*en, key + ".expect", exp.dir);
      if (!f) return f.error();
      c.expect_npy = *f;
    } else {
      return r.err(*en, key + ".expect", "'" + *e + "' is neither a buffer nor a .npy file");
    }
    for (const char* tol : {"atol", "rtol"})
      if (const toml::node* tn = t->get(tol)) {
        auto v = r.number(*tn, key + "." + tol);
        if (!v) return v.error();
        if (!(*v >= 0) || std::isinf(*v))
          return r.err(*tn, key + "." + tol, "must be finite and >= 0");
        (std::string(tol) == "atol" ? c.atol : c.rtol) = *v;
      }
    if (const toml::node* ex = t->get("exact")) {
      if (!ex->is_boolean()) return r.err(*ex, key + ".exact", "expected true or false");
      c.exact = *ex->value<bool>();
      if (c.exact && (t->get("atol") || t->get("rtol")))
        return r.err(*ex, key + ".exact", "exact = true cannot be combined with atol/rtol");
    }
    if (const toml::node* sh = t->get("show")) {
      if (!sh->is_integer() || *sh->value<int64_t>() < 0)
        return r.err(*sh, key + ".show", "expected a non-negative integer");
      c.show = static_cast<int>(*sh->value<int64_t>());
    }
    exp.checks.push_back(std::move(c));
  }
  return Ok{};
}

Status read_sweep(const Reader& r, const toml::table& t, Experiment& exp) {
  for (auto&& [k, v] : t) {
    SweepAxis ax;
    ax.param = std::string(k.str());
    ax.line = line_of(v);
    std::string key = "sweep." + ax.param;
    const ParamDef* p = exp.find_param(ax.param);
    if (!p) return r.err(v, key, Reader::unknown_param(ax.param, exp));
    if (!p->derived.empty())
      return r.err(v, key,
                   "'" + ax.param + "' is derived from other parameters (\"" + p->derived.text() +
                       "\"): sweep those instead");
    const toml::array* a = v.as_array();
    if (!a || a->empty()) return r.err(v, key, "expected a non-empty array of values");
    for (const toml::node& e : *a) {
      auto c = r.constant(e, key);
      if (!c) return c.error();
      if (auto s = check_param_value(exp, *p, *c); !s) return r.err(e, key, s.error().message);
      ax.values.push_back(*c);
    }
    exp.sweep.push_back(std::move(ax));
  }
  std::stable_sort(exp.sweep.begin(), exp.sweep.end(),
                   [](const SweepAxis& a, const SweepAxis& b) { return a.line < b.line; });
  return Ok{};
}

}  // namespace

Status check_param_value(const Experiment& exp, const ParamDef& p, const Value& v) {
  if (!p.choices.empty()) {
    bool ok = false;
    for (const Value& c : p.choices) ok = ok || c.as_double() == v.as_double();
    if (!ok) {
      std::string list;
      for (const Value& c : p.choices) list += (list.empty() ? "" : ", ") + c.to_string();
      return Error{exp.path, p.line,
                   p.name + " = " + v.to_string() + " is not one of its choices [" + list + "]"};
    }
  }
  if (p.min && v.as_double() < p.min->as_double())
    return Error{exp.path, p.line,
                 p.name + " = " + v.to_string() + " is below its min " + p.min->to_string()};
  if (p.max && v.as_double() > p.max->as_double())
    return Error{exp.path, p.line,
                 p.name + " = " + v.to_string() + " is above its max " + p.max->to_string()};
  return Ok{};
}

Expected<Experiment> parse_experiment(const std::string& text, const std::string& path) {
  Experiment exp;
  exp.path = path;
  exp.dir = fs::path(path).parent_path().string();
  if (exp.dir.empty()) exp.dir = ".";
  Reader r(path);
  toml::table root;
  try {
    root = toml::parse(text, path);
  } catch (const toml::parse_error& e) {
    return Error{path, static_cast<int>(e.source().begin.line),
                 "TOML syntax error: " + std::string(e.description())};
  }
  if (auto s =
          r.only_keys(root, "", {"experiment", "params", "buffers", "launches", "checks", "sweep"});
      !s)
    return s.error();
  exp.name = fs::path(path).stem().string();
  const toml::table* et = root["experiment"].as_table();
  if (!et) return Error{path, 1, "missing [experiment] table (with source = \"kernel.cu\")"};
  if (auto s = read_experiment_table(r, *et, exp); !s) return s.error();
  if (const toml::node* p = root.get("params")) {
    if (!p->as_table()) return r.err(*p, "params", "expected a table [params]");
    if (auto s = read_params(r, *p->as_table(), exp); !s) return s.error();
  }
  if (auto s = read_defines(r, *et, exp); !s) return s.error();
  if (auto s = read_triton_settings(r, *et, exp); !s) return s.error();
  for (const char* section : {"buffers", "launches", "checks"}) {
    const toml::node* n = root.get(section);
    if (!n) continue;
    const toml::array* a = n->as_array();
    if (!a)
      return r.err(*n, section,
                   std::string("expected an array of tables: write [[") + section + "]]");
    Status s = std::string(section) == "buffers"    ? read_buffers(r, *a, exp)
               : std::string(section) == "launches" ? read_launches(r, *a, exp)
                                                    : read_checks(r, *a, exp);
    if (!s) return s.error();
  }
  if (exp.launches.empty()) return Error{path, 0, "no [[launches]]: nothing to run"};
  for (const CheckDef& c : exp.checks)
    if (c.slice.text == c.expect_slice.text)
      return r.err(c.line, "checks", "'" + c.slice.text + "' is checked against itself");
  if (const toml::node* s = root.get("sweep")) {
    if (!s->as_table()) return r.err(*s, "sweep", "expected a table [sweep]");
    if (auto st = read_sweep(r, *s->as_table(), exp); !st) return st.error();
  }
  return exp;
}

Expected<Experiment> load_experiment(const std::string& path) {
  auto text = read_input_file(path, "experiment file");
  if (!text) return text.error();
  return parse_experiment(*text, path);
}

Status for_each_iteration(const Experiment& exp, const std::vector<LoopDef>& loops, const Env& env,
                          const std::function<Status(const Env&)>& body, uint64_t limit) {
  uint64_t count = 0;
  // Every step of every loop counts too: an outer loop over an empty inner range reaches the
  // body never, yet must end (for = { i = { from = 0, to = 2^62 }, j = { from = 1, to = 0 } }).
  uint64_t steps = 0;
  const uint64_t step_limit = limit > ~uint64_t{0} / 4 ? ~uint64_t{0} : limit * 4;
  auto count_step = [&](const LoopDef& l) -> Status {
    if (++steps <= step_limit) return Ok{};
    return Error{exp.path, l.line,
                 "for." + l.var + ": more than " + std::to_string(step_limit) +
                     " loop steps in all (an outer loop over an empty inner range counts too)"};
  };
  std::function<Status(size_t, const Env&)> level = [&](size_t d, const Env& e) -> Status {
    if (d == loops.size()) {
      if (++count > limit)
        return Error{exp.path, loops.front().line,
                     "for: more than " + std::to_string(limit) + " iterations in all"};
      return body(e);
    }
    const LoopDef& l = loops[d];
    const std::string key = "for." + l.var;
    Env inner = e;
    if (l.op == LoopDef::Op::List) {
      for (const Expr& x : l.values) {
        auto v = x.eval(e);
        if (!v) return Error{exp.path, l.line, key + ": " + v.error().message};
        inner[l.var] = *v;
        if (auto s = count_step(l); !s) return s;
        if (auto s = level(d + 1, inner); !s) return s;
      }
      return Ok{};
    }
    auto from = l.from.eval_int(e);
    if (!from) return Error{exp.path, l.line, key + ".from: " + from.error().message};
    auto to = l.to.eval_int(e);
    if (!to) return Error{exp.path, l.line, key + ".to: " + to.error().message};
    auto step = l.step.eval_int(e);
    if (!step) return Error{exp.path, l.line, key + ": " + step.error().message};
    const int64_t st = *step;
    if ((l.op == LoopDef::Op::Add && st == 0) || (l.op != LoopDef::Op::Add && st < 2))
      return Error{exp.path, l.line,
                   key + ": " +
                       (l.op == LoopDef::Op::Add
                            ? "step = 0 never ends"
                            : std::string(l.op == LoopDef::Op::Mul ? "mul" : "div") +
                                  " must be at least 2 (got " + std::to_string(st) + ")")};
    if (l.op == LoopDef::Op::Mul && *from <= 0)
      return Error{exp.path, l.line,
                   key + ".from = " + std::to_string(*from) + ": mul needs a positive start"};
    // Runs while v has not passed `to`: upwards for step > 0 and mul, downwards otherwise.
    const bool up = (l.op == LoopDef::Op::Add && st > 0) || l.op == LoopDef::Op::Mul;
    for (int64_t v = *from; up ? v <= *to : v >= *to;) {
      inner[l.var] = Value::integer(v);
      if (auto s = count_step(l); !s) return s;
      if (auto s = level(d + 1, inner); !s) return s;
      if (l.op == LoopDef::Op::Add) {
        if (__builtin_add_overflow(v, st, &v)) break;
      } else if (l.op == LoopDef::Op::Mul) {
        if (__builtin_mul_overflow(v, st, &v)) break;
      } else {
        if (v == 0) break;  // 0 / d stays 0
        v /= st;
      }
    }
    return Ok{};
  };
  if (loops.empty()) return body(env);
  return level(0, env);
}

Expected<std::pair<uint64_t, uint64_t>> eval_slice(const SliceDef& s, const Env& env,
                                                   uint64_t count) {
  int64_t b = 0, e = static_cast<int64_t>(count);
  if (!s.begin.empty()) {
    auto v = s.begin.eval_int(env);
    if (!v) return Error{"", 0, "\"" + s.text + "\": " + v.error().message};
    b = *v;
  }
  if (s.single) {
    if (b == INT64_MAX) return Error{"", 0, "\"" + s.text + "\": index out of range"};
    e = b + 1;
  } else if (!s.end.empty()) {
    auto v = s.end.eval_int(env);
    if (!v) return Error{"", 0, "\"" + s.text + "\": " + v.error().message};
    e = *v;
  }
  if (b < 0 || e < b || static_cast<uint64_t>(e) > count)
    return Error{"", 0,
                 "\"" + s.text + "\" = [" + std::to_string(b) + ":" + std::to_string(e) +
                     "] is outside " + s.buffer + "'s " + std::to_string(count) + " elements"};
  return std::pair<uint64_t, uint64_t>{static_cast<uint64_t>(b), static_cast<uint64_t>(e)};
}

Status set_param(Experiment& exp, const std::string& assignment) {
  size_t eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0)
    return Error{"", 0, "--set " + assignment + ": expected NAME=VALUE"};
  std::string name = assignment.substr(0, eq);
  while (!name.empty() && name.back() == ' ') name.pop_back();
  ParamDef* p = nullptr;
  for (ParamDef& q : exp.params)
    if (q.name == name) p = &q;
  if (!p) return Error{"", 0, "--set " + assignment + ": " + Reader::unknown_param(name, exp)};
  if (!p->derived.empty())
    return Error{"", 0,
                 "--set " + assignment + ": '" + name + "' is derived from other parameters (\"" +
                     p->derived.text() + "\"): set those instead"};
  auto e = Expr::parse(assignment.substr(eq + 1));
  if (!e) return Error{"", 0, "--set " + assignment + ": " + e.error().message};
  auto v = e->eval(exp.env());
  if (!v) return Error{"", 0, "--set " + assignment + ": " + v.error().message};
  if (auto s = check_param_value(exp, *p, *v); !s)
    return Error{"", 0, "--set " + assignment + ": " + s.error().to_string()};
  p->value = *v;
  return Ok{};
}

}  // namespace warplab::lab
