// Where an instruction issues: which of its sub-partition's pipes it occupies (the SM keeps one
// "free again" cycle per pipe, Sm::pipe_free_), with which latency and issue interval.
//
// Hardware: each sub-partition's dispatch sends an instruction to one functional-unit pipe (FMA,
// ALU, FP64, MUFU/SFU, LSU, tensor, branch ...); a pipe accepts a new warp instruction once per
// its issue interval, and its result is ready after the pipe's latency.
// Modelled: one pipe per ptx::UnitClass plus the two below, each with its PipeConfig (config.h).
// Simplified: no operand collectors or register-bank conflicts.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/ptx/ir.h"
#include "sim/ptx/isa.h"
#include "sim/timing/config.h"

namespace warplab::timing {

// Where an instruction issues. Mostly its unit's pipe (ptx::unit_of), except:
//  - integer multiplies (mul/mad/mul24/mad24 on integers: IMAD, IMAD.WIDE, IMAD.HI), which
//    ptxas issues to the FMA pipe's heavy half: a pipe of their own here, so that they overlap
//    the shifts, logic and compares of the INT (ALU) pipe. Measured on the H100
//    (scripts/microbench/expansion.cu): IMAD + SHF + LOP3 per step costs 4.1 cycles per warp,
//    what the two ALU instructions cost alone (6 if all three shared a pipe). The model does not
//    make them contend with FP32 instructions for the heavy half.
//  - votes and matches: their own latencies (pipes.vote, pipes.match); a match also its own
//    pipe, which the H100 frees one MATCH.ANY per 32 cycles per sub-partition (chains.cu: 61
//    cycles a link with one warp per scheduler, 128 with four).
//  - PTX instructions that ptxas expands into sequences (IEEE division, reciprocal and square
//    root, integer division): they hold the sub-partition's issue port (`holds_port`) for their
//    pipe's interval, the cycles the sequence's instructions take to issue.
struct IssuePipe {
  int index;  // into pipe_free_
  const PipeConfig* cfg;
  bool holds_port;
};
constexpr int kImadPipe = 12;   // after the UnitClass values
constexpr int kMatchPipe = 13;  // match.sync
constexpr int kPipeCount = 14;

IssuePipe issue_pipe(const PipesConfig& p, const ptx::Instruction& i, ptx::UnitClass unit);

// Each instruction's unit (ptx::unit_of), issue pipe and whether ptxas calls a slow path for it
// (schedule.h: calls_slow_path), worked out the first time it is asked for and kept by
// (function, pc) of the module: the SM asks for each instruction it fetches.
class IssuePipes {
 public:
  struct Entry {
    IssuePipe pipe{0, nullptr, false};
    ptx::UnitClass unit = ptx::UnitClass::Misc;
    bool slow_path = false;
  };
  explicit IssuePipes(const PipesConfig& p) : pipes_(&p) {}
  const Entry& of(const ptx::Instruction& i, int32_t function, int32_t pc) {
    if (function >= 0 && pc >= 0 && static_cast<size_t>(function) < table_.size()) {
      const std::vector<Entry>& f = table_[function];
      if (static_cast<size_t>(pc) < f.size() && f[pc].pipe.cfg) return f[pc];
    }
    return learn(i, function, pc);
  }

 private:
  const Entry& learn(const ptx::Instruction& i, int32_t function, int32_t pc);  // not known yet
  Entry make(const ptx::Instruction& i) const;
  const PipesConfig* pipes_;
  std::vector<std::vector<Entry>> table_;  // [function][pc]; pipe.cfg == nullptr: not known yet
  Entry scratch_;
};

}  // namespace warplab::timing
