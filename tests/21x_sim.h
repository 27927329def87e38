// Helpers of the functional-executor tests (tests/21x-29x): load PTX text, allocate buffers, lay
// out a kernel's parameter block, launch, read results back. Expected values are always computed
// in the test itself, in plain C++, never by the simulator.
#pragma once

#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "sim/func/cta.h"
#include "sim/func/executor.h"
#include "sim/ptx/parser.h"

namespace warplab::test {

struct Sim {
  std::optional<func::Program> program;
  func::DeviceMemory mem;

  explicit Sim(const std::string& ptx, const std::string& path = "test.ptx") {
    auto m = ptx::parse_module(ptx, path);
    if (!m) FAIL("parse: " << m.error().to_string());
    auto p = func::Program::load(std::move(*m));
    if (!p) FAIL("load: " << p.error().to_string());
    program.emplace(std::move(*p));
  }

  template <class T>
  uint64_t buffer(const std::string& name, const std::vector<T>& init) {
    const uint64_t a = mem.allocate(name, init.size() * sizeof(T));
    if (!init.empty()) REQUIRE(mem.write(a, init.data(), init.size() * sizeof(T)));
    return a;
  }
  template <class T>
  uint64_t zeros(const std::string& name, size_t n) {
    return buffer(name, std::vector<T>(n));
  }
  template <class T>
  std::vector<T> read(uint64_t address, size_t n) const {
    std::vector<T> out(n);
    REQUIRE(mem.read(address, out.data(), n * sizeof(T)));
    return out;
  }

  // The parameter block of `kernel`: argument i's low bytes at Param i's offset.
  std::vector<uint8_t> params(const std::string& kernel, const std::vector<uint64_t>& args) const {
    const ptx::Function* f = program->kernel(kernel);
    REQUIRE(f != nullptr);
    REQUIRE(f->params.size() == args.size());
    std::vector<uint8_t> block(f->param_bytes);
    for (size_t i = 0; i < args.size(); ++i)
      std::memcpy(block.data() + f->params[i].offset, &args[i],
                  std::min<size_t>(8, f->params[i].size));
    return block;
  }

  func::FunctionalResult run(const std::string& kernel, func::Dim3 grid, func::Dim3 block,
                             const std::vector<uint64_t>& args, uint32_t dyn_shared = 0,
                             func::FunctionalOptions opts = {}) {
    func::LaunchConfig lc{kernel, grid, block, dyn_shared, params(kernel, args)};
    auto r = func::run_functional(*program, mem, lc, opts);
    if (!r) FAIL("launch: " << r.error().to_string());
    return std::move(*r);
  }
};

inline uint64_t f32_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

// The 1-based number of the first line of `text` that contains `marker` (a PTX line a report
// must name).
inline int line_of(const std::string& text, const std::string& marker) {
  std::istringstream in(text);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n)
    if (line.find(marker) != std::string::npos) return n;
  FAIL("marker not found: " << marker);
  return 0;
}

}  // namespace warplab::test
