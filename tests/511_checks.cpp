// Student code must never hang or pass silently: the hang limits, the barrier deadlock report,
// synccheck (divergent barriers) and racecheck (RAW/WAR/WAW on shared and global memory), in both
// simulator modes, through the Runner (the launch record, the text report, the JSON) and the CLI
// (exit statuses). Kernels: tests/data/checks.cu; its `// @name` comments mark the CUDA lines the
// reports must name, and every reported PTX line is checked against the compiled PTX's text.
#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "50x_cli.h"
#include "lab/experiment.h"
#include "lab/report.h"
#include "lab/runner.h"

namespace {

namespace fs = std::filesystem;
using namespace warplab;
using func::Hazard;
using func::LaunchFault;

std::string source() { return std::string(WARPLAB_SOURCE_DIR) + "/tests/data/checks.cu"; }

// The line of checks.cu carrying the comment `// @name`.
int marker(const std::string& name) {
  std::ifstream in(source());
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    const size_t at = line.find("// @" + name);
    if (at != std::string::npos && line.size() == at + 4 + name.size()) return n;
  }
  FAIL("no marker @" << name << " in checks.cu");
  return 0;
}

// Line `n` of the PTX text, without blanks ("bar.sync\t0;" -> "bar.sync0;").
std::string ptx_line(const lab::RunResult& r, int n) {
  std::istringstream in(r.unit->ptx);
  std::string line, out;
  for (int i = 1; std::getline(in, line); ++i)
    if (i == n)
      for (char ch : line)
        if (ch != ' ' && ch != '\t') out += ch;
  return out;
}

// An experiment with buffers x (i32 iota), f (f32 random), out (i32) and hist (16 i32 zeros).
std::string experiment_text(const std::vector<std::string>& launches, const std::string& extra = "",
                            const std::string& checks = "") {
  std::string t = "[experiment]\nname = \"checks\"\nsource = \"" + source() + "\"\n" + extra +
                  "\n[params]\nN = 1024\n"
                  "[[buffers]]\nname = \"x\"\ntype = \"i32\"\ncount = \"N\"\ninit = \"iota\"\n"
                  "[[buffers]]\nname = \"f\"\ntype = \"f32\"\ncount = \"N\"\n"
                  "init = { uniform = [-1, 1], seed = 7 }\n"
                  "[[buffers]]\nname = \"out\"\ntype = \"i32\"\ncount = \"N\"\n"
                  "[[buffers]]\nname = \"hist\"\ntype = \"i32\"\ncount = 16\n";
  for (const std::string& l : launches) t += "[[launches]]\n" + l + "\n";
  return t + checks;
}
std::string launch(const std::string& kernel, int grid, int block, const std::string& args) {
  return "kernel = \"" + kernel + "\"\ngrid = " + std::to_string(grid) +
         "\nblock = " + std::to_string(block) + "\nargs = " + args;
}

struct Checked {
  lab::ExperimentResult result;
  const lab::RunResult& run() const { return *result.run; }
  const lab::LaunchRecord& rec(size_t i = 0) const { return result.run->launches.at(i); }
};

std::optional<Checked> run(const std::string& text, lab::SimMode mode,
                           const std::function<void(lab::RunOptions&)>& edit = {}) {
  lab::Toolchain tc;
  if (!tc.has_nvrtc()) {
    MESSAGE("skipped (needs NVRTC to compile checks.cu): " << tc.why_no_nvrtc());
    return std::nullopt;
  }
  auto exp = lab::parse_experiment(text, std::string(WARPLAB_SOURCE_DIR) + "/tests/data/x.toml");
  REQUIRE_MESSAGE(exp.has_value(), exp.error().to_string());
  lab::RunOptions o;
  o.mode = mode;
  o.resources = false;
  if (edit) edit(o);
  lab::Runner runner(tc, o);
  auto r = runner.run(*exp);
  REQUIRE_MESSAGE(r.has_value(), r.error().to_string());
  return Checked{std::move(*r)};
}

const lab::SimMode kModes[] = {lab::SimMode::Functional, lab::SimMode::Timing};

bool is_race(Hazard::Kind k) {
  return k == Hazard::Kind::RaceRAW || k == Hazard::Kind::RaceWAR || k == Hazard::Kind::RaceWAW;
}
uint64_t total(const std::vector<Hazard>& hs) {
  uint64_t n = 0;
  for (const Hazard& h : hs) n += h.count;
  return n;
}

}  // namespace

TEST_CASE("511 hang: an empty endless loop stops at once, even in a large grid") {
  for (lab::SimMode mode : kModes) {
    CAPTURE(lab::mode_name(mode));
    // while (x[0] == 0) {} with the load hoisted out of the loop: a bra to itself.
    auto c = run(experiment_text({launch("spin", 600, 256, "[\"out\", \"out\"]")}), mode);
    if (!c) return;
    REQUIRE(c->rec().fault.has_value());
    const LaunchFault& f = *c->rec().fault;
    CHECK(f.kind == LaunchFault::Kind::Hang);
    CHECK(f.kernel == "spin");
    CHECK(f.thread.x == 0);
    CHECK(f.src_line == marker("spin"));
    CHECK(ptx_line(c->run(), f.ptx_line).find("bra") == 0);
    CHECK(f.message.find("warp 0 branches to itself forever") != std::string::npos);
    CHECK(f.message.find("stuck in the loop at PTX line " + std::to_string(f.ptx_line) + " (CUDA " +
                         source() + ":" + std::to_string(marker("spin")) + ")") !=
          std::string::npos);
  }
}

TEST_CASE(
    "511 hang: a spin loop stops at the per-warp limit, naming its lines; later launches skip") {
  for (lab::SimMode mode : kModes) {
    CAPTURE(lab::mode_name(mode));
    const std::string text = experiment_text({launch("spin_volatile", 1, 64, "[\"out\", \"out\"]"),
                                              launch("shared_synced", 1, 64, "[\"out\"]")});
    auto c = run(text, mode, [](lab::RunOptions& o) { o.max_instructions = 20000; });
    if (!c) return;
    REQUIRE(c->run().launches.size() == 1);
    const lab::LaunchRecord& r = c->rec();
    REQUIRE(r.fault.has_value());
    const LaunchFault& f = *r.fault;
    CHECK(f.kind == LaunchFault::Kind::Hang);
    CHECK(f.kernel == "spin_volatile");
    CHECK(f.block.x == 0);
    CHECK(f.thread.x == 0);  // warp 0 is the first (functional) or busiest (timing) to reach it
    CHECK(f.src_file == source());
    CHECK(f.src_line == marker("spin_volatile"));
    // The loop: from the volatile load (its head) to the branch back.
    CHECK(ptx_line(c->run(), f.ptx_line).find("ld.volatile.global") == 0);
    const std::string lines = "stuck in the loop at PTX lines " + std::to_string(f.ptx_line) + "-";
    const size_t at = f.message.find(lines);
    REQUIRE(at != std::string::npos);
    const int last = std::stoi(f.message.substr(at + lines.size()));
    CHECK(ptx_line(c->run(), last).find("bra") != std::string::npos);
    CHECK(f.message.find("warp 0 went past 20000 instructions") != std::string::npos);
    CHECK(f.message.find("(CUDA " + source() + ":" + std::to_string(marker("spin_volatile")) +
                         ")") != std::string::npos);
    CHECK(c->run().skipped_launches == std::vector<size_t>{1});
    CHECK_FALSE(c->result.passed());
    const std::string report =
        lab::format_summary(*lab::parse_experiment(text, "x.toml"), c->result);
    CHECK(report.find("KERNEL FAULT in launch 0 (spin_volatile): hang") != std::string::npos);
    CHECK(report.find("skipped after the fault (they would read a half-written state): launch 1 "
                      "(shared_synced)") != std::string::npos);
    CHECK(report.find("FAILED") != std::string::npos);
  }
}

TEST_CASE("511 hang: the timing model's cycle limit; the experiment's max_instructions") {
  auto c = run(experiment_text({launch("spin_volatile", 2, 64, "[\"out\", \"out\"]")}),
               lab::SimMode::Timing, [](lab::RunOptions& o) {
                 o.max_instructions = 0;  // no per-warp limit: the cycles stop it
                 o.max_cycles = 30000;
               });
  if (!c) return;
  REQUIRE(c->rec().fault.has_value());
  const LaunchFault& f = *c->rec().fault;
  CHECK(f.kind == LaunchFault::Kind::Hang);
  CHECK(f.src_line == marker("spin_volatile"));
  CHECK(f.message.find("was still running at cycle 30000") != std::string::npos);

  for (lab::SimMode mode : kModes) {
    CAPTURE(lab::mode_name(mode));
    auto e = run(experiment_text({launch("spin_volatile", 1, 32, "[\"out\", \"out\"]")},
                                 "max_instructions = 5000"),
                 mode);
    if (!e) return;
    REQUIRE(e->rec().fault.has_value());
    CHECK(e->rec().fault->kind == LaunchFault::Kind::Hang);
    CHECK(e->rec().fault->message.find("went past 5000 instructions") != std::string::npos);
  }
}

TEST_CASE("511 deadlock: warps at barriers that can never complete are reported as such") {
  for (lab::SimMode mode : kModes) {
    CAPTURE(lab::mode_name(mode));
    auto c = run(experiment_text({launch("deadlock", 1, 64, "[\"out\"]")}), mode);
    if (!c) return;
    REQUIRE(c->rec().fault.has_value());
    const LaunchFault& f = *c->rec().fault;
    CHECK(f.kind == LaunchFault::Kind::Deadlock);
    CHECK(f.kernel == "deadlock");
    CHECK(f.thread.x == 0);
    CHECK(f.src_line == marker("bar0"));
    CHECK(ptx_line(c->run(), f.ptx_line).find("bar.sync0;") != std::string::npos);
    // Both sides: warp 0 at barrier 0, warp 1 at barrier 1, each with its lines.
    int bar1_ptx = 0;
    std::istringstream in(c->run().unit->ptx);
    std::string line;
    for (int i = 1; std::getline(in, line); ++i)
      if (line.find("bar.sync 1;") != std::string::npos) bar1_ptx = i;
    REQUIRE(bar1_ptx > 0);
    CHECK(f.message.find("warp 0 waits at barrier 0 (PTX line " + std::to_string(f.ptx_line) +
                         ", " + source() + ":" + std::to_string(marker("bar0")) +
                         "), which waits for all 2 live warps") != std::string::npos);
    CHECK(f.message.find("warp 1 waits at barrier 1 (PTX line " + std::to_string(bar1_ptx) + ", " +
                         source() + ":" + std::to_string(marker("bar1")) + ")") !=
          std::string::npos);
  }
}

TEST_CASE("511 synccheck: __syncthreads() in divergent code, and after an early return") {
  for (lab::SimMode mode : kModes) {
    CAPTURE(lab::mode_name(mode));
    // Off by default: the run passes silently, as before.
    auto quiet = run(experiment_text({launch("divergent_barrier", 3, 64, "[\"out\"]")}), mode);
    if (!quiet) return;
    CHECK(quiet->rec().hazards.empty());
    CHECK(quiet->result.passed());

    auto c = run(experiment_text({launch("divergent_barrier", 3, 64, "[\"out\"]")}), mode,
                 [](lab::RunOptions& o) { o.synccheck = true; });
    REQUIRE(c->rec().hazards.size() == 1);
    const Hazard& h = c->rec().hazards[0];
    CHECK(h.kind == Hazard::Kind::DivergentBarrier);
    CHECK(h.kernel == "divergent_barrier");
    CHECK(h.count == 3);  // once per block
    CHECK(h.block.x == 0);
    CHECK(h.thread.x == 0);
    CHECK(h.src_file == source());
    CHECK(h.src_line == marker("divbar"));
    CHECK(ptx_line(c->run(), h.ptx_line).find("bar.sync0;") != std::string::npos);
    CHECK(h.message.find("Divergent thread(s) in warp: only lanes 0-15 of warp 0's live lanes "
                         "0-31 reached barrier 0") != std::string::npos);
    CHECK_FALSE(c->result.passed());
    CHECK_FALSE(c->rec().fault.has_value());  // a hazard does not stop the launch

    auto e = run(experiment_text({launch("early_exit_barrier", 2, 64, "[\"out\"]")}), mode,
                 [](lab::RunOptions& o) { o.synccheck = true; });
    REQUIRE(e->rec().hazards.size() == 1);
    const Hazard& b = e->rec().hazards[0];
    CHECK(b.kind == Hazard::Kind::DivergentBarrier);
    CHECK(b.count == 2);
    CHECK(b.thread.x == 0);
    CHECK(b.src_line == marker("blockbar"));
    CHECK(ptx_line(e->run(), b.ptx_line).find("bar.sync0;") != std::string::npos);
    CHECK(b.message.find("Divergent thread(s) in block: 32 of the block's 64 threads reached "
                         "barrier 0; 32 exited without it") != std::string::npos);
  }
}

TEST_CASE("511 synccheck: full-mask warp instructions after half the warp returned") {
  for (lab::SimMode mode : kModes) {
    CAPTURE(lab::mode_name(mode));
    const std::string text = experiment_text({launch("exited_lanes", 2, 64, "[\"out\"]")});
    auto quiet = run(text, mode);
    if (!quiet) return;
    CHECK(quiet->rec().hazards.empty());
    CHECK(quiet->result.passed());

    auto c = run(text, mode, [](lab::RunOptions& o) { o.synccheck = true; });
    // Only the shuffle: __reduce_add_sync, __ballot_sync and __match_any_sync are defined over
    // the lanes that have not exited.
    REQUIRE(c->rec().hazards.size() == 1);
    const Hazard& h = c->rec().hazards[0];
    INFO(h.message);
    CHECK(h.kind == Hazard::Kind::WarpSyncMask);
    CHECK(h.kernel == "exited_lanes");
    CHECK(h.count == 4);  // each warp of each block
    CHECK(h.src_file == source());
    CHECK(h.src_line == marker("exited_shfl"));
    CHECK(ptx_line(c->run(), h.ptx_line).find("shfl.sync.down.b32") != std::string::npos);
    CHECK(h.thread.x == 8);
    CHECK(h.message.find("lane(s) 8-15 read a lane that does not take part") != std::string::npos);
    CHECK(h.message.find("reads lane 16, which has returned from the kernel") != std::string::npos);
    CHECK(h.message.find("by thread (8,0,0) (warp 0, lane 8) in block (0,0,0)") !=
          std::string::npos);
    CHECK_FALSE(c->result.passed());
    // Lanes 0-7 compute what the GPU does (sum 0..15, 8 odd lanes, 4 lanes per lane / 4, and
    // lane + 8); lanes 8-15's shuffle value is undefined.
    const lab::HostBuffer& out = c->run().buffers.at(2);
    for (uint64_t t = 0; t < 64; ++t)
      if (t % 32 < 8) CHECK(out.at(t) == double(120 + 8 + 4 + t % 32 + 8));

    auto w = run(experiment_text({launch("exited_syncwarp", 1, 64, "[\"out\"]")}), mode,
                 [](lab::RunOptions& o) { o.synccheck = true; });
    REQUIRE(w->rec().hazards.size() == 1);
    const Hazard& b = w->rec().hazards[0];
    CHECK(b.src_line == marker("exited_syncwarp"));
    CHECK(ptx_line(w->run(), b.ptx_line).find("bar.warp.sync") != std::string::npos);
    CHECK(b.message.find("names lane(s) 16-31 that have exited or returned from the kernel") !=
          std::string::npos);
  }
}

TEST_CASE("511 racecheck: a shared-memory race without a barrier, and none with one") {
  for (lab::SimMode mode : kModes) {
    CAPTURE(lab::mode_name(mode));
    auto c = run(experiment_text({launch("shared_race", 1, 64, "[\"out\"]")}), mode,
                 [](lab::RunOptions& o) { o.racecheck = true; });
    if (!c) return;
    const auto& hs = c->rec().hazards;
    REQUIRE_FALSE(hs.empty());
    // Every lane of the warp that runs second races once with the lane of the other warp that
    // wrote (RAW) or read (WAR) its slot: 64 in all, whatever the order the mode runs them in.
    CHECK(total(hs) == 64);
    bool raw = false;
    for (const Hazard& h : hs) {
      CAPTURE(h.message);
      REQUIRE((h.kind == Hazard::Kind::RaceRAW || h.kind == Hazard::Kind::RaceWAR));
      const bool read_second = h.kind == Hazard::Kind::RaceRAW;
      raw = raw || read_second;
      CHECK(h.kernel == "shared_race");
      CHECK(h.space == ptx::Space::Shared);
      CHECK(h.other_thread.x == 63 - h.thread.x);
      CHECK(h.thread.x / 32 != h.other_thread.x / 32);  // different warps
      // RAW: the reader t reads s[63 - t]; WAR: the writer t writes s[t].
      CHECK(h.address == 4 * (read_second ? 63 - h.thread.x : h.thread.x));
      CHECK(h.src_file == source());
      CHECK(h.other_src_file == source());
      CHECK(h.src_line == marker(read_second ? "race_load" : "race_store"));
      CHECK(h.other_src_line == marker(read_second ? "race_store" : "race_load"));
      CHECK(ptx_line(c->run(), h.ptx_line).find(read_second ? "ld.shared" : "st.shared") !=
            std::string::npos);
      CHECK(ptx_line(c->run(), h.other_ptx_line).find(read_second ? "st.shared" : "ld.shared") !=
            std::string::npos);
      const std::string first = read_second ? "Write" : "Read";
      const std::string second = read_second ? "Read" : "Write";
      CHECK(h.message.find("Race reported between " + first + " access at PTX") == 0);
      CHECK(h.message.find("and " + second + " access at PTX") != std::string::npos);
    }
    CHECK(raw);  // both modes see a read of a slot the other warp wrote
    CHECK_FALSE(c->result.passed());

    auto ok = run(
        experiment_text({launch("shared_synced", 1, 64, "[\"out\"]")}, "racecheck = true"), mode);
    CHECK(ok->run().racecheck);
    CHECK(ok->rec().hazards.empty());
    CHECK(ok->result.passed());
  }
}

TEST_CASE("511 racecheck: WAR and WAW between warps, WAW between lanes of one instruction") {
  for (lab::SimMode mode : kModes) {
    CAPTURE(lab::mode_name(mode));
    auto war = run(experiment_text({launch("shared_war", 1, 64, "[\"x\", \"out\"]")}), mode,
                   [](lab::RunOptions& o) { o.racecheck = true; });
    if (!war) return;
    bool found = false;
    for (const Hazard& h : war->rec().hazards) {
      if (h.kind != Hazard::Kind::RaceWAR) continue;
      found = true;
      // Thread t overwrites s[t], which thread (t + 32) % 64 of the other warp read.
      CHECK(h.other_thread.x == (h.thread.x + 32) % 64);
      CHECK(h.address == 4 * h.thread.x);
      CHECK(h.src_line == marker("war_store"));
      CHECK(h.other_src_line == marker("war_load"));
      CHECK(ptx_line(war->run(), h.ptx_line).find("st.shared") != std::string::npos);
      CHECK(ptx_line(war->run(), h.other_ptx_line).find("ld.shared") != std::string::npos);
    }
    CHECK(found);

    auto waw = run(experiment_text({launch("shared_waw", 1, 64, "[\"out\"]")}), mode,
                   [](lab::RunOptions& o) { o.racecheck = true; });
    REQUIRE(waw->rec().hazards.size() == 1);
    const Hazard& w = waw->rec().hazards[0];
    CHECK(w.kind == Hazard::Kind::RaceWAW);
    CHECK(w.count == 32);
    CHECK(w.thread.x % 32 == w.other_thread.x % 32);
    CHECK(w.thread.x != w.other_thread.x);
    CHECK(w.address == 4 * (w.thread.x % 32));
    CHECK(w.src_line == marker("waw_store"));
    CHECK(w.other_src_line == marker("waw_store"));

    auto lanes = run(experiment_text({launch("lanes_waw", 1, 32, "[\"out\"]")}), mode,
                     [](lab::RunOptions& o) { o.racecheck = true; });
    REQUIRE(lanes->rec().hazards.size() == 1);
    const Hazard& l = lanes->rec().hazards[0];
    CHECK(l.kind == Hazard::Kind::RaceWAW);
    CHECK(l.count == 31);  // 32 lanes, 32 different values, one address
    CHECK(l.thread.x == 1);
    CHECK(l.other_thread.x == 0);
    CHECK(l.address == 0);
    CHECK(l.src_line == marker("lanes_store"));
    CHECK(l.ptx_line == l.other_ptx_line);
    CHECK(l.message.find("two lanes of one warp store different values") != std::string::npos);
  }
}

TEST_CASE("511 racecheck: a global-memory race within a block; race-free kernels stay clean") {
  for (lab::SimMode mode : kModes) {
    CAPTURE(lab::mode_name(mode));
    auto c = run(experiment_text({launch("global_race", 1, 64, "[\"out\", \"x\"]")}), mode,
                 [](lab::RunOptions& o) { o.racecheck = true; });
    if (!c) return;
    // Thread 0 stores 0 into a buffer of zeros: a store that changes nothing cannot race.
    CHECK(total(c->rec().hazards) == 63);
    bool raw = false;
    for (const Hazard& h : c->rec().hazards) {
      CHECK(h.space == ptx::Space::Global);
      CHECK(h.other_thread.x == 63 - h.thread.x);
      if (h.kind != Hazard::Kind::RaceRAW) continue;
      raw = true;
      CHECK(h.src_line == marker("g_load"));
      CHECK(h.other_src_line == marker("g_store"));
      CHECK(ptx_line(c->run(), h.ptx_line).find("ld.global") != std::string::npos);
      CHECK(ptx_line(c->run(), h.other_ptx_line).find("st.global") != std::string::npos);
      CHECK(h.message.find("(byte " + std::to_string(4 * (63 - h.thread.x)) + " of 'out')") !=
            std::string::npos);
    }
    CHECK(raw);

    // A tree reduction with a barrier per step and a histogram built with shared atomics: no
    // false positives, and the right results (computed here on the CPU).
    auto clean = run(experiment_text({launch("reduce", 4, 256, "[\"f\", \"out\"]"),
                                      launch("histogram", 4, 256, "[\"x\", \"hist\"]")}),
                     mode, [](lab::RunOptions& o) { o.racecheck = o.synccheck = true; });
    CHECK(clean->rec(0).hazards.empty());
    CHECK(clean->rec(1).hazards.empty());
    CHECK(clean->result.passed());
    const auto& bufs = clean->run().buffers;
    std::map<std::string, const lab::HostBuffer*> by;
    for (const auto& b : bufs) by[b.name] = &b;
    const float* f = reinterpret_cast<const float*>(by["f"]->bytes.data());
    const float* out = reinterpret_cast<const float*>(by["out"]->bytes.data());
    for (int blk = 0; blk < 4; ++blk) {
      float s[256];
      for (int t = 0; t < 256; ++t) s[t] = f[blk * 256 + t];
      for (int k = 128; k > 0; k >>= 1)
        for (int t = 0; t < k; ++t) s[t] += s[t + k];
      CHECK(out[blk] == s[0]);
    }
    const int32_t* hist = reinterpret_cast<const int32_t*>(by["hist"]->bytes.data());
    for (int b = 0; b < 16; ++b) {
      int32_t bin = 0;
      for (int i = 0; i < 1024; ++i) bin += (i & 15) == b;  // x is iota
      CHECK(hist[b] == bin);
    }
  }
}

TEST_CASE("511 report: hazards in the JSON and the text; no checks is not PASSED") {
  auto c = run(experiment_text({launch("shared_race", 1, 64, "[\"out\"]")}),
               lab::SimMode::Functional, [](lab::RunOptions& o) { o.racecheck = true; });
  if (!c) return;
  auto exp =
      lab::parse_experiment(experiment_text({launch("shared_race", 1, 64, "[\"out\"]")}), "x.toml");
  auto j = lab::experiment_json(*exp, c->result);
  CHECK(j["racecheck"] == true);
  CHECK(j["synccheck"] == false);
  CHECK(j["hazards"] == 64);
  CHECK(j["passed"] == false);
  const auto& hz = j["launches"][0]["hazards"];
  REQUIRE(hz.size() == c->rec().hazards.size());
  const Hazard& h = c->rec().hazards[0];
  CHECK(hz[0]["kind"] == func::hazard_kind_name(h.kind));
  CHECK(hz[0]["ptx_line"] == h.ptx_line);
  CHECK(hz[0]["src_line"] == h.src_line);
  CHECK(hz[0]["other_ptx_line"] == h.other_ptx_line);
  CHECK(hz[0]["other_src_line"] == h.other_src_line);
  CHECK(hz[0]["thread"][0] == h.thread.x);
  CHECK(hz[0]["other_thread"][0] == h.other_thread.x);
  CHECK(hz[0]["count"] == h.count);
  CHECK(hz[0]["space"] == "shared");
  const std::string text = lab::format_summary(*exp, c->result);
  CHECK(text.find(
            "RACECHECK in launch 0 (shared_race): " + std::string(func::hazard_kind_name(h.kind)) +
            ", 32 hazards") != std::string::npos);
  CHECK(text.find("Race reported between") != std::string::npos);
  CHECK(text.find("FAILED") != std::string::npos);

  auto none =
      run(experiment_text({launch("shared_synced", 1, 64, "[\"out\"]")}), lab::SimMode::Functional);
  const std::string t2 = lab::format_summary(*exp, none->result);
  CHECK(t2.find("PASSED") == std::string::npos);
  CHECK(t2.find("DONE (no checks") != std::string::npos);
  CHECK(none->result.passed());  // exit 0: nothing failed
}

namespace {

using Outcome = warplab::test::CliOutcome;

// `warplab run` on an experiment written to a scratch file, with `args`.
Outcome cli(const std::string& toml_text, const std::string& args) {
  fs::path dir = fs::temp_directory_path() / ("warplab_511_" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "e.toml") << toml_text;
  Outcome o = warplab::test::run_warplab("run " + (dir / "e.toml").string() + " " + args, "511");
  fs::remove_all(dir);
  return o;
}

}  // namespace

TEST_CASE("511 CLI: --racecheck, --synccheck, --max-instructions exit statuses") {
  if (!fs::exists(fs::read_symlink("/proc/self/exe").parent_path() / "warplab")) {
    MESSAGE("skipped: the warplab binary is not built");
    return;
  }
  lab::Toolchain tc;
  if (!tc.has_nvrtc()) {
    MESSAGE("skipped (needs NVRTC)");
    return;
  }
  const std::string race = experiment_text({launch("shared_race", 1, 64, "[\"out\"]")});
  for (const char* mode : {"functional", "timing"}) {
    CAPTURE(mode);
    const std::string m = std::string(" --mode ") + mode;
    Outcome off = cli(race, m);
    CHECK(off.status == 0);
    CHECK(off.out.find("DONE (no checks") != std::string::npos);
    Outcome on = cli(race, "--racecheck" + m);
    CHECK(on.status == 1);
    CHECK(on.out.find("Race reported between Write access at PTX") != std::string::npos);
    CHECK(on.err.find("race_raw at PTX line") != std::string::npos);
    Outcome div =
        cli(experiment_text({launch("divergent_barrier", 1, 64, "[\"out\"]")}), "--synccheck" + m);
    CHECK(div.status == 1);
    CHECK(div.out.find("SYNCCHECK in launch 0 (divergent_barrier): divergent_barrier, 1 hazard") !=
          std::string::npos);
    const std::string exited = experiment_text({launch("exited_lanes", 1, 64, "[\"out\"]")});
    CHECK(cli(exited, m).status == 0);
    Outcome ex = cli(exited, "--synccheck" + m);
    CHECK(ex.status == 1);
    CHECK(ex.out.find("SYNCCHECK in launch 0 (exited_lanes): warp_sync_mask, 2 hazards") !=
          std::string::npos);
    CHECK(ex.out.find("redux.sync") == std::string::npos);  // defined: not reported
    CHECK(ex.out.find("at kernel exited_lanes, PTX ") != std::string::npos);
    CHECK(ex.out.find("checks.cu:" + std::to_string(marker("exited_shfl"))) != std::string::npos);
    CHECK(ex.out.find("(warp 0, lane 8)") != std::string::npos);
    Outcome hang = cli(experiment_text({launch("spin_volatile", 1, 32, "[\"out\", \"out\"]")}),
                       "--max-instructions 3000" + m);
    CHECK(hang.status == 1);
    CHECK(hang.out.find("KERNEL FAULT in launch 0 (spin_volatile): hang") != std::string::npos);
    CHECK(hang.err.find("checks.cu:" + std::to_string(marker("spin_volatile"))) !=
          std::string::npos);
  }
  // The report streams: each launch as it finishes, the verdict last; --quiet prints nothing.
  const std::string two = experiment_text(
      {launch("shared_synced", 1, 64, "[\"out\"]"), launch("shared_synced", 2, 64, "[\"out\"]")});
  Outcome streamed = cli(two, "--mode functional");
  CHECK(streamed.status == 0);
  const size_t l0 = streamed.out.find("launch 0  shared_synced"),
               l1 = streamed.out.find("launch 1  shared_synced"),
               done = streamed.out.find("DONE (no checks");
  CHECK(l0 < l1);
  CHECK(l1 < done);
  CHECK(done != std::string::npos);
  CHECK(streamed.err.empty());  // not a terminal: no progress line
  CHECK(cli(two, "--mode functional -q").out.empty());
  // The command line's limit wins over the experiment's; bad values are bad input.
  Outcome over = cli(experiment_text({launch("spin_volatile", 1, 32, "[\"out\", \"out\"]")},
                                     "max_instructions = 100000000"),
                     "--mode functional --max-instructions 2000");
  CHECK(over.status == 1);
  CHECK(over.out.find("went past 2000 instructions") != std::string::npos);
  CHECK(cli(race, "--max-instructions lots").status == 2);
  Outcome bad =
      cli(experiment_text({launch("shared_race", 1, 64, "[\"out\"]")}, "racecheck = 3"), "");
  CHECK(bad.status == 2);
  CHECK(bad.err.find("experiment.racecheck") != std::string::npos);
  Outcome neg =
      cli(experiment_text({launch("shared_race", 1, 64, "[\"out\"]")}, "max_cycles = -5"), "");
  CHECK(neg.status == 2);
  CHECK(neg.err.find("experiment.max_cycles") != std::string::npos);
}
