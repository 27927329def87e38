// Checks: is a result buffer what it should be?
//
// A check compares a buffer after the run with an expected buffer (computed by another kernel, or
// given as data) or a .npy file, element by element:
//   exact = true      same bits (floats: -0 differs from +0; NaN matches only the same NaN bits;
//                     such elements are counted and described apart: "+0 vs -0 at index 5")
//   otherwise         |got - expected| <= atol + rtol * |expected|   (numpy.isclose's rule);
//                     with atol = rtol = 0 that is plain equality (-0 == +0). NaN matches NaN,
//                     +-Inf matches the same Inf, and integers are compared as integers.
// The report gives the worst mismatches (largest |got - expected| first; NaN against a number
// counts as infinitely wrong), max_abs_error and max_rel_error over all elements
// (|got - expected| / |expected|; infinite where expected is 0 and got is not).
#pragma once

#include <string>
#include <vector>

#include "lab/buffers.h"
#include "lab/experiment.h"

namespace warplab::lab {

struct Mismatch {
  uint64_t index = 0;  // in the checked buffer (a slice's first element is its begin)
  double got = 0, expected = 0;
  int64_t got_int = 0, expected_int = 0;  // integer checks: the exact values (see CheckResult)
};

struct CheckResult {
  std::string buffer;
  std::string expected;  // the reference: buffer name or .npy path
  int line = 0;          // the [[checks]] entry in the experiment file
  bool passed = false;
  bool exact = false;
  double atol = 0, rtol = 0;
  uint64_t count = 0;  // elements compared
  uint64_t mismatch_count = 0;
  double max_abs_error = 0, max_rel_error = 0;
  std::vector<Mismatch> mismatches;  // the worst ones, at most CheckDef::show
  std::string note;                  // why the check could not compare (size mismatch, ...)
  // Both sides integer buffers: values are printed as integers (got_int / expected_int; read as
  // unsigned when `unsigned_int`, for u64 values above INT64_MAX).
  bool integer = false, unsigned_int = false;
  // exact = true: elements whose values compare equal but whose bits differ (+0 vs -0, NaNs with
  // different payloads), which "max abs error 0" alone would hide; described in bitwise_note.
  uint64_t bitwise_only = 0;
  std::string bitwise_note;
};

// Compares `got` with `expected` under the rule of `def`.
CheckResult compare_buffers(const CheckDef& def, const HostBuffer& got, const HostBuffer& expected);

// Runs every check of `exp` on the final buffers (in Experiment::buffers order). Slices
// ("y[0:N]") are evaluated for `env`; a slice outside its buffer is a failed check with a note.
std::vector<CheckResult> run_checks(const Experiment& exp, const std::vector<HostBuffer>& buffers,
                                    const Env& env);
std::vector<CheckResult> run_checks(const Experiment& exp, const std::vector<HostBuffer>& buffers);

}  // namespace warplab::lab
