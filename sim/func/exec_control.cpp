// Control flow: bra, call, ret, exit, trap, and the CTA barrier and fence instructions.
//
// A branch's lanes may disagree (a guarded `@%p bra`): the SIMT stack (simt_stack.h) then runs
// the two paths one after the other and merges them at the reconvergence point. `call` pushes a
// call frame on the same stack and copies the call-scope .param slots into the callee's
// parameters (a recursive call saves the callee's frame first, call_frames.h); `ret` copies the
// return values back and removes the returning lanes from the frame; `exit` removes lanes for
// good. `bar.sync` parks the warp until the block's barrier completes (barrier.h). membar/fence
// order memory on the GPU; a functional model that runs one instruction at a time is already
// sequentially consistent, so they do nothing here.
#include <cstring>

#include "sim/func/cta_impl.h"
#include "sim/func/exec.h"

namespace warplab::func {
namespace {

using ptx::Opcode;

void bra_h(Exec& x, const DInst& d) {
  x.control = true;
  x.diverged = x.w->stack.branch(x.pc, d.target, d.rpc, x.exec);
}

void copy_params(Exec& x, const std::vector<ParamCopy>& copies, uint32_t lanes) {
  for_lanes(lanes, [&](int l) {
    uint8_t* area = x.cta->lane_param_area(*x.w, l);
    for (const auto& c : copies) std::memmove(area + c.to, area + c.from, c.size);
  });
}

void call_h(Exec& x, const DInst& d) {
  x.control = true;
  if (x.exec == 0) {
    x.w->stack.advance(x.pc + 1);
    return;
  }
  const CallSite& cs = x.cta->k->calls[d.aux];
  if (cs.recursive) {  // the callee may be running below: keep its frame (call_frames.h)
    if (!x.w->frames.fits(*x.cta->k, cs.callee)) {
      x.cta->raise(x, d, LaunchFault::Kind::StackOverflow, std::countr_zero(x.exec), 0, 0, false,
                   ptx::Space::None,
                   "recursion too deep: " + std::to_string(x.w->frames.depth()) +
                       " nested recursive calls in flight in this warp (WarpLab keeps at most " +
                       std::to_string(CallFrames::kMaxDepth) + ", " +
                       std::to_string(CallFrames::kMaxBytes >> 20) +
                       " MiB of saved registers); on the GPU the thread's call stack "
                       "(cudaLimitStackSize, 1 KB by default) overflows");
      return;
    }
    x.w->frames.save(*x.cta->k, cs.callee, *x.w, x.exec);
  }
  copy_params(x, cs.args, x.exec);
  x.w->stack.call(x.pc, d.target, x.exec);
  x.diverged = x.exec != x.active;
}

void exit_lanes(Exec& x, uint32_t lanes) {
  Warp& w = *x.w;
  w.exited |= lanes;
  w.stack.exit(lanes, x.pc);
  w.frames.exited(lanes);
  x.diverged = lanes != x.active;
  if (w.stack.empty()) x.cta->after_exit(w);
}

void exit_h(Exec& x, const DInst&) {
  x.control = true;
  if (x.exec == 0) {
    x.w->stack.advance(x.pc + 1);
    return;
  }
  exit_lanes(x, x.exec);
}

void ret_h(Exec& x, const DInst&) {
  x.control = true;
  if (x.exec == 0) {
    x.w->stack.advance(x.pc + 1);
    return;
  }
  const int32_t call_pc = x.w->stack.innermost_call_pc();
  if (call_pc < 0) {  // returning from the kernel ends the thread
    exit_lanes(x, x.exec);
    return;
  }
  const CallSite& cs = x.cta->k->calls[x.cta->k->code[call_pc].aux];
  if (cs.recursive)
    x.w->frames.ret(*x.cta->k, cs, *x.w, x.exec);  // return values, then the saved frame
  else
    copy_params(x, cs.returns, x.exec);
  x.w->stack.ret(x.exec, x.pc);
  x.diverged = true;
}

void trap_h(Exec& x, const DInst& d) {
  if (x.exec == 0) return;
  x.cta->raise(x, d, LaunchFault::Kind::Trap, std::countr_zero(x.exec), 0, 0, false,
               ptx::Space::None, "trap instruction executed (the kernel aborted)");
}

// bar.sync / barrier.sync a{, b}; bar.arrive a, b; bar.red.op d, a{, b}, {!}c.
void bar_h(Exec& x, const DInst& d) {
  x.control = true;
  x.w->stack.advance(x.pc + 1);
  if (x.exec == 0) return;
  const int lane = std::countr_zero(x.exec);
  const uint32_t id = static_cast<uint32_t>(x.R[d.s[0] * 32 + lane]);
  const uint32_t count = d.ns > 1 ? static_cast<uint32_t>(x.R[d.s[1] * 32 + lane]) : 0;
  if (id >= BarrierUnit::kBarriers) {
    x.cta->raise(x, d, LaunchFault::Kind::BadLaunch, lane, id, 0, false, ptx::Space::None,
                 "barrier id " + std::to_string(id) + " is out of range (0..15)");
    return;
  }
  const auto mode = d.ir->mod.bar;
  BarrierUnit::Red red = BarrierUnit::Red::None;
  uint32_t pred = 0;
  if (mode == ptx::BarMode::Red) {
    red = d.ir->mod.popc                          ? BarrierUnit::Red::Popc
          : d.ir->mod.bar_red == ptx::BoolOp::And ? BarrierUnit::Red::And
                                                  : BarrierUnit::Red::Or;
    pred = pred_mask(x, d, 0);
  }
  x.cta->barrier(x, d, static_cast<int>(id), count, mode != ptx::BarMode::Arrive, red, pred);
}

void nop_h(Exec&, const DInst&) {}

}  // namespace

Handler pick_control(const ptx::Instruction& in, DInst& d, std::string& why) {
  switch (in.op) {
    case Opcode::Bra:
      return bra_h;
    case Opcode::Call:
      if (d.callee < 0) break;
      return call_h;
    case Opcode::Ret:
      return ret_h;
    case Opcode::Exit:
      return exit_h;
    case Opcode::Trap:
      return trap_h;
    case Opcode::Membar:
    case Opcode::Fence:
    case Opcode::Nanosleep:
      return nop_h;
    case Opcode::Bar: {
      if (d.ns < 1) break;
      const auto mode = in.mod.bar;
      // bar.warp.sync (__syncwarp): nothing to wait for on a SIMT stack; exec_warp.cpp checks
      // its member mask (synccheck).
      if (mode == ptx::BarMode::WarpSync) return pick_warp(in, d, why);
      if (mode == ptx::BarMode::Red) {
        if (d.nd < 1 || d.np < 1) break;
        if (!in.mod.popc && in.mod.bar_red == ptx::BoolOp::None) break;
        if (in.mod.popc && (d.dpred & 1)) {
          why = "bar.red.popc needs a .u32 destination";
          return nullptr;
        }
        if (!in.mod.popc && !(d.dpred & 1)) {
          why = "bar.red.and/or needs a predicate destination";
          return nullptr;
        }
        return bar_h;
      }
      if (mode == ptx::BarMode::Arrive && d.ns < 2) {
        why = "bar.arrive needs a thread count";
        return nullptr;
      }
      return bar_h;
    }
    default:
      break;
  }
  if (why.empty()) why = "unsupported control-flow form";
  return nullptr;
}

}  // namespace warplab::func
