// Where a built or installed `warplab` finds what it ships: lessons, presets, assignments, the
// validation corpus and its GPU data, the Triton bridge.
//
// `cmake --install` lays a prefix out as
//   <prefix>/bin/warplab (and warplab-app)
//   <prefix>/share/warplab/{lessons,configs,validation,lab/triton_bridge.py}
// (lessons/assignments inside lessons). Nothing in it records the prefix: every lookup starts from
// the running executable (/proc/self/exe), so a prefix that is moved or copied elsewhere still
// works. A build directory inside the source tree finds the tree one level above it the same way.
// Each lookup tries, in order, its environment variable, the folders `resource_roots()` gives,
// and last the source tree the binary was built from (a build used where it was made).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace warplab::lab {

// The executable's folder, its parent, and <parent>/share/warplab, in that order (empty when
// /proc/self/exe cannot be read).
std::vector<std::filesystem::path> resource_roots();

// The validation corpus manifest: `given` when it exists (relative to the working directory),
// else validation/corpus.toml under a resource root, else `given` unchanged (its error names it).
std::string find_corpus(const std::string& given);

// An assignment given as a file, a folder holding assignment.toml, or a shipped assignment's
// name (`vector_add`: <lessons>/assignments/vector_add/assignment.toml). `given` unchanged
// when none exists (its error names it).
std::string find_assignment(const std::string& given);

}  // namespace warplab::lab
