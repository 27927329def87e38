#include "lab/buffers.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <string>

namespace warplab::lab {

uint64_t splitmix64_next(uint64_t& state) {
  state += 0x9E3779B97F4A7C15ull;
  uint64_t z = state;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

std::vector<uint8_t> convert_elements(const NpyArray& a, ElemType type) {
  if (a.type == type) return a.data;
  if (a.type == npy_bits_type(type)) return a.data;  // bf16/e4m3/e5m2: the file holds raw bits
  uint64_t n = a.count();
  std::vector<uint8_t> out(n * elem_size(type));
  for (uint64_t i = 0; i < n; ++i) {
    if (!elem_is_float(a.type) && !elem_is_float(type)) {
      int64_t v = load_elem_int(a.type, a.data.data(), i);
      uint64_t bits = static_cast<uint64_t>(v);
      std::memcpy(out.data() + i * elem_size(type), &bits, elem_size(type));  // wrap, like C
    } else {
      store_elem(type, out.data(), i, load_elem(a.type, a.data.data(), i));
    }
  }
  return out;
}

namespace {

// Stores the largest value of b's float type that is below `hi`.
void store_below(HostBuffer& b, uint64_t i, double hi) {
  if (b.type == ElemType::F64) {
    store_elem(b.type, b.bytes.data(), i, std::nextafter(hi, -INFINITY));
  } else if (b.type == ElemType::F32) {
    float f = static_cast<float>(hi);
    while (f >= hi) f = std::nextafter(f, -INFINITY);
    store_elem(b.type, b.bytes.data(), i, f);
  } else {  // a 16- or 8-bit float (f16, bf16, e4m3, e5m2): step its bits down
    const uint32_t size = elem_size(b.type), sign = 1u << (8 * size - 1);
    uint16_t h = 0;
    std::memcpy(&h, b.bytes.data() + i * size, size);
    while (load_elem(b.type, b.bytes.data(), i) >= hi) {
      h = (h & sign) ? h + 1 : (h == 0 ? static_cast<uint16_t>(sign | 1) : h - 1);
      std::memcpy(b.bytes.data() + i * size, &h, size);
    }
  }
}

void fill_uniform(HostBuffer& b, const BufferInit& init) {
  uint64_t state = init.seed;
  const double span = init.hi - init.lo;
  for (uint64_t i = 0; i < b.count; ++i) {
    double u = static_cast<double>(splitmix64_next(state) >> 11) * 0x1.0p-53;
    if (elem_is_float(b.type)) {
      double v = init.lo + span * u;
      store_elem(b.type, b.bytes.data(), i, v);
      // Rounding to f32/f16 may land on hi; the interval is half-open.
      if (b.at(i) >= init.hi) store_below(b, i, init.hi);
    } else {
      double lo = std::ceil(init.lo), hi = std::ceil(init.hi);
      store_elem(b.type, b.bytes.data(), i, lo + std::floor(u * (hi - lo)));
    }
  }
}

std::string gib(uint64_t bytes) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f GiB", static_cast<double>(bytes) / (1u << 30));
  return b;
}

// Memory this machine can still hand out, in bytes (MemAvailable; 0 when unknown).
uint64_t available_memory() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  uint64_t kib = 0;
  while (in >> key >> kib) {
    if (key == "MemAvailable:") return kib * 1024;
    in.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
  }
  return 0;
}

}  // namespace

Expected<std::vector<HostBuffer>> make_buffers(const Experiment& exp, const Env& env,
                                               const std::vector<uint64_t>& symbol_bytes) {
  std::vector<HostBuffer> out(exp.buffers.size());
  std::vector<NpyArray> npys(exp.buffers.size());
  auto fail = [&](size_t k, const std::string& what) {
    const BufferDef& d = exp.buffers[k];
    return Error{exp.path, d.line, "buffers[" + std::to_string(k) + "] (" + d.name + "): " + what};
  };
  // 1. Every buffer's element count, from its expression or its .npy file.
  uint64_t total = 0;
  for (size_t k = 0; k < exp.buffers.size(); ++k) {
    const BufferDef& d = exp.buffers[k];
    HostBuffer& b = out[k];
    b.name = d.name;
    b.type = d.type;
    if (d.init.kind == BufferInit::Kind::Npy) {
      auto a = read_npy(d.init.npy_path);
      if (!a) return fail(k, a.error().to_string());
      npys[k] = std::move(*a);
    }
    if (d.count_from_npy) {
      b.count = npys[k].count();
    } else if (d.count_from_symbol) {
      if (k >= symbol_bytes.size())
        return fail(
            k, "count: the size of " + d.symbol + " is known only once the source is compiled");
      b.count = symbol_bytes[k] / elem_size(b.type);
    } else {
      auto c = d.count.eval_int(env);
      if (!c) return fail(k, "count: " + c.error().message);
      if (*c < 0) return fail(k, "count = " + std::to_string(*c) + " is negative");
      b.count = static_cast<uint64_t>(*c);
    }
    // Compared as a count, not as bytes: count * elem_size wraps past 2^64 for a count near
    // 2^62, and a wrapped size would allocate a few bytes that the fill then writes past.
    constexpr uint64_t kMaxBytes = uint64_t{16} << 30;
    if (b.count > kMaxBytes / elem_size(b.type))
      return fail(k, "count = " + std::to_string(b.count) + " " +
                         std::string(elem_type_name(b.type)) +
                         " elements is over the 16 GiB a buffer may hold");
    if (d.init.kind == BufferInit::Kind::Npy && npys[k].count() != b.count)
      return fail(k, d.init.npy_path + " has " + std::to_string(npys[k].count()) +
                         " elements but count = " + std::to_string(b.count));
    total += b.count * elem_size(b.type);
  }
  // 2. Each buffer lives twice during a run (its host copy and the simulator's device memory):
  //    a run that needs more than this machine has left is refused before anything is allocated,
  //    rather than killed by the kernel half way.
  if (const uint64_t available = available_memory(); available > 0 && 2 * total > available)
    return Error{exp.path, exp.buffers.empty() ? 0 : exp.buffers.front().line,
                 "buffers: these parameters need " + gib(total) +
                     " of buffers (twice that during a run: the host copies and the simulator's "
                     "device memory), but this machine has " +
                     gib(available) + " available"};
  // 3. Allocate and fill.
  for (size_t k = 0; k < exp.buffers.size(); ++k) {
    const BufferDef& d = exp.buffers[k];
    HostBuffer& b = out[k];
    b.bytes.assign(b.count * elem_size(b.type), 0);
    switch (d.init.kind) {
      case BufferInit::Kind::Zeros:
        break;
      case BufferInit::Kind::Constant:
        for (uint64_t i = 0; i < b.count; ++i)
          store_elem(b.type, b.bytes.data(), i, d.init.constant);
        break;
      case BufferInit::Kind::Iota:
        for (uint64_t i = 0; i < b.count; ++i)
          store_elem(b.type, b.bytes.data(), i,
                     d.init.start + static_cast<double>(i) * d.init.step);
        break;
      case BufferInit::Kind::Uniform:
        fill_uniform(b, d.init);
        break;
      case BufferInit::Kind::Npy:
        b.bytes = convert_elements(npys[k], b.type);
        break;
    }
  }
  return out;
}

}  // namespace warplab::lab
