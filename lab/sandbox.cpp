#include "lab/sandbox.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "lab/compile_cache.h"
#include "lab/compile.h"

namespace warplab::lab {
namespace fs = std::filesystem;

namespace {

// Landlock constants newer than some distributions' <linux/landlock.h> (values from the kernel's
// uapi header: they are ABI and never change).
constexpr uint64_t kFsTruncate = 1ull << 14;  // ABI 3
constexpr uint64_t kFsIoctlDev = 1ull << 15;  // ABI 5
constexpr uint64_t kNetBindTcp = 1ull << 0;   // ABI 4
constexpr uint64_t kNetConnectTcp = 1ull << 1;
constexpr uint64_t kScopeAbstractUnixSocket = 1ull << 0;  // ABI 6
constexpr uint64_t kScopeSignal = 1ull << 1;

// struct landlock_ruleset_attr as of ABI 6 (the kernel takes the size, so older kernels get the
// prefix they know).
struct RulesetAttr {
  uint64_t handled_access_fs = 0;
  uint64_t handled_access_net = 0;
  uint64_t scoped = 0;
};
struct PathBeneathAttr {
  uint64_t allowed_access;
  int32_t parent_fd;
} __attribute__((packed));

constexpr uint64_t kFsRead =
    LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR | LANDLOCK_ACCESS_FS_EXECUTE;

uint64_t fs_rights_for_abi(int abi) {
  uint64_t all = (LANDLOCK_ACCESS_FS_MAKE_SYM << 1) - 1;  // ABI 1: bits 0..12
  if (abi >= 2) all |= LANDLOCK_ACCESS_FS_REFER;
  if (abi >= 3) all |= kFsTruncate;
  if (abi >= 5) all |= kFsIoctlDev;
  return all;
}

// ---- A length-prefixed message: "<bytes>\n<text>\n" per field. ---------------------------------
void put(std::string& out, const std::string& field) { put_field(out, field); }
void put_list(std::string& out, const std::vector<std::string>& v) {
  put(out, std::to_string(v.size()));
  for (const std::string& s : v) put(out, s);
}
bool get(const std::string& in, size_t& pos, std::string& field) { return get_field(in, pos, field); }
bool get_list(const std::string& in, size_t& pos, std::vector<std::string>& v) {
  std::string count;
  if (!get(in, pos, count) || count.size() > 6) return false;
  const unsigned long n = std::strtoul(count.c_str(), nullptr, 10);
  for (unsigned long i = 0; i < n; ++i) {
    std::string s;
    if (!get(in, pos, s)) return false;
    v.push_back(std::move(s));
  }
  return true;
}

bool write_all(int fd, const std::string& data) {
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::send(fd, data.data() + done, data.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

// ---- The child side ---------------------------------------------------------------------------

// Restricts this process to `read_dirs` (read, list, map executable), `read_files` (read) and
// `write_dir` (everything). "" when done, else why not.
std::string restrict_self(const std::vector<std::string>& read_dirs,
                          const std::vector<std::string>& read_files,
                          const std::string& write_dir) {
  const int abi = landlock_abi();
  if (abi <= 0) return why_no_landlock();
  RulesetAttr attr;
  attr.handled_access_fs = fs_rights_for_abi(abi);
  size_t attr_size = sizeof(uint64_t);
  if (abi >= 4) {
    attr.handled_access_net = kNetBindTcp | kNetConnectTcp;
    attr_size = 2 * sizeof(uint64_t);
  }
  if (abi >= 6) {
    attr.scoped = kScopeAbstractUnixSocket | kScopeSignal;
    attr_size = sizeof(RulesetAttr);
  }
  const int ruleset = static_cast<int>(syscall(SYS_landlock_create_ruleset, &attr, attr_size, 0));
  if (ruleset < 0) return std::string("landlock_create_ruleset: ") + std::strerror(errno);
  auto allow = [&](const std::string& path, uint64_t rights) -> std::string {
    const int fd = ::open(path.c_str(), O_PATH | O_CLOEXEC);
    if (fd < 0) return "";  // nothing there: nothing to allow
    struct stat st {};
    if (fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode))
      rights &= LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_EXECUTE |
                LANDLOCK_ACCESS_FS_WRITE_FILE | (abi >= 3 ? kFsTruncate : 0);
    PathBeneathAttr pb{rights & attr.handled_access_fs, fd};
    const long rc = syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &pb, 0);
    const int err = errno;
    ::close(fd);
    return rc == 0 ? "" : "landlock_add_rule(" + path + "): " + std::strerror(err);
  };
  std::string why;
  for (const std::string& d : read_dirs)
    if (why.empty()) why = allow(d, kFsRead);
  for (const std::string& f : read_files)
    if (why.empty()) why = allow(f, LANDLOCK_ACCESS_FS_READ_FILE);
  if (why.empty() && !write_dir.empty()) why = allow(write_dir, attr.handled_access_fs);
  if (why.empty() && syscall(SYS_landlock_restrict_self, ruleset, 0) != 0)
    why = std::string("landlock_restrict_self: ") + std::strerror(errno);
  ::close(ruleset);
  return why;
}

// The reply: "ok" ptx log names... | "compile" file line message | "sandbox" message.
std::string reply_error(const std::string& kind, const Error& e) {
  std::string out;
  put(out, kind);
  put(out, e.file);
  put(out, std::to_string(e.line));
  put(out, e.message);
  return out;
}

int child_main() {
  constexpr int kSocket = 3;
  // 1. The request (the parent closes its side for writing when done).
  std::string in;
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(kSocket, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    in.append(buf, static_cast<size_t>(n));
  }
  size_t pos = 0;
  SandboxCompileRequest r;
  std::string unconfined, temp_dir, magic;
  std::vector<std::string> read_dirs, read_files;
  if (!get(in, pos, magic) || magic != "warplab-sandbox 1" || !get(in, pos, r.nvrtc_library) ||
      !get_list(in, pos, r.preload) || !get_list(in, pos, r.toolkit_dirs) ||
      !get_list(in, pos, read_dirs) || !get_list(in, pos, read_files) || !get(in, pos, temp_dir) ||
      !get(in, pos, unconfined) || !get(in, pos, r.path) || !get_list(in, pos, r.options) ||
      !get_list(in, pos, r.name_expressions) || !get(in, pos, r.source)) {
    write_all(kSocket, reply_error("sandbox", Error{"", 0, "the sandbox got a malformed request"}));
    return 2;
  }
  in.clear();
  // 2. NVRTC and the libraries it would open later, while the whole file system is still
  //    readable.
  Toolchain toolchain(r.nvrtc_library);
  if (!toolchain.has_nvrtc()) {
    write_all(kSocket, reply_error("sandbox", Error{r.path, 0, toolchain.why_no_nvrtc()}));
    return 2;
  }
  for (const std::string& p : r.preload) dlopen(p.c_str(), RTLD_NOW | RTLD_GLOBAL);
  // 3. Landlock: from here on, only the toolkit, the submission and the temporary directory.
  std::vector<std::string> dirs = r.toolkit_dirs;
  dirs.insert(dirs.end(), read_dirs.begin(), read_dirs.end());
  if (std::string why = restrict_self(dirs, read_files, temp_dir); !why.empty()) {
    if (unconfined != "1") {
      write_all(kSocket,
                reply_error("sandbox", Error{r.path, 0, "cannot confine the compile: " + why}));
      return 2;
    }
  }
  // 4. Compile; the reply carries the raw log (the parent redacts it).
  auto out = toolchain.compile_nvrtc(r.source, r.path, r.options, r.name_expressions);
  if (!out) {
    write_all(kSocket, reply_error("compile", out.error()));
    return 1;
  }
  std::string reply;
  put(reply, "ok");
  put(reply, out->ptx);
  put(reply, out->log);
  std::vector<std::string> names;
  for (const auto& [a, b] : out->lowered_names) names.insert(names.end(), {a, b});
  put_list(reply, names);
  write_all(kSocket, reply);
  return 0;
}

// ---- The parent side --------------------------------------------------------------------------

fs::path resolved(const std::string& p) {
  std::error_code ec;
  fs::path r = fs::weakly_canonical(fs::absolute(p, ec), ec);
  return ec ? fs::path(p).lexically_normal() : r;
}

bool inside(const fs::path& p, const fs::path& root) {
  const fs::path rel = p.lexically_relative(root);
  return !rel.empty() && *rel.begin() != "..";
}

std::string describe_signal(int sig, const SandboxPolicy& p) {
  char b[160];
  if (sig == SIGXCPU) {
    std::snprintf(b, sizeof b, "it used its %.0f s of CPU time", p.cpu_seconds);
    return b;
  }
  if (sig == SIGXFSZ) return "it wrote a file larger than its limit";
  std::snprintf(b, sizeof b, "it stopped on signal %d (%s)", sig, strsignal(sig));
  return b;
}

}  // namespace


bool read_with_deadline(int fd, double seconds, std::string& out, size_t max_bytes) {
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000));
  char buf[65536];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                          deadline - std::chrono::steady_clock::now())
                          .count();
    if (left <= 0) return false;
    struct pollfd pfd {
      fd, POLLIN, 0
    };
    const int rc = poll(&pfd, 1, static_cast<int>(std::min<int64_t>(left, 1000)));
    if (rc <= 0) continue;  // EINTR or nothing yet
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return true;
    out.append(buf, static_cast<size_t>(n));
    if (out.size() > max_bytes) return true;  // no answer is this large: stop reading
  }
}

int landlock_abi() {
  const long v = syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
  return v > 0 ? static_cast<int>(v) : 0;
}

std::string why_no_landlock() {
  const long v = syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
  if (v > 0) return "";
  const int err = errno;
  if (err == ENOSYS) return "this kernel has no Landlock (Linux 5.13 or later, built with it)";
  if (err == EOPNOTSUPP)
    return "Landlock is disabled on this kernel (add 'landlock' to the lsm= boot parameter)";
  return std::string("Landlock is unavailable here (") + std::strerror(err) +
         "; a container's seccomp filter may block it)";
}

int sandbox_child_main_if_requested(int argc, char** argv) {
  if (argc < 2 || std::strcmp(argv[1], kSandboxCommand) != 0) return -1;
  return child_main();
}

std::string redact_compile_log(const std::string& log, const std::vector<std::string>& allowed) {
  // Compared after resolving links: a link inside the submission's folder to a file outside it is
  // outside.
  std::vector<fs::path> roots;
  for (const std::string& a : allowed) roots.push_back(resolved(a));
  auto ok = [&](const std::string& p) {
    const fs::path r = resolved(p);
    for (const fs::path& root : roots)
      if (inside(r, root)) return true;
    return false;
  };
  std::istringstream in(log);
  std::string line, out;
  bool hiding = false;  // the lines after a hidden one (NVRTC echoes the source line) go too
  while (std::getline(in, line)) {
    // "FILE:LINE: ..." about a file outside: the whole line goes (it may quote that file).
    // The location is the text before the first ":DIGITS: " (a path may hold spaces and colons).
    size_t colon = std::string::npos;
    for (size_t c = line.find(':'); c != std::string::npos; c = line.find(':', c + 1)) {
      size_t d = c + 1;
      while (d < line.size() && std::isdigit(static_cast<unsigned char>(line[d]))) ++d;
      if (d > c + 1 && d < line.size() && line[d] == ':') {
        colon = c;
        break;
      }
    }
    if (colon != std::string::npos && colon > 0) {
      hiding = !ok(line.substr(0, colon));
      if (hiding) {
        out +=
            "<a file outside the submission>: (this message is hidden: it concerns a file the "
            "submission may not read)\n";
        continue;
      }
    } else if (line.empty()) {
      hiding = false;
    } else if (hiding) {
      continue;
    }
    // Any quoted path outside ("cannot open source file "/etc/shadow"").
    std::string kept;
    size_t at = 0;
    for (;;) {
      const size_t q1 = line.find('"', at);
      const size_t q2 = q1 == std::string::npos ? q1 : line.find('"', q1 + 1);
      if (q2 == std::string::npos) break;
      const std::string quoted = line.substr(q1 + 1, q2 - q1 - 1);
      kept += line.substr(at, q1 - at);
      if (quoted.find('/') != std::string::npos && !ok(quoted)) {
        kept += "\"<outside the submission>\"";
        // What follows ("cannot open source file ...: Permission denied", or "No such file")
        // would tell whether the file exists.
        at = line.size();
        break;
      }
      kept += line.substr(q1, q2 - q1 + 1);
      at = q2 + 1;
    }
    out += kept + line.substr(at) + "\n";
  }
  if (!log.empty() && log.back() != '\n' && !out.empty()) out.pop_back();
  return out;
}

Expected<CompiledPtx> sandbox_compile(const SandboxCompileRequest& r, const SandboxPolicy& p) {
  const bool confined = landlock_abi() > 0;
  if (!confined && !p.allow_unconfined)
    return Error{r.path, 0,
                 "refusing to compile untrusted source without a sandbox: " + why_no_landlock() +
                     ". The compile could read any file this process can. To accept that risk on "
                     "this host, pass --allow-unsandboxed."};
  // 1. A private temporary directory, the request and the child's fixed environment.
  std::string tmp_template = (fs::temp_directory_path() / "warplab-sandbox-XXXXXX").string();
  if (!mkdtemp(tmp_template.data()))
    return Error{r.path, 0, std::string("cannot create a temporary directory: ") + strerror(errno)};
  const std::string temp_dir = tmp_template;
  struct Cleanup {
    std::string dir;
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(dir, ec);
    }
  } cleanup{temp_dir};
  std::string request;
  put(request, "warplab-sandbox 1");
  put(request, r.nvrtc_library);
  put_list(request, r.preload);
  put_list(request, r.toolkit_dirs);
  put_list(request, p.read_dirs);
  put_list(request, p.read_files);
  put(request, temp_dir);
  put(request, p.allow_unconfined ? "1" : "0");
  put(request, r.path);
  put_list(request, r.options);
  put_list(request, r.name_expressions);
  put(request, r.source);
  const std::string helper = p.helper.empty() ? "/proc/self/exe" : p.helper;
  const std::string env_tmp = "TMPDIR=" + temp_dir;
  // Nothing of this process's environment: CUDA_CACHE_DISABLE keeps the JIT cache off, as the
  // parent does; HOME points at the temporary directory.
  const std::string env_home = "HOME=" + temp_dir;
  const char* envp[] = {"PATH=/usr/bin:/bin", "LANG=C",         "CUDA_CACHE_DISABLE=1",
                        env_tmp.c_str(),      env_home.c_str(), nullptr};
  const char* argv[] = {"warplab", kSandboxCommand, nullptr};
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
    return Error{r.path, 0, std::string("socketpair: ") + strerror(errno)};
  const int devnull = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  auto limit = [](int resource, uint64_t v) {
    struct rlimit rl {
      static_cast<rlim_t>(v), static_cast<rlim_t>(v)
    };
    setrlimit(resource, &rl);
  };
  const uint64_t cpu = static_cast<uint64_t>(std::max(1.0, std::ceil(p.cpu_seconds)));
  const pid_t pid = fork();
  if (pid < 0) {
    ::close(sv[0]), ::close(sv[1]), ::close(devnull);
    return Error{r.path, 0, std::string("fork: ") + strerror(errno)};
  }
  if (pid == 0) {
    // The child, before exec: only async-signal-safe calls (the parent may have threads).
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
    limit(RLIMIT_CPU, cpu);
    limit(RLIMIT_AS, p.memory_bytes);
    limit(RLIMIT_FSIZE, p.file_bytes);
    limit(RLIMIT_NOFILE, p.open_files);
    limit(RLIMIT_CORE, 0);
    if (unshare(CLONE_NEWNET) != 0) unshare(CLONE_NEWUSER | CLONE_NEWNET);
    dup2(devnull, 0), dup2(devnull, 1), dup2(devnull, 2), dup2(sv[1], 3);
    syscall(SYS_close_range, 4, ~0u, 0);
    execve(helper.c_str(), const_cast<char* const*>(argv), const_cast<char* const*>(envp));
    _exit(127);
  }
  ::close(sv[1]);
  ::close(devnull);
  // 2. Send the request, then read the reply until the child closes its side, within the limit.
  const auto start = std::chrono::steady_clock::now();
  struct timeval send_limit {
    static_cast<time_t>(p.wall_seconds) + 1, 0
  };
  setsockopt(sv[0], SOL_SOCKET, SO_SNDTIMEO, &send_limit, sizeof send_limit);
  const bool sent = write_all(sv[0], request);
  shutdown(sv[0], SHUT_WR);
  std::string reply;
  const double left =
      p.wall_seconds -
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const bool timed_out = sent && !read_with_deadline(sv[0], left, reply, 512ull << 20);
  ::close(sv[0]);
  if (timed_out || !sent) kill(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  // 3. The verdict.
  char lim[200];
  std::snprintf(lim, sizeof lim, " (limits: %.0f s wall clock, %.0f s CPU, %llu MiB of memory)",
                p.wall_seconds, p.cpu_seconds,
                static_cast<unsigned long long>(p.memory_bytes >> 20));
  if (timed_out)
    return Error{r.path, 0,
                 "CUDA compile stopped: it was still running after " +
                     std::to_string(static_cast<int>(p.wall_seconds)) +
                     " s of wall-clock time (an #include of something that never ends, such as a "
                     "FIFO, or a compile too large, such as a macro that expands without end)" +
                     lim};
  size_t pos = 0;
  std::string kind;
  if (!get(reply, pos, kind)) {
    std::string why = WIFSIGNALED(status) ? describe_signal(WTERMSIG(status), p)
                      : WIFEXITED(status) && WEXITSTATUS(status) == 127
                          ? "the sandbox helper " + helper + " could not be started"
                          : "it ran out of memory or ended without an answer";
    return Error{r.path, 0,
                 "CUDA compile stopped: " + why +
                     " (a macro that expands without end, or a compile too large)" + lim};
  }
  std::vector<std::string> allowed = r.toolkit_dirs;
  allowed.insert(allowed.end(), p.read_dirs.begin(), p.read_dirs.end());
  allowed.insert(allowed.end(), p.read_files.begin(), p.read_files.end());
  allowed.push_back(r.path);
  if (kind == "ok") {
    CompiledPtx out;
    std::vector<std::string> names;
    if (!get(reply, pos, out.ptx) || !get(reply, pos, out.log) || !get_list(reply, pos, names))
      return Error{r.path, 0, "the sandbox's reply was cut short"};
    out.log = redact_compile_log(out.log, allowed);
    for (size_t i = 0; i + 1 < names.size(); i += 2)
      out.lowered_names.emplace_back(names[i], names[i + 1]);
    return out;
  }
  std::string file, line, message;
  if (!get(reply, pos, file) || !get(reply, pos, line) || !get(reply, pos, message))
    return Error{r.path, 0, "the sandbox's reply was cut short"};
  message = redact_compile_log(message, allowed);
  if (kind == "compile") {
    // The first error may sit in a file the submission may not name.
    const std::string shown = redact_compile_log(file + ":1:", allowed);
    if (file.empty() || shown.rfind(file + ":", 0) != 0) file = r.path, line = "0";
    return Error{file, std::atoi(line.c_str()), message};
  }
  return Error{r.path, 0, message};
}

}  // namespace warplab::lab
