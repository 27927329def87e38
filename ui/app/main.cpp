// warplab-app: the desktop app. Lessons on the left, the page and the experiment on top, the
// simulator's warp timeline, memory journey and counters below.
//
//   warplab-app [--lesson NAME] [--experiment FILE.toml] [--run | --sweep] [--frames N]
//               [--screenshot OUT.png] [--size WxH] [--lessons DIR] [--show-source]
//
// --screenshot renders a few frames (after the run, with --run), reads the framebuffer back,
// writes a PNG and exits: the headless self-check under Xvfb. --frames N exits after N frames.
// Dear ImGui's GLFW and OpenGL3 backends are used as shipped (Debian libimgui-dev).
#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "lab/huge_pages.h"
#include "lab/lesson.h"
#include "ui/app/app_state.h"
#include "ui/app/frame_damage.h"
#include "ui/app/screenshot.h"
#include "ui/app/script_player.h"
#include "ui/app/style.h"

namespace warplab::app {
namespace {

struct Args {
  std::string lesson = "02-coalescing";  // the default lesson (lessons/README.md)
  std::string screenshot;
  std::string lessons_root = lab::lessons_dir();  // $WARPLAB_LESSONS_DIR, beside the binary, ...
  bool run = false;
  bool sweep = false;        // run the selected experiment's whole sweep (--experiment picks one)
  std::string experiment;    // file name of the experiment to select (e.g. stride-sweep.toml)
  bool show_source = false;  // open the kernel-source tab (for screenshots)
  std::string script;        // --script FILE (ui/app/model/app_script.h)
  // Print FRAMES n=... mean_ms=... p95_ms=... size=WxH cpu_ms=... cpu_p95_ms=... cpu_max_ms=...
  // at exit.
  bool frame_stats = false;
  // Draw every frame twice, only what changed and whole, and fail when they differ
  // (frame_damage.h).
  bool verify_damage = false;
  bool whole_frames = false;  // draw every frame whole (to measure what damage tracking saves)
  long frames = -1;
  int width = 1600, height = 1000;
};

bool parse_args(int argc, char** argv, Args& a) {
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    auto next = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    if (k == "--lesson") {
      const char* v = next();
      if (!v) return false;
      a.lesson = v;
    } else if (k == "--screenshot") {
      const char* v = next();
      if (!v) return false;
      a.screenshot = v;
    } else if (k == "--lessons") {
      const char* v = next();
      if (!v) return false;
      a.lessons_root = v;
    } else if (k == "--frames") {
      const char* v = next();
      if (!v) return false;
      a.frames = std::strtol(v, nullptr, 10);
    } else if (k == "--size") {
      const char* v = next();
      if (!v || std::sscanf(v, "%dx%d", &a.width, &a.height) != 2) return false;
    } else if (k == "--show-source") {
      a.show_source = true;
    } else if (k == "--run") {
      a.run = true;
    } else if (k == "--script") {
      const char* v = next();
      if (!v) return false;
      a.script = v;
    } else if (k == "--whole-frames") {
      a.whole_frames = true;
    } else if (k == "--verify-damage") {
      a.verify_damage = true;
    } else if (k == "--frame-stats") {
      a.frame_stats = true;
    } else if (k == "--sweep") {
      a.sweep = true;
    } else if (k == "--experiment") {
      const char* v = next();
      if (!v) return false;
      a.experiment = v;
    } else {
      return false;
    }
  }
  return true;
}

// Fixed tiling, recomputed from the window size every frame.
void layout_and_draw(AppState& s, float w, float h) {
  // The panels tile the window and the frame starts cleared to their background colour
  // (run_app), so they draw no background of their own: a software renderer (Mesa's llvmpipe)
  // pays for every pixel it shades, and the backgrounds were more than half of them.
  const ImGuiWindowFlags fixed = ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize |
                                 ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoSavedSettings |
                                 ImGuiWindowFlags_NoBackground;
  float top = 0;
  // The menu bar draws its own background (MenuBarBg) over its window's: skip the window's.
  ImGui::PushStyleColor(ImGuiCol_WindowBg, IM_COL32(0, 0, 0, 0));
  const bool menu_bar = ImGui::BeginMainMenuBar();
  ImGui::PopStyleColor();
  if (menu_bar) {
    ImGui::PushFont(s.fonts.bold);
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(color::kAccent), "WarpLab");
    ImGui::PopFont();
    ImGui::TextDisabled("how GPUs execute code");
    ImGui::SameLine(w - 470);
    ImGui::TextDisabled("simulator: WarpLab PTX timing model (not measurements)   F1: keys");
    top = ImGui::GetWindowSize().y;
    ImGui::EndMainMenuBar();
  }
  // The code view full width: it takes the lesson list's and the experiment's room, and more
  // height (switching back to the page tab restores them).
  const bool code_wide =
      s.code_wide && (s.center_tab == 1 || (s.center_tab < 0 && s.code_tab_open));
  const float left_w = code_wide ? 0 : 250;
  const float top_h = std::floor((h - top) * (code_wide ? 0.6f : 0.47f)), bottom_y = top + top_h;
  const float page_w = code_wide ? w : std::floor((w - left_w) * 0.46f);
  const float tl_w = std::floor(w * 0.60f);
  // Below 900 px the memory views (flow table, fan-out) get more of the lower right, the
  // counters less: at 1280x800 the flow's busiest-link line stays above the fold.
  const float mem_h = std::floor((h - bottom_y) * (h < 900 ? 0.66f : 0.56f));
  auto place = [&](float x, float y, float ww, float hh) {
    ImGui::SetNextWindowPos(ImVec2(x, y));
    ImGui::SetNextWindowSize(ImVec2(ww, hh));
  };
  if (!code_wide) {
    place(0, top, left_w, top_h);
    if (ImGui::Begin("Lessons", nullptr, fixed | ImGuiWindowFlags_NoTitleBar))
      draw_lesson_browser(s);
    ImGui::End();
  }
  place(left_w, top, page_w, top_h);
  if (ImGui::Begin("Page", nullptr, fixed | ImGuiWindowFlags_NoTitleBar)) draw_page_view(s);
  ImGui::End();
  if (!code_wide) {
    place(left_w + page_w, top, w - left_w - page_w, top_h);
    if (ImGui::Begin("Experiment", nullptr, fixed | ImGuiWindowFlags_NoTitleBar))
      draw_experiment_panel(s);
    ImGui::End();
  }
  place(0, bottom_y, tl_w, h - bottom_y);
  if (ImGui::Begin("Warp timeline", nullptr,
                   fixed | ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoScrollbar |
                       ImGuiWindowFlags_NoScrollWithMouse)) {
    if (ImGui::BeginTabBar("lower left")) {
      const auto flag = [&](int k) {
        return s.left_tab == k ? ImGuiTabItemFlags_SetSelected : ImGuiTabItemFlags_None;
      };
      const ImGuiTabItemFlags f0 = flag(0), f1 = flag(1), f2 = flag(2);
      s.left_tab = -1;  // a request, honoured once
      if (ImGui::BeginTabItem("Warp timeline", nullptr, f0)) {
        draw_timeline_panel(s);
        ImGui::EndTabItem();
      }
      if (ImGui::BeginTabItem("Buffers", nullptr, f1)) {
        draw_buffers_panel(s);
        ImGui::EndTabItem();
      }
      if (ImGui::BeginTabItem("Whole GPU", nullptr, f2)) {
        draw_gpu_panel(s);
        ImGui::EndTabItem();
      }
      ImGui::EndTabBar();
    }
  }
  ImGui::End();
  place(tl_w, bottom_y, w - tl_w, mem_h);
  if (ImGui::Begin("Memory", nullptr, fixed | ImGuiWindowFlags_NoTitleBar)) {
    if (ImGui::BeginTabBar("warp views")) {
      const auto flag = [&](int k) {
        return s.lower_tab == k ? ImGuiTabItemFlags_SetSelected : ImGuiTabItemFlags_None;
      };
      const ImGuiTabItemFlags mem_flag = flag(0), lanes_flag = flag(1), flow_flag = flag(2),
                              banks_flag = flag(3);
      s.lower_tab = -1;  // a request, honoured once
      if (ImGui::BeginTabItem("Memory access", nullptr, mem_flag)) {
        draw_memory_panel(s);
        ImGui::EndTabItem();
      }
      if (ImGui::BeginTabItem("Lanes (divergence)", nullptr, lanes_flag)) {
        draw_lanes_panel(s);
        ImGui::EndTabItem();
      }
      if (ImGui::BeginTabItem("Memory flow", nullptr, flow_flag)) {
        draw_flow_panel(s);
        ImGui::EndTabItem();
      }
      if (ImGui::BeginTabItem("Banks", nullptr, banks_flag)) {
        draw_banks_panel(s);
        ImGui::EndTabItem();
      }
      ImGui::EndTabBar();
    }
  }
  ImGui::End();
  place(tl_w, bottom_y + mem_h, w - tl_w, h - bottom_y - mem_h);
  if (ImGui::Begin("Counters", nullptr, fixed | ImGuiWindowFlags_NoTitleBar))
    draw_counters_panel(s);
  ImGui::End();
}

// CPU time this process has used, every thread (Mesa's rasterizer threads included).
double process_cpu_ms() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return double(t.tv_sec) * 1e3 + double(t.tv_nsec) * 1e-6;
}

void read_back(int w, int h, std::vector<unsigned char>& px) {
  px.resize(size_t(w) * size_t(h) * 4);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadBuffer(GL_BACK);
  glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, px.data());
}

// For the screenshot: a state that shows every panel at work (cursor a third in, the first
// warp slot's access there selected, the view on the first half of the kernel).
void stage_for_screenshot(AppState& s) {
  const timing::Trace* t = s.trace();
  if (!t || s.index.rows.empty()) return;
  const double first = double(s.index.first_cycle), last = double(s.index.last_cycle);
  s.view.fit(s.index.first_cycle, s.index.first_cycle + uint64_t((last - first) * 0.12) + 1,
             s.view.width_px);
  s.view_fitted = true;
  s.cursor = first + (last - first) * 0.05;
  s.selected_row = 0;
  s.selected_access = s.index.access_near(*t, 0, s.cursor);
  if (s.selected_access) s.cursor = double(t->accesses[*s.selected_access].issue) + 1;
}

// The backend creates the font atlas at the first frame with bilinear filtering; the glyphs map
// texel to pixel (style.cpp loads them snapped to whole pixels), so nearest sampling draws the
// same picture and Mesa's software renderer shades each pixel of text and fill for less.
void use_unfiltered_font_atlas(const ImGuiIO& io) {
  glBindTexture(GL_TEXTURE_2D, static_cast<GLuint>(reinterpret_cast<intptr_t>(io.Fonts->TexID)));
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
}

int run_app(const Args& args) {
  glfwSetErrorCallback(
      [](int code, const char* msg) { std::fprintf(stderr, "glfw error %d: %s\n", code, msg); });
  if (!glfwInit()) {
    std::fprintf(stderr, "warplab-app: cannot initialise GLFW (no display? try xvfb-run)\n");
    return 2;
  }
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 0);
  GLFWwindow* window = glfwCreateWindow(args.width, args.height, "WarpLab", nullptr, nullptr);
  if (!window) {
    std::fprintf(stderr, "warplab-app: cannot create an OpenGL 3.0 window\n");
    glfwTerminate();
    return 2;
  }
  glfwMakeContextCurrent(window);
  glfwSwapInterval(args.screenshot.empty() ? 1 : 0);

  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;
  int rc = 0;
  {
    AppState s;  // destroyed (worker joined) before ImGui goes away
    s.fonts = load_fonts(io);
    s.probe_gpu();
    apply_style();
    ImGui_ImplGlfw_InitForOpenGL(window, true);
    ImGui_ImplOpenGL3_Init("#version 130");
    FrameDamage damage;
    damage.probe(window);
    std::vector<unsigned char> partial_px, whole_px;
    long damage_bad_frames = 0;

    // --lesson PATH: a lesson folder anywhere (an instructor's own) opens among its siblings.
    std::string lessons_root = args.lessons_root, lesson_name = args.lesson;
    if (std::error_code ec;
        std::filesystem::is_regular_file(std::filesystem::path(args.lesson) / "lesson.toml", ec)) {
      const std::filesystem::path dir = std::filesystem::absolute(args.lesson, ec);
      lessons_root = dir.parent_path().string();
      lesson_name = dir.filename().string();
    }
    s.lessons_root = lessons_root;
    s.lessons = scan_lessons(lessons_root);
    int l = find_lesson(s.lessons, lesson_name);
    if (l < 0 && !s.lessons.empty()) {
      std::fprintf(stderr, "warplab-app: no lesson '%s' in %s; showing the first\n",
                   lesson_name.c_str(), lessons_root.c_str());
      l = 0;
    }
    s.select_lesson(l);
    if (!args.experiment.empty()) {
      int e = -1;
      for (int k = 0; k < static_cast<int>(s.experiments.size()); ++k)
        if (file_name(s.experiments[k].path) == args.experiment) e = k;
      if (e < 0) {
        std::fprintf(stderr, "warplab-app: lesson '%s' has no experiment '%s'\n",
                     args.lesson.c_str(), args.experiment.c_str());
        rc = 2;
      } else {
        s.select_experiment(e);
      }
    }
    if (args.sweep)
      s.start_sweep();
    else if (args.run)
      s.start_run();
    if (args.show_source) s.center_tab = 1;

    std::optional<ScriptPlayer> script;
    if (!args.script.empty()) {
      bool ok = false;
      const std::string text = read_file_text(args.script, &ok);
      auto cmds = ok ? parse_app_script(text, args.script)
                     : Expected<std::vector<ScriptCommand>>(
                           Error{args.script, 0, "cannot read the script file"});
      if (!cmds) {
        std::fprintf(stderr, "%s\n", cmds.error().to_string().c_str());
        rc = 2;
      } else {
        script.emplace(std::move(*cmds), args.script);
      }
    }
    std::vector<double> frame_ms;
    // CPU time of the whole process per frame (the renderer's threads included), over the frames
    // drawn while no run computes: on a machine shared with other jobs the wall time of a frame
    // depends on them, its CPU time much less.
    std::vector<double> cpu_frame_ms;
    const auto t0 = std::chrono::steady_clock::now();
    long frame = 0, settle = -1;
    bool staged = false;
    // Redraw only while something changes: playing the timeline, a run in progress (10 frames a
    // second for its progress line), or the two frames after an input event (ImGui shows the
    // effect of input one frame later). Idle, the app sleeps in glfwWaitEventsTimeout and draws
    // about twice a second, instead of keeping a core busy.
    int quiet_frames = 0;
    while (rc != 2 && !glfwWindowShouldClose(window)) {
      const bool scripted = !args.screenshot.empty() || args.frames >= 0 || script;
      if (scripted || s.playing) {
        glfwPollEvents();
      } else if (s.busy()) {
        glfwWaitEventsTimeout(0.1);
      } else if (quiet_frames >= 2) {
        glfwWaitEventsTimeout(0.5);
        quiet_frames = 0;
      } else {
        glfwPollEvents();
      }
      ++quiet_frames;
      s.poll_worker();
      if (script && !script->before_frame(s)) {
        rc = script->rc();
        break;
      }
      // `wait`: a frame every 0.1 s while a run computes, as the interactive loop draws its
      // progress line (more only takes the cores from the run being waited for).
      if (script && s.busy()) glfwWaitEventsTimeout(0.1);
      const auto frame_start = std::chrono::steady_clock::now();
      const double cpu_start = process_cpu_ms();
      const bool computing = s.busy();
      ImGui_ImplOpenGL3_NewFrame();
      if (frame == 0) use_unfiltered_font_atlas(io);
      ImGui_ImplGlfw_NewFrame();
      ImGui::NewFrame();
      int fb_w = 0, fb_h = 0;
      glfwGetFramebufferSize(window, &fb_w, &fb_h);
      handle_shortcuts(s);
      layout_and_draw(s, io.DisplaySize.x, io.DisplaySize.y);
      draw_help_overlay(s);
      ImGui::Render();
      const ImVec4 bg = ImGui::GetStyle().Colors[ImGuiCol_WindowBg];  // the panels' background
      damage.render(ImGui::GetDrawData(), fb_w, fb_h, bg, args.whole_frames);
      if (args.verify_damage && damage.enabled()) {  // the same frame drawn whole must match
        read_back(fb_w, fb_h, partial_px);
        damage.render(ImGui::GetDrawData(), fb_w, fb_h, bg, /*force_whole=*/true);
        read_back(fb_w, fb_h, whole_px);
        size_t differ = 0;
        for (size_t i = 0; i < whole_px.size(); i += 4)
          differ += std::memcmp(&whole_px[i], &partial_px[i], 3) != 0;
        if (differ > 0) {
          ++damage_bad_frames;
          if (damage_bad_frames <= 3)
            std::fprintf(stderr, "warplab-app: frame %ld: %zu pixels differ from a whole redraw\n",
                         frame, differ);
        }
      }
      ++frame;
      if (script) script->after_render(fb_w, fb_h);

      if (!args.screenshot.empty()) {
        // Wait for the run (if asked), stage the panels, let layout settle, then capture.
        const double waited =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        const bool run_done = args.sweep ? !s.worker.busy() && s.sweep() && s.sweep()->done
                                         : !args.run || (!s.worker.busy() && s.run);
        if (run_done && !staged) {
          stage_for_screenshot(s);
          staged = true;
          settle = frame + 6;
        }
        if (!run_done && waited > 900) {
          std::fprintf(stderr, "warplab-app: the run did not finish in 900 s; capturing anyway\n");
          settle = frame;
        }
        if (settle >= 0 && frame >= settle) {
          std::string err;
          if (!write_framebuffer_png(args.screenshot, fb_w, fb_h, err)) {
            std::fprintf(stderr, "warplab-app: screenshot: %s\n", err.c_str());
            rc = 1;
          } else {
            std::printf("wrote %s (%dx%d, %ld frames, %.1f s)\n", args.screenshot.c_str(), fb_w,
                        fb_h, frame, waited);
          }
          break;
        }
        if (!run_done) glfwWaitEventsTimeout(0.05);
      } else if (args.frames >= 0 && frame >= args.frames) {
        break;
      }
      glfwSwapBuffers(window);
      if (args.frame_stats) {
        glFinish();  // the software renderer's work counts too
        frame_ms.push_back(std::chrono::duration<double, std::milli>(
                               std::chrono::steady_clock::now() - frame_start)
                               .count());
        if (!computing && !s.busy()) cpu_frame_ms.push_back(process_cpu_ms() - cpu_start);
      }
    }
    if (args.verify_damage) {
      std::printf("DAMAGE %s frames=%ld differing=%ld\n",
                  damage.enabled() ? "partial" : "off (the back buffer is not kept)", frame,
                  damage_bad_frames);
      if (damage_bad_frames > 0) rc = 1;
    }
    if (args.frame_stats && !frame_ms.empty()) {
      // Mean and 95th percentile; cpu_max_ms is the dearest frame (a tab switch, a whole repaint).
      const auto stats = [](std::vector<double> v, double& mean, double& p95, double& max) {
        mean = p95 = max = 0;
        if (v.empty()) return;
        std::sort(v.begin(), v.end());
        double sum = 0;
        for (double x : v) sum += x;
        mean = sum / double(v.size());
        p95 = v[std::min(v.size() - 1, (v.size() * 95 + 99) / 100 - 1)];
        max = v.back();
      };
      double mean = 0, p95 = 0, max = 0, cpu_mean = 0, cpu_p95 = 0, cpu_max = 0;
      stats(frame_ms, mean, p95, max);
      stats(cpu_frame_ms, cpu_mean, cpu_p95, cpu_max);
      std::printf(
          "FRAMES n=%zu mean_ms=%.2f p95_ms=%.2f size=%dx%d cpu_ms=%.2f cpu_p95_ms=%.2f "
          "cpu_max_ms=%.2f\n",
          frame_ms.size(), mean, p95, args.width, args.height, cpu_mean, cpu_p95, cpu_max);
    }
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
  }
  ImGui::DestroyContext();
  glfwDestroyWindow(window);
  glfwTerminate();
  return rc;
}

}  // namespace
}  // namespace warplab::app

int main(int argc, char** argv) {
  warplab::lab::use_huge_pages(argv);  // the simulator's heap on huge pages, as in `warplab`
  warplab::app::Args args;
  if (!warplab::app::parse_args(argc, argv, args)) {
    std::fprintf(
        stderr,
        "usage: warplab-app [--lesson NAME] [--experiment FILE.toml] [--run | --sweep] "
        "[--frames N] [--screenshot OUT.png] [--size WxH] [--lessons DIR] "
        "[--show-source] [--script FILE] [--frame-stats] [--verify-damage] [--whole-frames]\n");
    return 2;
  }
  return warplab::app::run_app(args);
}
