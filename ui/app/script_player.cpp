#include "ui/app/script_player.h"

#include <cstdio>
#include <cstdlib>

#include "ui/app/screenshot.h"

namespace warplab::app {

bool ScriptPlayer::fail(const ScriptCommand& c, const std::string& what) {
  std::fprintf(stderr, "%s:%d: %s\n", path_.c_str(), c.line, what.c_str());
  rc_ = 2;
  ended_ = true;
  return false;
}

bool ScriptPlayer::before_frame(AppState& s) {
  using K = ScriptCommand::Kind;
  if (ended_) return false;
  if (frames_left_ > 0) {
    --frames_left_;
    return true;
  }
  if (!shot_.empty()) return true;  // taken in after_render
  while (pc_ < cmds_.size()) {
    const ScriptCommand& c = cmds_[pc_];
    switch (c.kind) {
      case K::Lesson: {
        const int l = find_lesson(s.lessons, c.arg);
        if (l < 0) return fail(c, "no lesson '" + c.arg + "'");
        s.select_lesson(l);
        break;
      }
      case K::Experiment: {
        int e = -1;
        for (int k = 0; k < static_cast<int>(s.experiments.size()); ++k)
          if (file_name(s.experiments[k].path) == c.arg) e = k;
        if (e < 0) return fail(c, "the selected lesson has no experiment '" + c.arg + "'");
        s.select_experiment(e);
        break;
      }
      case K::Set: {
        if (s.experiment < 0 || s.experiment >= static_cast<int>(s.experiments.size()) ||
            !s.experiments[s.experiment].exp)
          return fail(c, "set: no experiment is selected (or it did not load)");
        if (auto st = lab::set_param(*s.experiments[s.experiment].exp, c.arg + "=" + c.arg2); !st)
          return fail(c, "set: " + st.error().message);
        break;
      }
      case K::Run:
        if (s.busy()) return true;  // the previous run first
        s.start_run();
        break;
      case K::Sweep:
        if (s.busy()) return true;
        s.start_sweep();
        break;
      case K::Wait:
        if (s.busy() || s.worker.generation() != s.seen_generation) return true;
        break;
      case K::Cancel:
        s.worker.cancel();
        break;
      case K::Play:
        s.playing = true;
        break;
      case K::Frames:
        ++pc_;
        frames_left_ = c.number;
        return true;
      case K::SelectLaunch:
        if (!s.run || c.number >= static_cast<long>(s.run->launches.size()))
          return fail(c, "select-launch " + std::to_string(c.number) + ": the run shown has " +
                             std::to_string(s.run ? s.run->launches.size() : 0) + " launches");
        s.select_launch(static_cast<int>(c.number));
        break;
      case K::OpenPoint: {
        const SweepSnapshot* sw = s.sweep();
        if (!sw || c.number >= static_cast<long>(sw->points.size()))
          return fail(c, "open-point " + std::to_string(c.number) +
                             ": the selected experiment's "
                             "sweep has " +
                             std::to_string(sw ? sw->points.size() : 0) + " points");
        s.open_run(sw->points[c.number].run);
        break;
      }
      case K::ZoomSm:
        if (!s.trace() || c.number >= s.trace()->sm_count)
          return fail(c, "zoom-sm " + std::to_string(c.number) + ": the run shown has " +
                             std::to_string(s.trace() ? s.trace()->sm_count : 0) + " SMs");
        s.gpu_zoom_sm = static_cast<int>(c.number);
        s.sched_fitted = false;
        s.left_tab = 2;
        break;
      case K::EditReplace: {
        if (s.editable_source().empty())
          return fail(c, "edit-replace: the selected experiment has no CUDA kernel");
        s.load_edit_buffer();
        const size_t at = s.edit_buffer.find(c.arg);
        if (at == std::string::npos)
          return fail(c, "edit-replace: '" + c.arg + "' is not in " + s.editable_source());
        s.edit_buffer.replace(at, c.arg.size(), c.arg2);
        s.editing = true;
        s.center_tab = 1;
        break;
      }
      case K::Compile:
        if (s.editable_source().empty())
          return fail(c, "compile: the selected experiment has no CUDA kernel");
        s.load_edit_buffer();
        s.compile_edit();
        break;
      case K::Step:
        if (!s.steps || c.number >= static_cast<long>(s.steps->steps.size()))
          return fail(c, "step " + std::to_string(c.number) + ": the lesson has " +
                             std::to_string(s.steps ? s.steps->steps.size() : 0) + " steps");
        s.select_step(static_cast<int>(c.number));
        s.center_tab = 2;
        break;
      case K::CheckStep:
        if (s.busy()) return true;
        if (!s.steps || s.step < 0) return fail(c, "check-step: no step selected (step N)");
        if (!predictions_ready(s.steps->steps[size_t(s.step)], s.step_reply_list(s.step)))
          return fail(c, "check-step: the step asks for predictions first (reply Q TEXT)");
        s.check_step();
        break;
      case K::Reply: {
        char* end = nullptr;
        const long q = std::strtol(c.arg.c_str(), &end, 10);
        if (!s.steps || s.step < 0) return fail(c, "reply: no step selected (step N)");
        const size_t n = s.steps->steps[size_t(s.step)].questions.size();
        if (!end || *end || q < 0 || size_t(q) >= n)
          return fail(c, "reply: expected a question number 0.." + std::to_string(n) + ", not '" +
                             c.arg + "'");
        s.step_replies[{s.step, static_cast<int>(q)}] = c.arg2;
        break;
      }
      case K::Revert:
        s.revert_edit();
        break;
      case K::Cursor:
        s.cursor = static_cast<double>(c.number);
        s.playing = false;
        break;
      case K::View:
        if (c.arg == "page")
          s.center_tab = 0;
        else if (c.arg == "source")
          s.center_tab = 1;
        else if (c.arg == "help")
          s.show_help = true;
        else if (c.arg == "timeline")
          s.left_tab = 0;
        else if (c.arg == "buffers")
          s.left_tab = 1;
        else if (c.arg == "memory")
          s.lower_tab = 0;
        else if (c.arg == "lanes")
          s.lower_tab = 1;
        else if (c.arg == "flow")
          s.lower_tab = 2;
        else if (c.arg == "banks")
          s.lower_tab = 3;
        else if (c.arg == "gpu")
          s.left_tab = 2;
        else
          return fail(c, "view: unknown view '" + c.arg +
                             "' (expected page, source, timeline, buffers, gpu, memory, lanes, "
                             "flow, banks or help)");
        break;
      case K::Screenshot:
        ++pc_;
        shot_ = c.arg;
        settle_ = 3;  // ImGui lays out over a couple of frames
        return true;
      case K::PickLine:
        if (!s.run) return fail(c, "pick-line: no run shown");
        s.center_tab = 1;
        s.mark_lines(static_cast<int>(c.number), 0);
        break;
      case K::CodePane:
        if (c.arg == "ptx")
          s.code_right = 0;
        else if (c.arg == "schedule")
          s.code_right = 1;
        else if (c.arg == "sass")
          s.code_right = 2;
        else
          return fail(c, "code-pane: expected ptx, schedule or sass, not '" + c.arg + "'");
        s.center_tab = 1;
        break;
      case K::Pin:
        if (!s.run) return fail(c, "pin: no run shown");
        s.pinned = s.run;
        break;
      case K::Unpin:
        s.pinned.reset();
        break;
      case K::SweepMetric: {
        const int m = sweep_metric_index(c.arg);
        if (m < 0)
          return fail(
              c, "sweep-metric: expected time, sectors, gbps or occupancy, not '" + c.arg + "'");
        s.sweep_metric = m;
        break;
      }
      case K::RunOn: {
        // As the combo beside Run: the real GPU's choices need a GPU (probe_gpu).
        RunWhere w;
        if (c.arg == "sim") w = RunWhere::Sim;
        else if (c.arg == "both") w = RunWhere::Both;
        else if (c.arg == "gpu") w = RunWhere::Gpu;
        else return fail(c, "run-on: expected sim, both or gpu, not '" + c.arg + "'");
        if (w != RunWhere::Sim && !s.gpu_absent.empty())
          return fail(c, "run-on " + c.arg + ": " + s.gpu_absent);
        s.settings.control.where = w;
        break;
      }
      case K::Mode:
        if (c.arg != "full" && c.arg != "sampled")
          return fail(c, "mode: expected full or sampled, not '" + c.arg + "'");
        s.settings.control.sampled = c.arg == "sampled";
        break;
      case K::Sched:
        if (c.arg != "lrr" && c.arg != "gto" && c.arg != "preset")
          return fail(c, "sched: expected lrr, gto or preset, not '" + c.arg + "'");
        s.settings.control.scheduler = c.arg == "preset" ? "" : c.arg;
        break;
      case K::Quit:
        ended_ = true;
        return false;
    }
    ++pc_;
  }
  ended_ = true;
  return false;
}

void ScriptPlayer::after_render(int fb_w, int fb_h) {
  if (shot_.empty() || --settle_ > 0) return;
  std::string err;
  if (!write_framebuffer_png(shot_, fb_w, fb_h, err)) {
    std::fprintf(stderr, "%s: screenshot %s: %s\n", path_.c_str(), shot_.c_str(), err.c_str());
    rc_ = 1;
  } else {
    std::printf("wrote %s (%dx%d)\n", shot_.c_str(), fb_w, fb_h);
  }
  shot_.clear();
}

}  // namespace warplab::app
