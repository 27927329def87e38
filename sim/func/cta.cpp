#include <algorithm>
#include <bit>
#include <climits>
#include <cstdio>
#include <cstring>
#include <map>

#include "sim/func/cta_impl.h"
#include "sim/func/exec.h"
#include "sim/func/executor.h"

namespace warplab::func {

namespace {

constexpr uint32_t kMaxThreadsPerBlock = 1024;
constexpr uint32_t kSmCount = 132;   // what %nsmid reads (H100 SXM)
constexpr uint32_t kWarpSlots = 64;  // what %nwarpid reads (warps per SM)

std::string hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}
std::string dim(Dim3 d) {
  return "(" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + ")";
}
const char* space_word(ptx::Space s) {
  switch (s) {
    case ptx::Space::Global:
      return "__global__";
    case ptx::Space::Shared:
      return "__shared__";
    case ptx::Space::Local:
      return "__local__";
    case ptx::Space::Const:
      return "__constant__";
    case ptx::Space::Param:
      return "parameter";
    default:
      return "generic";
  }
}

// The CUDA file and line of instruction `d` ("" and 0 when the PTX has no line info).
void source_of(const DecodedModule& m, const DInst& d, std::string& file, int32_t& line) {
  file.clear();
  line = 0;
  if (!d.ir) return;
  const auto& loc = d.ir->user_loc.line > 0 ? d.ir->user_loc : d.ir->loc;
  if (loc.file >= 0 && loc.file < static_cast<int32_t>(m.module.files.size()))
    file = m.module.files[loc.file];
  line = loc.line;
}
std::string where(const std::string& file, int32_t line) {
  return file.empty() ? std::string("(no CUDA line info)") : file + ":" + std::to_string(line);
}
// "lanes 0-15" / "lane 3" / "lanes 0-3,8"
std::string lanes_text(uint32_t m) {
  std::string s;
  int n = 0;
  for (int l = 0; l < 32;) {
    if (!((m >> l) & 1)) {
      ++l;
      continue;
    }
    int e = l;
    while (e + 1 < 32 && ((m >> (e + 1)) & 1)) ++e;
    s += (s.empty() ? "" : ",") + std::to_string(l) + (e > l ? "-" + std::to_string(e) : "");
    n += e - l + 1;
    l = e + 1;
  }
  return (n == 1 ? "lane " : "lanes ") + (s.empty() ? std::string("none") : s);
}

}  // namespace

uint64_t module_variable_address(const ptx::Module& module, const ptx::Variable& var,
                                 DeviceMemory& mem) {
  const std::string key = module.path + "\x1f" + var.name + "\x1f" + std::to_string(var.size) +
                          "\x1f" + std::string(ptx::space_name(var.space));
  return mem.module_variable(key, var.name, var.size, var.init);
}

Status bind_module_globals(const DecodedModule& mod, const DecodedKernel& k, DeviceMemory& mem,
                           std::vector<uint64_t>& addr) {
  addr.assign(mod.module.variables.size(), 0);
  for (int32_t v : k.global_vars)
    addr[v] = module_variable_address(mod.module, mod.module.variables[v], mem);
  return Ok{};
}

Status CtaImpl::bind(const Program& program, DeviceMemory& memory, const LaunchConfig& launch,
                     uint32_t sm) {
  mod = &program.decoded();
  k = mod->find(launch.kernel);
  checks.synccheck = launch.synccheck;
  checks.racecheck = launch.racecheck;
  max_steps = launch.max_instructions_per_warp;
  const std::string& path = mod->module.path;
  if (auto s = program.check_kernel(launch.kernel); !s) return s;
  if (!k) {
    std::string names;
    for (const auto& kk : mod->kernels) names += (names.empty() ? "" : ", ") + kk.name;
    return Error{path, 0,
                 "unknown kernel '" + launch.kernel +
                     "' (kernels in the module: " + (names.empty() ? "none" : names) + ")"};
  }
  const auto& f = mod->module.functions[k->module_index];
  const uint64_t threads = launch.block.count();
  if (threads == 0 || launch.grid.count() == 0)
    return Error{path, f.ptx_line, "launch of '" + k->name + "' with an empty grid or block"};
  if (threads > kMaxThreadsPerBlock || launch.block.z > 64)
    return Error{path, f.ptx_line,
                 "block " + dim(launch.block) + " of '" + k->name + "' has " +
                     std::to_string(threads) + " threads; the limit is 1024 (z <= 64)"};
  // .maxntid bounds the block's thread count, .reqntid fixes its shape: the driver refuses a
  // launch that breaks either (CUDA_ERROR_INVALID_VALUE), so the simulator does too.
  const auto& h = f.hints;
  const Dim3 maxntid{h.maxntid[0], std::max(h.maxntid[1], 1u), std::max(h.maxntid[2], 1u)};
  if (h.maxntid[0] != 0 && threads > maxntid.count())
    return Error{path, f.ptx_line,
                 "block " + dim(launch.block) + " of '" + k->name + "' has " +
                     std::to_string(threads) + " threads; the kernel's .maxntid " + dim(maxntid) +
                     " allows at most " + std::to_string(maxntid.count()) +
                     " (the GPU refuses this launch)"};
  const Dim3 reqntid{h.reqntid[0], std::max(h.reqntid[1], 1u), std::max(h.reqntid[2], 1u)};
  if (h.reqntid[0] != 0 &&
      (launch.block.x != reqntid.x || launch.block.y != reqntid.y || launch.block.z != reqntid.z))
    return Error{path, f.ptx_line,
                 "block " + dim(launch.block) + " of '" + k->name +
                     "' is not the kernel's .reqntid " + dim(reqntid) +
                     " (the GPU refuses this launch)"};
  if (auto s = check_cluster_shape(launch, f, path); !s) return s;
  if (launch.params.size() != k->param_bytes)
    return Error{path, f.ptx_line,
                 "kernel '" + k->name + "' takes a " + std::to_string(k->param_bytes) +
                     "-byte parameter block; the launch passes " +
                     std::to_string(launch.params.size()) + " bytes"};
  const uint64_t dyn_base = (k->static_shared_bytes + k->dynamic_shared_align - 1) /
                            k->dynamic_shared_align * k->dynamic_shared_align;
  const uint64_t total_shared =
      launch.dynamic_shared_bytes ? dyn_base + launch.dynamic_shared_bytes : k->static_shared_bytes;
  if (total_shared > kMaxSharedPerBlock)
    return Error{path, f.ptx_line,
                 "kernel '" + k->name + "' needs " + std::to_string(total_shared) +
                     " bytes of shared memory per block; the limit is " +
                     std::to_string(kMaxSharedPerBlock)};
  mem = &memory;
  grid = launch.grid;
  block = launch.block;
  dyn_shared = launch.dynamic_shared_bytes;
  sm_id = sm;
  params = launch.params;
  if (auto s = bind_module_globals(*mod, *k, memory, global_addr); !s) return s;
  shared_bytes = total_shared;
  // The region the driver reserves per block (sm_80 and later: 1 KB of every block's shared
  // memory is kept for system use; cooperative groups keep the barriers and per-warp slots of
  // tiles wider than a warp at %reserved_smem_offset_1, at least 288 bytes). On the GPU it lies
  // outside the kernel's own shared memory, at offsets the driver chooses; WarpLab places it
  // after the kernel's shared memory, 128-byte aligned, and only for kernels that read it, so
  // that an access past the kernel's own shared memory still faults in every other kernel.
  reserved_smem = 0;
  if (k->uses_reserved_smem) {
    reserved_smem = (total_shared + 127) / 128 * 128;
    shared_bytes = reserved_smem + kReservedSmemBytes;
  }
  const int nwarps = static_cast<int>((threads + 31) / 32);
  regs.assign(static_cast<size_t>(nwarps) * k->data_slots * 32, 0);
  preds.assign(static_cast<size_t>(nwarps) * k->pred_slots, 0);
  shared.assign(shared_bytes, 0);
  local.assign(static_cast<size_t>(nwarps), {});
  lane_params.assign(static_cast<size_t>(nwarps) * 32 * k->lane_param_bytes, 0);
  warps.assign(nwarps, Warp{});
  zeroed = true;
  if (checks.racecheck) race.bind(shared_bytes);
  g_lo = g_hi = 0;
  g_base = nullptr;
  return Ok{};
}

Dim3 CtaImpl::thread_of(int warp, int lane) const {
  const uint32_t t = static_cast<uint32_t>(warp * 32 + lane);
  return Dim3{t % block.x, (t / block.x) % block.y, t / (block.x * block.y)};
}

namespace {
// Whether a const slot's value depends on which block of the launch runs (its index, its
// cluster), not only on the launch, the warp and the lane.
bool of_block(const ConstSlot& c) {
  using SR = ptx::SpecialReg;
  if (c.kind != ConstSlot::Kind::Special) return false;
  switch (c.special) {
    case SR::Ctaid:
    case SR::ClusterId:
    case SR::NClusterId:
    case SR::ClusterCtaId:
    case SR::ClusterNCtaId:
    case SR::ClusterCtaRank:
    case SR::ClusterNCtaRank:
    case SR::IsExplicitCluster:
      return true;
    default:
      return false;
  }
}
}  // namespace

void CtaImpl::reset(Dim3 block_index) {
  block_idx = block_index;
  // A block after another of the same launch in this slot (not zeroed) finds the const slots
  // as the previous block left them when its kernel writes nothing but its own destinations
  // (one reg_init.h follows): only the block's own special registers change.
  const bool all_consts = zeroed || !k->zero_slots;
  if (!zeroed) {
    // Each warp's registers but its const slots, which the loop below fills in every lane.
    // Or only those some thread may read before writing (reg_init.h): the others keep the
    // previous block's values, which no thread reads.
    const size_t per_warp = static_cast<size_t>(k->data_slots) * 32;
    const size_t c0 = static_cast<size_t>(k->first_const_slot) * 32;
    const size_t c1 = c0 + k->consts.size() * 32;
    for (size_t b = 0; per_warp > 0 && b < regs.size(); b += per_warp) {
      if (k->zero_slots) {
        for (int32_t s : *k->zero_slots) std::fill_n(regs.begin() + b + size_t(s) * 32, 32, 0);
        continue;
      }
      std::fill(regs.begin() + b, regs.begin() + b + c0, 0);
      std::fill(regs.begin() + b + c1, regs.begin() + b + per_warp, 0);
    }
    std::fill(preds.begin(), preds.end(), 0);
    std::fill(shared.begin(), shared.end(), 0);
    std::fill(lane_params.begin(), lane_params.end(), 0);
  }
  zeroed = false;
  for (std::vector<uint8_t>& l : local) std::fill(l.begin(), l.end(), 0);
  bars.reset();
  async.reset(static_cast<int>(warps.size()) * 32);
  tma_ranges.clear();
  mbarrier_changes = 0;
  warp_regs.clear();
  reg_pool = 0;
  wgmma_pcs.clear();
  wgmma_count.clear();
  fault.reset();
  if (checks.racecheck) race.new_block();
  const uint64_t threads = block.count();
  if (!cluster) solo.reset(Dim3{1, 1, 1}, block_index, static_cast<uint32_t>(threads), false);
  live_warps = static_cast<int>(warps.size());
  for (int wi = 0; wi < static_cast<int>(warps.size()); ++wi) {
    Warp& w = warps[wi];
    w.index = wi;
    w.R = regs.data() + static_cast<size_t>(wi) * k->data_slots * 32;
    w.P = preds.data() + static_cast<size_t>(wi) * k->pred_slots;
    w.lane_params = lane_params.data() + static_cast<size_t>(wi) * 32 * k->lane_param_bytes;
    const uint64_t first = static_cast<uint64_t>(wi) * 32;
    const uint64_t n = std::min<uint64_t>(32, threads - first);
    w.valid = n == 32 ? ~0u : ((1u << n) - 1);
    w.exited = 0;
    w.status = WarpStatus::Ready;
    w.bar_id = w.bar_pc = -1;
    w.bar_lanes = 0;
    w.issued = 0;
    w.mbarrier_wait = false;
    w.stack.reset(0, w.valid);
    w.frames.clear();
    // Constant slots: immediates, symbol addresses, per-warp special registers.
    for (size_t ci = 0; ci < k->consts.size(); ++ci) {
      const ConstSlot& c = k->consts[ci];
      uint64_t* s = w.R + (k->first_const_slot + ci) * 32;
      if (!all_consts && !of_block(c)) continue;
      if (c.kind == ConstSlot::Kind::Value) {
        std::fill(s, s + 32, c.value);
        continue;
      }
      if (c.kind == ConstSlot::Kind::GlobalVar) {
        std::fill(s, s + 32, global_addr[c.variable] + c.value);
        continue;
      }
      // Only the thread index and the lane's own values differ between lanes: the others are
      // worked out once and copied to every lane (a per-block cost, issue 26).
      using SR = ptx::SpecialReg;
      const bool per_lane = c.special == SR::Tid || c.special == SR::Laneid ||
                            c.special == SR::LanemaskEq || c.special == SR::LanemaskLt ||
                            c.special == SR::LanemaskLe || c.special == SR::LanemaskGt ||
                            c.special == SR::LanemaskGe;
      Dim3 t = thread_of(wi, 0);  // lane l's thread index (stepped below, no divisions)
      for (int l = 0; l < (per_lane ? 32 : 1); ++l) {
        auto comp = [&](Dim3 v) { return c.component == 0 ? v.x : c.component == 1 ? v.y : v.z; };
        uint64_t v = 0;
        const uint32_t lm = 1u << l;
        switch (c.special) {
          case ptx::SpecialReg::Tid:
            v = comp(t);
            break;
          case ptx::SpecialReg::Ntid:
            v = comp(block);
            break;
          case ptx::SpecialReg::Ctaid:
            v = comp(block_idx);
            break;
          case ptx::SpecialReg::Nctaid:
            v = comp(grid);
            break;
          case ptx::SpecialReg::Laneid:
            v = l;
            break;
          case ptx::SpecialReg::Warpid:
            v = wi;
            break;
          case ptx::SpecialReg::Nwarpid:
            v = kWarpSlots;
            break;
          case ptx::SpecialReg::Smid:
            v = sm_id;
            break;
          case ptx::SpecialReg::Nsmid:
            v = kSmCount;
            break;
          case ptx::SpecialReg::Gridid:
            v = 1;
            break;
          case ptx::SpecialReg::LanemaskEq:
            v = lm;
            break;
          case ptx::SpecialReg::LanemaskLt:
            v = lm - 1;
            break;
          case ptx::SpecialReg::LanemaskLe:
            v = (lm - 1) | lm;
            break;
          case ptx::SpecialReg::LanemaskGt:
            v = ~((lm - 1) | lm);
            break;
          case ptx::SpecialReg::LanemaskGe:
            v = ~(lm - 1);
            break;
          case ptx::SpecialReg::TotalSmemSize:
            v = shared_bytes;
            break;
          case ptx::SpecialReg::DynamicSmemSize:
            v = dyn_shared;
            break;
          case ptx::SpecialReg::ReservedSmemBegin:
          case ptx::SpecialReg::ReservedSmemOffset0:
            v = reserved_smem;
            break;
          case ptx::SpecialReg::ReservedSmemOffset1:  // half way: 512 bytes for each offset
            v = reserved_smem + kReservedSmemBytes / 2;
            break;
          case ptx::SpecialReg::ReservedSmemEnd:
            v = reserved_smem + kReservedSmemBytes;
            break;
          case ptx::SpecialReg::ReservedSmemCap:
            v = kReservedSmemBytes;
            break;
          // Thread-block clusters (cluster.h); a cluster of one without a cluster shape.
          case ptx::SpecialReg::ClusterId:
            v = comp(cluster_state().id());
            break;
          case ptx::SpecialReg::NClusterId: {
            const Dim3 c = cluster_state().shape();
            v = comp(Dim3{grid.x / c.x, grid.y / c.y, grid.z / c.z});
            break;
          }
          case ptx::SpecialReg::ClusterCtaId: {
            const Dim3 c = cluster_state().shape();
            v = comp(Dim3{block_idx.x % c.x, block_idx.y % c.y, block_idx.z % c.z});
            break;
          }
          case ptx::SpecialReg::ClusterNCtaId:
            v = comp(cluster_state().shape());
            break;
          case ptx::SpecialReg::ClusterCtaRank:
            v = cluster_rank;
            break;
          case ptx::SpecialReg::ClusterNCtaRank:
            v = cluster_state().size();
            break;
          case ptx::SpecialReg::IsExplicitCluster:
            v = cluster_state().explicit_cluster() ? 1 : 0;
            break;
          default:
            v = 0;
            break;
        }
        s[l] = v & 0xFFFFFFFFu;
        if (++t.x == block.x) {  // the next lane's thread: x first, then y, then z
          t.x = 0;
          if (++t.y == block.y) t.y = 0, ++t.z;
        }
      }
      if (!per_lane) std::fill(s + 1, s + 32, s[0]);
    }
  }
}

bool CtaImpl::step(Warp& w, StepInfo* info, uint64_t clock) {
  SimtEntry& top = w.stack.top();
  const int32_t pc = top.pc;
  if (pc < 0 || pc >= static_cast<int32_t>(k->code.size())) {
    Exec x{this, &w, w.R, w.P, top.mask, top.mask, 0, false, false, false, nullptr, clock};
    raise(x, k->code.back(), LaunchFault::Kind::InvalidAddress,
          std::countr_zero(top.mask | 0x80000000u), 0, 0, false, ptx::Space::None,
          "a warp path reached an invalid pc (internal SIMT-stack error)");
    return false;
  }
  const DInst& d = k->code[pc];
  last_clock = clock;
  uint32_t exec = top.mask;
  if (d.guard >= 0) exec &= d.guard_neg ? ~w.P[d.guard] : w.P[d.guard];
  Exec x{this, &w, w.R, w.P, top.mask, exec, pc, false, false, false, info, clock};
  if (counters) {
    counters->warp[pc]++;
    counters->thread[pc] += popc32(exec);
  }
  if (info) {  // what the instruction fixes comes from its StepHead (decoded.h)
    const StepHead& h = k->heads[pc];
    info->inst = d.ir;
    info->pc = d.local_pc;
    info->function = h.function;
    info->active_mask = x.active;
    info->exec_mask = exec;
    info->is_memory = h.is_memory;
    info->space = d.space;
    info->is_store = h.is_store;
    info->is_atomic = h.is_atomic;
    info->access_bytes = h.access_bytes;
    info->is_branch = h.is_branch;
    info->is_barrier = h.is_barrier;
    info->mbarrier = info->bulk_bytes = 0;
    info->tma_ranges = nullptr;
    info->tma_map = 0;
    info->wait_failed = false;
    info->dst_regs = h.dst_regs;
    info->dst_count = h.dst_count;
    info->src_regs = h.src_regs;
    info->src_count = h.src_count;
  }
  if (checks.racecheck) race.check(*this, w, d, pc, exec);
  d.fn(x, d);
  if (x.failed || fault) return false;  // fault: also one raised at a warp's exit (after_exit)
  // An unconditional branch to itself can never end (`while (x[0] == 0) {}` once the compiler
  // has hoisted the load): stop at once rather than at the instruction limit.
  if (x.control && d.guard < 0 && d.target == pc && d.ir->op == ptx::Opcode::Bra && !in_hang &&
      !w.stack.empty() && w.stack.top().pc == pc) {
    hang(w,
         "branches to itself forever (an unconditional bra to its own line: an endless loop "
         "with nothing in it)");
    return false;
  }
  if (!x.control) w.stack.advance(pc + 1);
  if (watching) watch_step(w);  // after the advance: the pc it sees is the next to run
  if (info) info->diverged = x.diverged;
  return true;
}

uint8_t* CtaImpl::access(Exec& x, const DInst& d, int lane, uint64_t addr, uint32_t size,
                         bool write, ptx::Space space, ptx::Space& resolved) {
  const uint64_t orig = addr;
  bool generic_param = false;
  if (space == ptx::Space::Generic) {
    if (addr - kSharedWindow < kWindowSize)
      space = ptx::Space::SharedCluster, addr -= kSharedWindow;
    else if (addr - kLocalWindow < kWindowSize)
      space = ptx::Space::Local, addr -= kLocalWindow;
    else if (addr - kParamWindow < kWindowSize)
      space = ptx::Space::Param, addr -= kParamWindow, generic_param = true;
    else
      space = ptx::Space::Global;
  }
  if (space == ptx::Space::SharedCluster) {
    // The cluster's window (cluster.h): the own block's shared memory below 1 << 24, and under
    // its own rank; another block's above.
    const uint64_t rank_bits = addr >> kClusterRankShift;
    if (rank_bits != 0 && rank_bits != cluster_rank + 1) {
      resolved = space;
      return cluster_access(x, d, lane, addr, size, write);
    }
    space = ptx::Space::Shared;
    addr &= kClusterOffsetMask;
  }
  resolved = space;
  if (size > 1 && (addr & (size - 1)) != 0) {
    raise(x, d, LaunchFault::Kind::Misaligned, lane, orig, size, write, space,
          "Address " + hex(orig) + " is misaligned (a " + std::to_string(size) +
              "-byte access must be " + std::to_string(size) + "-byte aligned)");
    return nullptr;
  }
  switch (space) {
    case ptx::Space::Global:
    case ptx::Space::Const: {
      const int i = mem->find_index(addr, size);
      if (i < 0) {
        std::string what = "Address " + hex(addr) + " is out of bounds";
        if (const BufferInfo* b = mem->nearest(addr)) {
          if (addr >= b->address + b->size)
            what += " and is " + std::to_string(addr - (b->address + b->size)) +
                    " bytes after the nearest allocation '" + b->name + "' at " + hex(b->address) +
                    " of size " + std::to_string(b->size) + " bytes";
          else if (addr < b->address)
            what += " and is " + std::to_string(b->address - addr) +
                    " bytes before the nearest allocation '" + b->name + "' at " + hex(b->address) +
                    " of size " + std::to_string(b->size) + " bytes";
          else
            what += " (the access runs past the end of '" + b->name + "' at " + hex(b->address) +
                    " of size " + std::to_string(b->size) + " bytes)";
        }
        raise(x, d, LaunchFault::Kind::OutOfBounds, lane, addr, size, write, space, what);
        return nullptr;
      }
      const BufferInfo& b = mem->buffers()[i];
      g_lo = b.address;
      g_hi = b.address + b.size;
      g_base = mem->bytes(i).data();
      return g_base + (addr - g_lo);
    }
    case ptx::Space::Shared:
      if (addr > shared_bytes || size > shared_bytes - addr) {
        raise(x, d, LaunchFault::Kind::OutOfBounds, lane, addr, size, write, space,
              "Address " + hex(addr) + " is out of bounds (the block has " +
                  std::to_string(shared_bytes) + " bytes of shared memory)");
        return nullptr;
      }
      return shared.data() + addr;
    case ptx::Space::Local: {
      if (addr > k->local_bytes || size > k->local_bytes - addr) {
        raise(x, d, LaunchFault::Kind::OutOfBounds, lane, addr, size, write, space,
              "Address " + hex(addr) + " is out of bounds (each thread has " +
                  std::to_string(k->local_bytes) + " bytes of local memory)");
        return nullptr;
      }
      std::vector<uint8_t>& lw = local[static_cast<size_t>(x.w->index)];
      if (lw.empty()) lw.assign(size_t{32} * k->local_bytes, 0);
      return lw.data() + static_cast<size_t>(lane) * k->local_bytes + addr;
    }
    case ptx::Space::Param:
      if (d.kernel_param || generic_param) {
        if (write && generic_param) {
          raise(x, d, LaunchFault::Kind::InvalidAddress, lane, orig, size, write, space,
                "Address " + hex(orig) + " is a kernel parameter, which is read-only");
          return nullptr;
        }
        if (addr > params.size() || size > params.size() - addr) {
          raise(x, d, LaunchFault::Kind::OutOfBounds, lane, addr, size, write, space,
                "Address " + hex(addr) + " is outside the " + std::to_string(params.size()) +
                    "-byte kernel parameter block");
          return nullptr;
        }
        return params.data() + addr;
      }
      if (addr > k->lane_param_bytes || size > k->lane_param_bytes - addr) {
        raise(x, d, LaunchFault::Kind::OutOfBounds, lane, addr, size, write, space,
              "Address " + hex(addr) + " is outside the function's .param area");
        return nullptr;
      }
      return lane_param_area(*x.w, lane) + addr;
    default:
      raise(x, d, LaunchFault::Kind::InvalidAddress, lane, addr, size, write, space,
            "Address " + hex(addr) + " is in an unsupported state space");
      return nullptr;
  }
}

void CtaImpl::sync_hazard(Exec& x, const DInst& d, int lane, const std::string& what,
                          Hazard::Kind kind) {
  if (!checks.synccheck) return;
  if (count_known(kind, d.ir ? d.ir->ptx_line : 0, 0)) return;
  Hazard h;
  h.kind = kind;
  h.kernel = k->name;
  h.block = block_idx;
  h.thread = thread_of(x.w ? x.w->index : 0, lane);
  h.ptx_line = d.ir ? d.ir->ptx_line : 0;
  source_of(*mod, d, h.src_file, h.src_line);
  h.message = what + "\n    at kernel " + h.kernel + ", PTX " + mod->module.path + ":" +
              std::to_string(h.ptx_line) + (d.ir ? "  " + d.ir->text : std::string()) +
              "\n    in " + where(h.src_file, h.src_line) + "\n    by thread " + dim(h.thread) +
              " (warp " + std::to_string(x.w ? x.w->index : 0) + ", lane " + std::to_string(lane) +
              ") in block " + dim(h.block);
  merge_hazard(hazards, std::move(h));
}

bool CtaImpl::count_known(Hazard::Kind kind, int32_t ptx_line, int32_t other_ptx_line) {
  for (Hazard& e : hazards)
    if (e.kind == kind && e.ptx_line == ptx_line && e.other_ptx_line == other_ptx_line) {
      ++e.count;
      return true;
    }
  return false;
}

void CtaImpl::race_hazard(Hazard::Kind kind, int32_t pc, int warp, int lane, int32_t other_pc,
                          int other_warp, int other_lane, uint64_t addr, ptx::Space space) {
  const DInst& d = k->code[pc];
  const DInst& o = k->code[other_pc];
  if (count_known(kind, d.ir->ptx_line, o.ir->ptx_line)) return;
  Hazard h;
  h.kind = kind;
  h.kernel = k->name;
  h.block = block_idx;
  h.thread = thread_of(warp, lane);
  h.ptx_line = d.ir->ptx_line;
  source_of(*mod, d, h.src_file, h.src_line);
  h.other_thread = thread_of(other_warp, other_lane);
  h.other_ptx_line = o.ir->ptx_line;
  source_of(*mod, o, h.other_src_file, h.other_src_line);
  h.address = addr;
  h.space = space;
  // compute-sanitizer's order: the earlier access first.
  auto role = [](const DInst& i, bool write) {
    const auto op = i.ir->op;
    if (op == ptx::Opcode::Atom || op == ptx::Opcode::Red) return "Atomic";
    return write ? "Write" : "Read";
  };
  const bool first_writes = kind != Hazard::Kind::RaceWAR;
  const bool second_writes = kind != Hazard::Kind::RaceRAW;
  auto side = [&](const char* r, const DInst& i, Dim3 t) {
    std::string file;
    int32_t line = 0;
    source_of(*mod, i, file, line);
    return std::string(r) + " access at PTX " + mod->module.path + ":" +
           std::to_string(i.ir->ptx_line) + "  " + i.ir->text + "\n    in " + where(file, line) +
           " by thread " + dim(t);
  };
  std::string buffer;
  if (space == ptx::Space::Global)
    if (const BufferInfo* b = mem->nearest(addr); b && addr - b->address < b->size)
      buffer = " (byte " + std::to_string(addr - b->address) + " of '" + b->name + "')";
  h.message = "Race reported between " + side(role(o, first_writes), o, h.other_thread) +
              "\n    and " + side(role(d, second_writes), d, h.thread) + "\n    in kernel " +
              k->name + ", block " + dim(block_idx) + ", " + space_word(space) + " address " +
              hex(addr) + buffer +
              (warp == other_warp ? " (two lanes of one warp store different values in one "
                                    "instruction; the GPU keeps one of them)"
                                  : "");
  merge_hazard(hazards, std::move(h));
}

void CtaImpl::hang(Warp& w, const std::string& what) {
  // Run the stuck warp a little further (no counting, no checks) and note where it goes: the
  // lines of the loop it is stuck in.
  const CheckOptions saved_checks = checks;
  PcCounters* saved_counters = counters;
  checks = CheckOptions{};
  counters = nullptr;
  in_hang = true;
  int32_t lo = INT32_MAX, hi = INT32_MIN, src_lo = INT32_MAX, src_hi = INT32_MIN;
  int32_t head_pc = -1;
  int src_file = -1;
  uint32_t lanes = w.stack.empty() ? 0 : w.stack.top().mask;
  for (int i = 0; i < 4096 && w.status == WarpStatus::Ready && !fault && !w.stack.empty(); ++i) {
    const int32_t pc = w.stack.top().pc;
    if (pc < 0 || pc >= static_cast<int32_t>(k->code.size())) break;
    const ptx::Instruction* in = k->code[pc].ir;
    if (in->ptx_line < lo) lo = in->ptx_line, head_pc = pc, lanes = w.stack.top().mask;
    hi = std::max(hi, in->ptx_line);
    if (in->user_loc.line > 0 && (src_file < 0 || in->user_loc.file == src_file)) {
      src_file = in->user_loc.file;
      src_lo = std::min(src_lo, in->user_loc.line);
      src_hi = std::max(src_hi, in->user_loc.line);
    }
    if (!step(w, nullptr, w.issued)) break;
  }
  fault.reset();
  in_hang = false;
  checks = saved_checks;
  counters = saved_counters;
  if (head_pc < 0) head_pc = w.stack.empty() ? 0 : std::max(0, w.stack.top().pc);
  head_pc = std::min<int32_t>(head_pc, static_cast<int32_t>(k->code.size()) - 1);
  std::string loop = "PTX line " + std::to_string(lo);
  if (hi > lo) loop = "PTX lines " + std::to_string(lo) + "-" + std::to_string(hi);
  if (src_file >= 0 && src_file < static_cast<int32_t>(mod->module.files.size())) {
    loop += " (CUDA " + mod->module.files[src_file] + ":" + std::to_string(src_lo);
    if (src_hi > src_lo) loop += "-" + std::to_string(src_hi);
    loop += ")";
  }
  Exec x{this, &w, w.R, w.P, 0, 0, head_pc, false, false, false, nullptr, 0};
  raise(x, k->code[head_pc], LaunchFault::Kind::Hang, std::countr_zero(lanes | 0x80000000u), 0, 0,
        false, ptx::Space::None,
        "warp " + std::to_string(w.index) + " " + what + "; it is stuck in the loop at " + loop +
            " (an endless loop, or a wait for something that never happens)");
}

void CtaImpl::watch_loops(bool on) {
  watching = on;
  loop_watch.assign(on ? warps.size() : 0, LoopWatch{});
}

void CtaImpl::save_state(const Warp& w, WarpState& s) const {
  const size_t nregs = static_cast<size_t>(k->data_slots) * 32;
  s.R.assign(w.R, w.R + nregs);
  s.P.assign(w.P, w.P + k->pred_slots);
  s.stack = w.stack.entries();
  s.exited = w.exited;
  s.lane_params.assign(w.lane_params, w.lane_params + size_t{32} * k->lane_param_bytes);
  s.frames = w.frames;
}

bool CtaImpl::same_state(const Warp& w, const WarpState& s) const {
  const size_t nregs = static_cast<size_t>(k->data_slots) * 32;
  const size_t nparams = size_t{32} * k->lane_param_bytes;
  return s.exited == w.exited && s.stack == w.stack.entries() &&
         std::equal(s.P.begin(), s.P.end(), w.P, w.P + k->pred_slots) &&
         std::equal(s.R.begin(), s.R.end(), w.R, w.R + nregs) &&
         std::equal(s.lane_params.begin(), s.lane_params.end(), w.lane_params,
                    w.lane_params + nparams) &&
         s.frames == w.frames;
}

void CtaImpl::watch_step(Warp& w) {
  LoopWatch& lw = loop_watch[w.index];
  if (lw.state == 2) return;  // memory has not changed since: it repeats for ever
  if (w.status != WarpStatus::Ready || w.stack.empty()) {
    lw.state = 0;
    return;
  }
  const int32_t pc = w.stack.top().pc;
  if (lw.state == 0) {
    if (lw.steps > 0) {
      --lw.steps;
      return;
    }
    lw.state = 1;
    lw.pc = pc;
    lw.steps = 0;
    save_state(w, lw.seen);
    return;
  }
  ++lw.steps;
  if (pc == lw.pc) {
    if (same_state(w, lw.seen)) {
      lw.state = 2;
      return;
    }
    lw.backoff = std::min<uint32_t>(lw.backoff * 2, 4096);
    lw.state = 0;
    lw.steps = lw.backoff;
  } else if (lw.steps > 65536) {  // left the loop: look again later
    lw.state = 0;
    lw.steps = lw.backoff;
  }
}

bool CtaImpl::looping() const {
  if (!watching) return false;
  if (async.in_flight()) return false;  // copies still to land: memory will change
  bool any = false;
  for (const Warp& w : warps) {
    if (w.status == WarpStatus::Exited) continue;
    if (w.status == WarpStatus::AtBarrier) continue;
    if (loop_watch[w.index].state != 2) return false;
    any = true;
  }
  return any;
}

void CtaImpl::deadlock() {
  // Group the waiting warps by barrier and instruction.
  std::map<std::pair<int, int32_t>, std::vector<int>> waiting;
  std::vector<int> exited;
  const Warp* first = nullptr;
  for (const Warp& w : warps) {
    if (w.status == WarpStatus::AtBarrier) {
      waiting[{w.bar_id, w.bar_pc}].push_back(w.index);
      if (!first) first = &w;
    } else if (w.status == WarpStatus::Exited) {
      exited.push_back(w.index);
    }
  }
  if (!first) {  // not expected: no warp waits, yet none can run
    Warp& w = warps.front();
    Exec x{this, &w, w.R, w.P, 0, 0, 0, false, false, false, nullptr, 0};
    raise(x, k->code.front(), LaunchFault::Kind::Deadlock, 0, 0, 0, false, ptx::Space::None,
          "no warp of the block can make progress (internal: none waits at a barrier)");
    return;
  }
  auto list = [](const std::vector<int>& v) {
    std::string s;
    for (int i : v) s += (s.empty() ? "" : ", ") + std::to_string(i);
    return s;
  };
  std::string what =
      "barrier deadlock: every live warp of the block waits at a barrier that can never complete";
  for (const auto& [key, ws] : waiting) {
    const auto [id, pc] = key;
    const DInst& d = k->code[std::max(0, pc)];
    std::string file;
    int32_t line = 0;
    source_of(*mod, d, file, line);
    const uint32_t expected = bars.expected(id);
    what += "\n    " + std::string(ws.size() == 1 ? "warp " : "warps ") + list(ws) + " wait" +
            (ws.size() == 1 ? "s" : "") + " at barrier " + std::to_string(id) + " (PTX line " +
            std::to_string(d.ir->ptx_line) + ", " + where(file, line) + "), which " +
            (expected ? "expects " + std::to_string(expected) + " threads"
                      : "waits for all " + std::to_string(live_warps) + " live warps");
  }
  if (!exited.empty())
    what += "\n    " + std::string(exited.size() == 1 ? "warp " : "warps ") + list(exited) +
            (exited.size() == 1 ? " has" : " have") + " exited";
  Warp& w = warps[first->index];
  Exec x{this, &w, w.R, w.P, 0, 0, w.bar_pc, false, false, false, nullptr, 0};
  raise(x, k->code[std::max(0, w.bar_pc)], LaunchFault::Kind::Deadlock,
        std::countr_zero(w.bar_lanes | 0x80000000u), 0, 0, false, ptx::Space::None, what);
}

void CtaImpl::raise(Exec& x, const DInst& d, LaunchFault::Kind kind, int lane, uint64_t addr,
                    uint32_t size, bool write, ptx::Space space, const std::string& what) {
  x.failed = true;
  if (fault) return;
  LaunchFault f;
  f.kind = kind;
  f.kernel = k->name;
  f.block = block_idx;
  f.thread = thread_of(x.w ? x.w->index : 0, lane);
  f.address = addr;
  f.size = size;
  f.is_write = write;
  f.space = space;
  f.ptx_line = d.ir ? d.ir->ptx_line : 0;
  if (d.ir) {
    const auto& loc = d.ir->user_loc.line > 0 ? d.ir->user_loc : d.ir->loc;
    const auto& files = mod->module.files;
    if (loc.file >= 0 && loc.file < static_cast<int32_t>(files.size()))
      f.src_file = files[loc.file];
    f.src_line = loc.line;
  }
  std::string head;
  if (kind == LaunchFault::Kind::OutOfBounds || kind == LaunchFault::Kind::Misaligned ||
      kind == LaunchFault::Kind::InvalidAddress)
    head = std::string("Invalid ") + space_word(space) + (write ? " write" : " read") +
           " of size " + std::to_string(size) + (size == 1 ? " byte" : " bytes");
  else if (kind == LaunchFault::Kind::Trap)
    head = "Trap (the kernel executed trap, e.g. a failed assert)";
  else if (kind == LaunchFault::Kind::Hang)
    head = "Hang: the launch was stopped because a warp is stuck";
  else if (kind == LaunchFault::Kind::Deadlock)
    head = "Barrier deadlock";
  else if (kind == LaunchFault::Kind::StackOverflow)
    head = "Call stack overflow";
  else
    head = "Kernel error";
  std::string src = f.src_file.empty() ? std::string("(no CUDA line info)")
                                       : f.src_file + ":" + std::to_string(f.src_line);
  f.message = head + "\n    at kernel " + f.kernel + ", PTX " + mod->module.path + ":" +
              std::to_string(f.ptx_line) + (d.ir ? "  " + d.ir->text : std::string()) +
              "\n    in " + src + "\n    by thread " + dim(f.thread) + " in block " + dim(f.block) +
              "\n    " + what;
  fault = std::move(f);
}

void CtaImpl::release(int id) {
  if (checks.racecheck) race.barrier();
  // synccheck: a barrier for the whole block completed without some of its threads (they
  // exited). A warp that arrived with part of its lanes was reported already (barrier()).
  if (checks.synccheck && bars.completed_all(id) && !bars.completed_partial(id) &&
      bars.completed_lanes(id) < block.count() && !bars.released(id).empty()) {
    Warp& w = warps[bars.released(id).front()];
    if (w.bar_pc >= 0) {
      const DInst& d = k->code[w.bar_pc];
      Exec x{this,     &w,    w.R,   w.P,   w.bar_lanes, w.bar_lanes,
             w.bar_pc, false, false, false, nullptr,     0};
      const uint64_t missing = block.count() - bars.completed_lanes(id);
      sync_hazard(x, d, std::countr_zero(w.bar_lanes | 0x80000000u),
                  "Barrier error detected. Divergent thread(s) in block: " +
                      std::to_string(bars.completed_lanes(id)) + " of the block's " +
                      std::to_string(block.count()) + " threads reached barrier " +
                      std::to_string(id) + "; " + std::to_string(missing) +
                      " exited without it (undefined on the GPU: __syncthreads() must be "
                      "reached by every thread of the block)",
                  Hazard::Kind::DivergentBarrier);
    }
  }
  for (int wi : bars.released(id)) {
    Warp& ww = warps[wi];
    ww.status = WarpStatus::Ready;
    if (ww.bar_pc >= 0) {
      const DInst& bd = k->code[ww.bar_pc];
      if (bd.ir->mod.bar == ptx::BarMode::Red) {
        const uint32_t r = bars.red_result(id);
        if (bd.dpred & 1) {
          const uint32_t bits = r ? ~0u : 0u;
          ww.P[bd.d[0]] = (ww.P[bd.d[0]] & ~ww.bar_lanes) | (bits & ww.bar_lanes);
        } else {
          for_lanes(ww.bar_lanes, [&](int l) { ww.R[bd.d[0] * 32 + l] = r; });
        }
      }
    }
    ww.bar_id = ww.bar_pc = -1;
  }
}

void CtaImpl::barrier(Exec& x, const DInst& d, int id, uint32_t expected, bool waits,
                      BarrierUnit::Red red, uint32_t pred) {
  Warp& w = *x.w;
  // synccheck: an aligned barrier (bar.sync, __syncthreads) must be executed by every live lane
  // of the warp; on a diverged path the GPU's behaviour is undefined.
  const uint32_t live = w.valid & ~w.exited;
  if (checks.synccheck && d.ir->mod.aligned && (x.exec & live) != live) {
    bars.mark_partial(id);
    sync_hazard(x, d, std::countr_zero(x.exec | 0x80000000u),
                "Barrier error detected. Divergent thread(s) in warp: only " +
                    lanes_text(x.exec & live) + " of warp " + std::to_string(w.index) + "'s live " +
                    lanes_text(live) + " reached barrier " + std::to_string(id) +
                    " (undefined on the GPU: a bar.sync must be reached by the whole warp)",
                Hazard::Kind::DivergentBarrier);
  }
  if (waits) {
    w.status = WarpStatus::AtBarrier;
    w.bar_id = id;
    w.bar_pc = x.pc;
    w.bar_lanes = x.exec;
  }
  if (bars.arrive(id, w.index, expected, waits, red, x.exec, pred, live_warps)) release(id);
}

void CtaImpl::join_cluster(ClusterState* c, uint32_t rank) {
  cluster = c;
  cluster_rank = rank;
  reset(block_idx);  // the special registers of the cluster are per-warp constants
  if (c) c->join(rank, this);
}

uint8_t* CtaImpl::cluster_access(Exec& x, const DInst& d, int lane, uint64_t addr, uint32_t size,
                                 bool write) {
  const ClusterState& cl = cluster_state();
  const uint64_t rank = (addr >> kClusterRankShift) - 1, offset = addr & kClusterOffsetMask;
  if (rank >= cl.size()) {
    raise(x, d, LaunchFault::Kind::OutOfBounds, lane, addr, size, write, ptx::Space::SharedCluster,
          "Address " + hex(addr) + " names block rank " + std::to_string(rank) +
              " of the cluster, which has " + std::to_string(cl.size()) + " block" +
              (cl.size() == 1 ? " (the launch has no cluster shape)" : "s"));
    return nullptr;
  }
  CtaImpl* other = cl.member(static_cast<uint32_t>(rank));
  if (!other) {
    raise(
        x, d, LaunchFault::Kind::InvalidAddress, lane, addr, size, write, ptx::Space::SharedCluster,
        "Address " + hex(addr) + " is in the shared memory of block rank " + std::to_string(rank) +
            " of the cluster, which has exited (a block's shared memory is gone when it "
            "exits: end the kernel with barrier.cluster.arrive/wait, cluster.sync())");
    return nullptr;
  }
  if (size > 1 && (offset & (size - 1)) != 0) {
    raise(x, d, LaunchFault::Kind::Misaligned, lane, addr, size, write, ptx::Space::SharedCluster,
          "Address " + hex(addr) + " is misaligned (a " + std::to_string(size) +
              "-byte access must be " + std::to_string(size) + "-byte aligned)");
    return nullptr;
  }
  if (offset > other->shared_bytes || size > other->shared_bytes - offset) {
    raise(x, d, LaunchFault::Kind::OutOfBounds, lane, addr, size, write, ptx::Space::SharedCluster,
          "Address " + hex(addr) + " is out of bounds (block rank " + std::to_string(rank) +
              " of the cluster has " + std::to_string(other->shared_bytes) +
              " bytes of shared memory)");
    return nullptr;
  }
  return other->shared.data() + offset;
}

void CtaImpl::after_exit(Warp& w) {
  if (w.status == WarpStatus::Exited) return;
  w.status = WarpStatus::Exited;
  live_warps--;
  // The cluster barrier stops waiting for its threads; a block gone takes its shared memory.
  {
    ClusterState& cl = cluster_state();
    cl.threads_exited(cluster_rank, static_cast<uint32_t>(w.index * 32), w.valid, last_clock);
    if (live_warps == 0) cl.block_exited(cluster_rank);
  }
  // The hardware finishes an exited thread's copies; its cp.async.mbarrier.arrive arrive-ons
  // still reach their mbarriers.
  for (int l = 0; l < 32 && async.any_thread(); ++l)
    for (const AsyncCopies::MbarrierEvent& e : async.finish_thread(w.index * 32 + l))
      apply_async(e);
  for (int id : bars.on_warp_exit(live_warps)) release(id);
  // wgmma convergence (exec_wgmma.cpp): the warps of a warpgroup end with the same number of
  // wgmma.mma_async executed.
  if (!wgmma_count.empty() && !fault) {
    auto count = [&](int i) {
      return i < static_cast<int>(wgmma_count.size()) ? wgmma_count[i] : 0u;
    };
    const int g = w.index / 4;
    for (int o = 4 * g; o < 4 * g + 4 && o < static_cast<int>(warps.size()); ++o)
      if (o != w.index && warps[o].status == WarpStatus::Exited && count(o) != count(w.index)) {
        Exec x;
        x.cta = this;
        x.w = &w;
        const DInst none;
        raise(x, none, LaunchFault::Kind::BadLaunch, 0, 0, 0, false, ptx::Space::None,
              "the warps of warpgroup " + std::to_string(g) + " diverged: warp " +
                  std::to_string(o) + " executed " + std::to_string(count(o)) +
                  " wgmma.mma_async, warp " + std::to_string(w.index) + " " +
                  std::to_string(count(w.index)) + " (all four must execute the same ones)");
        break;
      }
  }
}

// ---- Cta: the public face for the timing model
// ---------------------------------------------------

Expected<Cta> Cta::create(const Program& program, DeviceMemory& memory, const LaunchConfig& launch,
                          Dim3 block_index, uint32_t sm_id) {
  auto impl = std::make_unique<CtaImpl>();
  if (auto s = impl->bind(program, memory, launch, sm_id); !s) return s.error();
  if (block_index.x >= launch.grid.x || block_index.y >= launch.grid.y ||
      block_index.z >= launch.grid.z)
    return Error{program.module().path, 0,
                 "block index " + dim(block_index) + " is outside the grid " + dim(launch.grid)};
  impl->reset(block_index);
  return Cta(std::move(impl));
}

Status Cta::relaunch(Dim3 block_index) {
  CtaImpl& c = *impl_;
  if (block_index.x >= c.grid.x || block_index.y >= c.grid.y || block_index.z >= c.grid.z)
    return Error{c.mod->module.path, 0,
                 "block index " + dim(block_index) + " is outside the grid " + dim(c.grid)};
  // What create leaves that the previous block may have changed, then reset's fresh block.
  c.hazards.clear();
  c.in_hang = false;
  c.watch_loops(false);
  c.cluster = nullptr;  // a block of a cluster joins it after this (join_cluster)
  c.cluster_rank = 0;
  c.reset(block_index);
  for (Warp& w : c.warps) w.mbarrier_pc = -1;  // (reset leaves it: it is read only while waiting)
  return Ok{};
}

void Cta::join_cluster(ClusterState* cluster, uint32_t rank) { impl_->join_cluster(cluster, rank); }

Cta::Cta(std::unique_ptr<CtaImpl> impl) : impl_(std::move(impl)) {}
Cta::Cta(Cta&&) noexcept = default;
Cta& Cta::operator=(Cta&&) noexcept = default;
Cta::~Cta() = default;

int Cta::warp_count() const { return static_cast<int>(impl_->warps.size()); }
WarpStatus Cta::status(int warp) const { return impl_->warps[warp].status; }
bool Cta::next_is_cluster_barrier(int warp) const {
  const CtaImpl& c = *impl_;
  if (!c.k->uses_cluster_barrier) return false;  // (a look at the warp is a host-cache miss)
  const Warp& w = c.warps[warp];
  if (w.status != WarpStatus::Ready || w.stack.empty()) return false;
  const int32_t pc = w.stack.top().pc;
  return pc >= 0 && pc < static_cast<int32_t>(c.k->code.size()) &&
         c.k->code[pc].ir->op == ptx::Opcode::BarrierCluster;
}

bool Cta::next_reads_clock(int warp) const {
  const CtaImpl& c = *impl_;
  if (!c.k->uses_clock) return false;
  const Warp& w = c.warps[warp];
  if (w.status != WarpStatus::Ready || w.stack.empty()) return false;
  const int32_t pc = w.stack.top().pc;
  if (pc < 0 || pc >= static_cast<int32_t>(c.k->code.size()) || !c.k->code[pc].ir) return false;
  const ptx::Instruction& i = *c.k->code[pc].ir;
  if (i.op != ptx::Opcode::Mov) return false;
  for (const ptx::Operand& o : i.ops)
    if (o.kind == ptx::Operand::Kind::Special &&
        (o.special == ptx::SpecialReg::Clock || o.special == ptx::SpecialReg::Clock64 ||
         o.special == ptx::SpecialReg::Globaltimer))
      return true;
  return false;
}

void Cta::prefetch_step(int warp) const {
  const CtaImpl& c = *impl_;
  const Warp& w = c.warps[warp];
  if (w.status != WarpStatus::Ready || w.stack.empty()) return;
  const int32_t pc = w.stack.top().pc;
  if (pc < 0 || pc >= static_cast<int32_t>(c.k->code.size())) return;
  const DInst& d = c.k->code[pc];
  auto reg = [&](int32_t slot) {  // one register: 32 lanes of 8 bytes
    const char* r = reinterpret_cast<const char*>(w.R + static_cast<size_t>(slot) * 32);
    for (int b = 0; b < 32 * 8; b += 64) __builtin_prefetch(r + b);
  };
  for (int i = 0; i < d.ns; ++i)
    if (d.s[i] >= 0) reg(d.s[i]);
  for (int i = 0; i < d.nd; ++i)
    if (!(d.dpred >> i & 1) && d.d[i] >= 0) reg(d.d[i]);
}
bool Cta::next_touches_device(int warp) const {
  const CtaImpl& c = *impl_;
  const Warp& w = c.warps[warp];
  if (w.status != WarpStatus::Ready || w.stack.empty()) return false;
  const int32_t pc = w.stack.top().pc;
  if (pc < 0 || pc >= static_cast<int32_t>(c.k->code.size())) return true;
  const DInst& d = c.k->code[pc];
  if (!d.ir) return true;
  return touches_device(d.ir->op, d.space);
}
bool touches_device(ptx::Opcode op, ptx::Space space) {
  switch (op) {
    case ptx::Opcode::Ld:
    case ptx::Opcode::Ldu:
    case ptx::Opcode::St:
    case ptx::Opcode::Prefetch:
    case ptx::Opcode::Prefetchu:
    case ptx::Opcode::Atom:
    case ptx::Opcode::Red:
      return space != ptx::Space::Shared && space != ptx::Space::Local &&
             space != ptx::Space::Param;
    case ptx::Opcode::CpAsync:
    case ptx::Opcode::CpAsyncBulk:
    case ptx::Opcode::CpAsyncBulkTensor:
    case ptx::Opcode::CpAsyncBulkPrefetchTensor:
    case ptx::Opcode::PrefetchTensormap:
    case ptx::Opcode::TensormapReplace:
    case ptx::Opcode::TensormapCpFenceproxy:
    case ptx::Opcode::Call:
      return true;
    default:
      return false;
  }
}
bool Cta::done() const { return impl_->live_warps == 0; }
const std::optional<LaunchFault>& Cta::fault() const { return impl_->fault; }
const std::vector<Hazard>& Cta::hazards() const { return impl_->hazards; }
std::vector<Hazard> Cta::take_hazards() { return std::move(impl_->hazards); }
uint64_t Cta::issued(int warp) const { return impl_->warps[warp].issued; }

void Cta::watch_loops(bool on) { impl_->watch_loops(on); }
bool Cta::looping() const { return impl_->looping(); }

const std::optional<LaunchFault>& Cta::stop(const std::string& what) {
  CtaImpl& c = *impl_;
  if (c.fault) return c.fault;
  if (c.stalled()) {
    c.deadlock();
    return c.fault;
  }
  // A warp the livelock watch saw repeat, else the ready warp that issued the most.
  Warp* pick = nullptr;
  for (Warp& w : c.warps)
    if (w.status == WarpStatus::Ready && c.watching && c.loop_watch[w.index].state == 2) {
      pick = &w;
      break;
    }
  if (!pick)
    for (Warp& w : c.warps)
      if (w.status == WarpStatus::Ready && (!pick || w.issued > pick->issued)) pick = &w;
  if (pick) c.hang(*pick, what);
  return c.fault;
}

bool Cta::step(int warp, StepInfo& info, LaunchStats& stats, uint64_t clock) {
  CtaImpl& c = *impl_;
  Warp& w = c.warps[warp];
  if (w.status != WarpStatus::Ready || c.fault) return !c.fault;
  if (c.max_steps && ++w.issued > c.max_steps) {
    c.hang(w, "went past " + std::to_string(c.max_steps) +
                  " instructions (the limit per warp: --max-instructions, or max_instructions "
                  "in the experiment)");
    return false;
  }
  const bool was_done = c.live_warps == 0;
  const int32_t pc = w.stack.empty() ? -1 : w.stack.top().pc;
  bool ok = c.step(w, &info, clock);
  // A barrier arrival or an exit can leave every live warp waiting: a deadlock.
  if (ok && w.status != WarpStatus::Ready && c.stalled()) {
    c.deadlock();
    ok = false;
  }
  const ptx::Instruction& in = *info.inst;
  const uint64_t threads = popc32(info.exec_mask);  // (no library call: exec.h)
  stats.warp_instructions++;
  stats.thread_instructions += threads;
  // The line entries: looked up once per pc and block (the maps' search is slow per step).
  LineCounts* pl = nullptr;
  LineCounts* sl = nullptr;
  const bool cached = pc >= 0 && pc < static_cast<int32_t>(c.k->code.size()) &&
                      c.k->code[pc].ir == info.inst;
  const int cls = cached ? c.k->heads[pc].cls : static_cast<int>(ptx::class_of(in));
  stats.warp_by_class[cls]++;
  stats.thread_by_class[cls] += threads;
  if (cached) {
    if (c.line_stats != &stats) {
      c.line_stats = &stats;
      c.line_counts.assign(c.k->code.size(), {nullptr, nullptr});
    }
    pl = c.line_counts[pc].first;
    sl = c.line_counts[pc].second;
  }
  if (!pl) {
    pl = &stats.by_ptx_line[in.ptx_line];
    if (in.user_loc.line > 0) sl = &stats.by_src_line[{in.user_loc.file, in.user_loc.line}];
    if (cached) c.line_counts[pc] = {pl, sl};
  }
  pl->warp_instructions++;
  pl->thread_instructions += threads;
  if (sl) {
    sl->warp_instructions++;
    sl->thread_instructions += threads;
  }
  if (!was_done && c.live_warps == 0) {
    stats.blocks++;
    stats.warps += c.warps.size();
    stats.threads += c.block.count();
  }
  return ok;
}

}  // namespace warplab::func
