// One check shared by the lab's TOML readers (lessons, assignments): every key of a table must be
// one the format knows, so a typo never goes unnoticed.
#pragma once

#include <toml++/toml.h>

#include <initializer_list>
#include <string>

#include "sim/common/error.h"

namespace warplab::lab {

// Error "path:line: key.name: unknown key (expected one of: a, b, c)" for the first key of `t`
// not in `allowed`.
Status only_keys(const std::string& path, const toml::table& t, const std::string& key,
                 std::initializer_list<const char*> allowed);

}  // namespace warplab::lab
