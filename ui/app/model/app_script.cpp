#include "ui/app/model/app_script.h"

#include <cstdlib>
#include <sstream>

namespace warplab::app {

Expected<std::vector<ScriptCommand>> parse_app_script(const std::string& text,
                                                      const std::string& path) {
  using K = ScriptCommand::Kind;
  struct Spec {
    const char* name;
    K kind;
    int args;  // 0, 1 or 2 words; -1: one number
  };
  static const Spec kSpecs[] = {{"lesson", K::Lesson, 1},
                                {"experiment", K::Experiment, 1},
                                {"set", K::Set, 2},
                                {"run", K::Run, 0},
                                {"sweep", K::Sweep, 0},
                                {"wait", K::Wait, 0},
                                {"cancel", K::Cancel, 0},
                                {"play", K::Play, 0},
                                {"frames", K::Frames, -1},
                                {"select-launch", K::SelectLaunch, -1},
                                {"open-point", K::OpenPoint, -1},
                                {"zoom-sm", K::ZoomSm, -1},
                                {"edit-replace", K::EditReplace, 2},
                                {"compile", K::Compile, 0},
                                {"revert", K::Revert, 0},
                                {"step", K::Step, -1},
                                {"check-step", K::CheckStep, 0},
                                {"reply", K::Reply, 2},
                                {"cursor", K::Cursor, -1},
                                {"view", K::View, 1},
                                {"screenshot", K::Screenshot, 1},
                                {"pick-line", K::PickLine, -1},
                                {"code-pane", K::CodePane, 1},
                                {"pin", K::Pin, 0},
                                {"unpin", K::Unpin, 0},
                                {"sweep-metric", K::SweepMetric, 1},
                                {"run-on", K::RunOn, 1},
                                {"mode", K::Mode, 1},
                                {"sched", K::Sched, 1},
                                {"quit", K::Quit, 0}};
  std::vector<ScriptCommand> out;
  std::istringstream in(text);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    std::istringstream words(line);
    std::vector<std::string> w;
    for (std::string x; words >> x;) w.push_back(x);
    if (w.empty() || w[0][0] == '#') continue;
    const Spec* spec = nullptr;
    for (const Spec& s : kSpecs)
      if (w[0] == s.name) spec = &s;
    if (!spec) {
      std::string names;
      for (const Spec& s : kSpecs) names += (names.empty() ? "" : ", ") + std::string(s.name);
      return Error{path, n, "unknown command '" + w[0] + "' (expected one of: " + names + ")"};
    }
    const size_t want = spec->args < 0 ? 1 : static_cast<size_t>(spec->args);
    if (w.size() - 1 != want)
      return Error{path, n,
                   "'" + w[0] + "' takes " + std::to_string(want) +
                       (want == 1 ? " argument" : " arguments") + ", got " +
                       std::to_string(w.size() - 1)};
    ScriptCommand c;
    c.kind = spec->kind;
    c.line = n;
    if (spec->args < 0) {
      char* end = nullptr;
      c.number = std::strtol(w[1].c_str(), &end, 10);
      if (!end || *end || c.number < 0 || c.number > 1000000)
        return Error{path, n,
                     "'" + w[0] + "' expects a whole number 0..1000000, got '" + w[1] + "'"};
    } else {
      if (want >= 1) c.arg = w[1];
      if (want >= 2) c.arg2 = w[2];
    }
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace warplab::app
