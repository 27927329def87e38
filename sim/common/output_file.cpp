#include "sim/common/output_file.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>

namespace warplab {
namespace {

// SIGINT and SIGTERM held back while it lives (delivered when it ends).
class HoldSignals {
 public:
  HoldSignals() {
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGINT);
    sigaddset(&s, SIGTERM);
    held_ = pthread_sigmask(SIG_BLOCK, &s, &old_) == 0;
  }
  ~HoldSignals() {
    if (held_) pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  HoldSignals(const HoldSignals&) = delete;
  HoldSignals& operator=(const HoldSignals&) = delete;

 private:
  sigset_t old_;
  bool held_ = false;
};

}  // namespace

Status write_output_file(const std::string& path, std::string_view bytes, std::string_view what) {
  const std::string name(what);
  HoldSignals hold;
  // 1. A temporary of our own beside the target: a new name, never an existing file or link.
  std::random_device rd;
  std::string tmp;
  int fd = -1;
  for (int attempt = 0; attempt < 16 && fd < 0; ++attempt) {
    tmp = path + ".tmp-" + std::to_string(getpid()) + "-" + std::to_string(rd());
    fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0 && errno != EEXIST)
      return Error{path, 0, "cannot write the " + name + ": " + std::strerror(errno)};
  }
  if (fd < 0) return Error{path, 0, "cannot write the " + name + ": no free temporary name"};
  // 2. Every byte, then the rename over the target.
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const std::string why = n < 0 ? std::strerror(errno) : "nothing written";
      close(fd);
      unlink(tmp.c_str());
      return Error{path, 0, "cannot write the " + name + ": " + why};
    }
    done += static_cast<size_t>(n);
  }
  if (close(fd) != 0) {
    const std::string why = std::strerror(errno);
    unlink(tmp.c_str());
    return Error{path, 0, "cannot write the " + name + ": " + why};
  }
  if (rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    unlink(tmp.c_str());
    return Error{path, 0, "cannot write the " + name + ": " + why};
  }
  return Ok{};
}

}  // namespace warplab
