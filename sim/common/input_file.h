// Reading a file the user named: a path that is not a regular file gets an error saying what it
// is ("no such file", "is a directory", "not a regular file (a character device)"), not a
// misleading "file not found" or an empty read of /dev/null.
#pragma once

#include <string>
#include <string_view>

#include "sim/common/error.h"

namespace warplab {

// What is wrong with `path` as an input file, or "" when it is a regular file.
std::string input_file_problem(const std::string& path);

// The whole content of `path`; `what` names the file in errors ("PTX file", ".npy file").
Expected<std::string> read_input_file(const std::string& path, std::string_view what);

}  // namespace warplab
