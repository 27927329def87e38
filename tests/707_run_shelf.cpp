// The app shows the selected experiment's run and no other (ui/app/model/run_shelf.h).
#include <doctest/doctest.h>

#include "ui/app/model/lesson_catalog.h"
#include "ui/app/model/run_shelf.h"

using namespace warplab::app;

namespace {
std::shared_ptr<const RunSnapshot> snap(const std::string& path, const std::string& name) {
  auto s = std::make_shared<RunSnapshot>();
  s->experiment_path = path;
  s->experiment_name = name;
  return s;
}
}  // namespace

TEST_CASE("707 run shelf: a run is shown only while its experiment is selected") {
  RunShelf shelf;
  CHECK_FALSE(shelf.select("lessons/02-coalescing/copy.toml"));
  CHECK(shelf.shown() == nullptr);
  auto copy = snap("lessons/02-coalescing/copy.toml", "copy");
  CHECK(shelf.put(copy));
  CHECK(shelf.shown() == copy);
  // Switching to another experiment (or lesson): nothing, not the previous run.
  CHECK(shelf.select("lessons/05-shared-memory-tiling/transpose.toml"));
  CHECK(shelf.shown() == nullptr);
  // The copy run finishing again while transpose is selected is kept, not shown.
  auto copy2 = snap("lessons/02-coalescing/copy.toml", "copy (2)");
  CHECK_FALSE(shelf.put(copy2));
  CHECK(shelf.shown() == nullptr);
  CHECK(shelf.latest("lessons/02-coalescing/copy.toml") == copy2);
  // Back to copy: its latest run.
  CHECK(shelf.select("lessons/02-coalescing/copy.toml"));
  CHECK(shelf.shown() == copy2);
  CHECK_FALSE(shelf.select("lessons/02-coalescing/copy.toml"));
  CHECK_FALSE(shelf.put(nullptr));
  CHECK(shelf.shown() == copy2);
}

TEST_CASE("707 same_file: one file however the path is spelled") {
  CHECK(same_file("lessons/02-coalescing/coalescing.cu",
                  "lessons/05-shared-memory-tiling/../02-coalescing/coalescing.cu"));
  CHECK_FALSE(same_file("lessons/02-coalescing/coalescing.cu",
                        "lessons/05-shared-memory-tiling/transpose.cu"));
  CHECK_FALSE(same_file("", ""));
}
