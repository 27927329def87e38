// The lessons on disk: lessons/NN-topic/ directories with page-*.md, *.toml and *.cu files
// (lessons/README.md describes the layout). Scanned once at start-up; no ImGui.
#pragma once

#include <string>
#include <vector>

namespace warplab::app {

struct LessonEntry {
  std::string id;                  // directory name, "02-coalescing"
  std::string dir;                 // full path
  std::string title;               // the first heading of the first page ("2. Memory coalescing")
  std::vector<std::string> pages;  // page-*.md, sorted
  std::vector<std::string> experiments;  // *.toml, sorted
  std::vector<std::string> sources;      // *.cu / *.ptx, sorted
};

// Lesson directories under `root` whose names start with two digits and a dash, in name order
// (the order of lessons/README.md). Directories without pages (calibration) are left out.
std::vector<LessonEntry> scan_lessons(const std::string& root);
// The index of the lesson whose id is `name` or starts with it ("02", "02-coalescing"), or -1.
int find_lesson(const std::vector<LessonEntry>& lessons, const std::string& name);
// A file's whole contents ("" when unreadable; `ok` says which).
std::string read_file_text(const std::string& path, bool* ok = nullptr);
// The file name of a path ("lessons/02-coalescing/copy.toml" -> "copy.toml").
std::string file_name(const std::string& path);
// True when two paths name the same file (however they are spelled: relative, with "..").
bool same_file(const std::string& a, const std::string& b);

}  // namespace warplab::app
