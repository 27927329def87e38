#include "lab/check.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <tuple>

namespace warplab::lab {

namespace {

// [begin, end) of `b` as a buffer of its own.
HostBuffer slice_of(const HostBuffer& b, uint64_t begin, uint64_t end, const std::string& name) {
  const uint32_t es = elem_size(b.type);
  HostBuffer s{name, b.type, end - begin, {}};
  s.bytes.assign(b.bytes.begin() + static_cast<ptrdiff_t>(begin * es),
                 b.bytes.begin() + static_cast<ptrdiff_t>(end * es));
  return s;
}

CheckResult compare_range(const CheckDef& def, const HostBuffer& got, const HostBuffer& exp,
                          uint64_t index_base);

}  // namespace

CheckResult compare_buffers(const CheckDef& def, const HostBuffer& got, const HostBuffer& exp) {
  return compare_range(def, got, exp, 0);
}

namespace {

// Compares element by element; `index_base` is added to reported indices (got's slice start).
CheckResult compare_range(const CheckDef& def, const HostBuffer& got, const HostBuffer& exp,
                          uint64_t index_base) {
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
  r.integer = !elem_is_float(got.type) && !elem_is_float(exp.type);
  r.unsigned_int = r.integer && (got.type == ElemType::U64 || exp.type == ElemType::U64);
  std::vector<uint64_t> bitwise_at;  // the first few value-equal, bit-different elements
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
    if (def.exact && abs_err == 0.0 && !both_int) {
      ++r.bitwise_only;
      if (bitwise_at.size() < 3) bitwise_at.push_back(i);
    }
    if (def.show <= 0) continue;
    Mismatch mm{i, g, e};
    if (both_int) {
      mm.got_int = load_elem_int(got.type, got.bytes.data(), i);
      mm.expected_int = load_elem_int(exp.type, exp.bytes.data(), i);
    }
    Entry en{abs_err == 0.0 ? 0.0 : abs_err, mm};
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
  if (r.bitwise_only) {
    // Say what differs: the values are equal, so only the bits can.
    auto what = [&](uint64_t i) {
      const double g = got.at(i), e = exp.at(i);
      if (std::isnan(g)) return std::string("NaN payloads differ");
      if (got.type != exp.type)
        return std::string(elem_type_name(got.type)) + " vs " +
               std::string(elem_type_name(exp.type));
      return std::string(std::signbit(g) ? "-0" : "+0") + " vs " + (std::signbit(e) ? "-0" : "+0");
    };
    std::string at;
    for (uint64_t i : bitwise_at)
      at += (at.empty() ? "" : ", ") + what(i) + " at index " + std::to_string(i + index_base);
    r.bitwise_note = "bitwise: " + std::to_string(r.bitwise_only) +
                     " element(s) equal in value differ in their bits (" + at +
                     (r.bitwise_only > bitwise_at.size() ? ", ..." : "") +
                     "); exact = true compares bits, a tolerance check (atol = 0) would pass them";
  }
  for (Mismatch& m : r.mismatches) m.index += index_base;
  return r;
}

}  // namespace

std::vector<CheckResult> run_checks(const Experiment& exp, const std::vector<HostBuffer>& buffers) {
  return run_checks(exp, buffers, exp.env());
}

std::vector<CheckResult> run_checks(const Experiment& exp, const std::vector<HostBuffer>& buffers,
                                    const Env& env) {
  std::vector<CheckResult> out;
  for (const CheckDef& c : exp.checks) {
    const HostBuffer& whole = buffers.at(static_cast<size_t>(exp.buffer_index(c.buffer)));
    auto failed = [&](const std::string& expected, const std::string& note) {
      CheckResult r;
      r.buffer = c.slice.text.empty() ? c.buffer : c.slice.text;
      r.expected = expected;
      r.line = c.line;
      r.note = note;
      return r;
    };
    const std::string expected_name =
        !c.expect_buffer.empty()
            ? (c.expect_slice.text.empty() ? c.expect_buffer : c.expect_slice.text)
            : c.expect_npy;
    // The checked range: the whole buffer, or the slice for these parameters.
    uint64_t begin = 0, end = whole.count;
    if (!c.slice.text.empty()) {
      auto range = eval_slice(c.slice, env, whole.count);
      if (!range) {
        out.push_back(failed(expected_name, "buffer: " + range.error().message));
        continue;
      }
      std::tie(begin, end) = *range;
    }
    const bool sliced = begin != 0 || end != whole.count;
    HostBuffer got = sliced ? slice_of(whole, begin, end, c.slice.text) : HostBuffer{};
    const HostBuffer& g = sliced ? got : whole;
    CheckResult r;
    if (!c.expect_buffer.empty()) {
      const HostBuffer& ew = buffers.at(static_cast<size_t>(exp.buffer_index(c.expect_buffer)));
      uint64_t eb = 0, ee = ew.count;
      if (!c.expect_slice.text.empty()) {
        auto range = eval_slice(c.expect_slice, env, ew.count);
        if (!range) {
          out.push_back(failed(expected_name, "expect: " + range.error().message));
          continue;
        }
        std::tie(eb, ee) = *range;
      }
      if (eb != 0 || ee != ew.count)
        r = compare_range(c, g, slice_of(ew, eb, ee, c.expect_slice.text), begin);
      else
        r = compare_range(c, g, ew, begin);
    } else {
      auto a = read_npy(c.expect_npy);
      if (!a) {
        out.push_back(failed(c.expect_npy, a.error().to_string()));
        continue;
      }
      HostBuffer ref{c.expect_npy, a->type, a->count(), std::move(a->data)};
      // A bf16/e4m3/e5m2 buffer's expected values may be the raw bits ('<u2'/'|u1', elem_type.h).
      if (ref.type != g.type && ref.type == npy_bits_type(g.type)) ref.type = g.type;
      r = compare_range(c, g, ref, begin);
    }
    r.buffer = c.slice.text.empty() ? c.buffer : c.slice.text;
    r.expected = expected_name;
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace warplab::lab
