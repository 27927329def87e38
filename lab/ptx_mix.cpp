// The instruction mix by PTX opcode family (see ptx_mix.h).
#include "lab/ptx_mix.h"

#include <set>
#include <vector>

namespace warplab::lab {
namespace {

bool is_type_suffix(std::string_view s) {
  static const std::set<std::string_view> kTypes = {
      "b8",  "b16", "b32", "b64", "b128", "u8",  "u16", "u32",  "u64",
      "s8",  "s16", "s32", "s64", "pred", "f16", "f16x2", "bf16", "bf16x2",
      "f32", "f64", "tf32", "e4m3", "e5m2"};
  return kTypes.contains(s);
}
bool is_float_type(std::string_view s) { return s.starts_with("f") || s.starts_with("bf"); }

// The opcode of an instruction's text: the first word after an optional "@%p" / "@!%p" guard.
std::string_view opcode_of(std::string_view text) {
  auto skip_space = [&] {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  };
  skip_space();
  if (text.starts_with("@")) {
    const size_t sp = text.find_first_of(" \t");
    text = sp == std::string_view::npos ? std::string_view() : text.substr(sp);
    skip_space();
  }
  const size_t end = text.find_first_of(" \t;{");
  return text.substr(0, end);
}

void add_function(const ptx::Module& module, const ptx::Function& f,
                  const func::LaunchStats* stats, std::set<const ptx::Function*>& seen,
                  InstructionMix& mix) {
  if (!seen.insert(&f).second) return;
  for (const ptx::Instruction& in : f.instructions) {
    MixCount& c = mix[opcode_family(opcode_of(in.text))];
    ++c.written;
    if (stats)
      if (auto it = stats->by_ptx_line.find(in.ptx_line); it != stats->by_ptx_line.end())
        c.executed += it->second.warp_instructions;
    if (in.callee >= 0 && static_cast<size_t>(in.callee) < module.functions.size())
      add_function(module, module.functions[in.callee], stats, seen, mix);
  }
}

}  // namespace

std::string opcode_family(std::string_view opcode) {
  std::vector<std::string_view> parts;
  for (size_t start = 0;;) {
    const size_t dot = opcode.find('.', start);
    parts.push_back(opcode.substr(start, dot == std::string_view::npos ? dot : dot - start));
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  std::string out(parts[0]);
  const std::string_view op = parts[0];
  // Memory operations: the state space and the vector width say what the memory system sees.
  if (op == "ld" || op == "st" || op == "atom" || op == "red" || op == "cp" || op == "ldmatrix") {
    for (size_t i = 1; i < parts.size() && i < 4; ++i) {
      const std::string_view p = parts[i];
      const bool keep = p == "global" || p == "shared" || p == "local" || p == "const" ||
                        p == "param" || p == "async" || p == "v2" || p == "v4" || p == "v8";
      if (keep) out += "." + std::string(p);
    }
    return out;
  }
  if (op == "shfl" || op == "bar" || op == "vote" || op == "match" || op == "redux") {
    if (parts.size() > 1 && !is_type_suffix(parts[1])) out += "." + std::string(parts[1]);
    return out;
  }
  for (size_t i = parts.size(); i-- > 1;)
    if (is_type_suffix(parts[i])) {
      if (is_float_type(parts[i])) out += "." + std::string(parts[i]);
      break;
    }
  return out;
}

InstructionMix instruction_mix(const ptx::Module& module, const std::string& entry,
                               const func::LaunchStats* stats) {
  InstructionMix mix;
  std::set<const ptx::Function*> seen;
  if (const ptx::Function* f = module.find_function(entry)) add_function(module, *f, stats, seen, mix);
  return mix;
}

}  // namespace warplab::lab
