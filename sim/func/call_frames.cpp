#include "sim/func/call_frames.h"

#include <cstring>

#include "sim/func/decoded.h"
#include "sim/func/exec.h"
#include "sim/func/warp.h"

namespace warplab::func {

size_t CallFrames::frame_bytes(const DecodedKernel& k, int32_t func) {
  const DFunc& f = k.funcs[func];
  return static_cast<size_t>(f.reg_count) * 32 * sizeof(uint64_t) +
         static_cast<size_t>(f.pred_count) * sizeof(uint32_t) +
         size_t{32} * (f.area_end - f.area_begin);
}

bool CallFrames::fits(const DecodedKernel& k, int32_t func) const {
  return frames_.size() < kMaxDepth && bytes_ + frame_bytes(k, func) <= kMaxBytes;
}

void CallFrames::save(const DecodedKernel& k, int32_t func, const Warp& w, uint32_t lanes) {
  const DFunc& f = k.funcs[func];
  SavedFrame s;
  s.func = func;
  s.pending = lanes;
  const uint64_t* r = w.R + static_cast<size_t>(f.reg_base) * 32;
  s.regs.assign(r, r + static_cast<size_t>(f.reg_count) * 32);
  s.preds.assign(w.P + f.pred_base, w.P + f.pred_base + f.pred_count);
  const uint32_t area = f.area_end - f.area_begin;
  s.params.resize(size_t{32} * area);
  if (area)
    for (int l = 0; l < 32; ++l)
      std::memcpy(s.params.data() + size_t{area} * l,
                  w.lane_params + static_cast<size_t>(l) * k.lane_param_bytes + f.area_begin, area);
  bytes_ += frame_bytes(k, func);
  frames_.push_back(std::move(s));
}

void CallFrames::ret(const DecodedKernel& k, const CallSite& cs, Warp& w, uint32_t lanes) {
  if (frames_.empty()) return;  // cannot happen: every recursive call pushed one
  SavedFrame& s = frames_.back();
  const DFunc& f = k.funcs[s.func];
  auto lane_area = [&](int l) {
    return w.lane_params + static_cast<size_t>(l) * k.lane_param_bytes;
  };
  // 1. Take the return values out of the callee's return slots (the restore overwrites them).
  size_t ret_bytes = 0;
  for (const ParamCopy& c : cs.returns) ret_bytes += c.size;
  std::vector<uint8_t> values(ret_bytes * 32);
  for_lanes(lanes, [&](int l) {
    size_t at = ret_bytes * l;
    for (const ParamCopy& c : cs.returns) {
      std::memcpy(values.data() + at, lane_area(l) + c.from, c.size);
      at += c.size;
    }
  });
  // 2. Restore the lanes' part of the callee's frame: registers, predicates, .param bytes.
  for (int32_t i = 0; i < f.reg_count; ++i) {
    uint64_t* r = w.R + static_cast<size_t>(f.reg_base + i) * 32;
    for_lanes(lanes, [&](int l) { r[l] = s.regs[static_cast<size_t>(i) * 32 + l]; });
  }
  for (int32_t i = 0; i < f.pred_count; ++i)
    w.P[f.pred_base + i] = (w.P[f.pred_base + i] & ~lanes) | (s.preds[i] & lanes);
  const uint32_t area = f.area_end - f.area_begin;
  if (area)
    for_lanes(lanes, [&](int l) {
      std::memcpy(lane_area(l) + f.area_begin, s.params.data() + size_t{area} * l, area);
    });
  // 3. The return values into the caller's call-scope .param slots.
  for_lanes(lanes, [&](int l) {
    size_t at = ret_bytes * l;
    for (const ParamCopy& c : cs.returns) {
      std::memcpy(lane_area(l) + c.to, values.data() + at, c.size);
      at += c.size;
    }
  });
  s.pending &= ~lanes;
  pop_done();
}

void CallFrames::exited(uint32_t lanes) {
  for (SavedFrame& s : frames_) s.pending &= ~lanes;
  pop_done();
}

void CallFrames::pop_done() {
  // An inner call's lanes are a subset of the outer one's: done frames are on top.
  while (!frames_.empty() && frames_.back().pending == 0) {
    const SavedFrame& s = frames_.back();
    bytes_ -=
        s.regs.size() * sizeof(uint64_t) + s.preds.size() * sizeof(uint32_t) + s.params.size();
    frames_.pop_back();
  }
}

}  // namespace warplab::func
