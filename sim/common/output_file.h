// Writing a file the user named, safely. The bytes go to a new temporary beside the target,
// created with O_CREAT | O_EXCL | O_NOFOLLOW under a name no other run uses (so a link planted
// in the folder is never followed and concurrent runs never share a temporary), and the complete
// temporary is renamed over the target: a reader sees the old file or the whole new one, never
// half of one, and a link at the target itself is replaced, not written through. SIGINT and
// SIGTERM wait while one file is written and renamed, so an interrupted run leaves no torn file
// and no temporary behind.
#pragma once

#include <string>
#include <string_view>

#include "sim/common/error.h"

namespace warplab {

// Writes `bytes` to `path` as above; `what` names the file in errors ("JSON file").
Status write_output_file(const std::string& path, std::string_view bytes, std::string_view what);

}  // namespace warplab
