#include "lab/args.h"

#include <cctype>
#include <cmath>
#include <cstring>

#include "lab/elem_type.h"

namespace warplab::lab {

std::string demangled_base_name(const std::string& e) {
  // Itanium C++ ABI: _Z <len><name> ... or _ZN <len><name> <len><name> ... E ...
  if (e.size() < 3 || e.compare(0, 2, "_Z") != 0) return e;
  size_t pos = 2;
  bool nested = e[pos] == 'N';
  if (nested) ++pos;
  std::string out;
  while (pos < e.size() && std::isdigit(static_cast<unsigned char>(e[pos]))) {
    size_t len = 0;
    while (pos < e.size() && std::isdigit(static_cast<unsigned char>(e[pos])))
      len = len * 10 + static_cast<size_t>(e[pos++] - '0');
    if (pos + len > e.size()) return e;
    out += (out.empty() ? "" : "::") + e.substr(pos, len);
    pos += len;
    if (!nested) break;
  }
  return out.empty() ? e : out;
}

Expected<const ptx::Function*> find_kernel(const ptx::Module& module, const std::string& name) {
  std::vector<const ptx::Function*> matches;
  std::string all;
  for (const ptx::Function& f : module.functions) {
    if (!f.is_entry) continue;
    if (f.name == name) return &f;
    std::string base = demangled_base_name(f.name);
    std::string last = base.substr(base.rfind(':') == std::string::npos ? 0 : base.rfind(':') + 1);
    if (base == name || last == name) matches.push_back(&f);
    all += (all.empty() ? "" : ", ") + (base == f.name ? f.name : base + " (" + f.name + ")");
  }
  if (matches.size() == 1) return matches[0];
  if (matches.empty())
    return Error{"", 0,
                 "unknown kernel '" + name + "' (kernels in " + module.path + ": " +
                     (all.empty() ? "none" : all) + ")"};
  std::string list;
  for (const ptx::Function* f : matches) list += (list.empty() ? "" : ", ") + f->name;
  return Error{"", 0,
               "kernel name '" + name + "' is ambiguous (overloads or template instances: " + list +
                   "); write the PTX entry name"};
}

namespace {

std::string param_desc(const ptx::Function& k, size_t i) {
  const ptx::Param& p = k.params[i];
  return "parameter " + std::to_string(i) + " of " + demangled_base_name(k.name) + " (." +
         std::string(ptx::type_name(p.type)) + " " + p.name + ")";
}

bool is_aggregate(const ptx::Param& p) {
  return p.size > static_cast<uint64_t>(std::max(ptx::type_bits(p.type) / 8, 1));
}

bool is_64bit_int(const ptx::Param& p) {
  return !ptx::is_float(p.type) && ptx::type_bits(p.type) == 64 && !is_aggregate(p);
}

// Converts `v` to the bytes of scalar parameter `p`.
Status pack_scalar(const ptx::Param& p, const Value& v, uint8_t* dst, const std::string& what) {
  ptx::Type t = p.type;
  int bits = ptx::type_bits(t);
  if (t == ptx::Type::F32) {
    float f = static_cast<float>(v.as_double());
    std::memcpy(dst, &f, 4);
    return Ok{};
  }
  if (t == ptx::Type::F64) {
    double d = v.as_double();
    std::memcpy(dst, &d, 8);
    return Ok{};
  }
  if (t == ptx::Type::F16) {
    uint16_t h = float_to_half(static_cast<float>(v.as_double()));
    std::memcpy(dst, &h, 2);
    return Ok{};
  }
  if (t == ptx::Type::BF16) {
    float f = static_cast<float>(v.as_double());
    uint32_t x;
    std::memcpy(&x, &f, 4);
    uint16_t b = static_cast<uint16_t>((x + 0x7fff + ((x >> 16) & 1)) >> 16);  // round to even
    std::memcpy(dst, &b, 2);
    return Ok{};
  }
  if (ptx::is_float(t) || bits == 0 || bits > 64)
    return Error{"", 0, what + " has a type WarpLab cannot pass yet"};
  if (v.is_float)
    return Error{"", 0,
                 what + " is an integer, but the value " + v.to_string() +
                     " is a float (write int(...) to truncate)"};
  int64_t x = v.i;
  bool fits;
  if (bits == 64) {
    fits = true;  // any int64 value, as its bit pattern (see below)
  } else {
    int64_t umax = (int64_t{1} << bits) - 1, smin = -(int64_t{1} << (bits - 1)),
            smax = (int64_t{1} << (bits - 1)) - 1;
    // .uN and .bN: either reading. nvcc declares a C `int` parameter as .u32 (PTX parameters
    // carry no signedness), so -1 for an int must pass, as its bit pattern.
    if (ptx::is_signed_int(t))
      fits = x >= smin && x <= smax;
    else
      fits = x >= smin && x <= umax;
  }
  if (!fits) return Error{"", 0, what + ": the value " + std::to_string(x) + " does not fit"};
  uint64_t u = static_cast<uint64_t>(x);
  std::memcpy(dst, &u, static_cast<size_t>(bits / 8));  // little-endian: low bytes first
  return Ok{};
}

}  // namespace

Status check_signature(const Experiment& exp, size_t index, const ptx::Function& k) {
  const LaunchDef& l = exp.launches[index];
  std::string key = "launches[" + std::to_string(index) + "].args";
  if (l.args.size() != k.params.size()) {
    std::string sig;
    for (size_t i = 0; i < k.params.size(); ++i)
      sig += (i ? ", " : "") + std::string(".") + std::string(ptx::type_name(k.params[i].type));
    return Error{exp.path, l.args_line,
                 key + ": " + std::to_string(l.args.size()) + " argument(s) given, but kernel " +
                     demangled_base_name(k.name) + " takes " + std::to_string(k.params.size()) +
                     " (" + sig + ")"};
  }
  for (size_t i = 0; i < l.args.size(); ++i) {
    const ArgDef& a = l.args[i];
    const ptx::Param& p = k.params[i];
    std::string akey = key + "[" + std::to_string(i) + "]";
    if (is_aggregate(p))
      return Error{exp.path, a.line,
                   akey + ": " + param_desc(k, i) + " is passed by value as " +
                       std::to_string(p.size) +
                       " bytes (a struct); WarpLab passes only scalars "
                       "and pointers"};
    if (a.kind == ArgDef::Kind::Buffer && !is_64bit_int(p))
      return Error{exp.path, a.line,
                   akey + ": '" + a.buffer + "' is a buffer (a 64-bit device pointer), but " +
                       param_desc(k, i) + " is not a pointer"};
  }
  return Ok{};
}

Expected<BoundLaunch> bind_launch(const Experiment& exp, size_t index, const ptx::Function& k,
                                  const Env& env, const std::vector<uint64_t>& addresses) {
  const LaunchDef& l = exp.launches[index];
  std::string key = "launches[" + std::to_string(index) + "]";
  if (auto s = check_signature(exp, index, k); !s) return s.error();
  BoundLaunch b;
  b.index = index;
  b.kernel = &k;
  b.config.kernel = k.name;
  auto dims = [&](const std::array<Expr, 3>& e, const char* what, func::Dim3& out) -> Status {
    uint32_t* d[3] = {&out.x, &out.y, &out.z};
    for (int i = 0; i < 3; ++i) {
      auto v = e[i].eval_int(env);
      if (!v) return Error{exp.path, l.line, key + "." + what + ": " + v.error().message};
      if (*v < 1 || *v > 0x7fffffff)
        return Error{exp.path, l.line,
                     key + "." + what + "[" + std::to_string(i) + "] = " + std::to_string(*v) +
                         " (\"" + e[i].text() + "\") must be at least 1"};
      *d[i] = static_cast<uint32_t>(*v);
    }
    return Ok{};
  };
  if (auto s = dims(l.grid, "grid", b.config.grid); !s) return s.error();
  if (auto s = dims(l.block, "block", b.config.block); !s) return s.error();
  if (b.config.block.count() > 1024)
    return Error{exp.path, l.line,
                 key + ".block: " + std::to_string(b.config.block.count()) +
                     " threads per block; the limit is 1024"};
  auto sh = l.shared_bytes.eval_int(env);
  if (!sh) return Error{exp.path, l.line, key + ".shared_bytes: " + sh.error().message};
  if (*sh < 0 || *sh > (228 << 10))
    return Error{exp.path, l.line,
                 key + ".shared_bytes = " + std::to_string(*sh) + " (limit 233472 on sm_90)"};
  b.config.dynamic_shared_bytes = static_cast<uint32_t>(*sh);
  auto rep = l.repeat.eval_int(env);
  if (!rep) return Error{exp.path, l.line, key + ".repeat: " + rep.error().message};
  if (*rep < 0) return Error{exp.path, l.line, key + ".repeat must be >= 0"};
  b.repeat = *rep;

  b.config.params.assign(k.param_bytes, 0);
  for (size_t i = 0; i < l.args.size(); ++i) {
    const ArgDef& a = l.args[i];
    const ptx::Param& p = k.params[i];
    std::string akey = key + ".args[" + std::to_string(i) + "]";
    if (p.offset + p.size > b.config.params.size()) b.config.params.resize(p.offset + p.size, 0);
    uint8_t* dst = b.config.params.data() + p.offset;
    if (a.kind == ArgDef::Kind::Buffer) {
      int bi = exp.buffer_index(a.buffer);
      uint64_t addr = addresses.at(static_cast<size_t>(bi));
      std::memcpy(dst, &addr, 8);
      b.pointer_params.emplace_back(p.offset, bi);
      b.arg_text.push_back(a.buffer);
      continue;
    }
    auto v = a.expr.eval(env);
    if (!v) return Error{exp.path, a.line, akey + ": " + v.error().message};
    if (auto s = pack_scalar(p, *v, dst, param_desc(k, i)); !s)
      return Error{exp.path, a.line, akey + " (\"" + a.text + "\"): " + s.error().message};
    b.arg_text.push_back(a.text == v->to_string() ? a.text : a.text + "=" + v->to_string());
  }
  return b;
}

}  // namespace warplab::lab
