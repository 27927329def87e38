// The tensor pipe: which [tensor] preset entry times each mma.sync form (see tensor_pipe.h).
#include "sim/timing/tensor_pipe.h"

#include <algorithm>

namespace warplab::timing {

const PipeConfig& tensor_pipe_of(const TensorConfig& t, const ptx::Instruction& mma) {
  using ptx::MmaType;
  // A warp's wgmma.mma_async takes one issue slot here; the warpgroup's work is timed by the SM's
  // wgmma unit (wgmma_pipe.h).
  static constexpr PipeConfig kWgmmaWarp{1, 1};
  if (mma.op == ptx::Opcode::Wgmma) return kWgmmaWarp;
  const ptx::TensorMods& m = mma.mod.tensor;
  switch (m.a) {
    case MmaType::TF32:
      return t.m16n8k8_tf32;
    case MmaType::S8:
    case MmaType::U8:
      return t.m16n8k32_s8;
    case MmaType::E4M3:
    case MmaType::E5M2:
      return t.m16n8k32_fp8;
    case MmaType::BF16:
      return m.k == 8 ? t.m16n8k8_f16 : t.m16n8k16_bf16;
    default:  // f16 (the parser admits no other mma.sync form)
      return m.k == 8 ? t.m16n8k8_f16 : t.m16n8k16_f16;
  }
}

SharedAccessCost shared_cost_of(const ptx::Instruction& inst, const std::array<uint64_t, 32>& addr,
                                uint32_t exec_mask, uint32_t access_bytes,
                                const SharedConfig& shared, bool serialize) {
  const auto banks = static_cast<uint32_t>(shared.banks);
  const auto bank_bytes = static_cast<uint32_t>(shared.bank_bytes);
  if (inst.op == ptx::Opcode::Ldmatrix || inst.op == ptx::Opcode::Stmatrix) {
    // Per 8x8 matrix pass, shared.matrix_cycles of the pipe (the H100: about 1, as a plain
    // wavefront): x1, x2 and x4 differ by what they move, not by a per-instruction cost.
    SharedAccessCost c = matrix_access_cost(addr, exec_mask, banks, bank_bytes);
    c.pipe_cycles = std::max(c.wavefronts, 1) * shared.matrix_cycles;
    return c;
  }
  return shared_access_cost(addr, exec_mask, access_bytes, banks, bank_bytes, serialize);
}

}  // namespace warplab::timing
