#include "ui/app/style.h"

#include <algorithm>
#include <array>
#include <filesystem>

namespace warplab::app {

namespace {
constexpr const char* kFontDir = "/usr/share/fonts/truetype/dejavu/";

ImFont* load(ImGuiIO& io, const char* file, float size) {
  const std::string path = std::string(kFontDir) + file;
  if (!std::filesystem::exists(path)) return nullptr;
  // Glyphs rasterised once at their pixel size and placed on whole pixels: every glyph quad maps
  // one texel to one pixel, so the atlas can be sampled without filtering (main.cpp sets
  // GL_NEAREST), which Mesa's software renderer shades for less than a bilinear fetch.
  ImFontConfig cfg;
  cfg.OversampleH = 1;
  cfg.OversampleV = 1;
  cfg.PixelSnapH = true;
  return io.Fonts->AddFontFromFileTTF(path.c_str(), size, &cfg);
}
}  // namespace

Fonts load_fonts(ImGuiIO& io) {
  Fonts f;
  f.body = load(io, "DejaVuSans.ttf", 15.0f);  // first font added = ImGui's default
  if (!f.body) {
    ImFont* d = io.Fonts->AddFontDefault();
    return Fonts{d, d, d, d, d, d, d, d};
  }
  f.bold = load(io, "DejaVuSans-Bold.ttf", 15.0f);
  f.italic = load(io, "DejaVuSans-Oblique.ttf", 15.0f);
  f.mono = load(io, "DejaVuSansMono.ttf", 14.0f);
  f.small = load(io, "DejaVuSans.ttf", 12.5f);
  f.h1 = load(io, "DejaVuSans-Bold.ttf", 23.0f);
  f.h2 = load(io, "DejaVuSans-Bold.ttf", 19.0f);
  f.h3 = load(io, "DejaVuSans-Bold.ttf", 16.5f);
  for (ImFont** p : {&f.bold, &f.italic, &f.mono, &f.small, &f.h1, &f.h2, &f.h3})
    if (!*p) *p = f.body;
  return f;
}

void apply_style() {
  ImGui::StyleColorsDark();
  ImGuiStyle& s = ImGui::GetStyle();
  // Square corners everywhere: a rounded frame is a polygon with an anti-aliased fringe (about
  // 50 triangles against 2 for a square one), and on Mesa's software renderer (CI, machines
  // without a GPU) every triangle costs about a microsecond to set up.
  s.WindowRounding = 0.0f;
  s.FrameRounding = 0.0f;
  s.GrabRounding = 0.0f;
  s.TabRounding = 0.0f;
  s.ScrollbarRounding = 0.0f;
  s.PopupRounding = 0.0f;
  s.ChildRounding = 0.0f;
  s.WindowBorderSize = 1.0f;
  s.FrameBorderSize = 0.0f;
  s.WindowPadding = ImVec2(10, 8);
  s.FramePadding = ImVec2(7, 4);
  s.ItemSpacing = ImVec2(8, 5);
  s.CellPadding = ImVec2(6, 3);
  s.ScrollbarSize = 12.0f;
  ImVec4* c = s.Colors;
  c[ImGuiCol_WindowBg] = ImVec4(0.086f, 0.094f, 0.110f, 1.0f);
  c[ImGuiCol_ChildBg] = ImVec4(0.075f, 0.082f, 0.096f, 1.0f);
  c[ImGuiCol_PopupBg] = ImVec4(0.11f, 0.12f, 0.14f, 0.98f);
  c[ImGuiCol_Border] = ImVec4(0.22f, 0.24f, 0.28f, 1.0f);
  c[ImGuiCol_TitleBg] = ImVec4(0.11f, 0.12f, 0.14f, 1.0f);
  c[ImGuiCol_TitleBgActive] = ImVec4(0.14f, 0.16f, 0.19f, 1.0f);
  c[ImGuiCol_FrameBg] = ImVec4(0.15f, 0.16f, 0.19f, 1.0f);
  c[ImGuiCol_FrameBgHovered] = ImVec4(0.20f, 0.22f, 0.26f, 1.0f);
  c[ImGuiCol_FrameBgActive] = ImVec4(0.24f, 0.27f, 0.32f, 1.0f);
  c[ImGuiCol_Button] = ImVec4(0.18f, 0.20f, 0.24f, 1.0f);
  c[ImGuiCol_ButtonHovered] = ImVec4(0.26f, 0.29f, 0.35f, 1.0f);
  c[ImGuiCol_ButtonActive] = ImVec4(0.30f, 0.46f, 0.10f, 1.0f);
  c[ImGuiCol_Header] = ImVec4(0.20f, 0.26f, 0.16f, 1.0f);
  c[ImGuiCol_HeaderHovered] = ImVec4(0.25f, 0.32f, 0.19f, 1.0f);
  c[ImGuiCol_HeaderActive] = ImVec4(0.30f, 0.40f, 0.20f, 1.0f);
  c[ImGuiCol_Tab] = ImVec4(0.13f, 0.14f, 0.17f, 1.0f);
  c[ImGuiCol_TabActive] = ImVec4(0.22f, 0.28f, 0.17f, 1.0f);
  c[ImGuiCol_TabHovered] = ImVec4(0.28f, 0.36f, 0.20f, 1.0f);
  c[ImGuiCol_SliderGrab] = ImVec4(0.46f, 0.72f, 0.0f, 1.0f);
  c[ImGuiCol_SliderGrabActive] = ImVec4(0.56f, 0.82f, 0.1f, 1.0f);
  c[ImGuiCol_CheckMark] = ImVec4(0.46f, 0.72f, 0.0f, 1.0f);
  c[ImGuiCol_TableHeaderBg] = ImVec4(0.13f, 0.14f, 0.17f, 1.0f);
  c[ImGuiCol_TableRowBgAlt] = ImVec4(1.0f, 1.0f, 1.0f, 0.03f);
  c[ImGuiCol_PlotLines] = ImVec4(0.46f, 0.72f, 0.0f, 1.0f);
}

ImU32 warp_state_color(timing::WarpState s) {
  // Issue states green/grey; memory waits warm; fixed-latency and pipe waits cool; sync purple.
  static constexpr std::array<ImU32, timing::kWarpStateCount> c = {
      IM_COL32(118, 200, 40, 255),   // selected
      IM_COL32(70, 110, 50, 255),    // not_selected
      IM_COL32(228, 92, 62, 255),    // long_scoreboard
      IM_COL32(240, 160, 60, 255),   // short_scoreboard
      IM_COL32(80, 140, 220, 255),   // wait
      IM_COL32(60, 190, 200, 255),   // math_pipe_throttle
      IM_COL32(200, 60, 130, 255),   // lg_throttle
      IM_COL32(230, 200, 70, 255),   // mio_throttle
      IM_COL32(150, 100, 220, 255),  // barrier
      IM_COL32(120, 120, 180, 255),  // branch_resolving
      IM_COL32(95, 98, 108, 255),    // no_instruction
      IM_COL32(150, 130, 110, 255),  // drain
      IM_COL32(200, 150, 220, 255),  // membar
      IM_COL32(176, 120, 240, 255),  // mbarrier
  };
  return c[static_cast<int>(s)];
}

const char* warp_state_meaning(timing::WarpState s) {
  using W = timing::WarpState;
  switch (s) {
    case W::Selected:
      return "issued an instruction this cycle";
    case W::NotSelected:
      return "ready to issue, but the scheduler picked another warp";
    case W::LongScoreboard:
      return "waiting for a global/local memory result (L1TEX: L1, L2, DRAM)";
    case W::ShortScoreboard:
      return "waiting for a shared-memory, SFU or shuffle result (MIO)";
    case W::Wait:
      return "waiting out a fixed-latency dependency (e.g. an ALU result)";
    case W::MathPipeThrottle:
      return "its math pipe is busy with earlier instructions";
    case W::LgThrottle:
      return "the LSU queue for global/local memory is full";
    case W::MioThrottle:
      return "the MIO queue (shared memory, SFU, shuffles) is full";
    case W::Barrier:
      return "waiting at a barrier (__syncthreads) for the rest of its block";
    case W::BranchResolving:
      return "waiting for a branch target to resolve";
    case W::NoInstruction:
      return "no instruction fetched yet (e.g. the block just launched)";
    case W::Drain:
      return "exited; waiting for its stores to drain";
    case W::Membar:
      return "waiting at a memory barrier";
    case W::Mbarrier:
      return "waiting for asynchronous copies: an mbarrier phase or a cp.async/bulk group";
    default:
      return "";
  }
}

void draw_warp_state_legend() {
  const float avail = ImGui::GetContentRegionAvail().x;
  float x = 0;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  for (int i = 0; i < timing::kWarpStateCount; ++i) {
    const auto st = static_cast<timing::WarpState>(i);
    const std::string_view name = timing::warp_state_name(st);
    const float w = 14 + ImGui::CalcTextSize(name.data(), name.data() + name.size()).x + 12;
    if (i > 0) {
      if (x + w < avail)
        ImGui::SameLine(0, 0);
      else
        x = 0;
    }
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const float h = ImGui::GetTextLineHeight();
    dl->AddRectFilled(ImVec2(p.x, p.y + h * 0.2f), ImVec2(p.x + 10, p.y + h * 0.8f),
                      warp_state_color(st));
    ImGui::Dummy(ImVec2(14, h));
    ImGui::SameLine(0, 0);
    ImGui::TextUnformatted(name.data(), name.data() + name.size());
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("%s: %s\n(Nsight Compute's warp state name)", name.data(),
                        warp_state_meaning(st));
    ImGui::SameLine(0, 0);
    ImGui::Dummy(ImVec2(12, h));
    x += w;
  }
}

void draw_column_bars(ImDrawList* dl, float x0, float y_base, const std::vector<float>& heights,
                      ImU32 col) {
  size_t from = 0;
  for (size_t i = 1; i <= heights.size(); ++i) {
    if (i < heights.size() && heights[i] == heights[from]) continue;
    if (heights[from] > 0)
      dl->AddRectFilled(ImVec2(x0 + float(from), y_base - heights[from]),
                        ImVec2(x0 + float(i), y_base), col);
    from = i;
  }
}

std::vector<float> column_max(const std::vector<int>& v, int columns) {
  std::vector<float> out(size_t(std::max(0, columns)), 0.0f);
  if (v.empty()) return out;
  for (size_t c = 0; c < out.size(); ++c) {
    const size_t i0 = std::min(v.size() - 1, v.size() * c / out.size());
    const size_t i1 = std::clamp(v.size() * (c + 1) / out.size(), i0 + 1, v.size());
    out[c] = float(*std::max_element(v.begin() + i0, v.begin() + i1));
  }
  return out;
}

ImU32 blend_over(ImU32 under, ImU32 over) {
  const unsigned a = (over >> IM_COL32_A_SHIFT) & 0xFF;
  auto ch = [&](int shift) {
    const unsigned u = (under >> shift) & 0xFF, o = (over >> shift) & 0xFF;
    return ((o * a + u * (255 - a) + 127) / 255) << shift;
  };
  return ch(IM_COL32_R_SHIFT) | ch(IM_COL32_G_SHIFT) | ch(IM_COL32_B_SHIFT) | IM_COL32_A_MASK;
}

void help_marker(const char* text) {
  ImGui::SameLine();
  ImGui::TextDisabled("(?)");
  if (ImGui::IsItemHovered()) {
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 32.0f);
    ImGui::TextUnformatted(text);
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
  }
}

void section_title(const Fonts& f, const char* text) {
  ImGui::PushFont(f.h3);
  ImGui::TextUnformatted(text);
  ImGui::PopFont();
}

}  // namespace warplab::app
