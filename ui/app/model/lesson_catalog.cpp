#include "ui/app/model/lesson_catalog.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace warplab::app {

namespace fs = std::filesystem;

std::string read_file_text(const std::string& path, bool* ok) {
  std::ifstream in(path, std::ios::binary);
  if (ok) *ok = static_cast<bool>(in);
  if (!in) return {};
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string file_name(const std::string& path) { return fs::path(path).filename().string(); }

bool same_file(const std::string& a, const std::string& b) {
  if (a.empty() || b.empty()) return false;
  if (a == b) return true;
  std::error_code ea, eb;
  const fs::path ca = fs::weakly_canonical(a, ea), cb = fs::weakly_canonical(b, eb);
  return !ea && !eb && ca == cb;
}

std::vector<LessonEntry> scan_lessons(const std::string& root) {
  std::vector<LessonEntry> out;
  std::error_code ec;
  for (const fs::directory_entry& d : fs::directory_iterator(root, ec)) {
    const std::string id = d.path().filename().string();
    const bool numbered = id.size() >= 4 && std::isdigit(static_cast<unsigned char>(id[0])) &&
                          std::isdigit(static_cast<unsigned char>(id[1])) && id[2] == '-';
    if (!d.is_directory() || (!numbered && !fs::is_regular_file(d.path() / "lesson.toml", ec)))
      continue;  // a lesson is a numbered folder, or any folder with a lesson.toml
    LessonEntry l;
    l.id = id;
    l.dir = d.path().string();
    for (const fs::directory_entry& f : fs::directory_iterator(d.path(), ec)) {
      const std::string name = f.path().filename().string();
      const std::string ext = f.path().extension().string();
      if (name.rfind("page-", 0) == 0 && ext == ".md") l.pages.push_back(f.path().string());
      if (ext == ".toml" && f.path().filename() != "lesson.toml")  // lesson.toml: lab/lesson.h
        l.experiments.push_back(f.path().string());
      if (ext == ".cu" || ext == ".ptx") l.sources.push_back(f.path().string());
    }
    if (l.pages.empty()) continue;
    std::sort(l.pages.begin(), l.pages.end());
    std::sort(l.experiments.begin(), l.experiments.end());
    std::sort(l.sources.begin(), l.sources.end());
    // Title: the first "# " line of the first page.
    std::istringstream page(read_file_text(l.pages.front()));
    for (std::string line; std::getline(page, line);)
      if (line.rfind("# ", 0) == 0) {
        l.title = line.substr(2);
        break;
      }
    if (l.title.empty()) l.title = id;
    // A numbered lesson's page that does not number its heading ("# Tensor cores: ...") is
    // listed with its folder's number, as the others are ("17. Tensor cores: ...").
    if (numbered && !std::isdigit(static_cast<unsigned char>(l.title[0])))
      l.title = std::to_string(std::stoi(id.substr(0, 2))) + ". " + l.title;
    out.push_back(std::move(l));
  }
  std::sort(out.begin(), out.end(),
            [](const LessonEntry& a, const LessonEntry& b) { return a.id < b.id; });
  return out;
}

int find_lesson(const std::vector<LessonEntry>& lessons, const std::string& name) {
  for (size_t i = 0; i < lessons.size(); ++i)
    if (lessons[i].id == name) return static_cast<int>(i);
  for (size_t i = 0; i < lessons.size(); ++i)
    if (!name.empty() && lessons[i].id.rfind(name, 0) == 0) return static_cast<int>(i);
  return -1;
}

}  // namespace warplab::app
