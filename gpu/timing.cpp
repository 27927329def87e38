#include "gpu/timing.h"

#include <algorithm>
#include <numeric>

#include "gpu/session.h"

namespace warplab::gpu {

TimingResult summarize(std::vector<double> samples_us) {
  TimingResult r;
  r.samples_us = std::move(samples_us);
  if (r.samples_us.empty()) return r;
  std::vector<double> sorted = r.samples_us;
  std::sort(sorted.begin(), sorted.end());
  const size_t n = sorted.size();
  r.median_us = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  r.min_us = sorted.front();
  r.max_us = sorted.back();
  r.mean_us = std::accumulate(sorted.begin(), sorted.end(), 0.0) / n;
  return r;
}

#if WARPLAB_HAVE_CUDA_HEADERS
namespace detail {

Expected<TimingResult> time_launches(Session& s, const std::function<Status()>& launch,
                                     const std::function<Status()>& before_each, int warmup,
                                     int repeats) {
  DriverApi& api = *s.api;
  // A fault in a launch is reported by whichever call follows it (launches are asynchronous): say
  // that it was the kernel's, not the flush's or the copy's that happened to notice.
  auto attribute = [&](Error e) -> Error {
    if (CUresult r = api.cuCtxSynchronize(); r != CUDA_SUCCESS)
      return api.error(r, "kernel failed in a warm-up or timed launch");
    return e;
  };
  // 1. Warm-up: clocks ramp up, instruction caches and TLBs fill. Not timed.
  for (int i = 0; i < warmup; ++i) {
    if (before_each) {
      if (Status st = before_each(); !st) return attribute(st.error());
    }
    if (Status st = launch(); !st) return attribute(st.error());
  }
  // 2. One pair of events per timed launch, all queued before a single wait, so the host never
  //    stalls the queue between launches. before_each (flush, restore) runs outside the pair.
  std::vector<Event> starts, stops;
  starts.reserve(repeats);
  stops.reserve(repeats);
  for (int i = 0; i < repeats; ++i) {
    starts.emplace_back(&api);
    stops.emplace_back(&api);
    if (Status st = starts.back().create(); !st) return attribute(st.error());
    if (Status st = stops.back().create(); !st) return attribute(st.error());
  }
  for (int i = 0; i < repeats; ++i) {
    if (before_each) {
      if (Status st = before_each(); !st) return attribute(st.error());
    }
    if (CUresult r = api.cuEventRecord(starts[i].get(), nullptr); r != CUDA_SUCCESS) {
      return attribute(api.error(r, "cuEventRecord"));
    }
    if (Status st = launch(); !st) return attribute(st.error());
    if (CUresult r = api.cuEventRecord(stops[i].get(), nullptr); r != CUDA_SUCCESS) {
      return attribute(api.error(r, "cuEventRecord"));
    }
  }
  // 3. Wait once, then read every pair.
  std::vector<double> samples;
  samples.reserve(repeats);
  for (int i = 0; i < repeats; ++i) {
    if (CUresult r = api.cuEventSynchronize(stops[i].get()); r != CUDA_SUCCESS) {
      return attribute(api.error(r, "kernel failed during timed launches (cuEventSynchronize)"));
    }
    float ms = 0;
    if (CUresult r = api.cuEventElapsedTime(&ms, starts[i].get(), stops[i].get());
        r != CUDA_SUCCESS) {
      return api.error(r, "cuEventElapsedTime");
    }
    samples.push_back(ms * 1000.0);
  }
  TimingResult result = summarize(std::move(samples));
  result.warmup = warmup;
  return result;
}

}  // namespace detail
#endif

}  // namespace warplab::gpu
