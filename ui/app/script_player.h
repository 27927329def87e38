// Plays a parsed app script (ui/app/model/app_script.h) against the running app, one frame at a
// time: immediate commands (lesson, set, run, ...) run before a frame is drawn; `wait`, `frames`
// and `screenshot` hold the script until their condition is met.
#pragma once

#include <string>
#include <vector>

#include "ui/app/app_state.h"
#include "ui/app/model/app_script.h"

namespace warplab::app {

class ScriptPlayer {
 public:
  ScriptPlayer(std::vector<ScriptCommand> commands, std::string path)
      : cmds_(std::move(commands)), path_(std::move(path)) {}
  // Runs commands until one must wait for frames. False when the script has ended (quit, end of
  // file or an error: see rc()).
  bool before_frame(AppState& s);
  // After the frame is rendered (before the swap): takes a pending screenshot.
  void after_render(int fb_w, int fb_h);
  int rc() const { return rc_; }

 private:
  bool fail(const ScriptCommand& c, const std::string& what);
  std::vector<ScriptCommand> cmds_;
  std::string path_;
  size_t pc_ = 0;
  long frames_left_ = 0;  // `frames N` in progress
  int settle_ = -1;       // frames before a pending screenshot is taken
  std::string shot_;      // pending screenshot path
  int rc_ = 0;
  bool ended_ = false;
};

}  // namespace warplab::app
