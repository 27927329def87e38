// Fuzz target: the experiment loader and the expression evaluator.
//
// The input is an experiment file (TOML). parse_experiment must return an Experiment or an Error
// naming a line. For one that loads: its parameters are evaluated, its buffers made when they are
// small (a fuzzer must not allocate the 16 GiB a buffer may legally hold), and its checks run on
// them. Every line of the input is also parsed and evaluated as an expression over the
// experiment's parameters, which reaches the evaluator with far stranger text than TOML allows.
// Relative paths resolve against lessons/calibration/, which holds a PTX file and no .npy.
#include <sstream>
#include <string>

#include "lab/buffers.h"
#include "lab/check.h"
#include "lab/experiment.h"
#include "lab/expr.h"
#include "tests/fuzz/fuzz_target.h"

using namespace warplab;
using namespace warplab::lab;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  Env env;
  auto exp =
      parse_experiment(text, std::string(WARPLAB_SOURCE_DIR) + "/lessons/calibration/f.toml");
  if (exp) {
    if (auto e = exp->eval_env()) env = *e;
    bool small = true;
    for (const BufferDef& b : exp->buffers) {
      if (b.count_from_npy || b.count_from_symbol) continue;
      auto c = b.count.eval_int(env);
      small &= !c || (*c >= 0 && *c <= (1 << 16));
    }
    if (small)
      if (auto bufs = make_buffers(*exp, env)) (void)run_checks(*exp, *bufs, env);
  }
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    auto e = Expr::parse(line);
    if (e) (void)e->eval(env);
  }
  return 0;
}
