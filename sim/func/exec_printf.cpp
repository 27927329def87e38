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
// Limits of the simulator (the host formats every call, so a hostile format must not cost minutes
// or gigabytes): a width or precision above kMaxField is taken as kMaxField (`%2147483647d` pads
// to 512 characters), one call's text is cut at kMaxCallBytes with a note, and the text all calls
// of a launch produce counts against DeviceMemory::kPrintfBudgetBytes: past it the launch stops
// with a Hang fault (a loop of printf calls is stopped like any other runaway loop).
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>

#include "sim/func/cta_impl.h"
#include "sim/func/exec.h"

namespace warplab::func {
namespace {

using ptx::Space;

constexpr size_t kMaxString = 4096;     // longest format or %s string read
constexpr int kMaxField = 512;          // widest width or precision honoured
constexpr size_t kMaxCallBytes = 16384;  // longest text one call produces

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
  std::string buf;
  // The host's snprintf into buf (the clamps above bound its length).
  auto host_printf = [&buf](const std::string& spec, auto v) {
    const int n = std::snprintf(nullptr, 0, spec.c_str(), v);
    buf.assign(n > 0 ? static_cast<size_t>(n) : 0, '\0');
    if (n > 0) std::snprintf(buf.data(), buf.size() + 1, spec.c_str(), v);
  };
  for (size_t i = 0; i < fmt.size() && out.size() <= kMaxCallBytes; ++i) {
    if (fmt[i] != '%') {
      out += fmt[i];
      continue;
    }
    // 1. The conversion spec: flags, width, precision, length, conversion.
    const size_t start = i;
    size_t j = i + 1;
    while (j < fmt.size() && std::strchr("-+ #0", fmt[j])) ++j;
    std::string flags_width = fmt.substr(i, j - i);
    // A width or precision: its digits, read without overflow and clamped to kMaxField.
    auto number = [&] {
      long long v = 0;
      for (; j < fmt.size() && fmt[j] >= '0' && fmt[j] <= '9'; ++j)
        v = std::min<long long>(v * 10 + (fmt[j] - '0'), kMaxField);
      return v;
    };
    if (j < fmt.size() && fmt[j] >= '1' && fmt[j] <= '9') flags_width += std::to_string(number());
    if (j < fmt.size() && fmt[j] == '.') {
      ++j;
      flags_width += "." + std::to_string(number());
    }
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
          host_printf(flags_width + "c", static_cast<int>(v));
        } else {
          host_printf(flags_width + "ll" + conv, v);
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
        host_printf(flags_width + conv, v);
        out += buf;
        continue;
      }
      case 'p': {
        uint64_t v = 0;
        if (!next(8, &v)) return false;
        host_printf(flags_width + "llx", static_cast<unsigned long long>(v));
        out += std::string("0x") + buf;
        continue;
      }
      case 's': {
        uint64_t p = 0;
        if (!next(8, &p)) return false;
        std::string s = "(null)";
        if (p && !r.string(p, s)) return false;
        host_printf(flags_width + "s", s.c_str());
        out += buf;
        continue;
      }
      default:  // not a conversion printf knows: printed as it is, no argument taken
        out += fmt.substr(start, i - start + 1);
        continue;
    }
  }
  if (out.size() > kMaxCallBytes) {
    out.resize(kMaxCallBytes);
    out += "... (cut: the simulator keeps at most " + std::to_string(kMaxCallBytes) +
           " bytes of one printf call)\n";
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
    if (!x.cta->mem->append_printf(text)) {
      x.cta->raise(x, d, LaunchFault::Kind::Hang, l, 0, 0, false, Space::None,
                   "its printf calls produced more than " +
                       std::to_string(DeviceMemory::kPrintfBudgetBytes >> 20) +
                       " MiB of text in this launch (the GPU's 1 MiB printf buffer keeps only "
                       "the first MiB): a loop of printf calls that does not end? The launch "
                       "was stopped like a hang");
      return;
    }
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
