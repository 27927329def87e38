// Reading a file the user named: a path that is not a regular file gets an error saying what it
// is ("no such file", "is a directory", "not a regular file (a character device)"), not a
// misleading "file not found", an empty read of /dev/null or an endless one of /dev/zero; a file
// larger than the reader's limit is refused with its size before anything is read. The checks
// are made on the opened file (fstat), so a path swapped for a pipe in between changes nothing.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "sim/common/error.h"

namespace warplab {

// The largest text input read by default (PTX, CUDA, experiment, preset, assignment): 256 MiB.
inline constexpr uint64_t kMaxInputFileBytes = uint64_t{256} << 20;

// What is wrong with `path` as an input file, or "" when it is a regular file.
std::string input_file_problem(const std::string& path);

// The whole content of `path`; `what` names the file in errors ("PTX file", ".npy file").
Expected<std::string> read_input_file(const std::string& path, std::string_view what,
                                      uint64_t max_bytes = kMaxInputFileBytes);

// At most the first `n` bytes of `path` (a header to check before the whole file is read).
Expected<std::string> read_input_prefix(const std::string& path, std::string_view what, size_t n);

}  // namespace warplab
