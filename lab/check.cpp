#include "lab/check.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace warplab::lab {

CheckResult compare_buffers(const CheckDef& def, const HostBuffer& got, const HostBuffer& exp) {
  CheckResult r;
  r.buffer = got.name;
  r.expected = exp.name;
  r.line = def.line;
  r.exact = def.exact;
  r.atol = def.atol;
  r.rtol = def.rtol;
  if (got.count != exp.count) {
    r.note = got.name + " has " + std::to_string(got.count) + " elements, " + exp.name + " has " +
             std::to_string(exp.count);
    return r;
  }
  r.count = got.count;
  const double kInf = std::numeric_limits<double>::infinity();
  const bool both_int = !elem_is_float(got.type) && !elem_is_float(exp.type);
  const bool exact_bits = def.exact && got.type == exp.type;
  const uint32_t esize = elem_size(got.type);
  // Keep the worst `show` mismatches with a bounded heap (largest error first).
  struct Entry {
    double err;
    Mismatch m;
  };
  std::vector<Entry> worst;
  auto worse = [](const Entry& a, const Entry& b) {
    return a.err > b.err || (a.err == b.err && a.m.index < b.m.index);
  };
  for (uint64_t i = 0; i < r.count; ++i) {
    double g = got.at(i), e = exp.at(i);
    bool ok;
    double abs_err, rel_err;
    if (both_int) {
      int64_t gi = load_elem_int(got.type, got.bytes.data(), i);
      int64_t ei = load_elem_int(exp.type, exp.bytes.data(), i);
      double d = std::fabs(static_cast<double>(gi) - static_cast<double>(ei));
      abs_err = gi == ei ? 0.0 : d;
      ok = def.exact || (def.atol == 0 && def.rtol == 0) ? gi == ei
                                                         : d <= def.atol + def.rtol * std::fabs(e);
    } else if (std::isnan(g) || std::isnan(e)) {
      abs_err = std::isnan(g) && std::isnan(e) ? 0.0 : kInf;
      ok = abs_err == 0.0;
    } else if (std::isinf(g) || std::isinf(e)) {
      abs_err = g == e ? 0.0 : kInf;
      ok = abs_err == 0.0;
    } else {
      abs_err = std::fabs(g - e);
      ok = abs_err <= def.atol + def.rtol * std::fabs(e);
    }
    if (exact_bits)
      ok = std::memcmp(got.bytes.data() + i * esize, exp.bytes.data() + i * esize, esize) == 0;
    else if (def.exact)
      ok = abs_err == 0.0 && std::signbit(g) == std::signbit(e);
    rel_err = abs_err == 0.0 ? 0.0 : (e == 0.0 ? kInf : abs_err / std::fabs(e));
    r.max_abs_error = std::max(r.max_abs_error, abs_err);
    r.max_rel_error = std::max(r.max_rel_error, rel_err);
    if (ok) continue;
    ++r.mismatch_count;
    if (def.show <= 0) continue;
    Entry en{abs_err == 0.0 ? 0.0 : abs_err, Mismatch{i, g, e}};
    if (static_cast<int>(worst.size()) < def.show) {
      worst.push_back(en);
      std::push_heap(worst.begin(), worst.end(), worse);
    } else if (worse(en, worst.front())) {
      std::pop_heap(worst.begin(), worst.end(), worse);
      worst.back() = en;
      std::push_heap(worst.begin(), worst.end(), worse);
    }
  }
  std::sort(worst.begin(), worst.end(), worse);
  for (const Entry& en : worst) r.mismatches.push_back(en.m);
  r.passed = r.mismatch_count == 0;
  return r;
}

std::vector<CheckResult> run_checks(const Experiment& exp, const std::vector<HostBuffer>& buffers) {
  std::vector<CheckResult> out;
  for (const CheckDef& c : exp.checks) {
    const HostBuffer& got = buffers.at(static_cast<size_t>(exp.buffer_index(c.buffer)));
    if (!c.expect_buffer.empty()) {
      out.push_back(compare_buffers(
          c, got, buffers.at(static_cast<size_t>(exp.buffer_index(c.expect_buffer)))));
      continue;
    }
    auto a = read_npy(c.expect_npy);
    if (!a) {
      CheckResult r;
      r.buffer = c.buffer;
      r.expected = c.expect_npy;
      r.line = c.line;
      r.note = a.error().to_string();
      out.push_back(r);
      continue;
    }
    HostBuffer ref{c.expect_npy, a->type, a->count(), std::move(a->data)};
    out.push_back(compare_buffers(c, got, ref));
  }
  return out;
}

}  // namespace warplab::lab
