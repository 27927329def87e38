#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstring>

#include "sim/func/cta_impl.h"
#include "sim/func/executor.h"

namespace warplab::func {

namespace {

constexpr uint32_t kMaxThreadsPerBlock = 1024;
constexpr uint64_t kMaxSharedPerBlock = 227 * 1024;  // H100: 227 KB usable per block
constexpr uint32_t kSmCount = 132;                   // what %nsmid reads (H100 SXM)
constexpr uint32_t kWarpSlots = 64;                  // what %nwarpid reads (warps per SM)

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
  local.assign(threads * k->local_bytes, 0);
  lane_params.assign(static_cast<size_t>(nwarps) * 32 * k->lane_param_bytes, 0);
  warps.assign(nwarps, Warp{});
  g_lo = g_hi = 0;
  g_base = nullptr;
  return Ok{};
}

Dim3 CtaImpl::thread_of(int warp, int lane) const {
  const uint32_t t = static_cast<uint32_t>(warp * 32 + lane);
  return Dim3{t % block.x, (t / block.x) % block.y, t / (block.x * block.y)};
}

void CtaImpl::reset(Dim3 block_index) {
  block_idx = block_index;
  std::fill(regs.begin(), regs.end(), 0);
  std::fill(preds.begin(), preds.end(), 0);
  std::fill(shared.begin(), shared.end(), 0);
  std::fill(local.begin(), local.end(), 0);
  std::fill(lane_params.begin(), lane_params.end(), 0);
  bars.reset();
  fault.reset();
  const uint64_t threads = block.count();
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
    w.stack.reset(0, w.valid);
    // Constant slots: immediates, symbol addresses, per-warp special registers.
    for (size_t ci = 0; ci < k->consts.size(); ++ci) {
      const ConstSlot& c = k->consts[ci];
      uint64_t* s = w.R + (k->first_const_slot + ci) * 32;
      if (c.kind == ConstSlot::Kind::Value) {
        std::fill(s, s + 32, c.value);
        continue;
      }
      if (c.kind == ConstSlot::Kind::GlobalVar) {
        std::fill(s, s + 32, global_addr[c.variable] + c.value);
        continue;
      }
      for (int l = 0; l < 32; ++l) {
        const Dim3 t = thread_of(wi, l);
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
          default:
            v = 0;
            break;
        }
        s[l] = v & 0xFFFFFFFFu;
      }
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
  uint32_t exec = top.mask;
  if (d.guard >= 0) exec &= d.guard_neg ? ~w.P[d.guard] : w.P[d.guard];
  Exec x{this, &w, w.R, w.P, top.mask, exec, pc, false, false, false, info, clock};
  if (counters) {
    counters->warp[pc]++;
    counters->thread[pc] += popc32(exec);
  }
  if (info) {
    info->inst = d.ir;
    info->pc = d.local_pc;
    info->function = k->funcs[d.func].module_index;
    info->active_mask = x.active;
    info->exec_mask = exec;
    const auto op = d.ir->op;
    info->is_memory = op == ptx::Opcode::Ld || op == ptx::Opcode::Ldu || op == ptx::Opcode::St ||
                      op == ptx::Opcode::Atom || op == ptx::Opcode::Red ||
                      op == ptx::Opcode::Prefetch || op == ptx::Opcode::Prefetchu;
    info->space = d.space;
    info->is_store = op == ptx::Opcode::St;
    info->is_atomic = op == ptx::Opcode::Atom || op == ptx::Opcode::Red;
    info->access_bytes = info->is_memory ? static_cast<uint32_t>(d.size) * d.vec : 0;
    info->is_branch = op == ptx::Opcode::Bra || op == ptx::Opcode::Call || op == ptx::Opcode::Ret ||
                      op == ptx::Opcode::Exit;
    info->is_barrier = op == ptx::Opcode::Bar;
    info->dst_count = info->src_count = 0;
    for (int i = 0; i < d.nd && info->dst_count < 8; ++i) {
      const int32_t r = (d.dpred >> i) & 1 ? k->pred_reg[d.d[i]] : k->slot_reg[d.d[i]];
      if (r >= 0) info->dst_regs[info->dst_count++] = r;
    }
    for (int i = 0; i < d.ns && info->src_count < 8; ++i)
      if (k->slot_reg[d.s[i]] >= 0) info->src_regs[info->src_count++] = k->slot_reg[d.s[i]];
    for (int i = 0; i < d.np && info->src_count < 8; ++i)
      if (k->pred_reg[d.p[i]] >= 0) info->src_regs[info->src_count++] = k->pred_reg[d.p[i]];
    if (d.guard >= 0 && info->src_count < 8 && k->pred_reg[d.guard] >= 0)
      info->src_regs[info->src_count++] = k->pred_reg[d.guard];
  }
  d.fn(x, d);
  if (x.failed) return false;
  if (!x.control) w.stack.advance(pc + 1);
  if (info) info->diverged = x.diverged;
  return true;
}

uint8_t* CtaImpl::access(Exec& x, const DInst& d, int lane, uint64_t addr, uint32_t size,
                         bool write, ptx::Space space, ptx::Space& resolved) {
  const uint64_t orig = addr;
  if (space == ptx::Space::Generic) {
    if (addr - kSharedWindow < kWindowSize)
      space = ptx::Space::Shared, addr -= kSharedWindow;
    else if (addr - kLocalWindow < kWindowSize)
      space = ptx::Space::Local, addr -= kLocalWindow;
    else
      space = ptx::Space::Global;
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
    case ptx::Space::Local:
      if (addr > k->local_bytes || size > k->local_bytes - addr) {
        raise(x, d, LaunchFault::Kind::OutOfBounds, lane, addr, size, write, space,
              "Address " + hex(addr) + " is out of bounds (each thread has " +
                  std::to_string(k->local_bytes) + " bytes of local memory)");
        return nullptr;
      }
      return local.data() + (static_cast<size_t>(x.w->index) * 32 + lane) * k->local_bytes + addr;
    case ptx::Space::Param:
      if (d.kernel_param) {
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

void CtaImpl::sync_hazard(Exec& x, const DInst& d, int lane, const std::string& what) {
  if (!checks.synccheck) return;
  Hazard h;
  h.kind = Hazard::Kind::WarpSyncMask;
  h.kernel = k->name;
  h.block = block_idx;
  h.thread = thread_of(x.w ? x.w->index : 0, lane);
  h.ptx_line = d.ir ? d.ir->ptx_line : 0;
  if (d.ir) {
    const auto& loc = d.ir->user_loc.line > 0 ? d.ir->user_loc : d.ir->loc;
    const auto& files = mod->module.files;
    if (loc.file >= 0 && loc.file < static_cast<int32_t>(files.size()))
      h.src_file = files[loc.file];
    h.src_line = loc.line;
  }
  h.message = what;
  hazards.push_back(std::move(h));
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
  if (waits) {
    w.status = WarpStatus::AtBarrier;
    w.bar_id = id;
    w.bar_pc = x.pc;
    w.bar_lanes = x.exec;
  }
  if (bars.arrive(id, w.index, expected, waits, red, x.exec, pred, live_warps)) release(id);
}

void CtaImpl::after_exit(Warp& w) {
  if (w.status == WarpStatus::Exited) return;
  w.status = WarpStatus::Exited;
  live_warps--;
  for (int id : bars.on_warp_exit(live_warps)) release(id);
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

Cta::Cta(std::unique_ptr<CtaImpl> impl) : impl_(std::move(impl)) {}
Cta::Cta(Cta&&) noexcept = default;
Cta& Cta::operator=(Cta&&) noexcept = default;
Cta::~Cta() = default;

int Cta::warp_count() const { return static_cast<int>(impl_->warps.size()); }
WarpStatus Cta::status(int warp) const { return impl_->warps[warp].status; }
bool Cta::done() const { return impl_->live_warps == 0; }
const std::optional<LaunchFault>& Cta::fault() const { return impl_->fault; }

bool Cta::step(int warp, StepInfo& info, LaunchStats& stats, uint64_t clock) {
  CtaImpl& c = *impl_;
  Warp& w = c.warps[warp];
  if (w.status != WarpStatus::Ready || c.fault) return !c.fault;
  const bool was_done = c.live_warps == 0;
  const bool ok = c.step(w, &info, clock);
  const ptx::Instruction& in = *info.inst;
  const uint64_t threads = std::popcount(info.exec_mask);
  stats.warp_instructions++;
  stats.thread_instructions += threads;
  const int cls = static_cast<int>(ptx::class_of(in));
  stats.warp_by_class[cls]++;
  stats.thread_by_class[cls] += threads;
  auto& pl = stats.by_ptx_line[in.ptx_line];
  pl.warp_instructions++;
  pl.thread_instructions += threads;
  if (in.user_loc.line > 0) {
    auto& sl = stats.by_src_line[{in.user_loc.file, in.user_loc.line}];
    sl.warp_instructions++;
    sl.thread_instructions += threads;
  }
  if (!was_done && c.live_warps == 0) {
    stats.blocks++;
    stats.warps += c.warps.size();
    stats.threads += c.block.count();
  }
  return ok;
}

}  // namespace warplab::func
