// The PTX cache: compiling CUDA C++ dominates short runs (NVRTC takes about 0.3 s for a small
// kernel, 2 s more with <cooperative_groups.h>), so Toolchain::compile_cuda_cached() keeps each
// compile's PTX in a directory and reuses it when nothing that could change the PTX changed.
//
// The key is everything NVRTC reads or is told: the source text and file name (the PTX names it
// in .file directives), the text of every file it includes with quotes or brackets from the
// source's directory or a user -I directory (followed recursively; toolkit headers are covered by
// the NVRTC version), every option and -D define, the name expressions, the arch and the NVRTC
// version. An include written with a macro (#include MACRO) cannot be followed: such a source is
// compiled every time. The whole key is stored in the entry and compared on lookup, so a hash
// collision can only cost a miss, never a wrong PTX.
//
// Entries are written to a temporary file and renamed into place (readers never see half an
// entry; two processes storing the same entry both succeed). An entry that does not read back
// whole (truncated, corrupt, another version's format) is ignored and replaced.
//
// Where: $WARPLAB_CACHE_DIR, else $XDG_CACHE_HOME/warplab, else ~/.cache/warplab;
// WARPLAB_NO_CACHE=1 turns the cache off.
#pragma once

#include <optional>
#include <string>

#include "lab/compile.h"

namespace warplab::lab {

// A length-prefixed field, "<bytes>\n<text>\n": the cache files' format, and the compile sandbox's
// and grade's child-process messages. get_field reads one at `pos` and moves past it; false when
// the text there is not a whole field.
void put_field(std::string& out, const std::string& field);
bool get_field(const std::string& in, size_t& pos, std::string& field);

// The directory to use for `configured` ("" = from the environment, as above); "" when the cache
// is off (WARPLAB_NO_CACHE=1, or no HOME to put it under).
std::string ptx_cache_dir(const std::string& configured);

// The key of one compile; nullopt when the source cannot be cached (#include MACRO).
std::optional<std::string> ptx_cache_key(const std::string& source, const std::string& path,
                                         const CompileOptions& options,
                                         const std::string& nvrtc_version);

// The cached compile for `key` in `dir`, or nullopt (no entry, or one that does not read back).
std::optional<CompiledPtx> ptx_cache_load(const std::string& dir, const std::string& key);
// Stores `ptx` under `key`; failures (read-only disk, ...) are ignored: the cache is an
// optimisation, never a reason for a run to fail.
void ptx_cache_store(const std::string& dir, const std::string& key, const CompiledPtx& ptx);
// The entry file for `key` (for tests and `ls`).
std::string ptx_cache_entry_path(const std::string& dir, const std::string& key);

}  // namespace warplab::lab
