#include "ui/app/model/code_listing.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim/timing/schedule.h"

namespace warplab::app {

std::vector<ListingLine> schedule_listing(const func::Program& program,
                                          const timing::GpuConfig& config,
                                          const std::map<std::string, int>& registers) {
  const timing::CompilerConfig& cc = config.compiler;
  const ptx::Module& m = program.module();
  std::vector<ListingLine> out;
  auto where = [&](const ptx::SourceLoc& at) -> std::string {
    if (at.line <= 0 || at.file < 0 || at.file >= static_cast<int32_t>(m.files.size())) return "";
    return " (" + std::filesystem::path(m.files[at.file]).filename().string() + ":" +
           std::to_string(at.line) + ")";
  };
  out.push_back({0, config.name + ": " +
                        (cc.hoist_loads
                             ? "loops unrolled " + std::to_string(cc.unroll) + "x, up to " +
                                   std::to_string(cc.max_hoisted_loads) +
                                   " loads issued ahead of their use"
                             : std::string("PTX order, no hoisting"))});
  for (const ptx::Function& f : m.functions) {
    if (f.is_extern || f.instructions.empty()) continue;
    auto it = registers.find(f.name);
    const int regs = it == registers.end() ? 32 : (it->second + 7) / 8 * 8;
    const auto loops = timing::loop_schedules(f, cc, regs);
    out.push_back({0, f.name + ": " +
                          (loops.empty() ? std::string("no loops")
                                         : std::to_string(regs) + " registers per thread" +
                                               (it == registers.end() ? " (assumed)" : ""))});
    for (const timing::LoopSchedule& l : loops) {
      std::string t = "loop PTX " + std::to_string(l.first_line) + "-" +
                      std::to_string(l.last_line) + where(l.loc) + ": " + std::to_string(l.loads) +
                      " load" + (l.loads == 1 ? "" : "s") + "/iteration, " +
                      (l.unrolled ? "unrolled " + std::to_string(cc.unroll) + "x"
                                  : std::string("not unrolled"));
      out.push_back({l.first_line, t});
      out.push_back({l.first_line, "  one warp issues up to " + std::to_string(l.ahead) +
                                       " load" + (l.ahead == 1 ? "" : "s") +
                                       " back to back before the first use"});
      if (l.loads > l.movable)
        out.push_back({l.first_line, "  " + std::to_string(l.loads - l.movable) +
                                         " load(s) address from a load: they wait"});
      if (l.stop_line)
        out.push_back({l.stop_line, "  loads stop at PTX " + std::to_string(l.stop_line) +
                                        " (store, atomic, barrier or fence)"});
    }
    for (const ptx::Instruction& in : f.instructions) {
      const timing::PipeConfig* e = timing::expansion_of(config.pipes, in);
      if (!e) continue;
      out.push_back({in.ptx_line, "PTX " + std::to_string(in.ptx_line) + where(in.user_loc) +
                                      " " + in.text + " -> a SASS sequence: " +
                                      std::to_string(e->interval) + " issue cycles, " +
                                      std::to_string(e->sfu_ops) + " SFU, result after " +
                                      std::to_string(e->latency)});
    }
  }
  return out;
}

std::string find_cuda_tool(const std::string& name) {
  namespace fs = std::filesystem;
  std::vector<fs::path> dirs;
  if (const char* p = std::getenv("PATH")) {
    std::stringstream ss(p);
    for (std::string d; std::getline(ss, d, ':');)
      if (!d.empty()) dirs.emplace_back(d);
  }
  if (const char* h = std::getenv("CUDA_HOME")) dirs.emplace_back(fs::path(h) / "bin");
  dirs.emplace_back("/usr/local/cuda/bin");
  for (const fs::path& d : dirs) {
    std::error_code ec;
    const fs::path f = d / name;
    if (fs::is_regular_file(f, ec) && access(f.c_str(), X_OK) == 0) return f.string();
  }
  return "";
}

namespace {

// Runs argv with stdout and stderr into `out_path`; the exit status (-1: could not start).
int run_tool(const std::vector<std::string>& argv, const std::string& out_path) {
  const pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    FILE* f = std::freopen(out_path.c_str(), "w", stdout);
    if (!f || dup2(fileno(stdout), 2) < 0) _exit(127);
    std::vector<char*> a;
    for (const std::string& s : argv) a.push_back(const_cast<char*>(s.c_str()));
    a.push_back(nullptr);
    execv(a[0], a.data());
    _exit(127);
  }
  int status = 0;
  if (waitpid(pid, &status, 0) < 0) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string first_line(const std::string& path) {
  std::ifstream in(path);
  std::string l;
  std::getline(in, l);
  return l;
}

}  // namespace

SassListing sass_listing(const std::string& ptx, const std::string& arch) {
  namespace fs = std::filesystem;
  SassListing out;
  const std::string ptxas = find_cuda_tool("ptxas"), cuobjdump = find_cuda_tool("cuobjdump");
  if (ptxas.empty() || cuobjdump.empty()) {
    out.note = std::string("no SASS: the CUDA toolkit's ") +
               (ptxas.empty() && cuobjdump.empty() ? "ptxas and cuobjdump are"
                : ptxas.empty()                    ? "ptxas is"
                                                   : "cuobjdump is") +
               " not installed (PATH, $CUDA_HOME/bin, /usr/local/cuda/bin)";
    return out;
  }
  std::error_code ec;
  std::string tmpl = (fs::temp_directory_path(ec) / "warplab-sass-XXXXXX").string();
  if (!mkdtemp(tmpl.data())) {
    out.note = "no SASS: cannot make a temporary directory";
    return out;
  }
  const fs::path dir = tmpl;
  const std::string in = (dir / "k.ptx").string(), cubin = (dir / "k.cubin").string(),
                    log = (dir / "log.txt").string();
  std::ofstream(in) << ptx;
  if (int rc = run_tool({ptxas, "-arch=" + arch, "-o", cubin, in}, log); rc != 0) {
    out.note = "no SASS: ptxas failed: " + first_line(log);
  } else if (rc = run_tool({cuobjdump, "-sass", cubin}, log); rc != 0) {
    out.note = "no SASS: cuobjdump failed: " + first_line(log);
  } else {
    std::ifstream f(log);
    for (std::string l; std::getline(f, l);)
      if (!l.empty()) out.lines.push_back(l);
    out.note = "ptxas -arch=" + arch + " and cuobjdump -sass (the toolkit's)";
  }
  fs::remove_all(dir, ec);
  return out;
}

}  // namespace warplab::app
