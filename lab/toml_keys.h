// What the lab's smaller TOML readers (lessons, assignments) share: reading and parsing a file
// with errors at file:line, and the check that every key of a table is one the format knows, so a
// typo never goes unnoticed.
#pragma once

#include <toml++/toml.h>

#include <initializer_list>
#include <string>

#include "sim/common/error.h"

namespace warplab::lab {

// The parsed file; an unreadable file or a syntax error is an Error naming path (and line).
Expected<toml::table> parse_toml_file(const std::string& path, const std::string& what);

// Error "path:line: key.name: unknown key (expected one of: a, b, c)" for the first key of `t`
// not in `allowed`.
Status only_keys(const std::string& path, const toml::table& t, const std::string& key,
                 std::initializer_list<const char*> allowed);

}  // namespace warplab::lab
