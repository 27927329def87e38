#include "sim/common/input_file.h"

#include <filesystem>
#include <fstream>
#include <sstream>

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

Expected<std::string> read_input_file(const std::string& path, std::string_view what) {
  if (std::string why = input_file_problem(path); !why.empty())
    return Error{path, 0, std::string(what) + ": " + why};
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{path, 0, "cannot open the " + std::string(what) + " (permission denied?)"};
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return Error{path, 0, "cannot read the " + std::string(what)};
  return ss.str();
}

}  // namespace warplab
