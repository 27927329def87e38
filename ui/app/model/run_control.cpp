#include "ui/app/model/run_control.h"

namespace warplab::app {

std::string cli_flags(const RunControl& c) {
  std::string s;
  auto add = [&](const std::string& f) { s += (s.empty() ? "" : " ") + f; };
  if (c.where == RunWhere::Both) add("--backend both");
  if (c.where == RunWhere::Gpu) {
    add("--backend gpu");
    return s;
  }
  if (c.sampled) add("--sampled");
  if (!c.scheduler.empty()) add("--sched " + c.scheduler);
  return s;
}

std::string gpu_absent_line(const std::string& e) {
  if (e.empty()) return "";
  // gpu/driver_api.cpp: "no CUDA driver library (libcuda.so.1): <dlerror>".
  if (e.find("no CUDA driver library") != std::string::npos)
    return "simulator only: no NVIDIA driver here (no libcuda.so.1)";
  // gpu/backend.cpp: "no CUDA device (...)", "driver too old for PTX ISA ...".
  if (e.find("no CUDA device") != std::string::npos)
    return "simulator only: the NVIDIA driver sees no GPU";
  if (e.find("driver too old") != std::string::npos) {
    const size_t at = e.find("driver too old");
    return "simulator only: the NVIDIA " + e.substr(at + 7);
  }
  // Anything else: its first line, without a flag's prefix.
  std::string line = e.substr(0, e.find('\n'));
  if (line.rfind("--backend", 0) == 0)
    if (const size_t at = line.find(": "); at != std::string::npos) line = line.substr(at + 2);
  if (line.size() > 80) line = line.substr(0, 77) + "...";
  return "simulator only: the GPU did not open (" + line + ")";
}

}  // namespace warplab::app
