// Editing an experiment's kernel in the app and running the edit. The lesson's file is never
// changed: the edited text is written to a scratch copy with the same file name and the experiment
// runs with its source pointing there (the original's folder still searched for #includes), so
// NVRTC compiles it exactly as it would the original and its errors name the copy's lines, which
// are the lines the student edited. Reverting is dropping the edit. No ImGui (tests/716).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "lab/experiment.h"
#include "sim/common/error.h"

namespace warplab::app {

// The scratch folder for edits: $XDG_CACHE_HOME/warplab/edits, else ~/.cache/warplab/edits, else
// the system's temporary folder.
std::string default_edit_root();
// Where the edit of `original` is written: <root>/<16 hex digits of its path's hash>/<file name>.
std::string edit_path(const std::string& root, const std::string& original);
// Writes `text` to edit_path(root, exp.source) and returns `exp` compiling it.
Expected<lab::Experiment> experiment_with_edit(const lab::Experiment& exp, const std::string& text,
                                               const std::string& root);
// Compiler messages about `file`, by line, from a text of "path:LINE: message" lines (the form
// lab::nvrtc_log_to_file_line gives NVRTC's log); a message's following lines that carry no
// location (the source line echoed, the caret) are kept with it.
std::map<int, std::vector<std::string>> messages_by_line(const std::string& text,
                                                         const std::string& file);

}  // namespace warplab::app
