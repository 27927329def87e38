// The experiment format's tensor-map arguments ({ tensormap = "x", dims, box, ... }): a PTX
// kernel with a `const __grid_constant__ CUtensorMap` parameter loads a box through the map the
// loader built, checked against the tensor's elements computed here; and the errors of a bad
// map, at load (the keys) and when the launch is bound (the driver's rules), naming file:line.
#include <doctest/doctest.h>

#include "lab/runner.h"

using namespace warplab;
using namespace warplab::lab;

namespace {

std::string format_dir() { return std::string(WARPLAB_SOURCE_DIR) + "/tests/data/format"; }

// A 40 x 24 f32 iota tensor T (T[y][x] = 40 y + x) and a box loaded at (8, 4) into out.
std::string experiment(const std::string& map, const std::string& coords = "8, 4") {
  return R"T([experiment]
ptx = "tma_load.ptx"
[params]
W = 40
H = 24
BW = 16
BH = 8
[[buffers]]
name = "T"
type = "f32"
count = "W * H"
init = "iota"
[[buffers]]
name = "out"
type = "f32"
count = 512
init = { constant = -1 }
[[launches]]
kernel = "tma_load_2d"
grid = 1
block = 32
args = [)T" + map + R"T(, "out", "4 * BW * BH", )T" + coords + R"T(]
)T";
}

Expected<Experiment> parse(const std::string& text) {
  return parse_experiment(text, format_dir() + "/tma.toml");
}

std::string bind_error(const std::string& map) {
  auto e = parse(experiment(map));
  REQUIRE_MESSAGE(e.has_value(), (e ? "" : e.error().to_string()));
  Toolchain tc;
  Runner runner(tc, RunOptions{});
  auto r = runner.run(*e);
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().line == 22);  // the args line
  return r.error().message;
}

}  // namespace

TEST_CASE("519 tensormap args: the loader's map loads the box the kernel names") {
  for (const char* swizzle : {"none", "64B"}) {
    CAPTURE(swizzle);
    auto e = parse(experiment(std::string(R"({ tensormap = "T", dims = ["W", "H"], box = ["BW", "BH"], swizzle = ")") +
                              swizzle + "\" }"));
    REQUIRE_MESSAGE(e.has_value(), (e ? "" : e.error().to_string()));
    Toolchain tc;
    RunOptions opt;
    opt.mode = SimMode::Functional;
    Runner runner(tc, opt);
    auto r = runner.run(*e);
    REQUIRE_MESSAGE(r.has_value(), (r ? "" : r.error().to_string()));
    REQUIRE(r->run);
    REQUIRE_FALSE(r->run->launches[0].fault);
    const HostBuffer& out = r->run->buffers[1];
    for (int y = 0; y < 8; ++y)
      for (int x = 0; x < 16; ++x) {
        // 64-byte swizzle: the 16-byte chunk c of 128-byte row R (two box rows) holds chunk
        // c ^ (R % 4) of the unswizzled tile.
        int at = y * 16 + x;
        if (std::string(swizzle) == "64B") {
          const int byte = at * 4, row = byte / 128, chunk = (byte / 16) % 8;
          at = (row * 128 + ((chunk ^ (row % 4)) * 16) + byte % 16) / 4;
        }
        REQUIRE(out.at(static_cast<size_t>(at)) == (4 + y) * 40 + 8 + x);
      }
  }
}

TEST_CASE("519 tensormap args: a box over the tensor's edge reads zeros") {
  auto e = parse(experiment(R"({ tensormap = "T", dims = ["W", "H"], box = [16, 8], oob_fill = "zero" })",
                            "32, 20"));
  REQUIRE(e.has_value());
  Toolchain tc;
  Runner runner(tc, RunOptions{});
  auto r = runner.run(*e);
  REQUIRE_MESSAGE(r.has_value(), (r ? "" : r.error().to_string()));
  const HostBuffer& out = r->run->buffers[1];
  for (int y = 0; y < 8; ++y)
    for (int x = 0; x < 16; ++x) {
      const bool in = 32 + x < 40 && 20 + y < 24;
      REQUIRE(out.at(static_cast<size_t>(y * 16 + x)) == (in ? (20 + y) * 40 + 32 + x : 0.0));
    }
}

TEST_CASE("519 tensormap args: wrong keys at load, the driver's rules when bound") {
  auto e = parse(experiment(R"({ tensormap = "T", dims = ["W", "H"], box = [16] })"));
  REQUIRE_FALSE(e.has_value());
  CHECK(e.error().line == 22);
  CHECK(e.error().message.find("box needs 2") != std::string::npos);
  e = parse(experiment(R"({ tensormap = "Q", dims = [4], box = [4] })"));
  REQUIRE_FALSE(e.has_value());
  CHECK(e.error().message.find("'Q' is not a buffer") != std::string::npos);
  e = parse(experiment(R"({ tensormap = "T", dims = ["W", "H"], box = [16, 8], swizzle = "256B" })"));
  REQUIRE_FALSE(e.has_value());
  CHECK(e.error().message.find("expected none, 32B, 64B or 128B") != std::string::npos);
  e = parse(experiment(R"({ tensormap = "T", dims = ["W", "H"], box = [16, 8], colour = 1 })"));
  REQUIRE_FALSE(e.has_value());
  CHECK(bind_error(R"({ tensormap = "T", dims = ["W", "H"], box = [300, 8] })")
            .find("boxDim[0] = 300 must be 1..256") != std::string::npos);
  CHECK(bind_error(R"({ tensormap = "T", dims = ["W", "H"], box = [16, 8], strides = [168] })")
            .find("globalStrides[0] = 168 must be a multiple of 16") != std::string::npos);
  CHECK(bind_error(R"({ tensormap = "T", dims = ["W", "H"], box = [64, 8], swizzle = "128B" })")
            .find("exceeds the 128-byte swizzle span") != std::string::npos);
  CHECK(bind_error(R"({ tensormap = "T", dims = ["W", "2 * H"], box = [16, 8] })")
            .find("but T holds 3840") != std::string::npos);
  CHECK(bind_error("\"T\"").find("is passed by value") != std::string::npos);
}
