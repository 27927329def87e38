// Shared helpers of the whole-kernel tests (tests/55x): run a lesson's experiment file in the
// simulator and compare its buffers with results computed on the CPU.
//
// Each test loads the lesson's own .toml, shrinks it with `--set`-style assignments (the sweep, if
// any, is dropped: the test picks the values), optionally edits the buffers' initial contents,
// runs it once in functional mode and reads the buffers back. The expected values are then
// computed in the test in plain C++ from the input buffers, independently of the simulator.
// Without NVRTC the tests cannot compile the lessons' .cu files: they skip with one MESSAGE.
#pragma once

#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "lab/experiment.h"
#include "lab/runner.h"

namespace warplab::test {

// A finished run: the buffers after the last launch, each launch's counts, the file's checks.
struct KernelRun {
  lab::RunResult result;
  std::vector<func::LaunchStats> launches;
  bool checks_passed = false;

  const lab::HostBuffer& buffer(const std::string& name) const {
    for (const lab::HostBuffer& b : result.buffers)
      if (b.name == name) return b;
    FAIL("no buffer named '" << name << "' in the experiment");
    return result.buffers.front();
  }
};

inline std::string lesson_path(const std::string& relative) {
#ifdef WARPLAB_SOURCE_DIR
  return std::string(WARPLAB_SOURCE_DIR) + "/" + relative;
#else
  return relative;
#endif
}

// One lesson experiment, compiled once and run as often as a test likes.
class Lesson {
 public:
  explicit Lesson(const std::string& toml)
      : path_(lesson_path(toml)), runner_(toolchain_, options()) {}

  // Runs with `sets` ("N=4096") applied and `edit` then applied to the loaded experiment. Returns
  // nullopt after a MESSAGE (no NVRTC) or a failed CHECK (bad file, compile error, kernel fault).
  std::optional<KernelRun> run(const std::vector<std::string>& sets,
                               const std::function<void(lab::Experiment&)>& edit = {}) {
    if (!toolchain_.has_nvrtc()) {
      MESSAGE("skipped (needs NVRTC to compile the lesson's CUDA): " << toolchain_.why_no_nvrtc());
      return std::nullopt;
    }
    auto exp = lab::load_experiment(path_);
    if (!exp) {
      FAIL_CHECK(exp.error().to_string());
      return std::nullopt;
    }
    for (const std::string& s : sets) {
      if (auto st = lab::set_param(*exp, s); !st) {
        FAIL_CHECK(st.error().to_string());
        return std::nullopt;
      }
    }
    exp->sweep.clear();
    if (edit) edit(*exp);
    auto rr = runner_.run_once(*exp);
    if (!rr) {
      FAIL_CHECK(rr.error().to_string());
      return std::nullopt;
    }
    KernelRun run;
    run.result = std::move(*rr);
    for (const lab::LaunchRecord& rec : run.result.launches) {
      if (rec.fault) {
        FAIL_CHECK("launch of " << rec.kernel << " faulted: " << rec.fault->message);
        return std::nullopt;
      }
      if (rec.stats) run.launches.push_back(*rec.stats);
    }
    run.checks_passed = true;
    for (const lab::CheckResult& c : run.result.checks) {
      if (!c.passed) {
        run.checks_passed = false;
        MESSAGE("experiment check failed: " << c.buffer << " vs " << c.expected << " ("
                                            << c.mismatch_count << " mismatches, max abs error "
                                            << c.max_abs_error << ") " << c.note);
      }
    }
    return run;
  }

 private:
  static lab::RunOptions options() {
    lab::RunOptions o;
    o.backend = lab::BackendKind::Sim;
    o.mode = lab::SimMode::Functional;
    o.resources = false;  // occupancy figures are not what these tests check
    o.count_lines = false;
    o.max_warp_instructions = 50'000'000;  // a runaway loop fails instead of hanging CI
    return o;
  }

  std::string path_;
  lab::Toolchain toolchain_;
  lab::Runner runner_;
};

inline std::optional<KernelRun> run_lesson(const std::string& toml,
                                           const std::vector<std::string>& sets,
                                           const std::function<void(lab::Experiment&)>& edit = {}) {
  Lesson lesson(toml);
  return lesson.run(sets, edit);
}

// Replaces buffer `name`'s initial contents with seeded uniform random values in [lo, hi).
inline void set_uniform(lab::Experiment& exp, const std::string& name, double lo, double hi,
                        uint64_t seed) {
  for (lab::BufferDef& b : exp.buffers)
    if (b.name == name) {
      b.init = lab::BufferInit{};
      b.init.kind = lab::BufferInit::Kind::Uniform;
      b.init.lo = lo;
      b.init.hi = hi;
      b.init.seed = seed;
      return;
    }
  FAIL_CHECK("no buffer named '" << name << "' to randomise");
}

template <class T>
std::vector<T> as_vector(const lab::HostBuffer& b) {
  REQUIRE(b.bytes.size() % sizeof(T) == 0);
  std::vector<T> v(b.bytes.size() / sizeof(T));
  if (!v.empty()) std::memcpy(v.data(), b.bytes.data(), b.bytes.size());
  return v;
}
inline std::vector<float> as_f32(const lab::HostBuffer& b) {
  REQUIRE(b.type == lab::ElemType::F32);
  return as_vector<float>(b);
}
inline std::vector<int32_t> as_i32(const lab::HostBuffer& b) {
  REQUIRE(b.type == lab::ElemType::I32);
  return as_vector<int32_t>(b);
}
inline std::vector<uint32_t> as_u32(const lab::HostBuffer& b) {
  REQUIRE(b.type == lab::ElemType::U32);
  return as_vector<uint32_t>(b);
}

inline std::string describe(float f) {
  std::ostringstream s;
  s.precision(9);
  s << f << " (0x" << std::hex << std::bit_cast<uint32_t>(f) << ")";
  return s.str();
}

// "" when `got` and `want` have the same size and the same bits; else the first mismatch and how
// many elements differ.
inline std::string bits_mismatch(const std::vector<float>& got, const std::vector<float>& want) {
  if (got.size() != want.size())
    return "size " + std::to_string(got.size()) + ", expected " + std::to_string(want.size());
  size_t bad = 0, first = 0;
  for (size_t i = 0; i < got.size(); ++i)
    if (std::bit_cast<uint32_t>(got[i]) != std::bit_cast<uint32_t>(want[i]) && bad++ == 0)
      first = i;
  if (bad == 0) return "";
  return std::to_string(bad) + " of " + std::to_string(got.size()) + " differ; first at [" +
         std::to_string(first) + "]: got " + describe(got[first]) + ", expected " +
         describe(want[first]);
}

// "" when |got - want| <= atol + rtol * |want| everywhere; else the worst element and a count.
template <class E>
std::string close_mismatch(const std::vector<float>& got, const std::vector<E>& want, double atol,
                           double rtol) {
  if (got.size() != want.size())
    return "size " + std::to_string(got.size()) + ", expected " + std::to_string(want.size());
  size_t bad = 0, worst = 0;
  double worst_excess = -1;
  for (size_t i = 0; i < got.size(); ++i) {
    double w = static_cast<double>(want[i]);
    double err = std::abs(static_cast<double>(got[i]) - w);
    double excess = err - (atol + rtol * std::abs(w));
    if (!(excess <= 0)) {  // NaN counts as a mismatch
      ++bad;
      if (!(excess <= worst_excess)) worst_excess = excess, worst = i;
    }
  }
  if (bad == 0) return "";
  std::ostringstream s;
  s.precision(9);
  s << bad << " of " << got.size() << " outside atol " << atol << " + rtol " << rtol
    << "; worst at [" << worst << "]: got " << got[worst] << ", expected "
    << static_cast<double>(want[worst]);
  return s.str();
}

}  // namespace warplab::test

#define CHECK_BITS_EQUAL(got, want)                                            \
  do {                                                                         \
    const std::string wk_msg_ = ::warplab::test::bits_mismatch((got), (want)); \
    CHECK_MESSAGE(wk_msg_.empty(), #got " vs " #want ": " << wk_msg_);         \
  } while (0)

#define CHECK_CLOSE(got, want, atol, rtol)                                                  \
  do {                                                                                      \
    const std::string wk_msg_ = ::warplab::test::close_mismatch((got), (want), atol, rtol); \
    CHECK_MESSAGE(wk_msg_.empty(), #got " vs " #want ": " << wk_msg_);                      \
  } while (0)
