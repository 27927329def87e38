// The app's scripted mode (`warplab-app --script FILE`): one command per line, for tests and for
// the screenshots in the README. Commands:
//   lesson ID             select a lesson ("02" or "02-coalescing")
//   experiment FILE       select one of its experiments by file name ("stride-sweep.toml")
//   set NAME VALUE        set a parameter of the selected experiment
//   run                   run the selected experiment (one point)
//   sweep                 run every point of its [sweep]
//   wait                  wait until the run or sweep finishes
//   cancel                press Cancel: the run, or the sweep and its running point, stops
//   play                  play the warp timeline
//   frames N              draw N frames
//   select-launch N       show launch N of the run in the trace panels
//   cursor C              put the timeline's cycle cursor at cycle C
//   open-point N          show point N (0-based, sweep order) of the selected experiment's sweep
//   zoom-sm N             the whole-GPU view zooms into SM N's warp schedulers
//   edit-replace OLD NEW  in the selected experiment's kernel (the editor), replace the first OLD
//                         by NEW (single words)
//   compile               compile and run the edited kernel
//   revert                drop the edit: the lesson's original kernel again
//   step N                select step N (0-based) of the lesson's lesson.toml
//   check-step            run the selected step and evaluate its questions and claims
//   reply Q TEXT          answer question Q (0-based) of the selected step with TEXT (one word;
//                         a prediction before the run, for a predict question)
//   view NAME             bring a view forward: page, source, timeline, buffers, gpu (whole GPU),
//                         memory, lanes, flow (memory flow), banks (shared-memory banks), help
//   screenshot OUT.png    write the window to a PNG
//   pick-line N           click CUDA line N in the code view (its PTX marked on the timeline)
//   code-pane NAME        the pane beside the CUDA: ptx, schedule or sass
//   pin                   pin the run shown (A/B: the views compare it with the next run shown)
//   unpin                 drop the pinned run
//   sweep-metric NAME     the sweep chart's metric: time, sectors, gbps or occupancy
//   run-on WHERE          where the next runs go: sim, both or gpu (--backend; run_control.h)
//   mode NAME             how the model runs them: full or sampled (--sampled)
//   sched NAME            the warp scheduling policy: lrr, gto or preset (--sched)
//   quit                  exit (the end of the file quits too)
// Blank lines and lines starting with '#' are ignored. Parsing is separate from running, so a
// script with a typo fails before anything runs, naming FILE:LINE.
#pragma once

#include <string>
#include <vector>

#include "sim/common/error.h"

namespace warplab::app {

struct ScriptCommand {
  enum class Kind {
    Lesson,
    Experiment,
    Set,
    Run,
    Sweep,
    Wait,
    Cancel,
    Play,
    Frames,
    SelectLaunch,
    OpenPoint,
    ZoomSm,
    EditReplace,
    Compile,
    Revert,
    Step,
    CheckStep,
    Reply,
    Cursor,
    View,
    Screenshot,
    PickLine,
    CodePane,
    Pin,
    Unpin,
    SweepMetric,
    RunOn,
    Mode,
    Sched,
    Quit
  };
  Kind kind = Kind::Quit;
  std::string arg, arg2;  // lesson id, file, name/value, view name, png path
  long number = 0;        // frames N, select-launch N, open-point N, zoom-sm N
  int line = 0;
};

Expected<std::vector<ScriptCommand>> parse_app_script(const std::string& text,
                                                      const std::string& path);

}  // namespace warplab::app
