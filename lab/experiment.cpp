// Reading experiment files with toml++ (source regions give every node's line).
#include "lab/experiment.h"

#include <toml++/toml.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

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
Env Experiment::env() const {
  Env e;
  for (const ParamDef& p : params) e[p.name] = p.value;
  return e;
}

namespace {

int line_of(const toml::node& n) { return static_cast<int>(n.source().begin.line); }

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
  Expected<Expr> expr(const toml::node& n, const std::string& key, const Experiment& exp) const {
    if (n.is_integer()) return Expr::constant(Value::integer(*n.value<int64_t>()));
    if (n.is_floating_point()) return Expr::constant(Value::real(*n.value<double>()));
    if (!n.is_string()) return err(n, key, "expected a number or an expression string");
    auto e = Expr::parse(*n.value<std::string>());
    if (!e) return err(n, key, e.error().message);
    for (const std::string& name : e->names())
      if (!exp.find_param(name)) return err(n, key, unknown_param(name, exp));
    return e;
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
    std::error_code ec;
    if (!fs::is_regular_file(p, ec))
      return err(n, key, "file not found: " + p.lexically_normal().string());
    return p.lexically_normal().string();
  }

  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

Status read_experiment_table(const Reader& r, const toml::table& t, Experiment& exp) {
  const std::string w = "experiment";
  if (auto s = r.only_keys(t, w,
                           {"name", "description", "source", "ptx", "arch", "options", "defines",
                            "synccheck", "racecheck", "max_instructions", "max_cycles"});
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
  if (src && ptx)
    return r.err(*ptx, w + ".ptx", "give either 'source' (a .cu file) or 'ptx', not both");
  if (!src && !ptx)
    return r.err(line_of(t), w, "missing 'source = \"kernel.cu\"' (or 'ptx = \"kernel.ptx\"')");
  const toml::node& sn = src ? *src : *ptx;
  auto f = r.file(sn, w + (src ? ".source" : ".ptx"), exp.dir);
  if (!f) return f.error();
  exp.source = *f;
  exp.source_line = line_of(sn);
  bool is_ptx = ptx || fs::path(exp.source).extension() == ".ptx";
  exp.source_kind = is_ptx ? Experiment::SourceKind::Ptx : Experiment::SourceKind::Cuda;
  if (auto* n = t.get("arch")) {
    auto s = r.string(*n, w + ".arch");
    if (!s) return s.error();
    exp.arch = *s;
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
    for (const toml::node& o : *a) {
      auto s = r.string(o, w + ".options");
      if (!s) return s.error();
      exp.options.push_back(*s);
    }
  }
  return Ok{};
}

Status read_defines(const Reader& r, const toml::table& t, Experiment& exp) {
  if (const toml::node* n = t.get("defines")) {
    const toml::table* d = n->as_table();
    if (!d) return r.err(*n, "experiment.defines", "expected a table { NAME = \"expression\" }");
    for (auto&& [k, v] : *d) {
      auto e = r.expr(v, "experiment.defines." + std::string(k.str()), exp);
      if (!e) return e.error();
      exp.defines.emplace_back(std::string(k.str()), *e);
    }
  }
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
        bad != p.name.end() || std::isdigit(static_cast<unsigned char>(p.name[0])))
      return r.err(v, key,
                   "a parameter name must be letters, digits and '_' (used in expressions)");
    if (const toml::table* pt = v.as_table()) {
      if (auto s = r.only_keys(*pt, key, {"value", "choices", "min", "max", "description"}); !s)
        return s;
      const toml::node* val = pt->get("value");
      if (!val) return r.err(v, key, "missing 'value' (the default)");
      auto c = r.constant(*val, key + ".value");
      if (!c) return c.error();
      p.value = *c;
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
  for (const ParamDef& p : exp.params) {
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
    if (auto s = r.only_keys(*t, key, {"name", "type", "count", "init"}); !s) return s;
    BufferDef b;
    b.line = line_of(n);
    const toml::node* nm = t->get("name");
    if (!nm) return r.err(n, key, "missing 'name'");
    auto name = r.string(*nm, key + ".name");
    if (!name) return name.error();
    b.name = *name;
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
    if (const toml::node* in = t->get("init"))
      if (auto s = read_init(r, *in, key + ".init", b, exp); !s) return s;
    if (const toml::node* c = t->get("count")) {
      auto e = r.expr(*c, key + ".count", exp);
      if (!e) return e.error();
      b.count = *e;
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
                 std::array<Expr, 3>& out, const Experiment& exp) {
  out = {Expr::constant(Value::integer(1)), Expr::constant(Value::integer(1)),
         Expr::constant(Value::integer(1))};
  if (const toml::array* a = n.as_array()) {
    if (a->empty() || a->size() > 3) return r.err(n, key, "expected 1 to 3 dimensions [x, y, z]");
    for (size_t d = 0; d < a->size(); ++d) {
      auto e = r.expr(*a->get(d), key + "[" + std::to_string(d) + "]", exp);
      if (!e) return e.error();
      out[d] = *e;
    }
    return Ok{};
  }
  auto e = r.expr(n, key, exp);
  if (!e) return e.error();
  out[0] = *e;
  return Ok{};
}

Status read_launches(const Reader& r, const toml::array& arr, Experiment& exp) {
  for (size_t k = 0; k < arr.size(); ++k) {
    const toml::node& n = *arr.get(k);
    std::string key = "launches[" + std::to_string(k) + "]";
    const toml::table* t = n.as_table();
    if (!t) return r.err(n, key, "expected a table ([[launches]])");
    if (auto s =
            r.only_keys(*t, key, {"kernel", "grid", "block", "shared_bytes", "args", "repeat"});
        !s)
      return s;
    LaunchDef l;
    l.line = line_of(n);
    const toml::node* kn = t->get("kernel");
    if (!kn) return r.err(n, key, "missing 'kernel'");
    auto ks = r.string(*kn, key + ".kernel");
    if (!ks) return ks.error();
    l.kernel = *ks;
    l.kernel_line = line_of(*kn);
    for (const char* dim : {"grid", "block"}) {
      const toml::node* d = t->get(dim);
      if (!d) return r.err(n, key, std::string("missing '") + dim + "'");
      if (auto s =
              read_dims(r, *d, key + "." + dim, std::string(dim) == "grid" ? l.grid : l.block, exp);
          !s)
        return s;
    }
    l.shared_bytes = Expr::constant(Value::integer(0));
    l.repeat = Expr::constant(Value::integer(1));
    if (const toml::node* sb = t->get("shared_bytes")) {
      auto e = r.expr(*sb, key + ".shared_bytes", exp);
      if (!e) return e.error();
      l.shared_bytes = *e;
    }
    if (const toml::node* rp = t->get("repeat")) {
      auto e = r.expr(*rp, key + ".repeat", exp);
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
      ArgDef arg;
      arg.line = line_of(a);
      if (a.is_string() && exp.find_buffer(*a.value<std::string>())) {
        arg.kind = ArgDef::Kind::Buffer;
        arg.buffer = *a.value<std::string>();
        arg.text = arg.buffer;
      } else {
        if (a.is_string()) {
          auto e = Expr::parse(*a.value<std::string>());
          if (!e) return r.err(a, akey, e.error().message);
          for (const std::string& nm : e->names())
            if (!exp.find_param(nm)) {
              std::string bufs;
              for (const BufferDef& b : exp.buffers) bufs += (bufs.empty() ? "" : ", ") + b.name;
              std::string ps;
              for (const ParamDef& p : exp.params) ps += (ps.empty() ? "" : ", ") + p.name;
              return r.err(a, akey,
                           "'" + nm + "' is neither a buffer nor a parameter (buffers: " +
                               (bufs.empty() ? "none" : bufs) +
                               "; parameters: " + (ps.empty() ? "none" : ps) + ")");
            }
        }
        auto e = r.expr(a, akey, exp);
        if (!e) return e.error();
        arg.kind = ArgDef::Kind::Scalar;
        arg.expr = *e;
        arg.text = e->text();
      }
      l.args.push_back(std::move(arg));
    }
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
    auto b = r.string(*bn, key + ".buffer");
    if (!b) return b.error();
    if (!exp.find_buffer(*b)) return r.err(*bn, key + ".buffer", "unknown buffer '" + *b + "'");
    c.buffer = *b;
    const toml::node* en = t->get("expect");
    if (!en) return r.err(n, key, "missing 'expect' (a buffer name or a .npy file)");
    auto e = r.string(*en, key + ".expect");
    if (!e) return e.error();
    if (exp.find_buffer(*e)) {
      c.expect_buffer = *e;
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
        if (*v < 0) return r.err(*tn, key + "." + tol, "must be >= 0");
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
    if (c.buffer == c.expect_buffer)
      return r.err(c.line, "checks", "buffer '" + c.buffer + "' is checked against itself");
  if (const toml::node* s = root.get("sweep")) {
    if (!s->as_table()) return r.err(*s, "sweep", "expected a table [sweep]");
    if (auto st = read_sweep(r, *s->as_table(), exp); !st) return st.error();
  }
  return exp;
}

Expected<Experiment> load_experiment(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Error{path, 0, "cannot open experiment file"};
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_experiment(ss.str(), path);
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
