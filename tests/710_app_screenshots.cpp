// The desktop app's scripted screenshots (tests/app/run.sh runs tests/app/visit.txt under Xvfb and
// then this case with WARPLAB_APP_SHOTS set): every panel that should show something does, and
// switching view changes the picture. Regions follow the app's fixed tiling at 1600x1000
// (ui/app/main.cpp layout_and_draw).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#if defined(WARPLAB_HAVE_STB)
#define STB_IMAGE_IMPLEMENTATION
#include <stb_image.h>
#endif

namespace {

struct Image {
  int w = 0, h = 0;
  std::vector<unsigned char> rgb;
};

bool load(const std::string& path, Image& im) {
#if defined(WARPLAB_HAVE_STB)
  int n = 0;
  unsigned char* p = stbi_load(path.c_str(), &im.w, &im.h, &n, 3);
  if (!p) return false;
  im.rgb.assign(p, p + size_t(im.w) * im.h * 3);
  stbi_image_free(p);
  return true;
#else
  (void)path;
  (void)im;
  return false;
#endif
}

struct Box {
  int x0, y0, x1, y1;
};
// Panels at 1600x1000 (menu bar ~22 px; top row 47% of the rest).
constexpr Box kLessons{4, 40, 246, 470}, kPage{256, 60, 860, 470}, kExperiment{880, 40, 1590, 470},
    kTimeline{8, 500, 950, 990}, kMemory{970, 500, 1590, 760}, kCounters{970, 800, 1590, 990};

// Standard deviation of luminance in a box: ~0 for an empty panel, > 10 with text or plots.
double spread(const Image& im, Box b) {
  double s = 0, s2 = 0, n = 0;
  for (int y = b.y0; y < b.y1 && y < im.h; ++y)
    for (int x = b.x0; x < b.x1 && x < im.w; ++x) {
      const unsigned char* p = &im.rgb[(size_t(y) * im.w + x) * 3];
      const double l = 0.3 * p[0] + 0.59 * p[1] + 0.11 * p[2];
      s += l;
      s2 += l * l;
      ++n;
    }
  if (n == 0) return 0;
  const double m = s / n;
  return std::sqrt(std::max(0.0, s2 / n - m * m));
}

// Pixels in a box within 2 of an exact colour (a series' markers are drawn in it).
int count_color(const Image& im, Box b, int r, int g, int bl) {
  int n = 0;
  for (int y = b.y0; y < b.y1 && y < im.h; ++y)
    for (int x = b.x0; x < b.x1 && x < im.w; ++x) {
      const unsigned char* p = &im.rgb[(size_t(y) * im.w + x) * 3];
      n += std::abs(p[0] - r) <= 2 && std::abs(p[1] - g) <= 2 && std::abs(p[2] - bl) <= 2;
    }
  return n;
}

// Pixels in a box that are clearly red (error text and error lines: red well above green).
int count_red(const Image& im, Box b) {
  int n = 0;
  for (int y = b.y0; y < b.y1 && y < im.h; ++y)
    for (int x = b.x0; x < b.x1 && x < im.w; ++x) {
      const unsigned char* p = &im.rgb[(size_t(y) * im.w + x) * 3];
      n += p[0] > 120 && p[0] - p[1] > 70 && p[0] - p[2] > 70;
    }
  return n;
}
// Pixels in a box that are clearly green (claims that hold, right answers).
int count_green(const Image& im, Box b) {
  int n = 0;
  for (int y = b.y0; y < b.y1 && y < im.h; ++y)
    for (int x = b.x0; x < b.x1 && x < im.w; ++x) {
      const unsigned char* p = &im.rgb[(size_t(y) * im.w + x) * 3];
      n += p[1] > 140 && p[1] - p[0] > 60 && p[1] - p[2] > 30;
    }
  return n;
}
// Mean absolute difference of two images in a box.
double diff(const Image& a, const Image& b, Box box) {
  double d = 0, n = 0;
  for (int y = box.y0; y < box.y1 && y < a.h && y < b.h; ++y)
    for (int x = box.x0; x < box.x1 && x < a.w && x < b.w; ++x)
      for (int c = 0; c < 3; ++c, ++n)
        d += std::abs(int(a.rgb[(size_t(y) * a.w + x) * 3 + c]) -
                      int(b.rgb[(size_t(y) * b.w + x) * 3 + c]));
  return n ? d / n : 0;
}

// The visit's screenshot folder, or nothing (the test case then has nothing to check): set by
// tests/app/run.sh. Without stb_image the screenshots cannot be read, which fails the case.
std::optional<std::string> shots_dir() {
  const char* dir = std::getenv("WARPLAB_APP_SHOTS");
  if (!dir) {
    MESSAGE("skipped: WARPLAB_APP_SHOTS not set (tests/app/run.sh sets it)");
    return std::nullopt;
  }
#if !defined(WARPLAB_HAVE_STB)
  FAIL("built without stb_image (libstb-dev): cannot read the screenshots");
#endif
  return std::string(dir);
}

}  // namespace

TEST_CASE("710 app screenshots: every lesson and view shows something where expected") {
  const auto shots = shots_dir();
  if (!shots) return;
  const std::string& d = *shots;
  for (const char* lesson : {"01", "02", "03", "04", "05", "06", "07", "08", "09", "10", "11",
                             "12", "13", "14", "15", "16", "17", "18", "19", "20"}) {
    INFO("lesson " << lesson);
    Image page, source;
    REQUIRE(load(d + "/" + lesson + "-page.png", page));
    REQUIRE(load(d + "/" + lesson + "-source.png", source));
    CHECK(page.w == 1600);
    CHECK(page.h == 1000);
    CHECK(spread(page, kLessons) > 10);
    CHECK(spread(page, kPage) > 10);
    CHECK(spread(page, kExperiment) > 10);
    CHECK(spread(source, kPage) > 10);
    CHECK(diff(page, source, kPage) > 3);  // the kernel tab replaced the page
    // No run yet: the timeline says so and draws no warps.
    CHECK(spread(page, Box{8, 600, 950, 990}) < 3);
  }
  Image sweep, run;
  REQUIRE(load(d + "/sweep.png", sweep));
  REQUIRE(load(d + "/run.png", run));
  CHECK(spread(sweep, Box{880, 200, 1590, 400}) > 10);  // the sweep chart
  Image sectors;  // the same sweep by sectors/request: another curve
  REQUIRE(load(d + "/sweep-sectors.png", sectors));
  CHECK(diff(sweep, sectors, Box{880, 200, 1590, 400}) > 1);
  CHECK(spread(run, kTimeline) > 10);
  CHECK(spread(run, kMemory) > 10);
  CHECK(spread(run, kCounters) > 10);
  Image lanes;
  REQUIRE(load(d + "/lanes.png", lanes));
  CHECK(spread(lanes, kMemory) > 10);
  CHECK(diff(run, lanes, kMemory) > 3);  // the lanes view replaced the memory view
  Image src;
  REQUIRE(load(d + "/source-run.png", src));
  CHECK(spread(src, Box{256, 60, 560, 470}) > 10);  // CUDA with counts
  CHECK(spread(src, Box{600, 60, 860, 470}) > 10);  // the PTX beside it
  Image bufs;
  REQUIRE(load(d + "/buffers.png", bufs));
  CHECK(spread(bufs, Box{8, 560, 500, 990}) > 10);  // the heat map
  // The kernel editor, a compile error in red under its line, the original back.
  Image edit, edit_error, reverted;
  REQUIRE(load(d + "/edit.png", edit));
  REQUIRE(load(d + "/edit-error.png", edit_error));
  REQUIRE(load(d + "/edit-reverted.png", reverted));
  CHECK(spread(edit, kPage) > 10);
  CHECK(count_red(edit, kPage) < 50);          // no errors before compiling
  CHECK(count_red(edit_error, kPage) > 1000);  // the error line and NVRTC's message under it
  CHECK(count_red(reverted, kPage) < 50);
  CHECK(diff(edit_error, reverted, kPage) > 1);
  // Lesson 2's second step: its claims not checked, then holding on the simulator (green values).
  Image unchecked, claims;
  REQUIRE(load(d + "/step-unchecked.png", unchecked));
  REQUIRE(load(d + "/step-claims.png", claims));
  CHECK(spread(unchecked, kPage) > 10);
  CHECK(count_green(unchecked, kPage) < 100);
  CHECK(count_green(claims, kPage) > 300);
  CHECK(count_red(claims, kPage) < 50);  // no claim fails, and the prediction (32) was right
  // Predict, then reveal: before the run only the question and the prediction box; after it, the
  // reveal line (green: right) under the question, above the claims.
  CHECK(count_green(unchecked, Box{256, 100, 860, 200}) < 30);
  CHECK(count_green(claims, Box{256, 100, 860, 260}) > 100);
  // Cancel: a sweep at N = 2^24 stopped while its first point ran: no curve (the simulator's
  // series colour, kSim[0]), where the finished sweep draws one.
  Image cancelled;
  REQUIRE(load(d + "/sweep-cancelled.png", cancelled));
  CHECK(count_color(cancelled, kExperiment, 96, 200, 120) < 20);
  CHECK(count_color(sweep, kExperiment, 96, 200, 120) > 100);
  // ... and a single run of that size cancelled: the note in the cursor's yellow under Run.
  Image run_cancelled;
  REQUIRE(load(d + "/run-cancelled.png", run_cancelled));
  CHECK(count_color(run_cancelled, kExperiment, 255, 214, 64) > 20);
  CHECK(count_color(cancelled, kExperiment, 255, 214, 64) < 20);
}

// At 1280x800 (the 1280x800 directory of WARPLAB_APP_SHOTS_ALL): the sweep chart fits above the
// experiment panel's fold, its x axis labelled at the swept strides (text in the band under the
// curve), and the curve drawn above that band.
TEST_CASE("710 app screenshots at 1280x800: the sweep chart's axis above the fold") {
  const char* all = std::getenv("WARPLAB_APP_SHOTS_ALL");
  if (!all) {
    MESSAGE("skipped: WARPLAB_APP_SHOTS_ALL not set (tests/app/run.sh sets it)");
    return;
  }
#if !defined(WARPLAB_HAVE_STB)
  FAIL("built without stb_image (libstb-dev): cannot read the screenshots");
#endif
  std::string dirs = all;
  int seen = 0;
  for (size_t at = 0; at <= dirs.size();) {
    size_t end = dirs.find(':', at);
    if (end == std::string::npos) end = dirs.size();
    const std::string d = dirs.substr(at, end - at);
    at = end + 1;
    Image sweep;
    if (d.empty() || !load(d + "/sweep.png", sweep) || sweep.w != 1280) continue;
    ++seen;
    // The experiment panel: x 733..1270, its fold at y ~383 (the top row is 47% of 778 px).
    const Box curve{733, 240, 1270, 350}, axis{790, 356, 1260, 378};
    CAPTURE(spread(sweep, axis));
    CHECK(count_color(sweep, curve, 96, 200, 120) > 100);
    CHECK(spread(sweep, axis) > 8);
  }
  CHECK(seen == 1);
}

TEST_CASE("710 app screenshots: memory flow, whole GPU, banks, the H100 reference curve") {
  const auto shots = shots_dir();
  if (!shots) return;
  const std::string& d = *shots;
  Image run, flow32, flow1, gpu;
  REQUIRE(load(d + "/run.png", run));
  REQUIRE(load(d + "/flow-stride32.png", flow32));
  REQUIRE(load(d + "/flow-stride1.png", flow1));
  REQUIRE(load(d + "/gpu.png", gpu));
  CHECK(spread(flow32, kMemory) > 10);
  CHECK(diff(run, flow32, kMemory) > 3);    // the flow view replaced the memory access view
  CHECK(diff(flow32, flow1, kMemory) > 1);  // stride 1 and stride 32 do not look alike
  // Each link's busy bar (green, red from 85%): three bars of about 50 x 10 pixels.
  CHECK(count_color(flow32, kMemory, 118, 185, 0) + count_color(flow32, kMemory, 235, 90, 80) >
        600);
  // A/B: stride 1 pinned, stride 32 shown: the difference line (cursor yellow) above the links.
  Image ab;
  REQUIRE(load(d + "/ab-flow.png", ab));
  CHECK(diff(ab, flow32, kMemory) > 1);
  CHECK(count_color(ab, kMemory, 255, 214, 64) > 20);
  // ... and the pinned run's warp timeline under the shown one's (its rows fill the lower half).
  CHECK(diff(ab, flow32, Box{8, 800, 950, 990}) > 3);
  // The memory access view: A's fan-out (its heading in the cursor's yellow) beside B's.
  Image ab_memory;
  REQUIRE(load(d + "/ab-memory.png", ab_memory));
  CHECK(count_color(ab_memory, Box{970, 540, 1290, 580}, 255, 214, 64) > 8);  // glyph cores
  CHECK(diff(ab_memory, ab, kMemory) > 3);
  CHECK(spread(gpu, kTimeline) > 10);      // every SM's blocks
  CHECK(diff(flow1, gpu, kTimeline) > 3);  // the whole-GPU view replaced the warp timeline
  Image sm0, sm5;
  REQUIRE(load(d + "/sm0-schedulers.png", sm0));
  REQUIRE(load(d + "/sm5-untraced.png", sm5));
  CHECK(diff(gpu, sm0, kTimeline) > 3);  // zoomed into SM 0: its schedulers, not every SM
  // Issue cycles in the issued green (ui/app/scheduler_panel.cpp kIssued), in every scheduler row.
  for (int row = 0; row < 4; ++row) {
    CAPTURE(row);
    CHECK(count_color(sm0, Box{100, 560 + row * 60, 950, 560 + row * 60 + 40}, 118, 200, 40) > 200);
  }
  // SM 5 was not traced: a note and a button, no scheduler rows.
  CHECK(count_color(sm5, kTimeline, 118, 200, 40) < 50);
  CHECK(diff(sm0, sm5, kTimeline) > 3);
  Image plain, padded;
  REQUIRE(load(d + "/banks-plain.png", plain));
  REQUIRE(load(d + "/banks-padded.png", padded));
  CHECK(spread(plain, kMemory) > 10);
  CHECK(diff(plain, padded, kMemory) > 1);  // padding changes the picture
  Image ref, sweep20, cancelled;
  REQUIRE(load(d + "/sweep-h100.png", ref));
  REQUIRE(load(d + "/sweep.png", sweep20));  // lesson 2 at N = 2^20, a size the H100 measured
  REQUIRE(load(d + "/sweep-cancelled.png", cancelled));  // N = 2^24 cancelled: no point, no curve
  // The H100 series (ui/app/experiment_panel.cpp kRef[0]) in the sweep chart: about 550 pixels
  // of its colour; a chart without it has about 25 (text edges).
  CHECK(count_color(ref, Box{880, 200, 1590, 420}, 235, 235, 235) > 150);
  CHECK(count_color(sweep20, Box{880, 200, 1590, 420}, 235, 235, 235) > 150);
  CHECK(count_color(cancelled, Box{880, 200, 1590, 420}, 235, 235, 235) < 150);
}

// At every window size the visit ran (WARPLAB_APP_SHOTS_ALL: directories, ':'-separated): the
// code view's panes show at least 80 columns. The view draws a guide at column 80 in each pane
// (ui/app/style.h color::kColumnGuide) and the table clips it where the pane is narrower, so the
// guide's pixels in the top half of the window count the rows of both panes that reach column 80.
TEST_CASE("710 app screenshots: code panes show 80 columns at every size") {
  const char* all = std::getenv("WARPLAB_APP_SHOTS_ALL");
  if (!all) {
    MESSAGE("skipped: WARPLAB_APP_SHOTS_ALL not set (tests/app/run.sh sets it)");
    return;
  }
#if !defined(WARPLAB_HAVE_STB)
  FAIL("built without stb_image (libstb-dev): cannot read the screenshots");
#endif
  std::string dirs = all;
  for (size_t at = 0; at <= dirs.size();) {
    size_t end = dirs.find(':', at);
    if (end == std::string::npos) end = dirs.size();
    const std::string d = dirs.substr(at, end - at);
    at = end + 1;
    if (d.empty()) continue;
    for (const std::string shot : {"code-ptx", "code-schedule", "code-sass"}) {
      CAPTURE(d);
      CAPTURE(shot);
      Image im;
      REQUIRE(load(d + "/" + shot + ".png", im));
      const int top_h = int((im.h - 22) * 0.6);  // the code view's height (main.cpp, full width)
      const Box code{0, 22, im.w, 22 + top_h};
      CHECK(spread(im, code) > 10);
      // The CUDA pane (upper part) alone reaches column 80 on at least 100 pixel rows.
      CHECK(count_color(im, Box{0, 22, im.w, 22 + top_h / 2}, 58, 92, 150) > 100);
      if (shot != "code-sass")  // PTX and schedule panes too
        CHECK(count_color(im, code, 58, 92, 150) > 150);
    }
  }
}

// The newcomer's A/B visit ends in stride 32's code with stride 1 pinned: beside the model's stall
// bars (x ~100..190), the GPU's per-line samples as bars of the same reason colours in a column of
// their own (x ~205..295; without committed data for the run's values the column is not there and
// that band holds only the sect/req figures), at every window size.
TEST_CASE("710 app screenshots: the GPU's per-line stalls beside the model's in the code view") {
  const char* all = std::getenv("WARPLAB_APP_SHOTS_ALL");
  if (!all) {
    MESSAGE("skipped: WARPLAB_APP_SHOTS_ALL not set (tests/app/run.sh sets it)");
    return;
  }
#if !defined(WARPLAB_HAVE_STB)
  FAIL("built without stb_image (libstb-dev): cannot read the screenshots");
#endif
  // The warp-state colours (ui/app/style.cpp) a stall bar is drawn in.
  const int states[][3] = {{228, 92, 62},  {240, 160, 60},  {80, 140, 220},  {60, 190, 200},
                           {200, 60, 130}, {230, 200, 70},  {150, 100, 220}, {120, 120, 180},
                           {95, 98, 108},  {150, 130, 110}, {200, 150, 220}, {176, 120, 240}};
  auto bar_pixels = [&](const Image& im, Box b) {
    int n = 0;
    for (const auto& c : states) n += count_color(im, b, c[0], c[1], c[2]);
    return n;
  };
  std::string dirs = all;
  int seen = 0;
  for (size_t at = 0; at <= dirs.size();) {
    size_t end = dirs.find(':', at);
    if (end == std::string::npos) end = dirs.size();
    const std::string d = dirs.substr(at, end - at);
    at = end + 1;
    if (d.empty()) continue;
    CAPTURE(d);
    Image im;
    REQUIRE(load(d + "/ab-code.png", im));
    ++seen;
    const int top_h = int((im.h - 22) * 0.6);
    const Box model{100, 22, 195, 22 + top_h}, gpu{205, 22, 295, 22 + top_h};
    CAPTURE(bar_pixels(im, model));
    CAPTURE(bar_pixels(im, gpu));
    CHECK(bar_pixels(im, model) > 200);
    CHECK(bar_pixels(im, gpu) > 200);
  }
  CHECK(seen == 2);
}

// Tensor-core kernels (tests/app/visit.txt, lessons 17 and 20): the timeline's rows above the
// warps (ui/app/tensor_rows.cpp's opaque colours) and the lanes view's fragment tiles.
TEST_CASE("710 app screenshots: tensor pipes, TMA copies, mbarrier phases and fragments") {
  const auto shots = shots_dir();
  if (!shots) return;
  const std::string& d = *shots;
  Image mma, frag, tma;
  REQUIRE(load(d + "/tensor-mma.png", mma));
  REQUIRE(load(d + "/tensor-fragments.png", frag));
  REQUIRE(load(d + "/tensor-tma.png", tma));
  const Box rows{90, 600, 950, 730};  // the tensor rows between the ruler and the warps
  // mma.sync (lesson 17): every sub-partition's pipe held at each k-step, nothing asynchronous.
  CHECK(count_color(mma, rows, 96, 236, 176) > 200);
  CHECK(count_color(mma, rows, 70, 130, 250) == 0);
  // Lesson 20's moe_expert: warpgroup MMAs on all four pipes, TMA copies, mbarrier phases.
  CHECK(count_color(tma, rows, 40, 210, 240) > 200);
  CHECK(count_color(tma, rows, 70, 130, 250) > 200);
  CHECK(count_color(tma, rows, 210, 120, 230) > 10);
  // The lanes view with the fragments of the last mma.sync under the instructions.
  CHECK(spread(frag, kMemory) > 10);
  CHECK(diff(mma, frag, kMemory) > 3);
}

// The newcomer's path (tests/app/visit.txt): lesson 2's sweep at its own N = 2^20, stride 32
// opened in the memory flow: the "steady" and "H100" columns (validation/data/link-use-h100.tsv)
// beside the window's busy bars, L1<->L2 the busiest on both (the model's saturated).
TEST_CASE("710 app screenshots: the memory flow shows the H100's measured link use") {
  const auto shots = shots_dir();
  if (!shots) return;
  const std::string& dir = *shots;
  Image flow;
  REQUIRE(load(std::string(dir) + "/flow-stride32.png", flow));
  // The H100 column's figures and its line, in DRAM orange (style.h color::kDram): glyph cores.
  CHECK(count_color(flow, kMemory, 230, 110, 80) > 40);
  // The busiest link over the steady state is marked (flow_panel.cpp's row colour over the
  // table's background): the second row, L1<->L2 (rows 20 px apart from y 652 at 1600x1000);
  // the same in the A/B flow (stride 1 pinned, stride 32 shown), whose difference line above
  // the table moves the rows down by one.
  CHECK(count_color(flow, kMemory, 77, 48, 32) > 500);
  CHECK(count_color(flow, Box{970, 672, 1590, 693}, 77, 48, 32) > 5000);
  CHECK(count_color(flow, Box{970, 600, 1590, 671}, 77, 48, 32) +
            count_color(flow, Box{970, 694, 1590, 760}, 77, 48, 32) <
        100);
  Image ab;
  REQUIRE(load(std::string(dir) + "/ab-flow.png", ab));
  CHECK(count_color(ab, Box{970, 692, 1590, 713}, 77, 48, 32) > 5000);
  CHECK(count_color(ab, Box{970, 600, 1590, 691}, 77, 48, 32) +
            count_color(ab, Box{970, 714, 1590, 760}, 77, 48, 32) <
        100);
}

// Lesson 6 run at N = 2^20 (tests/app/visit.txt): under Run, the groups' table and the model's
// nine-kernels/fused ratios, then the H100's ratios from the committed data in DRAM orange (style.h
// color::kDram), which the lesson's page before the run does not show.
TEST_CASE("710 app screenshots: lesson 6's fused and unfused kernels, the H100's ratio beside") {
  const auto shots = shots_dir();
  if (!shots) return;
  Image page, fusion;
  REQUIRE(load(*shots + "/06-page.png", page));
  REQUIRE(load(*shots + "/fusion.png", fusion));
  CAPTURE(count_color(fusion, kExperiment, 230, 110, 80));
  CHECK(count_color(page, kExperiment, 230, 110, 80) < 10);
  CHECK(count_color(fusion, kExperiment, 230, 110, 80) > 100);
  CHECK(diff(page, fusion, kExperiment) > 1);
}
