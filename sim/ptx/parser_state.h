// Internal to the PTX front end: the parser's state, shared by parser.cpp (module level),
// parse_directives.cpp (declarations, .loc, bodies) and parse_instruction.cpp (instructions).
//
// Errors inside the parser are thrown as ParseFailure and caught once, in parse_module(), which
// returns them as an Error: no exception ever leaves the front end.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sim/common/error.h"
#include "sim/ptx/ir.h"
#include "sim/ptx/lexer.h"

namespace warplab::ptx::detail {

struct ParseFailure {
  Error error;
  bool unsupported = false;  // valid PTX WarpLab does not simulate (fail_unsupported)
};

struct Linkage {
  bool is_visible = false;
  bool is_extern = false;
  bool is_weak = false;
};

// A name the instruction used before it was declared: a label (resolved when the function ends)
// or a function (resolved when the module ends).
struct PendingName {
  enum class Where : uint8_t { Op, CallReturn, CallArg, Callee };
  int32_t function = -1;
  int32_t instruction = -1;
  Where where = Where::Op;
  int32_t index = 0;  // operand index within `where`
  std::string name;
  int line = 0;
};

// How many operands an instruction takes ("d|p" counts as one), or -1 when it varies
// (parse_operands.cpp).
int operand_count(const Instruction& inst);
bool is_tensor_op(Opcode op);  // mma, ldmatrix, stmatrix, movmatrix (parse_tensor.cpp)
bool parse_tensor_shape(std::string_view m, TensorMods& t);  // ".m64n128k16" (parse_tensor.cpp)
std::optional<MmaType> parse_mma_type(std::string_view m);   // "bf16" (parse_tensor.cpp)

class Parser {
 public:
  Parser(std::string_view text, std::vector<Token> tokens, std::string path);
  Module parse();  // throws ParseFailure

 private:
  // ---- cursor and errors (parser.cpp) ----
  const Token& peek(size_t ahead = 0) const;
  const Token& take();
  bool accept(char punct);
  bool accept_word(std::string_view word);
  const Token& expect(char punct, std::string_view what_for);
  const Token& expect_word(std::string_view what_for);
  const Token& expect_string(std::string_view what_for);
  uint64_t expect_uint(std::string_view what_for);
  [[noreturn]] void fail(int line, std::string message) const;
  [[noreturn]] void fail_at(const Token& token, std::string_view expected) const;
  // Inside an instruction: valid PTX that WarpLab does not simulate. parse_instruction records it
  // in the function (Function::unsupported) and goes on with the next statement.
  [[noreturn]] void fail_unsupported(int line, std::string message) const;
  void skip_statement();  // to the next ';' at this brace depth
  void skip_braced_block();

  // ---- module level (parser.cpp) ----
  void parse_top_level_statement();
  void parse_version();
  void parse_target();
  void parse_file_directive();
  void resolve_functions();

  // ---- declarations and bodies (parse_directives.cpp) ----
  void parse_function(const Linkage& linkage, bool is_entry, int line);
  void parse_param_list(std::vector<Param>& out, std::string_view what_for);
  Param parse_param_decl();
  void layout_params(std::vector<Param>& params, uint64_t* total) const;
  void parse_performance_directive(Function& fn);
  void parse_variable(Space space, const Linkage& linkage, int32_t owner);
  void parse_initialiser(Variable& var, std::vector<uint8_t>& out, int depth);
  void append_init_value(const Variable& var, std::vector<uint8_t>& out);
  void parse_reg_decl();
  void parse_call_param_decl();
  void parse_loc();
  void parse_body(int32_t fn_index);
  void parse_body_statement();
  void resolve_labels();

  // ---- instructions (parse_instruction.cpp) ----
  void parse_instruction(int32_t guard, bool guard_neg, uint32_t start_offset);
  void parse_instruction_body(int32_t guard, bool guard_neg, uint32_t start_offset);
  void apply_modifiers(Instruction& inst, const std::vector<std::string_view>& parts,
                       std::string_view opcode_text, int line);
  bool apply_memory_modifier(Instruction& inst, std::string_view m);
  // mma/ldmatrix/stmatrix/movmatrix (parse_tensor.cpp)
  void apply_tensor_modifiers(Instruction& inst, const std::vector<std::string_view>& parts,
                              std::string_view opcode_text, int line);
  // cp.async*, cp.async.bulk*, mbarrier.*, elect.sync (parse_async.cpp); operand checks after.
  void apply_async_modifiers(Instruction& inst, const std::vector<std::string_view>& parts,
                             std::string_view opcode_text, int line);
  void check_async_operands(const Instruction& inst, std::string_view opcode_text, int line) const;
  // cp.async.bulk.tensor, cp.async.bulk.prefetch.tensor, tensormap.* (parse_tma.cpp): the
  // modifiers, the operands (the tensor map and its coordinates share one bracket), the checks.
  void apply_tma_modifiers(Instruction& inst, const std::vector<std::string_view>& parts,
                           std::string_view opcode_text, int line);
  void parse_tma_operands(Instruction& inst, std::string_view opcode_text);
  void check_tma_operands(const Instruction& inst, std::string_view opcode_text, int line) const;
  // wgmma.* (parse_wgmma.cpp): modifiers, then the operands (the immediates go to TensorMods).
  void apply_wgmma_modifiers(Instruction& inst, const std::vector<std::string_view>& parts,
                             std::string_view opcode_text, int line);
  void check_wgmma_operands(Instruction& inst, std::string_view opcode_text, int line) const;
  static uint64_t variable_limit(Space space);  // bytes one variable may take (ir.h limits)
  static std::string variable_limit_text(Space space);
  void check_barrier_operands(const Instruction& inst, int line) const;
  void check_setmaxnreg(const Instruction& inst, std::string_view opcode_text, int line) const;
  void parse_operands(Instruction& inst, std::string_view opcode_text);
  void parse_call_operands(Instruction& inst, std::string_view opcode_text);
  Operand parse_operand(Instruction& inst, PendingName::Where where, int32_t index);
  Operand parse_address(std::string_view opcode_text);
  Operand parse_vector(bool wide_ok);  // wide_ok: up to 128 elements (wgmma's accumulators)
  Operand parse_immediate(const Token& number, bool negative);
  std::optional<Operand> special_register(std::string_view name) const;

  // ---- name lookup (parse_directives.cpp) ----
  int32_t find_reg(std::string_view name) const;  // -1 when undeclared
  // A variable/parameter visible here: (scope, index), or nullopt.
  std::optional<std::pair<Operand::Scope, int32_t>> find_symbol(std::string_view name) const;
  Function& fn() { return module_.functions[static_cast<size_t>(fn_index_)]; }
  std::string function_kind_and_name() const;  // "kernel 'k'" / "function 'f'"

  struct Scope {
    std::unordered_map<std::string, int32_t> regs;
    std::unordered_map<std::string, int32_t> call_params;
  };

  std::string_view text_;
  std::vector<Token> tokens_;
  size_t pos_ = 0;
  Module module_;
  std::unordered_map<std::string, int32_t> module_vars_;  // module-scope variable names
  uint64_t global_bytes_ = 0, const_bytes_ = 0;  // module-scope .global / .const sizes so far
  std::unordered_map<std::string, int32_t> functions_;  // function name -> index
  std::vector<PendingName> pending_functions_;

  // The function whose body is being parsed.
  int32_t fn_index_ = -1;
  std::vector<Scope> scopes_;
  std::unordered_map<std::string, int32_t> fn_vars_;  // function-scope variables as written
  std::unordered_map<std::string, int32_t> labels_;
  std::vector<PendingName> pending_labels_;
  SourceLoc loc_;
  SourceLoc user_loc_;
  std::unordered_map<uint64_t, SourceLoc> inline_sites_;  // inlined location -> outermost caller
};

}  // namespace warplab::ptx::detail
