// A seed-corpus mutation driver for the fuzz targets (fuzz_target.h), for compilers without
// libFuzzer: main() loads seed files, then until the time is up picks a seed, mutates it (bit
// flips, byte changes, interesting numbers, chunks inserted, deleted, duplicated or spliced from
// another seed, tokens of the input language) and runs the target on it. It is not coverage
// guided: its reach comes from the seeds, which are the repository's own files, and from the
// sanitizers, which turn a bad access into a crash at once.
//
// A crash (a sanitizer report, an abort, a signal) or an input that runs longer than the time
// limit writes the input to CRASH_DIR/crash-HASH (or timeout-HASH) and exits 1: copy it to
// tests/fuzz/corpus/TARGET/ and it is replayed as a seed by every later run.
//
// Usage: fuzz_TARGET [--seconds N] [--runs N] [--seed S] [--max-len BYTES] [--timeout S]
//                    [--crash-dir DIR] [--ext .ptx]... SEED_FILE_OR_DIR...
// Prints one summary line: "fuzz_TARGET: EXECS execs in SECONDS s (SEEDS seeds), 0 crashes".
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "tests/fuzz/fuzz_target.h"

#if defined(__has_include)
#if __has_include(<sanitizer/common_interface_defs.h>)
#include <sanitizer/common_interface_defs.h>
#define WARPLAB_HAVE_SANITIZER_CALLBACK 1
#endif
#endif

namespace {

namespace fs = std::filesystem;
using Bytes = std::vector<uint8_t>;

// The input being run and where to write it if the process dies: read by the death callback and
// the signal handler, which get no arguments (the one piece of process-wide state, in a test
// tool, not in the library).
struct Current {
  const Bytes* input = nullptr;
  std::string crash_dir = ".";
  std::string name = "fuzz";
};
Current g_current;

uint64_t fnv1a(const Bytes& b) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (uint8_t c : b) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

// Writes the current input as PREFIX-HASH in the crash directory (async-signal-safe calls only).
void save_current(const char* prefix) {
  if (!g_current.input) return;
  char path[4096];
  std::snprintf(path, sizeof path, "%s/%s-%016llx", g_current.crash_dir.c_str(), prefix,
                static_cast<unsigned long long>(fnv1a(*g_current.input)));
  FILE* f = std::fopen(path, "wb");
  if (!f) return;
  std::fwrite(g_current.input->data(), 1, g_current.input->size(), f);
  std::fclose(f);
  std::fprintf(stderr, "%s: %s input written to %s (%zu bytes)\n", g_current.name.c_str(), prefix,
               path, g_current.input->size());
}

void on_death() { save_current("crash"); }

void on_signal(int sig) {
  save_current("crash");
  signal(sig, SIG_DFL);
  raise(sig);
}

Bytes read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return Bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// Tokens of the three input languages; a mutation inserts one or overwrites with one.
const char* const kTokens[] = {".reg",
                               ".b32",
                               ".u64",
                               ".f32",
                               ".pred",
                               ".global",
                               ".shared",
                               ".local",
                               ".const",
                               ".param",
                               ".entry",
                               ".func",
                               ".align",
                               "%r1",
                               "%rd1",
                               "%p1",
                               "%tid.x",
                               "%ntid.x",
                               "%laneid",
                               "%warpid",
                               "bar.sync",
                               "shfl.sync.down.b32",
                               "ld.global.u32",
                               "st.shared.u32",
                               "atom.global.add.u32",
                               "vote.sync.ballot.b32",
                               "redux.sync.add.u32",
                               "@%p1",
                               "bra",
                               "ret;",
                               "exit;",
                               "[",
                               "]",
                               "{",
                               "}",
                               "<",
                               ">",
                               ";",
                               ",",
                               "0xffffffff",
                               "-1",
                               "4294967296",
                               "9223372036854775807",
                               "-9223372036854775808",
                               "18446744073709551615",
                               "1e308",
                               "nan",
                               "inf",
                               "0f7f800000",
                               "0d7ff0000000000000",
                               "[[buffers]]",
                               "[[launches]]",
                               "[[checks]]",
                               "[params]",
                               "[sweep]",
                               "[experiment]",
                               "count = ",
                               "init = ",
                               "grid = ",
                               "block = ",
                               "args = ",
                               "expect = ",
                               "shared_bytes = ",
                               "cdiv(",
                               "min(",
                               "max(",
                               "(",
                               ")",
                               "*",
                               "/",
                               "%",
                               "+",
                               "-",
                               "<<",
                               "\"",
                               "'",
                               "=",
                               "'shape': (",
                               "'descr': '<f4'",
                               "'fortran_order': True",
                               "\x93NUMPY",
                               "\n",
                               "\\x00"};

class Mutator {
 public:
  Mutator(uint64_t seed, size_t max_len) : rng_(seed), max_len_(max_len) {}

  Bytes mutate(const Bytes& in, const std::vector<Bytes>& seeds) {
    Bytes b = in;
    const int n = 1 + static_cast<int>(pick(8));
    for (int i = 0; i < n; ++i) once(b, seeds);
    if (b.size() > max_len_) b.resize(max_len_);
    return b;
  }

 private:
  uint64_t pick(uint64_t n) {
    return n ? std::uniform_int_distribution<uint64_t>(0, n - 1)(rng_) : 0;
  }

  void insert(Bytes& b, size_t at, const uint8_t* p, size_t n) {
    b.insert(b.begin() + static_cast<std::ptrdiff_t>(std::min(at, b.size())), p, p + n);
  }

  void once(Bytes& b, const std::vector<Bytes>& seeds) {
    const size_t at = pick(b.size() + 1);
    switch (pick(10)) {
      case 0:  // flip a bit
        if (!b.empty()) b[pick(b.size())] ^= static_cast<uint8_t>(1u << pick(8));
        break;
      case 1:  // set a byte
        if (!b.empty()) b[pick(b.size())] = static_cast<uint8_t>(pick(256));
        break;
      case 2: {  // an ASCII digit run: numbers are where limits break
        const std::string digits = std::to_string(pick(2) ? pick(1ull << 40) : (1ull << pick(64)));
        insert(b, at, reinterpret_cast<const uint8_t*>(digits.data()), digits.size());
        break;
      }
      case 3:
      case 4: {  // a token
        const char* t = kTokens[pick(std::size(kTokens))];
        insert(b, at, reinterpret_cast<const uint8_t*>(t), std::strlen(t));
        break;
      }
      case 5:  // delete a chunk
        if (!b.empty()) {
          const size_t from = pick(b.size()), len = 1 + pick(std::min<size_t>(64, b.size() - from));
          b.erase(b.begin() + static_cast<std::ptrdiff_t>(from),
                  b.begin() + static_cast<std::ptrdiff_t>(from + len));
        }
        break;
      case 6:  // duplicate a chunk
        if (!b.empty()) {
          const size_t from = pick(b.size()),
                       len = 1 + pick(std::min<size_t>(256, b.size() - from));
          const Bytes chunk(b.begin() + static_cast<std::ptrdiff_t>(from),
                            b.begin() + static_cast<std::ptrdiff_t>(from + len));
          insert(b, at, chunk.data(), chunk.size());
        }
        break;
      case 7:  // splice in a chunk of another seed
        if (!seeds.empty()) {
          const Bytes& o = seeds[pick(seeds.size())];
          if (o.empty()) break;
          const size_t from = pick(o.size()),
                       len = 1 + pick(std::min<size_t>(512, o.size() - from));
          insert(b, at, o.data() + from, len);
        }
        break;
      case 8:  // swap two bytes
        if (b.size() > 1) std::swap(b[pick(b.size())], b[pick(b.size())]);
        break;
      default:  // a line repeated: deep nesting and long lists
        if (!b.empty()) {
          const size_t from = pick(b.size()), len = 1 + pick(std::min<size_t>(16, b.size() - from));
          const Bytes chunk(b.begin() + static_cast<std::ptrdiff_t>(from),
                            b.begin() + static_cast<std::ptrdiff_t>(from + len));
          for (uint64_t k = 0, times = 2 + pick(200); k < times; ++k)
            insert(b, at, chunk.data(), chunk.size());
        }
        break;
    }
  }

  std::mt19937_64 rng_;
  size_t max_len_;
};

}  // namespace

int main(int argc, char** argv) {
  double seconds = 20;
  uint64_t runs = 0, seed = static_cast<uint64_t>(std::random_device{}());
  size_t max_len = 1 << 16;
  double timeout = 25;
  std::vector<std::string> exts, paths;
  g_current.name = fs::path(argv[0]).filename().string();
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s: %s needs a value\n", g_current.name.c_str(), a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--seconds")
      seconds = std::atof(value().c_str());
    else if (a == "--runs")
      runs = std::strtoull(value().c_str(), nullptr, 10);
    else if (a == "--seed")
      seed = std::strtoull(value().c_str(), nullptr, 10);
    else if (a == "--max-len")
      max_len = std::strtoull(value().c_str(), nullptr, 10);
    else if (a == "--timeout")
      timeout = std::atof(value().c_str());
    else if (a == "--crash-dir")
      g_current.crash_dir = value();
    else if (a == "--ext")
      exts.push_back(value());
    else
      paths.push_back(a);
  }
  // 1. Seeds: every file named, and every file with one of the extensions under each directory.
  std::vector<Bytes> seeds;
  for (const std::string& p : paths) {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      for (auto it = fs::recursive_directory_iterator(p, ec); !ec && it != fs::end(it);
           it.increment(ec)) {
        if (!it->is_regular_file(ec)) continue;
        const std::string e = it->path().extension().string();
        if (exts.empty() || std::find(exts.begin(), exts.end(), e) != exts.end() ||
            it->path().parent_path().filename() == g_current.name.substr(5))  // corpus/<target>/
          seeds.push_back(read_file(it->path()));
      }
    } else if (fs::is_regular_file(p, ec)) {
      seeds.push_back(read_file(p));
    }
  }
  if (seeds.empty()) seeds.push_back({});
  fs::create_directories(g_current.crash_dir);
#ifdef WARPLAB_HAVE_SANITIZER_CALLBACK
  __sanitizer_set_death_callback(on_death);
#endif
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) signal(sig, on_signal);

  // 2. A watchdog: an input that runs past the timeout is saved and the process stops.
  using Clock = std::chrono::steady_clock;
  std::atomic<int64_t> started_ns{0};
  std::atomic<bool> done{false};
  std::thread watchdog([&] {
    while (!done) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      const int64_t s = started_ns.load();
      const int64_t now = Clock::now().time_since_epoch().count();
      if (s && now - s > static_cast<int64_t>(timeout * 1e9)) {
        save_current("timeout");
        std::fprintf(stderr, "%s: an input ran longer than %.0f s\n", g_current.name.c_str(),
                     timeout);
        std::_Exit(1);
      }
    }
  });

  // 3. Every seed once as it is, then mutants until the time or the run count is up.
  Mutator mutator(seed, max_len);
  std::mt19937_64 choose(seed ^ 0x9e3779b97f4a7c15ull);
  const auto begin = Clock::now();
  uint64_t execs = 0;
  auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - begin).count(); };
  double next_report = 60;
  for (size_t k = 0;; ++k) {
    Bytes input =
        k < seeds.size() ? seeds[k] : mutator.mutate(seeds[choose() % seeds.size()], seeds);
    g_current.input = &input;
    started_ns = Clock::now().time_since_epoch().count();
    LLVMFuzzerTestOneInput(input.data(), input.size());
    started_ns = 0;
    g_current.input = nullptr;
    ++execs;
    const double t = elapsed();
    if (t >= next_report) {
      std::fprintf(stderr, "%s: %llu execs, %.0f/s\n", g_current.name.c_str(),
                   static_cast<unsigned long long>(execs), execs / t);
      next_report += 60;
    }
    if (k + 1 >= seeds.size() && ((runs && execs >= runs) || (!runs && t >= seconds))) break;
  }
  done = true;
  watchdog.join();
  std::printf("%s: %llu execs in %.0f s (%zu seeds, seed %llu), 0 crashes\n",
              g_current.name.c_str(), static_cast<unsigned long long>(execs), elapsed(),
              seeds.size(), static_cast<unsigned long long>(seed));
  return 0;
}
