// The Triton bridge: runs lab/triton_bridge.py as a child process (lab/triton.h).
#include "lab/triton.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "lab/compile_cache.h"

namespace warplab::lab {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

bool read_text(const std::string& path, std::string& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::stringstream ss;
  ss << in.rdbuf();
  out = ss.str();
  return true;
}

// $WARPLAB_PYTHON, else the virtual environment cmake/setup.sh makes beside the executable
// (build/triton-venv), else python3 on the PATH.
std::string python_executable() {
  if (const char* p = std::getenv("WARPLAB_PYTHON"); p && *p) return p;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path venv = exe.parent_path() / "triton-venv" / "bin" / "python3";
    if (fs::exists(venv, ec)) return venv.string();
  }
  return "python3";
}

std::string find_bridge() {
  std::vector<fs::path> candidates;
  if (const char* env = std::getenv("WARPLAB_TRITON_BRIDGE"); env && *env) return env;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    candidates.push_back(exe.parent_path() / "triton_bridge.py");
    candidates.push_back(exe.parent_path().parent_path() / "lab" / "triton_bridge.py");
    candidates.push_back(exe.parent_path().parent_path() / "share" / "warplab" / "lab" /
                         "triton_bridge.py");  // cmake --install
  }
#ifdef WARPLAB_SOURCE_DIR
  candidates.push_back(fs::path(WARPLAB_SOURCE_DIR) / "lab" / "triton_bridge.py");
#endif
  for (const fs::path& p : candidates)
    if (fs::is_regular_file(p, ec)) return p.string();
  return "";
}

// Runs `argv` with `input` on its stdin; its stdout comes back in `out`, its stderr in `err`.
// Returns the exit status (-1: could not start; 128 + N: killed by signal N).
int run_child(const std::vector<std::string>& argv, const std::string& input, std::string& out,
              std::string& err) {
  // The request and stderr go through temporary files, stdout through a pipe: no deadlock
  // however much either side writes.
  char in_name[] = "/tmp/warplab-triton-in-XXXXXX";
  char err_name[] = "/tmp/warplab-triton-err-XXXXXX";
  const int in_fd = mkstemp(in_name);
  if (in_fd < 0) return -1;
  const int err_fd = mkstemp(err_name);
  if (err_fd < 0) {
    close(in_fd);
    unlink(in_name);
    return -1;
  }
  bool wrote = true;
  for (size_t at = 0; at < input.size();) {
    const ssize_t n = write(in_fd, input.data() + at, input.size() - at);
    if (n <= 0) {
      wrote = false;
      break;
    }
    at += static_cast<size_t>(n);
  }
  lseek(in_fd, 0, SEEK_SET);
  int pipe_fd[2];
  int status = -1;
  if (wrote && pipe(pipe_fd) == 0) {
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    const pid_t pid = fork();
    if (pid == 0) {
      dup2(in_fd, 0);
      dup2(pipe_fd[1], 1);
      dup2(err_fd, 2);
      close(pipe_fd[0]);
      execvp(args[0], args.data());
      _exit(127);
    }
    close(pipe_fd[1]);
    if (pid > 0) {
      char buf[65536];
      for (;;) {
        const ssize_t n = read(pipe_fd[0], buf, sizeof buf);
        if (n > 0) {
          out.append(buf, static_cast<size_t>(n));
        } else if (n < 0 && errno == EINTR) {
          continue;
        } else {
          break;
        }
      }
      int ws = 0;
      while (waitpid(pid, &ws, 0) < 0 && errno == EINTR) {
      }
      status = WIFEXITED(ws) ? WEXITSTATUS(ws) : WIFSIGNALED(ws) ? 128 + WTERMSIG(ws) : -1;
    }
    close(pipe_fd[0]);
  }
  close(in_fd);
  close(err_fd);
  read_text(err_name, err);
  unlink(in_name);
  unlink(err_name);
  return status;
}

// The last lines of a child's stderr, for an error message.
std::string tail_lines(const std::string& s, int lines) {
  size_t at = s.size();
  while (at > 0 && (s[at - 1] == '\n' || s[at - 1] == ' ')) --at;
  size_t end = at;
  for (int k = 0; k < lines && at > 0; ++k) {
    at = s.rfind('\n', at - 1);
    if (at == std::string::npos) {
      at = 0;
      break;
    }
  }
  return s.substr(at, end - at);
}

}  // namespace

std::string triton_type_name(const std::string& t) {
  if (t == "f16") return "fp16";
  if (t == "f32") return "fp32";
  if (t == "f64") return "fp64";
  for (const char* i : {"i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64"})
    if (t == i) return t;  // Triton spells integers as WarpLab does
  return "";
}

std::string triton_request_json(const TritonRequest& r) {
  json j;
  j["file"] = r.file;
  j["function"] = r.function;
  json args = json::array();
  for (const TritonArg& a : r.args)
    args.push_back({{"type", a.type}, {"divisible_by_16", a.divisible_by_16}});
  j["args"] = args;
  json c = json::object();
  for (const auto& [name, value] : r.constexprs) c[name] = json::parse(value);
  j["constexprs"] = c;
  j["num_warps"] = r.num_warps;
  j["num_stages"] = r.num_stages;
  j["target"] = r.target;
  j["ptx_version"] = r.ptx_version;
  return j.dump();
}

Expected<TritonKernel> parse_triton_reply(const std::string& text, const std::string& file) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {
    return Error{file, 0, std::string("the Triton bridge's reply is not JSON: ") + e.what()};
  }
  if (!j.is_object()) return Error{file, 0, "the Triton bridge's reply is not a JSON object"};
  auto str = [&](const char* k) {
    return j.contains(k) && j[k].is_string() ? j[k].get<std::string>() : std::string();
  };
  auto num = [&](const char* k, uint64_t dflt) {
    return j.contains(k) && j[k].is_number_unsigned() ? j[k].get<uint64_t>() : dflt;
  };
  if (!j.value("ok", false)) {
    const int line = j.contains("line") && j["line"].is_number_integer() ? j["line"].get<int>() : 0;
    return Error{file, line, str("error").empty() ? "Triton failed" : str("error")};
  }
  TritonKernel k;
  k.ptx = str("ptx");
  k.name = str("name");
  if (k.ptx.empty() || k.name.empty())
    return Error{file, 0, "the Triton bridge's reply has no PTX or no kernel name"};
  k.shared = num("shared", 0);
  k.num_warps = static_cast<int>(num("num_warps", 4));
  k.num_stages = static_cast<int>(num("num_stages", 3));
  k.target = static_cast<int>(num("target", 90));
  k.global_scratch_size = num("global_scratch_size", 0);
  k.global_scratch_align = num("global_scratch_align", 1);
  k.profile_scratch_size = num("profile_scratch_size", 0);
  k.profile_scratch_align = num("profile_scratch_align", 1);
  k.triton_version = str("triton_version");
  for (const char* list : {"params", "constexpr_params"})
    if (j.contains(list) && j[list].is_array())
      for (const json& p : j[list])
        if (p.is_string())
          (std::string(list) == "params" ? k.params : k.constexpr_params).push_back(p);
  return k;
}

namespace {

// WARPLAB_TRITON_FROM_CACHE=1: this machine has no Triton (a GPU host that cannot reach PyPI);
// Triton kernels take the PTX an earlier compile stored in the cache (WARPLAB_CACHE_DIR).
bool from_cache_only() {
  const char* v = std::getenv("WARPLAB_TRITON_FROM_CACHE");
  return v && *v && std::string(v) != "0";
}

// The cache key without the Triton version, Python and bridge: what a machine without Triton
// looks up (the latest compile of this source with this request).
std::string offline_key(const std::string& request, const std::string& source) {
  return "warplab-triton-offline 1\nrequest " + request + "\nsource " +
         std::to_string(source.size()) + "\n" + source;
}

}  // namespace

void TritonBridge::probe() const {
  if (probed_) return;
  probed_ = true;
  if (from_cache_only()) {
    version_ = "(cached)";
    return;
  }
  bridge_ = find_bridge();
  if (bridge_.empty()) {
    why_ =
        "Triton kernels need lab/triton_bridge.py (not found beside the executable, in ../lab/ "
        "from it or in the source tree; set WARPLAB_TRITON_BRIDGE to its path)";
    return;
  }
  std::string out, err;
  const std::string py = python_executable();
  const int rc = run_child({py, bridge_, "--version"}, "", out, err);
  if (rc == 127 || rc < 0) {
    why_ = "Triton kernels need Python 3 (" + py + " did not start; set WARPLAB_PYTHON)";
    return;
  }
  try {
    const json j = json::parse(out);
    if (j.value("ok", false) && j.contains("triton_version") && j["triton_version"].is_string()) {
      version_ = j["triton_version"].get<std::string>();
      return;
    }
  } catch (const json::exception&) {
  }
  why_ = std::string("Triton is not installed for ") + py +
         " (pip install triton==" + kPinnedTritonVersion + ", or bash cmake/setup.sh)";
}

std::string TritonBridge::why_unavailable() const {
  probe();
  return why_;
}

std::string TritonBridge::version() const {
  probe();
  return version_;
}

std::string TritonBridge::bridge_path() const {
  probe();
  return bridge_;
}

Expected<TritonKernel> TritonBridge::compile(const TritonRequest& req, const std::string& cache_dir,
                                             bool use_cache) const {
  probe();
  if (!why_.empty()) return Error{req.file, 0, why_};
  std::string source, bridge_text;
  if (!read_text(req.file, source)) return Error{req.file, 0, "cannot read the Triton source"};
  read_text(bridge_, bridge_text);
  const std::string request = triton_request_json(req);
  // The machine-independent form for the offline key: the file by its name (its text is in the
  // key), so a checkout at another path, or the experiment named by another relative path, finds
  // the entry.
  TritonRequest by_name = req;
  by_name.file = fs::path(req.file).filename().string();
  const std::string offline = offline_key(triton_request_json(by_name), source);
  // 1. The cache: everything that could change the PTX.
  const std::string dir = use_cache || from_cache_only() ? ptx_cache_dir(cache_dir) : "";
  if (from_cache_only()) {
    if (!dir.empty())
      if (auto hit = ptx_cache_load(dir, offline)) {
        auto k = parse_triton_reply(hit->ptx, req.file);
        if (k) k->from_cache = true;
        return k;
      }
    return Error{req.file, 0,
                 "WARPLAB_TRITON_FROM_CACHE=1 and no cached Triton compile of " + req.function +
                     " with these settings in " + (dir.empty() ? "(no cache)" : dir) +
                     ": run it once where Triton is installed, with the same WARPLAB_CACHE_DIR"};
  }
  std::string key = "warplab-triton-cache 1\ntriton " + version_ + "\npython " +
                    python_executable() + "\nrequest " + request + "\nbridge " +
                    std::to_string(bridge_text.size()) + "\n" + bridge_text + "\nsource " +
                    std::to_string(source.size()) + "\n" + source;
  if (!dir.empty())
    if (auto hit = ptx_cache_load(dir, key)) {
      auto k = parse_triton_reply(hit->ptx, req.file);
      if (k) {
        k->from_cache = true;
        if (!ptx_cache_load(dir, offline)) ptx_cache_store(dir, offline, *hit);
        return k;
      }
    }
  // 2. The bridge.
  std::string out, err;
  const int rc = run_child({python_executable(), bridge_, "-"}, request, out, err);
  if (rc != 0 || out.empty())
    return Error{req.file, 0,
                 "the Triton bridge (" + bridge_ + ") exited with status " + std::to_string(rc) +
                     (err.empty() ? std::string() : ":\n" + tail_lines(err, 12))};
  auto k = parse_triton_reply(out, req.file);
  if (k && !dir.empty()) {
    CompiledPtx entry;
    entry.ptx = out;
    ptx_cache_store(dir, key, entry);
    ptx_cache_store(dir, offline, entry);
  }
  return k;
}

}  // namespace warplab::lab
