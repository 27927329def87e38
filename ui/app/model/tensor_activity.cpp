#include "ui/app/model/tensor_activity.h"

#include <algorithm>

#include "sim/timing/tensor_pipe.h"

namespace warplab::app {

namespace {

std::string type_name(ptx::MmaType t) {
  switch (t) {
    case ptx::MmaType::BF16: return "bf16";
    case ptx::MmaType::TF32: return "tf32";
    case ptx::MmaType::S8: return "s8";
    case ptx::MmaType::U8: return "u8";
    case ptx::MmaType::E4M3: return "e4m3";
    case ptx::MmaType::E5M2: return "e5m2";
    default: return "f16";
  }
}

// Sorts and merges overlapping or touching intervals.
void merge(std::vector<Interval>& v) {
  std::sort(v.begin(), v.end(), [](const Interval& a, const Interval& b) { return a.begin < b.begin; });
  std::vector<Interval> out;
  for (const Interval& i : v) {
    if (!out.empty() && i.begin <= out.back().end)
      out.back().end = std::max(out.back().end, i.end);
    else
      out.push_back(i);
  }
  v = std::move(out);
}

// Where element `i` of `lane`'s fragment of the operand lies in its tile (PTX ISA, "Matrix
// Fragments for mma.m16n8k8 / m16n8k16 / m16n8k32"): groupID = lane / 4, threadID_in_group =
// lane % 4. {-1, -1} for an element the layout does not have.
std::pair<int, int> element_at(const MmaLine& m, FragmentOperand op, int lane, int i) {
  const int g = lane >> 2, t = lane & 3;
  const bool eight_bit = m.type == "s8" || m.type == "u8" || m.type == "e4m3" || m.type == "e5m2";
  if (op == FragmentOperand::C) return {g + 8 * (i >> 1), t * 2 + (i & 1)};
  if (m.type == "tf32") {  // m16n8k8
    if (op == FragmentOperand::A) return {g + 8 * (i & 1), t + 4 * (i >> 1)};
    return {t + 4 * i, g};
  }
  if (eight_bit) {  // m16n8k32
    if (op == FragmentOperand::A) return {g + 8 * ((i >> 2) & 1), t * 4 + (i & 3) + 16 * (i >> 3)};
    return {t * 4 + (i & 3) + 16 * (i >> 2), g};
  }
  if (m.k == 8) {  // f16/bf16 m16n8k8
    if (op == FragmentOperand::A) return {g + 8 * (i >> 1), t * 2 + (i & 1)};
    return {t * 2 + i, g};
  }
  // f16/bf16 m16n8k16
  if (op == FragmentOperand::A) return {g + 8 * ((i >> 1) & 1), t * 2 + (i & 1) + 8 * (i >> 2)};
  return {t * 2 + (i & 1) + 8 * (i >> 1), g};
}

}  // namespace

std::map<int32_t, MmaLine> mma_lines(const ptx::Module& module, const timing::GpuConfig& cfg) {
  std::map<int32_t, MmaLine> out;
  for (const ptx::Function& f : module.functions)
    for (const ptx::Instruction& in : f.instructions) {
      if (in.op != ptx::Opcode::Mma) continue;
      const timing::PipeConfig& p = timing::tensor_pipe_of(cfg.pipes.tensor, in);
      MmaLine l;
      l.interval = p.interval;
      l.latency = p.latency;
      l.m = in.mod.tensor.m;
      l.n = in.mod.tensor.n;
      l.k = in.mod.tensor.k;
      l.type = type_name(in.mod.tensor.a);
      out[in.ptx_line] = l;
    }
  return out;
}

TensorActivity tensor_activity(const timing::Trace& trace, int sm,
                               const std::map<int32_t, MmaLine>& mma) {
  TensorActivity a;
  a.sub_partitions = std::max(1, trace.sub_partitions);
  a.pipe_busy.resize(size_t(a.sub_partitions));
  if (!mma.empty())
    for (const timing::IssueRecord& r : trace.issues) {
      if (r.sm != sm) continue;
      auto it = mma.find(r.ptx_line);
      if (it == mma.end()) continue;
      ++a.mma_sync_issues;
      a.pipe_busy[size_t(r.slot % a.sub_partitions)].push_back(
          {r.cycle, r.cycle + uint64_t(std::max<int64_t>(1, it->second.interval)), r.ptx_line});
    }
  for (const timing::AsyncRecord& r : trace.async) {
    if (r.sm != sm) continue;
    using K = timing::AsyncRecord::Kind;
    switch (r.kind) {
      case K::TmaLoad:
      case K::TmaStore:
      case K::TmaPrefetch: a.tma.push_back(r); break;
      case K::CpAsync: a.cp_async.push_back(r); break;
      case K::MbarrierWait: a.mbarrier.push_back(r); break;
      case K::Wgmma:
        a.wgmma.push_back(r);
        for (auto& sp : a.pipe_busy) sp.push_back({r.begin, r.end, r.ptx_line});
        break;
    }
  }
  for (auto& sp : a.pipe_busy) merge(sp);
  return a;
}

double TensorActivity::occupancy(int sp, uint64_t begin, uint64_t end) const {
  if (sp < 0 || sp >= int(pipe_busy.size()) || end <= begin) return 0;
  uint64_t held = 0;
  for (const Interval& i : pipe_busy[size_t(sp)]) {
    const uint64_t b = std::max(i.begin, begin), e = std::min(i.end, end);
    if (e > b) held += e - b;
  }
  return double(held) / double(end - begin);
}

uint64_t TensorActivity::tma_bytes_landed(uint64_t begin, uint64_t end) const {
  uint64_t bytes = 0;
  for (const timing::AsyncRecord& r : tma)
    if (r.end >= begin && r.end < end) bytes += r.bytes;
  return bytes;
}

int fragment_rows(const MmaLine& m, FragmentOperand op) {
  return op == FragmentOperand::B ? m.k : m.m;
}
int fragment_cols(const MmaLine& m, FragmentOperand op) {
  return op == FragmentOperand::A ? m.k : m.n;
}

FragmentCell fragment_cell(const MmaLine& m, FragmentOperand op, int row, int col) {
  if (m.m != 16 || m.n != 8) return {};
  const int per_lane = fragment_rows(m, op) * fragment_cols(m, op) / 32;
  for (int lane = 0; lane < 32; ++lane)
    for (int i = 0; i < per_lane; ++i)
      if (element_at(m, op, lane, i) == std::pair{row, col}) return {lane, i};
  return {};
}

}  // namespace warplab::app
