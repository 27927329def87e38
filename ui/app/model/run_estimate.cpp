#include "ui/app/model/run_estimate.h"

#include <unistd.h>

#include "lab/elem_type.h"

namespace warplab::app {

RunSize run_size(const lab::Experiment& exp) {
  RunSize r;
  const lab::Env env = exp.env();
  for (const lab::BufferDef& b : exp.buffers) {
    if (b.count_from_npy) continue;
    auto n = b.count.eval_int(env);
    if (!n) {
      r.error = b.name + ": " + n.error().message;
      continue;
    }
    r.buffer_bytes += double(*n) * lab::elem_size(b.type);
  }
  for (const lab::LaunchDef& l : exp.launches) {
    double t = 1;
    for (const auto* dims : {&l.grid, &l.block})
      for (const lab::Expr& e : *dims) {
        if (e.empty()) continue;
        auto v = e.eval_int(env);
        if (!v) {
          r.error = l.kernel + ": " + v.error().message;
          t = 0;
          break;
        }
        t *= double(*v);
      }
    auto rep = l.repeat.empty() ? Expected<int64_t>(1) : l.repeat.eval_int(env);
    r.threads += t * (rep ? double(*rep) : 1.0);
  }
  return r;
}

std::optional<double> estimate_wall_s(const RunSize& now, const RunSize& before,
                                      double before_wall_s) {
  if (before.threads <= 0 || now.threads <= 0 || before_wall_s <= 0 || !now.error.empty() ||
      !before.error.empty())
    return std::nullopt;
  return before_wall_s * now.threads / before.threads;
}

double host_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? double(pages) * double(page) : 0;
}

}  // namespace warplab::app
