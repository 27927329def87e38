// Where an instruction issues: see issue_pipe.h.
#include "sim/timing/issue_pipe.h"

#include "sim/timing/schedule.h"
#include "sim/timing/tensor_pipe.h"

namespace warplab::timing {

using ptx::Opcode;
using ptx::Type;
using ptx::UnitClass;

namespace {

constexpr int unit_index(UnitClass u) { return static_cast<int>(u); }

const PipeConfig& pipe_of(const PipesConfig& p, UnitClass u) {
  switch (u) {
    case UnitClass::Fp32:
      return p.fp32;
    case UnitClass::Int:
    case UnitClass::Typed:
      return p.integer;
    case UnitClass::Fp64:
      return p.fp64;
    case UnitClass::Half:
      return p.half;
    case UnitClass::Sfu:
      return p.sfu;
    case UnitClass::Ldst:
      return p.ldst;
    case UnitClass::Barrier:
      return p.barrier;
    case UnitClass::Warp:
      return p.warp;
    case UnitClass::Branch:
      return p.branch;
    case UnitClass::Misc:
    case UnitClass::Tensor:  // not reached: issue_pipe asks the tensor pipe (tensor_pipe.h)
      return p.misc;
  }
  return p.misc;
}

}  // namespace

IssuePipe issue_pipe(const PipesConfig& p, const ptx::Instruction& i, UnitClass unit) {
  if (const PipeConfig* e = expansion_of(p, i)) return {unit_index(unit), e, true};
  const bool multiply =
      i.op == Opcode::Mul || i.op == Opcode::Mad || i.op == Opcode::Mul24 || i.op == Opcode::Mad24;
  if (multiply && !ptx::is_float(i.type) && i.type != Type::Pred)
    return {kImadPipe, &p.imad, false};
  if (unit == UnitClass::Tensor) return {unit_index(unit), &tensor_pipe_of(p.tensor, i), false};
  if (i.op == Opcode::Vote) return {unit_index(unit), &p.vote, false};
  if (i.op == Opcode::Match) return {kMatchPipe, &p.match, false};
  return {unit_index(unit), &pipe_of(p, unit), false};
}

const IssuePipes::Entry& IssuePipes::learn(const ptx::Instruction& i, int32_t function,
                                           int32_t pc) {
  if (function < 0 || pc < 0) return scratch_ = make(i);
  if (static_cast<size_t>(function) >= table_.size()) table_.resize(function + 1);
  auto& f = table_[function];
  if (static_cast<size_t>(pc) >= f.size()) f.resize(pc + 1);
  Entry& e = f[pc];
  if (!e.pipe.cfg) e = make(i);
  return e;
}

IssuePipes::Entry IssuePipes::make(const ptx::Instruction& i) const {
  Entry e;
  e.unit = ptx::unit_of(i);
  e.pipe = issue_pipe(*pipes_, i, e.unit);
  e.slow_path = calls_slow_path(i);
  return e;
}

}  // namespace warplab::timing
