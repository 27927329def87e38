#include "lab/args.h"

#include <cxxabi.h>

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "lab/elem_type.h"
#include "sim/func/tensormap.h"
#include "sim/func/cluster.h"

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

std::string demangle(const std::string& entry) {
  if (entry.size() < 3 || entry.compare(0, 2, "_Z") != 0) return entry;
  int status = 0;
  char* d = abi::__cxa_demangle(entry.c_str(), nullptr, nullptr, &status);
  if (status != 0 || !d) return entry;
  std::string out(d);
  std::free(d);
  return out;
}

std::string demangled_template_name(const std::string& entry) {
  const std::string d = demangle(entry);
  if (d == entry) return entry;
  // "void ns::k<16, float>(float*, int)": the name ends at the first '(' outside <...>; a return
  // type (templates only) ends at the last space outside <...> before it.
  int depth = 0;
  size_t start = 0, end = d.size();
  for (size_t i = 0; i < d.size(); ++i) {
    const char c = d[i];
    if (c == '<') ++depth;
    if (c == '>') --depth;
    if (depth == 0 && c == ' ') start = i + 1;
    if (depth == 0 && c == '(') {
      end = i;
      break;
    }
  }
  return d.substr(start, end - start);
}

namespace {

// "MatrixMulCUDA<16>" and "MatrixMulCUDA< 16 >" match: spaces do not count.
std::string without_spaces(const std::string& s) {
  std::string o;
  for (char c : s)
    if (c != ' ') o += c;
  return o;
}

}  // namespace

Expected<const ptx::Function*> find_kernel(const ptx::Module& module, const std::string& name) {
  std::vector<const ptx::Function*> matches;
  std::string all;
  const std::string wanted = without_spaces(name);
  const bool template_id = name.find('<') != std::string::npos;
  for (const ptx::Function& f : module.functions) {
    if (!f.is_entry) continue;
    if (f.name == name) return &f;
    std::string base = demangled_base_name(f.name);
    std::string last = base.substr(base.rfind(':') == std::string::npos ? 0 : base.rfind(':') + 1);
    if (template_id) {
      const std::string t = without_spaces(demangled_template_name(f.name));
      const size_t colon = t.rfind("::", t.find('<'));
      if (t == wanted || (colon != std::string::npos && t.substr(colon + 2) == wanted))
        matches.push_back(&f);
    } else if (base == name || last == name) {
      matches.push_back(&f);
    }
    const std::string full = demangle(f.name);
    all += (all.empty() ? "" : ", ") + (full == f.name ? f.name : full + " [" + f.name + "]");
  }
  if (matches.size() == 1) return matches[0];
  if (matches.empty())
    return Error{"", 0,
                 "unknown kernel '" + name + "' (kernels in " + module.path + ": " +
                     (all.empty() ? "none" : all) + ")"};
  std::string list;
  for (const ptx::Function* f : matches)
    list += (list.empty() ? "" : ", ") + demangle(f->name) + " [" + f->name + "]";
  return Error{"", 0,
               "kernel name '" + name + "' is ambiguous (overloads or template instances: " + list +
                   "); write the template instance (\"k<16>\") or the PTX entry name in []"};
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
    if (a.kind == ArgDef::Kind::TensorMap) {
      if (!is_aggregate(p) || p.size != 128)
        return Error{exp.path, a.line,
                     akey + ": a tensor map (128 bytes, a const __grid_constant__ CUtensorMap), "
                            "but " + param_desc(k, i) + " is not a 128-byte parameter"};
      continue;
    }
    if (a.kind == ArgDef::Kind::Struct) {
      const StructLayout lay = struct_layout(a);
      const uint64_t palign = p.align ? p.align : 1;
      if (!is_aggregate(p) && !(p.size == lay.size && ptx::type_bits(p.type) == 8))
        return Error{exp.path, a.line,
                     akey + ": a struct, but " + param_desc(k, i) + " is a scalar"};
      if (lay.size != p.size || (p.align && lay.align != palign))
        return Error{exp.path, a.line,
                     akey + ": the struct laid out as " + lay.text + ", but " + param_desc(k, i) +
                         " is " + std::to_string(p.size) + " bytes" +
                         (p.align ? ", .align " + std::to_string(p.align) : "") +
                         " (check the field types and order; a C++ __align__(N) struct needs "
                         "align = N)"};
      continue;
    }
    if (is_aggregate(p))
      return Error{exp.path, a.line,
                   akey + ": " + param_desc(k, i) + " is passed by value as " +
                       std::to_string(p.size) +
                       " bytes (a struct): write its fields, e.g. { struct = [ { f32 = \"alpha\" "
                       "}, { i32 = \"N\" }, { ptr = \"x\" } ] }"};
    if (a.kind == ArgDef::Kind::Buffer && !is_64bit_int(p))
      return Error{exp.path, a.line,
                   akey + ": '" + a.buffer + "' is a buffer (a 64-bit device pointer), but " +
                       param_desc(k, i) + " is not a pointer"};
  }
  return Ok{};
}

namespace {

uint64_t align_up(uint64_t x, uint64_t a) { return (x + a - 1) / a * a; }

uint64_t field_align(const ArgDef& f);
uint64_t field_size(const ArgDef& f);

uint64_t field_align(const ArgDef& f) {
  if (f.kind == ArgDef::Kind::Buffer) return 8;
  if (f.kind == ArgDef::Kind::Scalar) return elem_size(f.type);
  uint64_t a = std::max<uint64_t>(f.align, 1);
  for (const ArgDef& g : f.fields) a = std::max(a, field_align(g));
  return a;
}

uint64_t field_size(const ArgDef& f) {
  if (f.kind == ArgDef::Kind::Buffer) return 8;
  if (f.kind == ArgDef::Kind::Scalar) return elem_size(f.type);
  uint64_t off = 0;
  for (const ArgDef& g : f.fields) off = align_up(off, field_align(g)) + field_size(g);
  return align_up(off, field_align(f));
}

std::string layout_text(const ArgDef& s, uint64_t base) {
  std::string t;
  uint64_t off = 0;
  for (const ArgDef& g : s.fields) {
    off = align_up(off, field_align(g));
    t += t.empty() ? "" : ", ";
    if (g.kind == ArgDef::Kind::Struct)
      t += "{" + layout_text(g, base + off) + "} @" + std::to_string(base + off);
    else
      t += std::string(g.kind == ArgDef::Kind::Buffer ? "ptr" : elem_type_name(g.type)) + " @" +
           std::to_string(base + off);
    off += field_size(g);
  }
  return t;
}

ptx::Type ptx_type_of(ElemType t) {
  switch (t) {
    case ElemType::F16:
      return ptx::Type::F16;
    case ElemType::F32:
      return ptx::Type::F32;
    case ElemType::F64:
      return ptx::Type::F64;
    case ElemType::I8:
      return ptx::Type::S8;
    case ElemType::I16:
      return ptx::Type::S16;
    case ElemType::I32:
      return ptx::Type::S32;
    case ElemType::I64:
      return ptx::Type::S64;
    case ElemType::U8:
      return ptx::Type::U8;
    case ElemType::U16:
      return ptx::Type::U16;
    case ElemType::U32:
      return ptx::Type::U32;
    case ElemType::U64:
      return ptx::Type::U64;
    case ElemType::BF16:
      return ptx::Type::BF16;
    case ElemType::E4M3:
    case ElemType::E5M2:
      return ptx::Type::B8;
  }
  return ptx::Type::B8;
}

}  // namespace

StructLayout struct_layout(const ArgDef& s) {
  StructLayout l;
  l.size = field_size(s);
  l.align = field_align(s);
  l.text = "{" + layout_text(s, 0) + "} = " + std::to_string(l.size) + " bytes, align " +
           std::to_string(l.align);
  return l;
}

namespace {

// Everything bind_launch needs to write one argument (or struct field) into the block.
struct Packer {
  const Experiment& exp;
  const Env& env;
  const std::vector<uint64_t>& addresses;
  const std::vector<uint64_t>& counts;
  BoundLaunch& b;

  // The device address of "x + off", bounds-checked: the offset may be 0 to x's count.
  Status pointer(const ArgDef& a, uint64_t param_offset, const std::string& akey) {
    const int bi = exp.buffer_index(a.buffer);
    const BufferDef& bd = exp.buffers[static_cast<size_t>(bi)];
    int64_t off = 0;
    if (!a.offset.empty()) {
      auto v = a.offset.eval_int(env);
      if (!v) return Error{exp.path, a.line, akey + " (\"" + a.text + "\"): " + v.error().message};
      off = *v;
      uint64_t count = 0;
      if (static_cast<size_t>(bi) < counts.size()) {
        count = counts[static_cast<size_t>(bi)];
      } else {
        auto c = bd.count.eval_int(env);
        if (!c)
          return Error{exp.path, a.line, akey + ": count of " + bd.name + ": " + c.error().message};
        count = static_cast<uint64_t>(std::max<int64_t>(*c, 0));
      }
      if (off < 0 || static_cast<uint64_t>(off) > count)
        return Error{exp.path, a.line,
                     akey + " (\"" + a.text + "\"): offset " + std::to_string(off) +
                         " is outside " + bd.name + ", which has " + std::to_string(count) +
                         " elements (0 to " + std::to_string(count) + " allowed)"};
    }
    const uint64_t bytes = static_cast<uint64_t>(off) * elem_size(bd.type);
    const uint64_t addr = addresses.at(static_cast<size_t>(bi)) + bytes;
    std::memcpy(b.config.params.data() + param_offset, &addr, 8);
    b.pointer_params.push_back({param_offset, bi, bytes});
    return Ok{};
  }

  // A tensor map over buffer a.buffer, checked as cuTensorMapEncodeTiled checks it and against
  // the buffer's size, encoded at `param_offset` in WarpLab's layout (sim/func/tensormap.h).
  Status tensor_map(const ArgDef& a, uint64_t param_offset, const std::string& akey) {
    const int bi = exp.buffer_index(a.buffer);
    const BufferDef& bd = exp.buffers[static_cast<size_t>(bi)];
    auto ints = [&](const std::vector<Expr>& e, const char* field,
                    std::vector<int64_t>& out) -> Status {
      for (size_t i = 0; i < e.size(); ++i) {
        auto v = e[i].eval_int(env);
        if (!v)
          return Error{exp.path, a.line,
                       akey + "." + field + "[" + std::to_string(i) + "]: " + v.error().message};
        out.push_back(*v);
      }
      return Ok{};
    };
    std::vector<int64_t> dims, strides, box, es;
    if (auto s = ints(a.tm_dims, "dims", dims); !s) return s;
    if (auto s = ints(a.tm_strides, "strides", strides); !s) return s;
    if (auto s = ints(a.tm_box, "box", box); !s) return s;
    if (auto s = ints(a.tm_estrides, "element_strides", es); !s) return s;
    const size_t rank = dims.size();
    // The element type: the buffer's (fp8 and 8-bit integers move as bytes).
    struct Codes {
      uint8_t ptx;
      uint32_t cuda;
    };
    Codes c{0, 0};
    switch (bd.type) {
      case ElemType::F16: c = {6, 6}; break;
      case ElemType::F32: c = {7, 7}; break;
      case ElemType::F64: c = {9, 8}; break;
      case ElemType::BF16: c = {10, 9}; break;
      case ElemType::I16:
      case ElemType::U16: c = {1, 1}; break;
      case ElemType::I32: c = {3, 3}; break;
      case ElemType::U32: c = {2, 2}; break;
      case ElemType::I64: c = {5, 5}; break;
      case ElemType::U64: c = {4, 4}; break;
      default: c = {0, 0}; break;  // i8, u8, e4m3, e5m2
    }
    const uint64_t esize = elem_size(bd.type);
    func::TensorMap m;
    m.address = addresses.at(static_cast<size_t>(bi));
    m.rank = static_cast<uint32_t>(rank);
    m.elem = c.ptx;
    m.swizzle = a.tm_swizzle;
    m.fill = a.tm_fill;
    BoundLaunch::TensorMapParam t;
    t.param_offset = param_offset;
    t.buffer = bi;
    t.cuda_data_type = c.cuda;
    t.rank = m.rank;
    t.swizzle = a.tm_swizzle;
    t.oob_fill = a.tm_fill;
    uint64_t dense = esize;
    for (size_t i = 0; i < rank; ++i) {
      const std::string d = "[" + std::to_string(i) + "]";
      if (dims[i] < 1 || box[i] < 0 || (!es.empty() && es[i] < 0) ||
          (i > 0 && !strides.empty() && strides[i - 1] < 0))
        return Error{exp.path, a.line, akey + ": dims" + d + ", box" + d +
                                           " and the strides must be positive"};
      m.dim[i] = static_cast<uint64_t>(dims[i]);
      m.box[i] = static_cast<uint32_t>(std::min<int64_t>(box[i], 1 << 20));
      m.estride[i] = es.empty() ? 1 : static_cast<uint32_t>(std::min<int64_t>(es[i], 1 << 20));
      m.stride[i] = i == 0 ? esize : strides.empty() ? dense : static_cast<uint64_t>(strides[i - 1]);
      dense = m.stride[i] * m.dim[i];
      t.dims[i] = m.dim[i];
      t.box[i] = m.box[i];
      t.element_strides[i] = m.estride[i];
      if (i > 0) t.strides[i - 1] = m.stride[i];
    }
    if (const std::string why = m.check(); !why.empty())
      return Error{exp.path, a.line, akey + " (tensor map of " + bd.name + "): " + why};
    // The tensor must lie inside the buffer: its last element's last byte.
    uint64_t last = esize;
    for (size_t i = 0; i < rank; ++i) last += (m.dim[i] - 1) * m.stride[i];
    auto count = bd.count.eval_int(env);
    const uint64_t bytes = counts.empty()
                               ? (count ? static_cast<uint64_t>(std::max<int64_t>(*count, 0)) : 0) *
                                     esize
                               : counts.at(static_cast<size_t>(bi)) * esize;
    if (last > bytes)
      return Error{exp.path, a.line,
                   akey + " (tensor map of " + bd.name + "): the tensor's dims and strides reach " +
                       std::to_string(last) + " bytes, but " + bd.name + " holds " +
                       std::to_string(bytes)};
    const auto enc = m.encode();
    std::memcpy(b.config.params.data() + param_offset, enc.data(), enc.size());
    b.tensor_maps.push_back(t);
    return Ok{};
  }

  // A struct's fields from `offset` on, laid out as struct_layout() says.
  Status fields(const ArgDef& s, uint64_t offset, const std::string& akey) {
    uint64_t off = 0;
    for (size_t i = 0; i < s.fields.size(); ++i) {
      const ArgDef& f = s.fields[i];
      off = align_up(off, field_align(f));
      const std::string fkey = akey + ".field " + std::to_string(i);
      if (f.kind == ArgDef::Kind::Struct) {
        if (auto st = fields(f, offset + off, fkey); !st) return st;
      } else if (f.kind == ArgDef::Kind::Buffer) {
        if (auto st = pointer(f, offset + off, fkey); !st) return st;
      } else {
        auto v = f.expr.eval(env);
        if (!v) return Error{exp.path, f.line, fkey + ": " + v.error().message};
        ptx::Param fp;
        fp.type = ptx_type_of(f.type);
        fp.size = elem_size(f.type);
        if (auto st = pack_scalar(
                fp, *v, b.config.params.data() + offset + off,
                "field " + std::to_string(i) + " (" + std::string(elem_type_name(f.type)) + ")");
            !st)
          return Error{exp.path, f.line, fkey + " (\"" + f.text + "\"): " + st.error().message};
      }
      off += field_size(f);
    }
    return Ok{};
  }
};

}  // namespace

Expected<BoundLaunch> bind_launch(const Experiment& exp, size_t index, const ptx::Function& k,
                                  const Env& env, const std::vector<uint64_t>& addresses,
                                  const std::vector<uint64_t>& counts) {
  const LaunchDef& l = exp.launches[index];
  std::string key = "launches[" + std::to_string(index) + "]";
  if (auto s = check_signature(exp, index, k); !s) return s.error();
  BoundLaunch b;
  b.index = index;
  b.kernel = &k;
  b.config.kernel = k.name;
  auto dims = [&](const std::array<Expr, 3>& e, const char* what, func::Dim3& out) -> Status {
    uint32_t* d[3] = {&out.x, &out.y, &out.z};
    // CUDA's limits: gridDim.x up to 2^31-1, gridDim.y and .z up to 65535; blockDim.x and .y up
    // to 1024, blockDim.z up to 64 (the launch fails on the GPU past them).
    const bool grid = std::string(what) == "grid";
    const int64_t most[3] = {grid ? 0x7fffffff : 1024, grid ? 65535 : 1024, grid ? 65535 : 64};
    for (int i = 0; i < 3; ++i) {
      auto v = e[i].eval_int(env);
      if (!v) return Error{exp.path, l.line, key + "." + what + ": " + v.error().message};
      if (*v < 1 || *v > most[i])
        return Error{exp.path, l.line,
                     key + "." + what + "[" + std::to_string(i) + "] = " + std::to_string(*v) +
                         " (\"" + e[i].text() + "\") must be in 1.." + std::to_string(most[i]) +
                         " (CUDA's limit for " + (grid ? "gridDim." : "blockDim.") + "xyz"[i] +
                         ")"};
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
  // .maxntid / .reqntid: the GPU refuses a block outside them (sim/func/cta.cpp checks too).
  const func::Dim3& bl = b.config.block;
  const auto& h = k.hints;
  const uint64_t maxntid =
      uint64_t{h.maxntid[0]} * std::max(h.maxntid[1], 1u) * std::max(h.maxntid[2], 1u);
  if (h.maxntid[0] != 0 && bl.count() > maxntid)
    return Error{exp.path, l.line,
                 key + ".block: " + std::to_string(bl.count()) + " threads, but kernel '" + k.name +
                     "' is declared with .maxntid " + std::to_string(maxntid) +
                     " (__launch_bounds__): the GPU refuses this launch"};
  if (h.reqntid[0] != 0 && (bl.x != h.reqntid[0] || bl.y != std::max(h.reqntid[1], 1u) ||
                            bl.z != std::max(h.reqntid[2], 1u)))
    return Error{exp.path, l.line,
                 key + ".block: kernel '" + k.name + "' requires a block of exactly (" +
                     std::to_string(h.reqntid[0]) + ", " +
                     std::to_string(std::max(h.reqntid[1], 1u)) + ", " +
                     std::to_string(std::max(h.reqntid[2], 1u)) +
                     ") threads (.reqntid): the GPU refuses this launch"};
  // Thread-block clusters: the shape, then the driver's checks (sim/func/cluster.h) at its line.
  if (l.has_cluster) {
    for (int i = 0; i < 3; ++i) {
      auto v = l.cluster[i].eval_int(env);
      const int line = l.cluster_line ? l.cluster_line : l.line;
      if (!v) return Error{exp.path, line, key + ".cluster: " + v.error().message};
      if (*v < 1 || *v > 16)
        return Error{exp.path, line,
                     key + ".cluster[" + std::to_string(i) + "] = " + std::to_string(*v) +
                         " must be in 1..16"};
      (i == 0   ? b.config.cluster.x
       : i == 1 ? b.config.cluster.y
                : b.config.cluster.z) = static_cast<uint32_t>(*v);
    }
  }
  b.config.cluster_nonportable = l.cluster_nonportable;
  if (auto s = func::check_cluster_shape(b.config, k, exp.path); !s)
    return Error{exp.path, l.cluster_line ? l.cluster_line : l.line,
                 key + ": " + s.error().message};
  auto sh = l.shared_bytes.eval_int(env);
  if (!sh) return Error{exp.path, l.line, key + ".shared_bytes: " + sh.error().message};
  if (*sh < 0 || static_cast<uint64_t>(*sh) > func::kMaxSharedPerBlock)
    return Error{exp.path, l.line,
                 key + ".shared_bytes = " + std::to_string(*sh) + " (a block may use at most " +
                     std::to_string(func::kMaxSharedPerBlock) + " bytes on sm_90)"};
  b.config.dynamic_shared_bytes = static_cast<uint32_t>(*sh);
  auto rep = l.repeat.eval_int(env);
  if (!rep) return Error{exp.path, l.line, key + ".repeat: " + rep.error().message};
  if (*rep < 0) return Error{exp.path, l.line, key + ".repeat must be >= 0"};
  // Each repeat keeps a launch record: a bound keeps memory bounded (the same as a `for`'s).
  constexpr int64_t kMaxRepeat = 1'000'000;
  if (*rep > kMaxRepeat)
    return Error{exp.path, l.line,
                 key + ".repeat = " + std::to_string(*rep) + " is more than " +
                     std::to_string(kMaxRepeat) + " launches"};
  b.repeat = *rep;

  b.config.params.assign(k.param_bytes, 0);
  Packer packer{exp, env, addresses, counts, b};
  for (size_t i = 0; i < l.args.size(); ++i) {
    const ArgDef& a = l.args[i];
    const ptx::Param& p = k.params[i];
    std::string akey = key + ".args[" + std::to_string(i) + "]";
    if (p.offset + p.size > b.config.params.size()) b.config.params.resize(p.offset + p.size, 0);
    uint8_t* dst = b.config.params.data() + p.offset;
    if (a.kind == ArgDef::Kind::Buffer) {
      if (auto s = packer.pointer(a, p.offset, akey); !s) return s.error();
      b.arg_text.push_back(a.text);
      continue;
    }
    if (a.kind == ArgDef::Kind::TensorMap) {
      if (auto s = packer.tensor_map(a, p.offset, akey); !s) return s.error();
      b.arg_text.push_back(a.text);
      continue;
    }
    if (a.kind == ArgDef::Kind::Struct) {
      if (auto s = packer.fields(a, p.offset, akey); !s) return s.error();
      b.arg_text.push_back("struct " + struct_layout(a).text);
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
