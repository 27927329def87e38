// Device-side printf and assert: the two external functions CUDA kernels call most.
//
// Hardware and runtime: `printf` in a kernel compiles to `call vprintf, (fmt, args)`: `fmt` is the
// generic address of the format string (a .global byte array in the module) and `args` that of a
// buffer in the thread's local memory holding the arguments, each aligned to its size, with the C
// promotions applied (char/short -> int, float -> double); strings (%s) are passed as addresses.
// The GPU appends a record to a 1 MiB FIFO in device memory, and the host formats and prints the
// records when it synchronises. `assert(e)` compiles to `call __assertfail, (message, file, line,
// function, char size)` when e is false: the thread stops, the kernel is aborted and the host sees
// cudaErrorAssert.
//
// Modelled: vprintf formats each active lane's call on the spot (lane order within a warp, warps
// in the order they execute; the GPU's order across threads is unspecified) and appends it to the
// DeviceMemory printf buffer, which the host side takes after the launch. Every conversion of C's
// printf that CUDA supports (flags, width, precision, h/hh/l/ll/z length modifiers; d i u o x X c
// s p e E f F g G a A %). The return value is the number of arguments, as CUDA documents.
// __assertfail stops the launch with a fault naming the assertion, file, line and function.
// Simplified: no per-record timestamps or the FIFO's record headers; `*` widths are not supported
// (CUDA does not support them either).
#include <cstdio>
#include <cstring>
#include <string>

#include "sim/func/cta_impl.h"
#include "sim/func/exec.h"

namespace warplab::func {
namespace {

using ptx::Space;

constexpr size_t kMaxString = 4096;  // longest format or %s string read

// One lane's view of memory through generic addresses; false after a fault was raised.
struct LaneReader {
  Exec& x;
  const DInst& d;
  int lane;
  bool ok = true;

  bool bytes(uint64_t addr, void* dst, uint32_t n) {
    Space resolved;
    const uint8_t* p = x.cta->access(x, d, lane, addr, n, false, Space::Generic, resolved);
    if (!p) return ok = false;
    std::memcpy(dst, p, n);
    return true;
  }
  // A NUL-terminated string (at most kMaxString bytes).
  bool string(uint64_t addr, std::string& out) {
    out.clear();
    for (size_t i = 0; i < kMaxString; ++i) {
      char c;
      if (!bytes(addr + i, &c, 1)) return false;
      if (c == 0) return true;
      out += c;
    }
    out += "...";
    return true;
  }
};

// Formats `fmt` with the arguments packed at `args`; returns false after a fault.
bool format(LaneReader& r, const std::string& fmt, uint64_t args, std::string& out, int& nargs) {
  uint64_t at = 0;  // offset into the argument buffer
  auto next = [&](uint32_t size, void* dst) {
    at = (at + size - 1) / size * size;
    const bool ok = r.bytes(args + at, dst, size);
    at += size;
    ++nargs;
    return ok;
  };
  char buf[512];
  for (size_t i = 0; i < fmt.size(); ++i) {
    if (fmt[i] != '%') {
      out += fmt[i];
      continue;
    }
    // 1. The conversion spec: flags, width, precision, length, conversion.
    const size_t start = i;
    size_t j = i + 1;
    while (j < fmt.size() && std::strchr("-+ #0", fmt[j])) ++j;
    while (j < fmt.size() && fmt[j] >= '0' && fmt[j] <= '9') ++j;
    if (j < fmt.size() && fmt[j] == '.') {
      ++j;
      while (j < fmt.size() && fmt[j] >= '0' && fmt[j] <= '9') ++j;
    }
    const std::string flags_width = fmt.substr(i, j - i);
    int longs = 0;
    while (j < fmt.size() && std::strchr("hlLzjt", fmt[j])) {
      if (fmt[j] == 'l' || fmt[j] == 'L' || fmt[j] == 'z' || fmt[j] == 'j' || fmt[j] == 't')
        ++longs;
      ++j;
    }
    if (j >= fmt.size()) {  // a dangling '%': printed as it is
      out += fmt.substr(i);
      break;
    }
    const char conv = fmt[j];
    i = j;
    // 2. One argument, of the size the conversion and length give, printed by the host's printf.
    switch (conv) {
      case '%':
        out += '%';
        continue;
      case 'd':
      case 'i':
      case 'u':
      case 'o':
      case 'x':
      case 'X':
      case 'c': {
        long long v = 0;
        if (longs > 0 && conv != 'c') {
          if (!next(8, &v)) return false;
        } else {
          uint32_t w = 0;
          if (!next(4, &w)) return false;
          v = (conv == 'd' || conv == 'i') ? static_cast<int32_t>(w) : static_cast<long long>(w);
        }
        if (conv == 'c') {
          std::snprintf(buf, sizeof buf, (flags_width + "c").c_str(), static_cast<int>(v));
        } else {
          std::snprintf(buf, sizeof buf, (flags_width + "ll" + conv).c_str(), v);
        }
        out += buf;
        continue;
      }
      case 'e':
      case 'E':
      case 'f':
      case 'F':
      case 'g':
      case 'G':
      case 'a':
      case 'A': {
        double v = 0;
        if (!next(8, &v)) return false;
        std::snprintf(buf, sizeof buf, (flags_width + conv).c_str(), v);
        out += buf;
        continue;
      }
      case 'p': {
        uint64_t v = 0;
        if (!next(8, &v)) return false;
        std::snprintf(buf, sizeof buf, (flags_width + "llx").c_str(),
                      static_cast<unsigned long long>(v));
        out += std::string("0x") + buf;
        continue;
      }
      case 's': {
        uint64_t p = 0;
        if (!next(8, &p)) return false;
        std::string s = "(null)";
        if (p && !r.string(p, s)) return false;
        std::snprintf(buf, sizeof buf, (flags_width + "s").c_str(), s.c_str());
        out += buf;
        continue;
      }
      default:  // not a conversion printf knows: printed as it is, no argument taken
        out += fmt.substr(start, i - start + 1);
        continue;
    }
  }
  return true;
}

// The call's parameter slots in the lane's .param area: args[k].from, returns[0].to.
const CallSite& site(const Exec& x, const DInst& d) { return x.cta->k->calls[d.aux]; }

template <class T>
T param(const Exec& x, const CallSite& cs, int lane, size_t k) {
  T v{};
  const uint8_t* area = x.cta->lane_param_area(*x.w, lane);
  std::memcpy(&v, area + cs.args[k].from, std::min<size_t>(sizeof v, cs.args[k].size));
  return v;
}

void vprintf_h(Exec& x, const DInst& d) {
  const CallSite& cs = site(x, d);
  for (int l = 0; l < 32; ++l) {
    if (!((x.exec >> l) & 1u)) continue;
    LaneReader r{x, d, l};
    std::string fmt, text;
    int nargs = 0;
    if (!r.string(param<uint64_t>(x, cs, l, 0), fmt)) return;
    if (!format(r, fmt, param<uint64_t>(x, cs, l, 1), text, nargs)) return;
    x.cta->mem->append_printf(text);
    if (!cs.returns.empty()) {
      const int32_t ret = nargs;
      std::memcpy(x.cta->lane_param_area(*x.w, l) + cs.returns[0].to, &ret,
                  std::min<size_t>(4, cs.returns[0].size));
    }
  }
}

void assertfail_h(Exec& x, const DInst& d) {
  const CallSite& cs = site(x, d);
  for (int l = 0; l < 32; ++l) {
    if (!((x.exec >> l) & 1u)) continue;
    LaneReader r{x, d, l};
    std::string message, file, function;
    if (!r.string(param<uint64_t>(x, cs, l, 0), message) ||
        !r.string(param<uint64_t>(x, cs, l, 1), file) ||
        !r.string(param<uint64_t>(x, cs, l, 3), function))
      return;
    const uint32_t line = param<uint32_t>(x, cs, l, 2);
    x.cta->raise(x, d, LaunchFault::Kind::Trap, l, 0, 0, false, Space::None,
                 file + ":" + std::to_string(line) + ": " + function + ": Assertion `" + message +
                     "` failed.");
    return;
  }
}

}  // namespace

Handler builtin_handler(const std::string& name, size_t args, size_t returns, std::string& why) {
  if (name == "vprintf") {
    if (args != 2 || returns > 1) {
      why = "vprintf takes (format, arguments) and returns an int";
      return nullptr;
    }
    return vprintf_h;
  }
  if (name == "__assertfail") {
    if (args != 5) {
      why = "__assertfail takes (message, file, line, function, char size)";
      return nullptr;
    }
    return assertfail_h;
  }
  return nullptr;
}

}  // namespace warplab::func
