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
  BufferInit init;
  int line = 0;
};

// One kernel argument as written: a buffer (passed as its device address) or a scalar expression.
struct ArgDef {
  enum class Kind { Buffer, Scalar };
  Kind kind = Kind::Scalar;
  std::string buffer;  // Buffer
  Expr expr;           // Scalar
  std::string text;    // as written, for messages
  int line = 0;
};

struct LaunchDef {
  std::string kernel;               // as written: the C++ name or the PTX (mangled) entry name
  std::array<Expr, 3> grid, block;  // missing dimensions are 1
  Expr shared_bytes;                // dynamic shared memory in bytes
  Expr repeat;                      // how many times to launch (default 1)
  std::vector<ArgDef> args;
  int line = 0;
  int kernel_line = 0, args_line = 0;
};

struct CheckDef {
  std::string buffer;
  std::string expect_buffer;  // one of expect_buffer / expect_npy is set
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
  enum class SourceKind { Cuda, Ptx };
  SourceKind source_kind = SourceKind::Cuda;
  std::string source;  // resolved path of the .cu or .ptx
  int source_line = 0;
  std::string arch = "compute_90";                    // NVRTC --gpu-architecture
  std::vector<std::string> options;                   // extra NVRTC options
  std::vector<std::pair<std::string, Expr>> defines;  // -DNAME=<value>, evaluated per run
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
  Env env() const;                                  // parameter name -> current value
};

Expected<Experiment> load_experiment(const std::string& path);
Expected<Experiment> parse_experiment(const std::string& toml_text, const std::string& path);

// Applies `--set NAME=VALUE`: NAME must be a parameter, VALUE an expression over the parameters;
// a value outside the parameter's choices or range is an error.
Status set_param(Experiment& exp, const std::string& assignment);
// Checks one value against a parameter's choices and range.
Status check_param_value(const Experiment& exp, const ParamDef& p, const Value& v);

}  // namespace warplab::lab
