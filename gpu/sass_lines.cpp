#include "gpu/sass_lines.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sstream>

extern char** environ;

namespace warplab::gpu {
namespace {

namespace fs = std::filesystem;

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

std::string read_all(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Runs argv[0] with argv; stdout and stderr go to files in `dir`. Returns stdout, or an error
// with the program's stderr.
Expected<std::string> run_tool(const std::vector<std::string>& argv, const fs::path& dir) {
  const fs::path out = dir / "stdout.txt", err = dir / "stderr.txt";
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addopen(&fa, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, argv[0].c_str(), &fa, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) return Error{"", 0, "cannot run " + argv[0] + ": " + std::strerror(rc)};
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return Error{"", 0, "waiting for " + argv[0] + ": " + std::strerror(errno)};
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::string e(trim(read_all(err)));
    if (e.size() > 2000) e = e.substr(0, 2000) + " ...";
    return Error{"", 0,
                 fs::path(argv[0]).filename().string() + " failed" +
                     (WIFEXITED(status) ? " (exit " + std::to_string(WEXITSTATUS(status)) + ")"
                                        : std::string(" (killed by a signal)")) +
                     (e.empty() ? "" : ": " + e)};
  }
  return read_all(out);
}

// A temporary directory, removed with its contents when this goes.
struct TempDir {
  fs::path path;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "warplab-sass-XXXXXX").string();
    if (char* p = mkdtemp(tmpl.data())) path = p;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path.empty()) fs::remove_all(path, ec);
  }
};

}  // namespace

Expected<SassLineMap> parse_nvdisasm_ptx_lines(std::string_view text, const std::string& where) {
  constexpr std::string_view kSection = ".section";
  constexpr std::string_view kLineRecord = "//## File \"";
  SassLineMap out;
  std::map<uint64_t, SassInstruction>* fn = nullptr;
  int32_t line = 0;
  int n = 0;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    const std::string_view raw = text.substr(pos, nl - pos);
    pos = nl + 1;
    ++n;
    const std::string_view s = trim(raw);
    if (s.empty()) continue;
    // 1. A code section starts a function: `.section .text.NAME,"ax",@progbits`.
    if (s.substr(0, kSection.size()) == kSection) {
      std::string_view rest = trim(s.substr(kSection.size()));
      if (rest.substr(0, 6) == ".text.") {
        const size_t comma = rest.find(',');
        std::string name(rest.substr(6, comma == std::string_view::npos ? rest.npos : comma - 6));
        fn = &out[name];
        line = 0;
      } else {
        fn = nullptr;
      }
      continue;
    }
    // 2. A line record: `//## File ".nv_debug_ptx_txt", line 15` (other files: CUDA lines,
    //    printed with -g; not PTX lines).
    if (s.substr(0, kLineRecord.size()) == kLineRecord) {
      const size_t q = s.find('"', kLineRecord.size());
      const size_t l = s.find(", line ", q == std::string_view::npos ? 0 : q);
      if (q == std::string_view::npos || l == std::string_view::npos)
        return Error{where, n, "expected `//## File \"NAME\", line N`, got `" + std::string(s) + "`"};
      if (s.substr(kLineRecord.size(), q - kLineRecord.size()) != ".nv_debug_ptx_txt") continue;
      const char* digits = s.data() + l + 7;
      char* end = nullptr;
      const long v = std::strtol(digits, &end, 10);
      if (end == digits || v < 0 || v > INT32_MAX)
        return Error{where, n, "expected a line number after `, line `"};
      line = static_cast<int32_t>(v);
      continue;
    }
    // 3. An instruction: `/*0060*/   LDG.E R2, desc[UR4][R2.64] ;`.
    if (s.substr(0, 2) == "/*" && fn) {
      const size_t close = s.find("*/");
      if (close == std::string_view::npos) continue;
      const std::string hex(s.substr(2, close - 2));
      char* end = nullptr;
      const unsigned long long offset = std::strtoull(hex.c_str(), &end, 16);
      if (hex.empty() || *end != '\0') continue;  // a comment, not an address
      std::string_view ins = trim(s.substr(close + 2));
      // Encodings (with -hex) follow the instruction as another comment: drop them.
      if (const size_t c = ins.find("/*"); c != std::string_view::npos) ins = trim(ins.substr(0, c));
      (*fn)[offset] = {line, std::string(ins)};
    }
  }
  if (out.empty()) return Error{where, 0, "no code section (.section .text.NAME) in nvdisasm output"};
  return out;
}

int32_t ptx_line_of(const SassLineMap& map, const std::string& function, uint64_t pc_offset) {
  auto f = map.find(function);
  if (f == map.end()) return 0;
  auto i = f->second.find(pc_offset);
  return i == f->second.end() ? 0 : i->second.ptx_line;
}

std::string find_cuda_tool(const std::string& name) {
  std::vector<std::string> dirs;
  if (const char* home = std::getenv("CUDA_HOME")) dirs.push_back(std::string(home) + "/bin");
  dirs.push_back("/usr/local/cuda/bin");
  if (const char* path = std::getenv("PATH")) {
    std::string p(path);
    size_t start = 0;
    while (start <= p.size()) {
      size_t colon = p.find(':', start);
      if (colon == std::string::npos) colon = p.size();
      if (colon > start) dirs.push_back(p.substr(start, colon - start));
      start = colon + 1;
    }
  }
  for (const std::string& d : dirs) {
    const std::string f = d + "/" + name;
    if (access(f.c_str(), X_OK) == 0) return f;
  }
  return "";
}

Expected<SassBuild> build_sass_with_lines(std::string_view ptx, const std::string& path, int arch) {
  SassBuild b;
  b.ptxas = find_cuda_tool("ptxas");
  b.nvdisasm = find_cuda_tool("nvdisasm");
  const std::string looked = " (looked in $CUDA_HOME/bin, /usr/local/cuda/bin and $PATH)";
  if (b.ptxas.empty())
    return Error{path, 0, "no ptxas, so no SASS line table for PC sampling" + looked};
  if (b.nvdisasm.empty())
    return Error{path, 0, "no nvdisasm, so no SASS line table for PC sampling" + looked};
  TempDir dir;
  if (dir.path.empty()) return Error{path, 0, "cannot make a temporary directory"};
  const fs::path in = dir.path / "kernel.ptx", cubin = dir.path / "kernel.cubin";
  {
    std::ofstream f(in, std::ios::binary);
    f << ptx;
    if (!f) return Error{path, 0, "cannot write " + in.string()};
  }
  if (auto v = run_tool({b.ptxas, "--version"}, dir.path)) {
    std::istringstream lines(*v);
    for (std::string l; std::getline(lines, l);)
      if (l.find("release") != std::string::npos) b.ptxas_version = std::string(trim(l));
  }
  // The PTX's own target when it is architecture-specific (sm_90a: wgmma, setmaxnreg), else the
  // device's architecture.
  std::string sm = "sm_" + std::to_string(arch);
  if (const size_t t = ptx.find(".target"); t != std::string_view::npos) {
    std::string_view rest = trim(ptx.substr(t + 7, ptx.find('\n', t) - t - 7));
    rest = rest.substr(0, rest.find_first_of(", \t"));
    if (rest.substr(0, sm.size()) == sm && rest.size() == sm.size() + 1) sm = std::string(rest);
  }
  auto compiled = run_tool({b.ptxas, "-arch=" + sm, "-lineinfo", in.string(), "-o", cubin.string()}, dir.path);
  if (!compiled) return Error{path, 0, compiled.error().message};
  auto listing = run_tool({b.nvdisasm, "-c", "-gp", cubin.string()}, dir.path);
  if (!listing) return Error{path, 0, listing.error().message};
  auto lines = parse_nvdisasm_ptx_lines(*listing, "nvdisasm -c -gp " + cubin.filename().string());
  if (!lines) return lines.error();
  b.lines = std::move(*lines);
  const std::string bytes = read_all(cubin);
  b.cubin.assign(bytes.begin(), bytes.end());
  return b;
}

}  // namespace warplab::gpu
