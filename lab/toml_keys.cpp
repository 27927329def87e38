#include "lab/toml_keys.h"

#include <fstream>
#include <sstream>

#include "sim/common/input_file.h"

namespace warplab::lab {

Expected<toml::table> parse_toml_file(const std::string& path, const std::string& what) {
  auto text = read_input_file(path, what);
  if (!text) return text.error();
  try {
    return toml::parse(*text, path);
  } catch (const toml::parse_error& e) {
    return Error{path, static_cast<int>(e.source().begin.line), std::string(e.description())};
  }
}

Status only_keys(const std::string& path, const toml::table& t, const std::string& key,
                 std::initializer_list<const char*> allowed) {
  for (auto&& [k, v] : t) {
    bool ok = false;
    for (const char* a : allowed) ok = ok || k.str() == a;
    if (ok) continue;
    std::string list;
    for (const char* a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
    return Error{
        path, static_cast<int>(k.source().begin.line),
        key + "." + std::string(k.str()) + ": unknown key (expected one of: " + list + ")"};
  }
  return Ok{};
}

}  // namespace warplab::lab
