// Experiment files: the TOML an instructor writes to describe a run without any C++.
//
// An experiment names a CUDA (or PTX) source, named parameters, buffers with their initial
// contents, an ordered list of kernel launches, checks on the results and an optional sweep over
// parameter values. lessons/FORMAT.md is the reference for the format, with complete examples.
//
// load_experiment() reads and validates everything that can be checked without compiling: every
// key is known, every expression parses and reads only declared parameters, buffers and checks
// refer to each other correctly, files exist. What needs the kernel's PTX signature (kernel names,
// argument count and types) is checked by bind_launch() in args.h once the source is compiled.
// Every error names file:line and the key at fault, e.g.
//   lessons/vec_add.toml:31: launches[0].args[2]: 'q' is neither a buffer nor a parameter
#pragma once

#include <array>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "lab/elem_type.h"
#include "lab/expr.h"
#include "sim/common/error.h"

namespace warplab::lab {

// A named parameter: [params] N = 1024, or block = { value = 256, choices = [...] }.
struct ParamDef {
  std::string name;
  Value value;                    // default (after --set overrides: the current value)
  Expr derived;                   // non-empty: computed from other parameters ("N / TILE")
  std::vector<Value> choices;     // allowed values (empty = any)
  std::optional<Value> min, max;  // inclusive range (for sliders); either may be absent
  std::string description;
  int line = 0;
};

struct BufferInit {
  enum class Kind { Zeros, Constant, Iota, Uniform, Npy };
  Kind kind = Kind::Zeros;
  double constant = 0.0;           // Constant
  double start = 0.0, step = 1.0;  // Iota: element i = start + i * step
  double lo = 0.0, hi = 1.0;       // Uniform: [lo, hi)
  uint64_t seed = 0;               // Uniform
  std::string npy_path;            // Npy: absolute or relative to the working directory
};

struct BufferDef {
  std::string name;
  ElemType type = ElemType::F32;
  Expr count;  // elements; with init = npy and no count: the file's count
  bool count_from_npy = false;
  // symbol = "c_coeffs": the buffer IS the module's __constant__ / __device__ variable of that
  // name: its init is written there before the first launch, and it is read back after the last
  // (checked, dumped) like any buffer. Without count, the variable's size gives it.
  // Without init, a symbol buffer starts with the variable's own initializer (zeros when none).
  std::string symbol;
  bool count_from_symbol = false;
  BufferInit init;
  bool has_init = false;  // `init` was written
  int line = 0;
};

// A range of a buffer's elements: "y" (all of it), "y[0:N]", "y[N:]", "y[:16]" or "y[5]".
struct SliceDef {
  std::string buffer;
  Expr begin, end;      // empty: 0 / the buffer's count
  bool single = false;  // "y[5]": one element
  std::string text;     // as written
};

// One kernel argument as written: a buffer (passed as its device address, optionally offset by
// a number of elements: "x + 1024"), a scalar expression, or a struct passed by value.
struct ArgDef {
  // TensorMap: a `const __grid_constant__ CUtensorMap` built from a buffer (args.h).
  enum class Kind { Buffer, Scalar, Struct, TensorMap };
  Kind kind = Kind::Scalar;
  std::string buffer;  // Buffer
  Expr offset;         // Buffer: elements of the buffer's type (empty = 0)
  Expr expr;           // Scalar
  // A struct's field (or the struct itself when nested) has its own type; ElemType for scalars,
  // is_pointer for { ptr = "x" }. Top-level scalars take the kernel parameter's type instead.
  bool typed = false;
  ElemType type = ElemType::F32;
  std::vector<ArgDef> fields;  // Struct: in declaration order (arrays already expanded)
  uint32_t align = 0;          // Struct: declared alignment (0 = the largest field's)
  // TensorMap: { tensormap = "A", dims = [...], box = [...], strides, element_strides,
  // swizzle, oob_fill }, innermost dimension first as cuTensorMapEncodeTiled takes them;
  // strides in bytes for dimensions 1.. (empty: dense); element_strides empty: all 1.
  std::vector<Expr> tm_dims, tm_strides, tm_box, tm_estrides;
  uint8_t tm_swizzle = 0, tm_fill = 0;  // 0 none / 1 32B / 2 64B / 3 128B; 0 zero / 1 NaN
  std::string text;            // as written, for messages
  int line = 0;
};

// A loop variable of a repeated launch: `for = { k = { from = 2, to = "N", mul = 2 } }`.
// from, to: expressions over the parameters and the loops declared before it; the variable
// runs from `from` while it has not passed `to` (inclusive), changing by `step` (+1 default,
// may be negative), or multiplied by `mul`, or divided by `div` (integer division); or it takes
// the values of a list (`values = [32, 64]`).
struct LoopDef {
  std::string var;
  enum class Op { Add, Mul, Div, List };
  Op op = Op::Add;
  Expr from, to, step;
  std::vector<Expr> values;  // List
  int line = 0;
};

struct LaunchDef {
  // A kernel launch, or a step between launches done by the host on the device's buffers:
  // memset (every element of a buffer or slice set to `value`, in the buffer's type) or
  // memcpy (`from` a buffer or slice into `memcpy`, the same number of elements and bytes).
  // Loop: only `for` and `span`, a loop head that launches nothing itself: the entries it spans
  // run once per iteration ("for size: { for stride: merge_global; merge_shared }").
  enum class Kind { Kernel, Memset, Memcpy, Loop };
  Kind kind = Kind::Kernel;
  std::string kernel;               // as written: the C++ name or the PTX (mangled) entry name
  std::array<Expr, 3> grid, block;  // missing dimensions are 1
  // Thread-block cluster shape (`cluster = [2, 1, 1]`; sim/func/cluster.h): none when
  // has_cluster is false (the kernel's .reqnctapercluster, else clusters of one).
  std::array<Expr, 3> cluster;
  bool has_cluster = false;
  bool cluster_nonportable = false;  // `cluster_nonportable = true`: up to 16 blocks
  int cluster_line = 0;
  Expr shared_bytes;                // dynamic shared memory in bytes
  Expr repeat;                      // how many times to launch (default 1)
  std::string group;                // launches compared as one (totals in reports), "" = none
  std::vector<ArgDef> args;
  SliceDef target, source;     // Memset / Memcpy: the destination; Memcpy: the source
  Expr value;                  // Memset: the element value
  std::vector<LoopDef> loops;  // `for`: outermost first; empty = run once
  // `span = N`: the loops cover this entry and the N - 1 entries after it (which see the loop
  // variables and may have loops of their own, nested inside); 1 = this entry only.
  size_t span = 1;
  int line = 0;
  int kernel_line = 0, args_line = 0;
};

struct CheckDef {
  std::string buffer;
  SliceDef slice, expect_slice;  // "y[0:N]"; expect_slice only for a buffer expectation
  std::string expect_buffer;     // one of expect_buffer / expect_npy is set
  std::string expect_npy;
  double atol = 0.0, rtol = 0.0;
  bool exact = false;  // bit-exact (floats: same bits, NaN == NaN of the same bits)
  int show = 8;        // how many worst mismatches to report
  int line = 0;
};

struct SweepAxis {
  std::string param;
  std::vector<Value> values;
  int line = 0;
};

struct Experiment {
  std::string path;  // the TOML file as given
  std::string dir;   // its directory (relative paths in it resolve from here)
  std::string name, description;
  enum class SourceKind { Cuda, Ptx, Triton };
  SourceKind source_kind = SourceKind::Cuda;
  std::string source;  // resolved path of the .cu, .ptx or (Triton) .py
  int source_line = 0;
  std::string arch = "compute_90";   // NVRTC --gpu-architecture
  std::vector<std::string> options;  // extra NVRTC options
  struct Define {
    std::string name;  // a C identifier
    Expr value;        // evaluated per run: -DNAME=<value>
    int line = 0;
  };
  std::vector<Define> defines;
  int arch_line = 0, options_line = 0;  // 0 when the file does not give them
  std::vector<int> option_lines;        // per entry of `options`
  // [experiment] triton = "kernel.py" (lab/triton.h): the launches' kernel is a @triton.jit
  // function of that file, compiled with these settings (expressions over the parameters); every
  // launch runs 32 * num_warps threads per block and gets the scratch pointers and dynamic
  // shared memory Triton's metadata asks for.
  struct TritonDef {
    std::string function;  // the one @triton.jit function the launches name
    std::vector<std::pair<std::string, Expr>> constexprs;  // tl.constexpr parameter -> value
    Expr num_warps, num_stages;
    int target = 90;  // "sm_90" -> 90, "sm_80" -> 80
    int line = 0, constexprs_line = 0;
  };
  TritonDef triton;  // used when source_kind == Triton
  std::vector<ParamDef> params;
  std::vector<BufferDef> buffers;
  std::vector<LaunchDef> launches;
  std::vector<CheckDef> checks;
  std::vector<SweepAxis> sweep;  // empty = no sweep
  // [experiment] synccheck / racecheck / max_instructions / max_cycles (lab/runner.h RunOptions;
  // the command line's flags win). Unset limits take the defaults; 0 = no limit.
  bool synccheck = false, racecheck = false;
  std::optional<uint64_t> max_instructions, max_cycles;

  const ParamDef* find_param(const std::string& name) const;
  const BufferDef* find_buffer(const std::string& name) const;
  int buffer_index(const std::string& name) const;  // -1 when absent
  // Parameter name -> current value. Derived parameters ("N / TILE") are evaluated in dependency
  // order; env() leaves out one that cannot be evaluated (eval_env() says why).
  Env env() const;
  Expected<Env> eval_env() const;
};

Expected<Experiment> load_experiment(const std::string& path);
Expected<Experiment> parse_experiment(const std::string& toml_text, const std::string& path);

// Applies `--set NAME=VALUE`: NAME must be a parameter, VALUE an expression over the parameters;
// a value outside the parameter's choices or range is an error.
Status set_param(Experiment& exp, const std::string& assignment);
// Evaluates `loops` (outermost first) for `env` and calls `body` with each combination added to
// it, in order; stops at the first error (from a bound or from `body`). At most `limit`
// iterations in all (an endless or huge loop is an error naming the loop's line).
Status for_each_iteration(const Experiment& exp, const std::vector<LoopDef>& loops, const Env& env,
                          const std::function<Status(const Env&)>& body,
                          uint64_t limit = 1'000'000);

// Evaluates a slice for `env` against a buffer of `count` elements: [begin, end), bounds-checked.
Expected<std::pair<uint64_t, uint64_t>> eval_slice(const SliceDef& s, const Env& env,
                                                   uint64_t count);

// Checks one value against a parameter's choices and range.
Status check_param_value(const Experiment& exp, const ParamDef& p, const Value& v);

}  // namespace warplab::lab
