#include "ui/app/model/kernel_edit.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

namespace warplab::app {

namespace fs = std::filesystem;

std::string default_edit_root() {
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
    return (fs::path(x) / "warplab" / "edits").string();
  if (const char* h = std::getenv("HOME"); h && *h)
    return (fs::path(h) / ".cache" / "warplab" / "edits").string();
  std::error_code ec;
  return (fs::temp_directory_path(ec) / "warplab-edits").string();
}

std::string edit_path(const std::string& root, const std::string& original) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a over the absolute path
  std::error_code ec;
  const std::string abs = fs::weakly_canonical(original, ec).string();
  for (unsigned char c : (abs.empty() ? original : abs)) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char dir[17];
  std::snprintf(dir, sizeof dir, "%016llx", static_cast<unsigned long long>(h));
  return (fs::path(root) / dir / fs::path(original).filename()).string();
}

Expected<lab::Experiment> experiment_with_edit(const lab::Experiment& exp, const std::string& text,
                                               const std::string& root) {
  const std::string path = edit_path(root, exp.source);
  std::error_code ec;
  fs::create_directories(fs::path(path).parent_path(), ec);
  if (ec) return Error{path, 0, "cannot create the folder for the edited kernel: " + ec.message()};
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out) return Error{path, 0, "cannot write the edited kernel"};
  }
  lab::Experiment e = exp;
  const std::string dir = fs::path(exp.source).parent_path().string();
  e.source = path;
  e.options.insert(e.options.begin(), "-I" + (dir.empty() ? std::string(".") : dir));
  if (!e.option_lines.empty() || !exp.options.empty())
    e.option_lines.insert(e.option_lines.begin(), 0);
  return e;
}

std::map<int, std::vector<std::string>> messages_by_line(const std::string& text,
                                                         const std::string& file) {
  static const std::regex kLoc(R"(^(.*?):(\d+): (.*)$)");
  const std::string want = fs::path(file).filename().string();
  std::map<int, std::vector<std::string>> out;
  std::vector<std::string>* last = nullptr;  // the message continuation lines belong to
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_match(line, m, kLoc)) {
      last = nullptr;
      const std::string where = m[1].str();
      if (fs::path(where).filename().string() != want && where != file) continue;
      const int n = std::stoi(m[2].str());
      if (n <= 0 || m[3].str().rfind("CUDA compile failed", 0) == 0) continue;  // the headline
      last = &out[n];
      last->push_back(m[3].str());
    } else if (last && !line.empty() && line.rfind("hint:", 0) != 0 &&
               line.find("detected in the compilation of") == std::string::npos) {
      last->push_back(line);
    }
  }
  return out;
}

}  // namespace warplab::app
