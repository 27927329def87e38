#include "sim/common/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

namespace warplab {

std::string input_file_problem(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  switch (st.type()) {
    case fs::file_type::regular:
      return "";
    case fs::file_type::not_found:
      return "no such file";
    case fs::file_type::directory:
      return "is a directory, not a file";
    case fs::file_type::character:
      return "not a regular file (a character device)";
    case fs::file_type::block:
      return "not a regular file (a block device)";
    case fs::file_type::fifo:
      return "not a regular file (a pipe)";
    case fs::file_type::socket:
      return "not a regular file (a socket)";
    default:
      return ec ? "cannot be read: " + ec.message() : "not a regular file";
  }
}

namespace {

// Opens `path` for reading as a regular file: the descriptor, and the file's size in `size`.
Expected<int> open_regular(const std::string& path, std::string_view what, uint64_t& size) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer (it is refused just below).
  const int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    if (std::string why = input_file_problem(path); !why.empty())
      return Error{path, 0, std::string(what) + ": " + why};
    return Error{path, 0, "cannot open the " + std::string(what) + ": " + std::strerror(err)};
  }
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    std::string why = input_file_problem(path);
    return Error{path, 0, std::string(what) + ": " + (why.empty() ? "not a regular file" : why)};
  }
  size = static_cast<uint64_t>(st.st_size);
  return fd;
}

// Reads up to `n` bytes of `fd` into `out` (fewer at the end of the file).
bool read_fd(int fd, std::string& out, uint64_t n) {
  out.clear();
  char buf[1 << 16];
  while (out.size() < n) {
    const ssize_t got = read(fd, buf, static_cast<size_t>(std::min<uint64_t>(sizeof buf, n - out.size())));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return false;
    if (got == 0) break;
    out.append(buf, static_cast<size_t>(got));
  }
  return true;
}

std::string size_text(uint64_t bytes) {
  if (bytes >= (uint64_t{1} << 30)) return std::to_string(bytes >> 30) + " GiB";
  if (bytes >= (uint64_t{1} << 20)) return std::to_string(bytes >> 20) + " MiB";
  return std::to_string(bytes) + " bytes";
}

}  // namespace

Expected<std::string> read_input_file(const std::string& path, std::string_view what,
                                      uint64_t max_bytes) {
  uint64_t size = 0;
  auto fd = open_regular(path, what, size);
  if (!fd) return fd.error();
  if (size > max_bytes) {
    close(*fd);
    return Error{path, 0,
                 "the " + std::string(what) + " is " + size_text(size) + ", more than the " +
                     size_text(max_bytes) + " WarpLab reads"};
  }
  std::string out;
  // One byte past the size seen: a file that grows while it is read is still bounded.
  const bool ok = read_fd(*fd, out, std::min<uint64_t>(size + 1, max_bytes));
  close(*fd);
  if (!ok) return Error{path, 0, "cannot read the " + std::string(what)};
  return out;
}

Expected<std::string> read_input_prefix(const std::string& path, std::string_view what, size_t n) {
  uint64_t size = 0;
  auto fd = open_regular(path, what, size);
  if (!fd) return fd.error();
  std::string out;
  const bool ok = read_fd(*fd, out, n);
  close(*fd);
  if (!ok) return Error{path, 0, "cannot read the " + std::string(what)};
  return out;
}

}  // namespace warplab
