#include "lab/compile_cache.h"

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <vector>

namespace warplab::lab {
namespace fs = std::filesystem;

// A length-prefixed field: "<bytes>\n<text>\n".
void put_field(std::string& out, const std::string& field) {
  out += std::to_string(field.size()) + "\n" + field + "\n";
}

bool get_field(const std::string& in, size_t& pos, std::string& field) {
  const size_t nl = in.find('\n', pos);
  if (nl == std::string::npos || nl == pos || nl - pos > 19) return false;
  uint64_t n = 0;
  for (size_t i = pos; i < nl; ++i) {
    if (in[i] < '0' || in[i] > '9') return false;
    n = n * 10 + static_cast<uint64_t>(in[i] - '0');
  }
  pos = nl + 1;
  if (n > in.size() - pos || in.size() - pos - n < 1 || in[pos + n] != '\n') return false;
  field = in.substr(pos, n);
  pos += n + 1;
  return true;
}

namespace {

constexpr const char* kMagic = "warplab-ptx-cache 1\n";

// FNV-1a, 64 bits: names the entry file (the key itself is stored and compared).
uint64_t fnv1a(const std::string& s, uint64_t h = 0xcbf29ce484222325ull) {
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

std::string hex(uint64_t v) {
  static const char* d = "0123456789abcdef";
  std::string s(16, '0');
  for (int i = 15; i >= 0; --i, v >>= 4) s[static_cast<size_t>(i)] = d[v & 15];
  return s;
}

bool read_file(const fs::path& p, std::string& out) {
  std::error_code ec;
  if (!fs::is_regular_file(p, ec)) return false;
  std::ifstream in(p, std::ios::binary);
  if (!in) return false;
  std::stringstream ss;
  ss << in.rdbuf();
  out = ss.str();
  return true;
}

void put(std::string& out, const std::string& field) { put_field(out, field); }
bool get(const std::string& in, size_t& pos, std::string& field) { return get_field(in, pos, field); }

// Appends every file `text` includes that lives in `dirs` (or, for quotes, beside `self`),
// recursively. False when an include cannot be followed (#include MACRO).
bool add_includes(const std::string& text, const fs::path& self, const std::vector<fs::path>& dirs,
                  std::set<std::string>& seen, std::string& key, int depth) {
  if (depth > 64) return false;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    // "#  include <name>" / "#include "name"" (scanned by hand: no std::regex on user text).
    size_t i = line.find_first_not_of(" \t");
    if (i == std::string::npos || line[i] != '#') continue;
    i = line.find_first_not_of(" \t", i + 1);
    if (i == std::string::npos || line.compare(i, 7, "include") != 0) continue;
    i = line.find_first_not_of(" \t", i + 7);
    if (i == std::string::npos || (line[i] != '<' && line[i] != '"'))
      return false;  // #include MACRO
    const char open = line[i];
    const size_t close = line.find(open == '<' ? '>' : '"', i + 1);
    if (close == std::string::npos) return false;
    const std::string name = line.substr(i + 1, close - i - 1);
    std::vector<fs::path> search;
    if (open == '"') search.push_back(self.parent_path());
    search.insert(search.end(), dirs.begin(), dirs.end());
    bool found = false;
    for (const fs::path& d : search) {
      const fs::path p = (d / name).lexically_normal();
      std::string body;
      if (!read_file(p, body)) continue;
      found = true;
      if (!seen.insert(p.string()).second) break;
      key += "include " + p.string() + "\n";
      put(key, body);
      if (!add_includes(body, p, dirs, seen, key, depth + 1)) return false;
      break;
    }
    // Not in a user directory: a toolkit header (NVRTC's own or under the CUDA include dir),
    // fixed for a given NVRTC version, or missing (then the compile fails and is not stored).
    if (!found) key += "system " + name + "\n";
  }
  return true;
}

}  // namespace

std::string ptx_cache_dir(const std::string& configured) {
  const char* off = std::getenv("WARPLAB_NO_CACHE");
  if (off && std::string(off) != "" && std::string(off) != "0") return "";
  if (!configured.empty()) return configured;
  if (const char* d = std::getenv("WARPLAB_CACHE_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/warplab";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/warplab";
  return "";
}

std::optional<std::string> ptx_cache_key(const std::string& source, const std::string& path,
                                         const CompileOptions& o,
                                         const std::string& nvrtc_version) {
  std::string key = kMagic;
  key += "nvrtc " + nvrtc_version + "\narch " + o.arch + "\nline_info " +
         (o.line_info ? "1" : "0") + "\n";
  // Searched as compile_cuda() tells NVRTC to: the source's directory, then the -I directories.
  std::vector<fs::path> dirs = {
      fs::path(path).parent_path().empty() ? fs::path(".") : fs::path(path).parent_path()};
  for (const std::string& d : o.include_dirs) {
    key += "include_dir " + d + "\n";
    dirs.emplace_back(d);
  }
  for (const std::string& e : o.extra) {
    key += "option ";
    put(key, e);
    if (e.size() > 2 && e.compare(0, 2, "-I") == 0) dirs.emplace_back(e.substr(2));
  }
  for (const std::string& n : o.name_expressions) {
    key += "name ";
    put(key, n);
  }
  key += "path " + path + "\n";
  put(key, source);
  std::set<std::string> seen;
  if (!add_includes(source, fs::path(path), dirs, seen, key, 0)) return std::nullopt;
  return key;
}

std::string ptx_cache_entry_path(const std::string& dir, const std::string& key) {
  return (fs::path(dir) / (hex(fnv1a(key)) + hex(fnv1a(key, 0x84222325cbf29ce4ull)) + ".ptxc"))
      .string();
}

std::optional<CompiledPtx> ptx_cache_load(const std::string& dir, const std::string& key) {
  std::string in;
  if (dir.empty() || !read_file(ptx_cache_entry_path(dir, key), in)) return std::nullopt;
  // Layout: key, ptx, log, lowered-name count, (expression, entry)*, checksum of all before it.
  size_t pos = 0;
  std::string stored_key, count, sum;
  CompiledPtx out;
  if (!get(in, pos, stored_key) || stored_key != key) return std::nullopt;
  if (!get(in, pos, out.ptx) || !get(in, pos, out.log) || !get(in, pos, count)) return std::nullopt;
  char* end = nullptr;
  const unsigned long n = std::strtoul(count.c_str(), &end, 10);
  if (count.empty() || *end != '\0' || n > 100000) return std::nullopt;
  for (unsigned long i = 0; i < n; ++i) {
    std::string a, b;
    if (!get(in, pos, a) || !get(in, pos, b)) return std::nullopt;
    out.lowered_names.emplace_back(a, b);
  }
  const size_t body = pos;
  if (!get(in, pos, sum) || pos != in.size() || sum != hex(fnv1a(in.substr(0, body))))
    return std::nullopt;
  if (out.ptx.empty()) return std::nullopt;
  out.from_cache = true;
  return out;
}

void ptx_cache_store(const std::string& dir, const std::string& key, const CompiledPtx& ptx) {
  if (dir.empty()) return;
  std::error_code ec;
  fs::create_directories(dir, ec);
  std::string out;
  put(out, key);
  put(out, ptx.ptx);
  put(out, ptx.log);
  put(out, std::to_string(ptx.lowered_names.size()));
  for (const auto& [a, b] : ptx.lowered_names) {
    put(out, a);
    put(out, b);
  }
  put(out, hex(fnv1a(out)));
  // Write beside the entry, then rename: atomic on POSIX file systems.
  static std::atomic<uint64_t> counter{0};
  const std::string final_path = ptx_cache_entry_path(dir, key);
  const std::string tmp = final_path + ".tmp." + std::to_string(::getpid()) + "." +
                          std::to_string(counter.fetch_add(1));
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) return;
    f.write(out.data(), static_cast<std::streamsize>(out.size()));
    f.close();
    if (!f) {
      fs::remove(tmp, ec);
      return;
    }
  }
  fs::rename(tmp, final_path, ec);
  if (ec) fs::remove(tmp, ec);
}

}  // namespace warplab::lab
