#include "lab/install_dirs.h"

#include "lab/lesson.h"

namespace warplab::lab {
namespace fs = std::filesystem;

std::vector<fs::path> resource_roots() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec || exe.empty()) return {};
  const fs::path dir = exe.parent_path();
  return {dir, dir.parent_path(), dir.parent_path() / "share" / "warplab"};
}

std::string find_corpus(const std::string& given) {
  std::error_code ec;
  if (fs::exists(given, ec)) return given;
  if (fs::path(given).is_absolute()) return given;
  for (const fs::path& root : resource_roots())
    if (fs::is_regular_file(root / given, ec)) return (root / given).string();
  return given;
}

std::string find_assignment(const std::string& given) {
  std::error_code ec;
  if (fs::is_directory(given, ec) && fs::is_regular_file(fs::path(given) / "assignment.toml", ec))
    return (fs::path(given) / "assignment.toml").string();
  if (fs::exists(given, ec) || given.find('/') != std::string::npos) return given;
  if (const std::string lessons = lessons_dir(); !lessons.empty()) {
    const fs::path p = fs::path(lessons) / "assignments" / given / "assignment.toml";
    if (fs::is_regular_file(p, ec)) return p.string();
  }
  return given;
}

}  // namespace warplab::lab
