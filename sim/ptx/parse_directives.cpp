// Declarations of the PTX front end: functions and their parameters, performance directives,
// variables with initialisers, registers, call-scope parameters, .loc, function bodies and labels.
//
// Kernel parameters are laid out the way the driver lays out the parameter buffer: each at the
// next multiple of its alignment (declared with .align, else its element size).
#include <cmath>
#include <cstring>

#include "sim/ptx/parser_state.h"

namespace warplab::ptx::detail {
namespace {

uint64_t align_up(uint64_t v, uint64_t a) { return a <= 1 ? v : (v + a - 1) / a * a; }

uint8_t parse_vec_width(std::string_view w) {
  if (w == ".v2") return 2;
  if (w == ".v4") return 4;
  if (w == ".v8") return 8;
  return 0;
}

std::optional<Type> directive_type(std::string_view w) {
  if (w.size() < 2 || w[0] != '.') return std::nullopt;
  return parse_type(w.substr(1));
}

uint64_t loc_key(const SourceLoc& l) {
  return (static_cast<uint64_t>(static_cast<uint16_t>(l.file)) << 48) |
         (static_cast<uint64_t>(static_cast<uint32_t>(l.line)) << 16) |
         static_cast<uint16_t>(l.column);
}

}  // namespace

// ---- functions
// -----------------------------------------------------------------------------------

void Parser::parse_function(const Linkage& linkage, bool is_entry, int line) {
  Function f;
  f.is_entry = is_entry;
  f.is_visible = linkage.is_visible;
  f.is_extern = linkage.is_extern;
  f.ptx_line = line;
  if (!is_entry && peek().is('(')) parse_param_list(f.returns, "return value");
  const Token& name =
      expect_word(is_entry ? "a kernel name after .entry" : "a function name after .func");
  f.name = std::string(name.text);
  if (peek().is('(')) parse_param_list(f.params, "parameter");
  // Attributes and performance directives between the signature and the body.
  while (peek().kind == Token::Kind::Word && !peek().text.empty() && peek().text[0] == '.') {
    if (accept_word(".noreturn")) continue;
    if (peek().is_word(".pragma")) {
      take();
      expect_string("a string after .pragma");
      expect(';', "after .pragma");
      continue;
    }
    parse_performance_directive(f);
  }
  layout_params(f.params, &f.param_bytes);
  uint64_t return_bytes = 0;
  layout_params(f.returns, &return_bytes);
  if (f.param_bytes > limits::kParamBytes || return_bytes > limits::kParamBytes)
    fail(name.line, "the parameters of '" + f.name + "' take " +
                        std::to_string(std::max(f.param_bytes, return_bytes)) +
                        " bytes; CUDA allows at most " + std::to_string(limits::kParamBytes));

  const bool has_body = peek().is('{');
  if (!has_body) {
    expect(';', "or '{' after the signature of '" + f.name + "'");
    f.is_extern = true;  // a declaration only
  }
  int32_t index;
  const auto it = functions_.find(f.name);
  if (it == functions_.end()) {
    index = static_cast<int32_t>(module_.functions.size());
    functions_.emplace(f.name, index);
    module_.functions.push_back(std::move(f));
  } else {
    index = it->second;
    Function& old = module_.functions[static_cast<size_t>(index)];
    if (!old.is_extern && has_body)
      fail(line, "function '" + f.name + "' is defined twice (first at line " +
                     std::to_string(old.ptx_line) + ")");
    if (has_body || old.is_extern) {
      f.is_visible = f.is_visible || old.is_visible;
      old = std::move(f);
    }
  }
  if (has_body) {
    module_.functions[static_cast<size_t>(index)].is_extern = false;
    parse_body(index);
  }
}

void Parser::parse_param_list(std::vector<Param>& out, std::string_view what_for) {
  expect('(', "to open the " + std::string(what_for) + " list");
  if (accept(')')) return;
  while (true) {
    out.push_back(parse_param_decl());
    if (accept(')')) return;
    if (!peek().is(','))
      fail_at(peek(), "',' or ')' after " + std::string(what_for) + " '" + out.back().name + "'");
    take();
  }
}

Param Parser::parse_param_decl() {
  const Token& kw = peek();
  if (kw.is_word(".reg"))
    fail(kw.line, "'.reg' parameters are not supported (nvcc declares parameters with .param)");
  if (!kw.is_word(".param")) fail_at(kw, "'.param'");
  take();
  Param p;
  bool have_type = false;
  uint8_t vec = 1;
  while (peek().kind == Token::Kind::Word && !peek().text.empty() && peek().text[0] == '.') {
    const Token& t = take();
    if (t.text == ".align") {
      const auto align = static_cast<uint32_t>(expect_uint("an alignment after .align"));
      if (align == 0 || (align & (align - 1)) != 0)
        fail(t.line, ".align must be a power of two, found " + std::to_string(align));
      // After .ptr (".param .u64 .ptr .global .align 1 p", as Triton declares its pointers) it is
      // the alignment of what the pointer points to; the parameter keeps its type's alignment.
      if (!p.is_ptr) p.align = align;
    } else if (t.text == ".ptr") {
      p.is_ptr = true;
    } else if (uint8_t v = parse_vec_width(t.text)) {
      vec = v;
    } else if (auto type = directive_type(t.text)) {
      p.type = *type;
      have_type = true;
    } else if (t.text == ".global" || t.text == ".const" || t.text == ".shared" ||
               t.text == ".local") {
      if (!p.is_ptr) fail(t.line, "state space " + describe(t) + " in a parameter needs .ptr");
    } else {
      fail(t.line, "unexpected " + describe(t) + " in a parameter declaration");
    }
  }
  if (!have_type) fail_at(peek(), "a type (.u32, .b64, ...) in the parameter declaration");
  const Token& name = expect_word("a parameter name");
  p.name = std::string(name.text);
  const uint64_t elem_bytes = static_cast<uint64_t>(std::max(1, type_bits(p.type) / 8));
  uint64_t count = vec;
  while (accept('[')) {
    const Token& size = peek();
    const uint64_t n = expect_uint("an array size");
    if (__builtin_mul_overflow(count, n, &count) || count > limits::kParamBytes / elem_bytes)
      fail(size.line, "parameter '" + p.name + "' is over the " +
                          std::to_string(limits::kParamBytes) +
                          " bytes a parameter may take (CUDA's limit for a kernel's parameters)");
    expect(']', "after the array size");
  }
  p.size = count * elem_bytes;
  return p;
}

void Parser::layout_params(std::vector<Param>& params, uint64_t* total) const {
  uint64_t offset = 0;
  for (Param& p : params) {
    const uint64_t a =
        p.align ? p.align : static_cast<uint64_t>(std::max(1, type_bits(p.type) / 8));
    offset = align_up(offset, a);
    p.offset = offset;
    offset += p.size;
  }
  *total = offset;
}

void Parser::parse_performance_directive(Function& fn) {
  const Token& t = take();
  auto dims = [&](std::array<uint32_t, 3>& out) {
    out = {1, 1, 1};
    for (int i = 0; i < 3; ++i) {
      out[static_cast<size_t>(i)] = static_cast<uint32_t>(expect_uint("a thread count"));
      if (!accept(',')) break;
    }
  };
  if (t.text == ".maxntid") return dims(fn.hints.maxntid);
  if (t.text == ".reqntid") return dims(fn.hints.reqntid);
  if (t.text == ".minnctapersm") {
    fn.hints.minnctapersm = static_cast<uint32_t>(expect_uint("a block count after .minnctapersm"));
    return;
  }
  if (t.text == ".maxnreg") {
    fn.hints.maxnreg = static_cast<uint32_t>(expect_uint("a register count after .maxnreg"));
    return;
  }
  if (t.text == ".maxnctapersm") {  // deprecated, ignored
    expect_uint("a block count after .maxnctapersm");
    return;
  }
  if (t.text == ".reqnctapercluster") {
    fn.hints.reqnctapercluster = {1, 1, 1};
    for (int i = 0; i < 3; ++i) {
      fn.hints.reqnctapercluster[static_cast<size_t>(i)] =
          static_cast<uint32_t>(expect_uint("a block count after .reqnctapercluster"));
      if (!accept(',')) break;
    }
    return;
  }
  if (t.text == ".explicitcluster") {
    fn.hints.explicitcluster = true;
    return;
  }
  if (t.text == ".maxclusterrank") {
    fn.hints.maxclusterrank =
        static_cast<uint32_t>(expect_uint("a block count after .maxclusterrank"));
    return;
  }
  fail(t.line, "unexpected " + describe(t) + " before the body of '" + fn.name +
                   "': expected .maxntid, .reqntid, .minnctapersm, .maxnreg, .reqnctapercluster, "
                   ".explicitcluster, .maxclusterrank, ';' or '{'");
}

// ---- variables ---------------------------------------------------------------------------------

uint64_t Parser::variable_limit(Space space) {
  switch (space) {
    case Space::Shared:
      return limits::kStaticSharedBytes;
    case Space::Local:
      return limits::kLocalBytesPerThread;
    case Space::Const:
      return limits::kConstBytes;
    default:
      return limits::kGlobalBytes;
  }
}

std::string Parser::variable_limit_text(Space space) {
  switch (space) {
    case Space::Shared:
      return "the 48 KB of static .shared memory a kernel may declare (more needs dynamic shared "
             "memory: an extern .shared array and the launch's shared-memory size)";
    case Space::Local:
      return "the 512 KB of .local memory a thread may have";
    case Space::Const:
      return "the 64 KB constant bank";
    default:
      return "the 1 GiB WarpLab allows for a module's .global variables (use an experiment buffer "
             "for larger arrays)";
  }
}

void Parser::parse_variable(Space space, const Linkage& linkage, int32_t owner) {
  const int line = peek().line;
  Variable proto;
  proto.space = space;
  proto.is_extern = linkage.is_extern;
  proto.is_visible = linkage.is_visible;
  proto.ptx_line = line;
  proto.function = owner;
  uint8_t vec = 1;
  bool have_type = false;
  bool have_align = false;
  while (peek().kind == Token::Kind::Word && !peek().text.empty() && peek().text[0] == '.') {
    const Token& t = take();
    if (t.text == ".align") {
      proto.align = static_cast<uint32_t>(expect_uint("an alignment after .align"));
      have_align = true;
      if (proto.align == 0 || (proto.align & (proto.align - 1)) != 0)
        fail(t.line, ".align must be a power of two, found " + std::to_string(proto.align));
    } else if (uint8_t v = parse_vec_width(t.text)) {
      vec = v;
    } else if (auto type = directive_type(t.text)) {
      proto.type = *type;
      have_type = true;
    } else if (t.text == ".attribute") {
      fail(t.line, "variable attributes (.attribute(.managed)) are not supported");
    } else if (t.text == ".texref" || t.text == ".surfref" || t.text == ".samplerref") {
      fail(t.line, "textures and surfaces are not supported");
    } else {
      fail(t.line, "unexpected " + describe(t) + " in a variable declaration");
    }
  }
  if (!have_type) fail_at(peek(), "a type (.b8, .u32, .f32, ...) in the variable declaration");
  const uint64_t elem_bytes = static_cast<uint64_t>(std::max(1, type_bits(proto.type) / 8));
  if (!have_align) proto.align = static_cast<uint32_t>(elem_bytes * vec);

  while (true) {
    Variable var = proto;
    const Token& name = expect_word("a variable name");
    var.name = std::string(name.text);
    uint64_t count = vec;
    bool unsized = false;
    const uint64_t cap = variable_limit(space);
    while (accept('[')) {
      if (accept(']')) {
        unsized = true;
        continue;
      }
      const uint64_t n = expect_uint("an array size or ']'");
      if (__builtin_mul_overflow(count, n, &count) || count > cap / elem_bytes)
        fail(name.line, "variable '" + var.name + "' is over " + variable_limit_text(space));
      expect(']', "after the array size");
    }
    var.count = unsized ? 0 : count;
    var.size = var.count * elem_bytes;
    if (accept('=')) {
      parse_initialiser(var, var.init, 0);
      const uint64_t init_elems = var.init.size() / elem_bytes;
      if (unsized) {
        var.count = init_elems;
        var.size = var.init.size();
        if (var.size > cap)
          fail(name.line, "variable '" + var.name + "' is over " + variable_limit_text(space));
      } else if (var.init.size() > var.size) {
        fail(name.line, "too many initialisers for '" + var.name +
                            "': " + std::to_string(init_elems) + " for " +
                            std::to_string(var.count) + " elements");
      }
      // Bytes past the initialiser are zeros (Variable::init); not stored here.
    }
    // The module's .global and .const variables share one limit each (a definition replacing an
    // .extern declaration of the same name counts once).
    const auto known = module_vars_.find(var.name);
    const bool redeclared = known != module_vars_.end() && var.is_extern;  // the first one stays
    if (owner < 0 && !redeclared && (space == Space::Global || space == Space::Const)) {
      const auto it = known;
      const uint64_t replaced =
          it == module_vars_.end() ? 0 : module_.variables[static_cast<size_t>(it->second)].size;
      uint64_t& total = space == Space::Global ? global_bytes_ : const_bytes_;
      total = total - std::min(total, replaced) + var.size;
      if (total > cap)
        fail(name.line,
             "the module's " + std::string(space == Space::Global ? ".global" : ".const") +
                 " variables are over " + variable_limit_text(space) + " with '" + var.name + "'");
    }
    if (unsized && !var.is_extern && var.init.empty())
      fail(name.line, "array '" + var.name + "' has no size (only .extern arrays may be unsized)");

    // Register the variable: module scope by name; function scope demoted, uniquely named.
    const int32_t index = static_cast<int32_t>(module_.variables.size());
    if (owner < 0) {
      const auto it = module_vars_.find(var.name);
      if (it != module_vars_.end()) {
        Variable& old = module_.variables[static_cast<size_t>(it->second)];
        if (!old.is_extern && !var.is_extern)
          fail(name.line, "variable '" + var.name + "' is declared twice (first at line " +
                              std::to_string(old.ptx_line) + ")");
        if (!var.is_extern) old = std::move(var);
      } else {
        module_vars_.emplace(var.name, index);
        module_.variables.push_back(std::move(var));
      }
    } else {
      const std::string written = var.name;
      if (fn_vars_.count(written))
        fail(name.line,
             "variable '" + written + "' is declared twice in " + function_kind_and_name());
      if (module_.find_variable(var.name) >= 0) var.name = fn().name + "::" + written;
      for (int k = 2; module_.find_variable(var.name) >= 0; ++k)
        var.name = fn().name + "::" + written + "#" + std::to_string(k);
      fn_vars_.emplace(written, index);
      module_.variables.push_back(std::move(var));
    }
    if (accept(';')) return;
    if (!peek().is(',')) fail_at(peek(), "',' or ';' after the variable declaration");
    take();
  }
}

void Parser::parse_initialiser(Variable& var, std::vector<uint8_t>& out, int depth) {
  if (depth > 8) fail(peek().line, "initialiser nested too deeply");
  if (accept('{')) {
    if (accept('}')) return;
    while (true) {
      parse_initialiser(var, out, depth + 1);
      if (accept('}')) return;
      if (!peek().is(',')) fail_at(peek(), "',' or '}' in the initialiser of '" + var.name + "'");
      take();
    }
  }
  append_init_value(var, out);
}

void Parser::append_init_value(const Variable& var, std::vector<uint8_t>& out) {
  const bool negative = accept('-');
  const Token& t = peek();
  if (t.kind == Token::Kind::Word)
    fail(t.line, "address initialisers ('" + std::string(t.text) + "' in '" + var.name +
                     "') are not supported");
  if (t.kind != Token::Kind::Number)
    fail_at(t, "a number in the initialiser of '" + var.name + "'");
  take();
  const Operand imm = parse_immediate(t, negative);
  uint64_t bits = imm.bits;
  const Type type = var.type;
  auto as_double = [&]() -> double {
    if (imm.imm_kind == Operand::ImmKind::F64) {
      double d;
      std::memcpy(&d, &imm.bits, 8);
      return d;
    }
    if (imm.imm_kind == Operand::ImmKind::F32) {
      float f;
      const uint32_t b = static_cast<uint32_t>(imm.bits);
      std::memcpy(&f, &b, 4);
      return f;
    }
    return static_cast<double>(static_cast<int64_t>(imm.bits));
  };
  if (type == Type::F32) {
    if (imm.imm_kind != Operand::ImmKind::F32) {
      const float f = static_cast<float>(as_double());
      uint32_t b;
      std::memcpy(&b, &f, 4);
      bits = b;
    }
  } else if (type == Type::F64) {
    if (imm.imm_kind != Operand::ImmKind::F64) {
      const double d = as_double();
      std::memcpy(&bits, &d, 8);
    }
  } else if (imm.imm_kind != Operand::ImmKind::Int) {
    fail(t.line, "a floating-point initialiser " + describe(t) + " for '" + var.name +
                     "' of type ." + std::string(type_name(type)));
  }
  const int bytes = std::max(1, type_bits(type) / 8);
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<uint8_t>(i < 8 ? bits >> (8 * i) : 0));
}

// ---- registers and call-scope parameters ------------------------------------------------------

void Parser::parse_reg_decl() {
  const Token& kw = take();  // .reg
  Type type = Type::None;
  while (peek().kind == Token::Kind::Word && !peek().text.empty() && peek().text[0] == '.') {
    const Token& t = take();
    if (parse_vec_width(t.text)) fail(t.line, "vector registers (.reg .v2/.v4) are not supported");
    const auto ty = directive_type(t.text);
    if (!ty) fail(t.line, "unexpected " + describe(t) + " in a .reg declaration: expected a type");
    type = *ty;
  }
  if (type == Type::None) fail_at(peek(), "a type after .reg");
  Scope& scope = scopes_.back();
  auto declare = [&](const std::string& name, int line) {
    if (fn().regs.size() >= limits::kRegistersPerFunction)
      fail(line, function_kind_and_name() + " declares more than " +
                     std::to_string(limits::kRegistersPerFunction) + " registers");
    if (!scope.regs.emplace(name, static_cast<int32_t>(fn().regs.size())).second)
      fail(line, "register '" + name + "' is declared twice");
    fn().regs.push_back(RegInfo{name, type});
  };
  while (true) {
    const Token& name = expect_word("a register name in the .reg declaration");
    if (accept('<')) {
      const uint64_t n = expect_uint("a register count after '<'");
      expect('>', "after the register count");
      if (n > limits::kRegistersPerFunction - fn().regs.size())
        fail(name.line, "'" + std::string(name.text) + "<" + std::to_string(n) + ">' declares " +
                            std::to_string(n) + " registers; " + function_kind_and_name() +
                            " may declare at most " +
                            std::to_string(limits::kRegistersPerFunction) + " in all");
      for (uint64_t i = 0; i < n; ++i)
        declare(std::string(name.text) + std::to_string(i), name.line);
    } else {
      declare(std::string(name.text), name.line);
    }
    if (accept(';')) return;
    if (!peek().is(',')) fail_at(peek(), "',' or ';' in the .reg declaration");
    take();
  }
  (void)kw;
}

void Parser::parse_call_param_decl() {
  Param p = parse_param_decl();
  const int line = peek().line;
  expect(';', "after the .param declaration");
  Scope& scope = scopes_.back();
  const int32_t index = static_cast<int32_t>(fn().call_params.size());
  if (!scope.call_params.emplace(p.name, index).second)
    fail(line, "parameter '" + p.name + "' is declared twice in this scope");
  if (p.align == 0) p.align = static_cast<uint32_t>(std::max(1, type_bits(p.type) / 8));
  fn().call_params.push_back(std::move(p));
}

// ---- .loc
// ----------------------------------------------------------------------------------------

void Parser::parse_loc() {
  take();  // .loc
  SourceLoc loc;
  loc.file = static_cast<int32_t>(expect_uint("a file index after .loc"));
  loc.line = static_cast<int32_t>(expect_uint("a line number in .loc"));
  if (peek().kind == Token::Kind::Number)
    loc.column = static_cast<int32_t>(expect_uint("a column"));
  SourceLoc user = loc;
  if (accept(',')) {
    // , function_name $L__info_string0 [+ N], inlined_at FILE LINE COL
    if (!accept_word("function_name")) fail_at(peek(), "'function_name' after ',' in .loc");
    expect_word("a label after function_name");
    if (accept('+')) expect_uint("an offset after '+'");
    if (accept(',')) {
      if (!accept_word("inlined_at")) fail_at(peek(), "'inlined_at' in .loc");
      SourceLoc site;
      site.file = static_cast<int32_t>(expect_uint("a file index after inlined_at"));
      site.line = static_cast<int32_t>(expect_uint("a line number after inlined_at"));
      if (peek().kind == Token::Kind::Number)
        site.column = static_cast<int32_t>(expect_uint("a column"));
      // The call site may itself lie in inlined code: follow it to the outermost caller.
      const auto it = inline_sites_.find(loc_key(site));
      user = it != inline_sites_.end() ? it->second : site;
      inline_sites_[loc_key(loc)] = user;
    }
  }
  loc_ = loc;
  user_loc_ = user;
}

// ---- bodies ------------------------------------------------------------------------------------

void Parser::parse_body(int32_t fn_index) {
  fn_index_ = fn_index;
  scopes_.clear();
  fn_vars_.clear();
  labels_.clear();
  pending_labels_.clear();
  inline_sites_.clear();
  loc_ = SourceLoc{};
  user_loc_ = SourceLoc{};
  const int open_line = expect('{', "to open the function body").line;
  scopes_.emplace_back();
  while (!scopes_.empty()) {
    if (peek().kind == Token::Kind::End)
      fail(open_line, "unterminated body of " + function_kind_and_name() + ": missing '}'");
    parse_body_statement();
  }
  resolve_labels();
  fn_index_ = -1;
}

void Parser::parse_body_statement() {
  const Token& t = peek();
  if (t.is('{')) {
    take();
    scopes_.emplace_back();
    return;
  }
  if (t.is('}')) {
    take();
    scopes_.pop_back();
    return;
  }
  if (t.is('@')) {
    const uint32_t start = t.offset;
    take();
    const bool neg = accept('!');
    const Token& reg = expect_word("a predicate register after '@'");
    const int32_t r = find_reg(reg.text);
    if (r < 0) fail(reg.line, "undeclared predicate register '" + std::string(reg.text) + "'");
    if (fn().regs[static_cast<size_t>(r)].type != Type::Pred)
      fail(reg.line, "guard '" + std::string(reg.text) + "' is not a .pred register");
    parse_instruction(r, neg, start);
    return;
  }
  if (t.kind != Token::Kind::Word) fail_at(t, "an instruction, label or directive");
  if (t.text[0] == '.') {
    if (t.text == ".reg") return parse_reg_decl();
    if (t.text == ".param") return parse_call_param_decl();
    if (t.text == ".loc") return parse_loc();
    if (t.text == ".pragma") {
      take();
      const Token& what = expect_string("a string after .pragma");
      // "nounroll" asks ptxas not to unroll the loop whose head follows (NVVM marks the
      // remainder loops it made this way); the timing model's compiler schedule honours it.
      if (what.text == "\"nounroll\"" || what.text == "nounroll")
        fn().nounroll.push_back(static_cast<int32_t>(fn().instructions.size()));
      expect(';', "after .pragma");
      return;
    }
    const Space space = t.text == ".local"    ? Space::Local
                        : t.text == ".shared" ? Space::Shared
                        : t.text == ".global" ? Space::Global
                        : t.text == ".const"  ? Space::Const
                                              : Space::None;
    if (space != Space::None) {
      take();
      return parse_variable(space, Linkage{}, fn_index_);
    }
    fail(t.line,
         "unexpected directive " + describe(t) + " in the body of " + function_kind_and_name());
  }
  if (peek(1).is(':')) {
    const Token& name = take();
    take();
    if (peek().is_word(".callprototype"))
      fail(name.line,
           "indirect calls (.callprototype) are not supported (nvcc -G emits them for "
           "some library code; compile without -G)");
    const int32_t at = static_cast<int32_t>(fn().instructions.size());
    if (!labels_.emplace(std::string(name.text), at).second)
      fail(name.line, "label '" + std::string(name.text) + "' is defined twice in " +
                          function_kind_and_name());
    fn().labels.emplace_back(std::string(name.text), at);
    return;
  }
  parse_instruction(-1, false, t.offset);
}

void Parser::resolve_labels() {
  for (PendingName& p : pending_labels_) {
    const auto it = labels_.find(p.name);
    if (it == labels_.end()) {
      pending_functions_.push_back(std::move(p));  // maybe a function name; checked at the end
      continue;
    }
    Instruction& inst = fn().instructions[static_cast<size_t>(p.instruction)];
    Operand& op = p.where == PendingName::Where::Op ? inst.ops[static_cast<size_t>(p.index)]
                  : p.where == PendingName::Where::CallReturn
                      ? inst.call_returns[static_cast<size_t>(p.index)]
                      : inst.call_args[static_cast<size_t>(p.index)];
    op.kind = Operand::Kind::Label;
    op.label = it->second;
  }
  pending_labels_.clear();
}

// ---- name lookup -------------------------------------------------------------------------------

int32_t Parser::find_reg(std::string_view name) const {
  const std::string key(name);
  for (auto s = scopes_.rbegin(); s != scopes_.rend(); ++s) {
    const auto it = s->regs.find(key);
    if (it != s->regs.end()) return it->second;
  }
  return -1;
}

std::optional<std::pair<Operand::Scope, int32_t>> Parser::find_symbol(std::string_view name) const {
  const std::string key(name);
  for (auto s = scopes_.rbegin(); s != scopes_.rend(); ++s) {
    const auto it = s->call_params.find(key);
    if (it != s->call_params.end()) return std::pair{Operand::Scope::CallParam, it->second};
  }
  const Function& f = module_.functions[static_cast<size_t>(fn_index_)];
  for (size_t i = 0; i < f.params.size(); ++i)
    if (f.params[i].name == name) return std::pair{Operand::Scope::Param, static_cast<int32_t>(i)};
  for (size_t i = 0; i < f.returns.size(); ++i)
    if (f.returns[i].name == name)
      return std::pair{Operand::Scope::Return, static_cast<int32_t>(i)};
  if (const auto it = fn_vars_.find(key); it != fn_vars_.end())
    return std::pair{Operand::Scope::Variable, it->second};
  if (const auto it = module_vars_.find(key); it != module_vars_.end())
    return std::pair{Operand::Scope::Variable, it->second};
  return std::nullopt;
}

std::string Parser::function_kind_and_name() const {
  const Function& f = module_.functions[static_cast<size_t>(fn_index_)];
  return (f.is_entry ? "kernel '" : "function '") + f.name + "'";
}

}  // namespace warplab::ptx::detail
