// Memory traffic that moves: the traced SM's accesses flowing lanes -> LSU/coalescer -> L1 -> L2
// -> DRAM and back at the cycle cursor (play the timeline to watch them), with each link's queue
// occupancy and the bytes it delivered over a window before the cursor, as GB/s at the preset's
// clock. Stride 1 sends 4 sectors a warp and streams; stride 32 sends 32, the queue before the L1
// fills and most moved bytes are not used. The numbers come from ui/app/model/memory_flow.h,
// which says what the trace records and what this view simplifies.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <optional>

#include "ui/app/app_state.h"
#include "ui/app/model/lesson_catalog.h"
#include "ui/app/model/run_compare.h"
#include "ui/app/style.h"

namespace warplab::app {

namespace {

const char* kStageNames[] = {"lanes", "L1", "L2", "DRAM"};

std::string bytes_text(double b) {
  char t[32];
  if (b >= 1e6)
    std::snprintf(t, sizeof t, "%.1f MB", b / 1e6);
  else if (b >= 1e3)
    std::snprintf(t, sizeof t, "%.1f KB", b / 1e3);
  else
    std::snprintf(t, sizeof t, "%.0f B", b);
  return t;
}

// The dots' colours, always on screen.
void draw_flow_legend() {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float h = ImGui::GetTextLineHeight();
  auto item = [&](ImU32 c, bool hollow, const char* name) {
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const ImVec2 at(p.x + 5, p.y + h / 2);
    if (hollow)
      dl->AddCircle(at, 4, c, 8, 1.0f);
    else
      dl->AddCircleFilled(at, 4, c, 8);
    ImGui::Dummy(ImVec2(12, h));
    ImGui::SameLine(0, 2);
    ImGui::TextUnformatted(name);
    ImGui::SameLine(0, 12);
  };
  item(color::kHit, false, "L1 hits only");
  item(color::kL2, false, "deepest sector from the L2");
  item(color::kDram, false, "from DRAM");
  item(color::kDim, true, "store/atomic");
  ImGui::NewLine();
}

// A dot's x, in units of links from the lanes box (0) to the DRAM box (3).
double item_position(const FlowItem& it) {
  if (it.stage == FlowItem::Stage::ToL1) return it.progress;
  const double depth = it.from_dram > 0 ? 2 : it.from_l2 > 0 ? 1 : 0;  // links below the L1
  const double p = std::clamp(it.progress, 0.0, 1.0);
  return 1 + depth * (p < 0.5 ? 2 * p : 2 * (1 - p));  // down, then the data back up
}

ImU32 item_color(const FlowItem& it) {
  if (it.from_dram > 0) return color::kDram;
  if (it.from_l2 > 0) return color::kL2;
  return color::kHit;
}

std::string gbps_text(double v) {
  char b[32];
  std::snprintf(b, sizeof b, v >= 100 ? "%.0f GB/s" : "%.1f GB/s", v);
  return b;
}

// One link's sectors in flight over the launch, as a filled line scaled to its own peak, with the
// cursor; hovering names the peak.
void draw_queue_spark(const AppState& s, int link) {
  const std::vector<int>& v = s.flow_occupancy[link];
  const ImVec2 p = ImGui::GetCursorScreenPos();
  const float w = std::max(40.0f, ImGui::GetContentRegionAvail().x), h = ImGui::GetTextLineHeight();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const int peak = v.empty() ? 0 : *std::max_element(v.begin(), v.end());
  if (peak > 0 && v.size() > 1) {
    const ImU32 c = link == 0 ? color::kCursor : link == 1 ? color::kL2 : color::kDram;
    std::vector<float> bars = column_max(v, static_cast<int>(w));  // the highest in each column
    for (float& b : bars) b = h * b / float(peak);
    draw_column_bars(dl, p.x, p.y + h, bars, c);
  }
  const double first = double(s.flow.first_cycle), last = double(s.flow.last_cycle);
  if (last > first && s.cursor >= first && s.cursor <= last) {
    const float x = p.x + w * float((s.cursor - first) / (last - first));
    dl->AddLine(ImVec2(x, p.y), ImVec2(x, p.y + h), color::kText);
  }
  ImGui::Dummy(ImVec2(w, h));
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "peak %d sectors in flight (cycles %.0f to %.0f; each column one of %zu "
        "samples)",
        peak, first, last, v.size());
}

}  // namespace

// The launch's steady state (memory_flow.h steady_window; the whole launch for a grid of one
// wave): the model's use of each link, and the GPU's where Nsight Compute measured this kernel at
// these parameter values (validation/data/link-use-h100.tsv, measured_links.h).
struct WholeUse {
  SteadyWindow window;
  LinkUse model;
  int sms = 0;
  std::optional<MeasuredLinkUse> gpu;
};
WholeUse whole_launch_use(AppState& s, const timing::Trace& t, const RunSnapshot& run) {
  WholeUse w;
  w.window = steady_window(t, s.flow);
  if (w.window.end > w.window.begin) {
    w.sms = active_sms(t, w.window.begin, w.window.end);
    w.model = link_use(s.flow.rates(t, w.window.begin, w.window.end), run.links, w.sms);
  }
  if (!s.link_use_data && s.link_use_error.empty()) {
    namespace fs = std::filesystem;
    const std::string path =
        (fs::path(s.lessons_root).parent_path() / "validation" / "data" / "link-use-h100.tsv")
            .string();
    auto rows = parse_link_use(read_file_text(path), path);
    if (rows)
      s.link_use_data = std::move(*rows);
    else
      s.link_use_error = rows.error().to_string();
  }
  if (s.link_use_data) w.gpu = find_link_use(*s.link_use_data, run.experiment_path, run.params);
  return w;
}

constexpr const char* kWholeUseHelp =
    "steady: the model's use of each link over the launch's steady state, from the first block's "
    "end to the last block's dispatch (blocks still wait for a slot, every SM keeps working); a "
    "grid of one wave has none, and the column is the whole launch. H100: measured with Nsight "
    "Compute over the whole kernel at these parameter values (scripts/microbench/"
    "h100-stride-ncu-2026-11-27.tsv): lanes->L1 is the L1/TEX unit's throughput, L1<->L2 the L2 "
    "slices' tag lookups (every sector request the L1s send through the crossbar takes one), "
    "L2<->DRAM the DRAM's throughput, each as a percentage of its peak. The model counts L1<->L2 "
    "as its L2 slices' time: a sector per cycle per slice on the read path (loads) and on the "
    "write path (stores), each request a little more, a store to part of a sector a "
    "read-modify-write; every SM's L2 sectors (the counter samples) at the traced SM's cost per "
    "sector. 100%+: requests arrived faster than the link serves them (the model books an L2 "
    "request when the SM makes it; a saturated slice serves it later, its queue growing). On the "
    "H100, stride 32 at N = 2^20 keeps the L2's lookups at 80% of peak and DRAM at "
    "3%; a 4-byte store to a sector takes 1.8 lookups there (read-modify-write), a load 1.1, and "
    "the stores alone take 71% of the copy's time, the loads alone 42% (scripts/microbench/"
    "h100-stride-paths-2026-11-27.tsv): loads and stores share the lookups, where the model gives "
    "each a path, so its copy takes about its stores' time. At N = 65536 the kernel is too short "
    "for any link to fill (the L2 at 30%); at N = 2^24 the L2 and DRAM both run near 60%, the data "
    "no longer fitting in the L2.";

// What the busiest link's figure counts, for its line under the table.
std::string busiest_detail(const LinkUse& u) {
  if (u.busiest == 1)
    return u.l2_write_path ? "in the L2 slices' write path (a store to part of a sector is a "
                             "read-modify-write)"
                           : "in the L2 slices' read path";
  return u.busiest == 0 ? "at the L1 tag stage (a lookup per 128-byte line)" : "of DRAM's peak";
}

void draw_flow_panel(AppState& s) {
  const timing::Trace* t = s.trace();
  if (!t) {
    ImGui::TextDisabled("run an experiment: its memory traffic flows here as the cursor moves");
    return;
  }
  if (s.flow.by_issue.empty()) {
    ImGui::TextDisabled("this launch's traced SM made no global or local memory access");
    return;
  }
  const double cycle = s.cursor;
  const FlowState st = s.flow.at(*t, cycle, 400);
  const uint64_t c = static_cast<uint64_t>(std::max(0.0, cycle));
  const uint64_t w = static_cast<uint64_t>(std::max(1, s.flow_window));
  const uint64_t begin = c > w ? c - w : 0;
  const FlowRates r = s.flow.rates(*t, begin, c);
  const int sm = t->accesses[s.flow.by_issue.front()].sm;

  ImGui::TextDisabled("SM %d at cycle %llu: accesses in flight; bandwidth over the last", sm,
                      static_cast<unsigned long long>(c));
  ImGui::SameLine();
  ImGui::SetNextItemWidth(110);
  ImGui::SliderInt("cycles##flow window", &s.flow_window, 100, 20000, "%d",
                   ImGuiSliderFlags_Logarithmic);
  ImGui::SameLine();
  help_marker(
      "Dots are warp memory accesses of the traced SM: moving right from the lanes to the L1's "
      "tag stage (the LSU queue), then down to where their sectors are served and back with "
      "the data. Green: L1 hits only; blue: the deepest sector came from the L2; red: from "
      "DRAM. Hollow: stores and atomics (to the L2). A dot's size grows with its sectors. The L2 "
      "fetches from DRAM in groups of sectors (the preset's fetch_bytes), so the DRAM link can "
      "carry more sectors than the lanes asked for.\n\n"
      "Simplified: the simulator's trace records, per access, when it issued, when it reached "
      "the L1 tags and when its data was back, not when each sector passed the L2; a miss is "
      "drawn in flight from the tag stage until its data is back. Bandwidth counts delivered "
      "bytes (sectors x 32 B), each access's spread evenly from its tag stage until its data is "
      "back, over the window; GB/s uses the preset's SM clock. The DRAM figure for the whole GPU "
      "counts bytes as the simulated DRAM "
      "buses moved them.");

  draw_flow_legend();
  // 1. The path: the lanes, the coalescer, then three links to the L1, L2 and DRAM, with the
  //    accesses in flight as dots.
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  const float width = std::max(300.0f, ImGui::GetContentRegionAvail().x);
  const float box_w = 58, h = std::clamp(ImGui::GetContentRegionAvail().y * 0.3f, 46.0f, 74.0f);
  // lanes and the coalescer side by side, then the three links to the L1, L2 and DRAM.
  const float coal_w = 78, gap = 6;
  const float link_w = (width - 4 * box_w - coal_w - gap) / 3;
  auto box_x = [&](int i) {  // lanes, L1, L2, DRAM
    return i == 0 ? p0.x : p0.x + box_w + gap + coal_w + (i - 1) * box_w + i * link_w;
  };
  auto x_of = [&](double pos) {  // pos in links: box i's right edge .. box i+1's left edge
    const int i = std::clamp(static_cast<int>(pos), 0, 2);
    const double f = pos - i;
    return static_cast<float>(box_x(i) + box_w + f * link_w);
  };
  for (int i = 0; i < 4; ++i) {
    const ImVec2 a(box_x(i), p0.y + 8), b(box_x(i) + box_w, p0.y + h - 8);
    dl->AddRectFilled(a, b, IM_COL32(40, 44, 52, 255));
    dl->AddRect(a, b, IM_COL32(90, 96, 108, 255));
    const ImVec2 ts = ImGui::CalcTextSize(kStageNames[i]);
    dl->AddText(ImVec2(a.x + (box_w - ts.x) / 2, a.y + 4), color::kText, kStageNames[i]);
  }
  {  // the coalescer: a warp's 32 addresses become sectors (requests -> sectors over the window)
    const ImVec2 a(p0.x + box_w + gap, p0.y + 8), b(a.x + coal_w, p0.y + h - 8);
    dl->AddRectFilled(a, b, IM_COL32(40, 44, 52, 255));
    dl->AddRect(a, b, IM_COL32(90, 96, 108, 255));
    dl->AddText(ImVec2(a.x + 4, a.y + 4), color::kText, "coalescer");
    char t[40];
    if (r.requests > 0)
      std::snprintf(t, sizeof t, "%.1f sect/req",
                    r.moved_bytes / double(FlowIndex::kSectorBytes) / r.requests);
    else
      std::snprintf(t, sizeof t, "idle");
    const float fs = s.fonts.small ? s.fonts.small->FontSize : ImGui::GetFontSize();
    dl->AddText(s.fonts.small, fs, ImVec2(a.x + 4, a.y + 6 + ImGui::GetFontSize()), color::kCursor,
                t);
    dl->AddLine(ImVec2(p0.x + box_w, p0.y + h / 2), ImVec2(a.x, p0.y + h / 2), color::kDim, 2);
  }
  if (h >= 60) {  // what the L1 box serves now, where the box has room under its name
    char b[32];
    std::snprintf(b, sizeof b, "%d hit", st.l1_hit_sectors);
    const float fs = s.fonts.small ? s.fonts.small->FontSize : ImGui::GetFontSize();
    dl->AddText(s.fonts.small, fs, ImVec2(box_x(1) + 4, p0.y + h - 10 - fs), color::kHit, b);
  }
  for (int i = 0; i < kFlowLinks; ++i) {
    const float y = p0.y + h / 2;
    dl->AddLine(ImVec2(x_of(i), y - 10), ImVec2(x_of(i + 1.0) - 0.01f, y - 10), color::kGrid, 1);
    dl->AddLine(ImVec2(x_of(i), y + 10), ImVec2(x_of(i + 1.0) - 0.01f, y + 10), color::kGrid, 1);
  }
  // Hundreds of dots: drawn without an anti-aliased fringe and with 8 segments (6 triangles a dot
  // instead of 28; the software renderer pays per triangle).
  const ImDrawListFlags aa = dl->Flags;
  dl->Flags &= ~ImDrawListFlags_AntiAliasedFill;
  for (const FlowItem& it : st.items) {
    const timing::AccessRecord& a = t->accesses[it.access];
    const double pos = item_position(it);
    const bool back = it.stage == FlowItem::Stage::BelowL1 && it.progress >= 0.5;
    // Spread dots vertically by access id so that a queue shows as a crowd, not one dot.
    const float jitter = static_cast<float>((a.id * 2654435761u >> 8) % 13) - 6;
    const float y = p0.y + h / 2 + (back ? 10.0f : -10.0f) + jitter;
    const float radius = 1.5f + std::min(5.0f, 0.16f * static_cast<float>(a.sectors));
    const ImVec2 at(
        pos <= 1 && it.stage == FlowItem::Stage::BelowL1 && it.from_l2 == 0 && it.from_dram == 0
            ? box_x(1) + box_w / 2 + jitter * 2
            : x_of(pos),
        y);
    if (it.store)
      dl->AddCircle(at, radius, item_color(it), 8, 1.0f);
    else
      dl->AddCircleFilled(at, radius, item_color(it), 8);
  }
  dl->Flags = aa;
  ImGui::Dummy(ImVec2(width, h));

  // 2. Per link: queue occupancy now and delivered bandwidth over the window.
  const double mhz = t->clock_mhz;
  const uint64_t span = c - begin;
  const RunSnapshot* run = s.run.get();
  const bool have_caps = run && run->links.tag_lines_per_cycle > 0;
  const int sharing = active_sms(*t, begin, c);
  const LinkUse use = have_caps ? link_use(r, run->links, sharing) : LinkUse{};
  // A/B: the pinned run's use over the same window at the same relative position of its launch.
  std::optional<LinkUse> use_a;
  const timing::Trace* ta = s.pinned && s.pinned != s.run ? s.pinned_trace() : nullptr;
  if (ta && have_caps && !s.pinned_flow.by_issue.empty() && s.flow.last_cycle > s.flow.first_cycle) {
    const double f = std::clamp((cycle - double(s.flow.first_cycle)) /
                                    double(s.flow.last_cycle - s.flow.first_cycle),
                                0.0, 1.0);
    const uint64_t ca = s.pinned_flow.first_cycle +
                        uint64_t(f * double(s.pinned_flow.last_cycle - s.pinned_flow.first_cycle));
    const uint64_t ba = ca > w ? ca - w : 0;
    use_a = link_use(s.pinned_flow.rates(*ta, ba, ca), s.pinned->links, active_sms(*ta, ba, ca));
  }
  if (use_a) {
    // One row: the time ratio is left out where the whole line would not fit.
    const std::string line = "A -> B: " + s.ab_line;
    const bool fits = ImGui::CalcTextSize(line.c_str()).x + 30 < ImGui::GetContentRegionAvail().x;
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(color::kCursor), "%s",
                       fits ? line.c_str() : ("A -> B: " + s.ab_line_memory).c_str());
    help_marker(
        "A is the pinned run, B the run shown. The A column is A's link use over the same "
        "window length at the same relative position in its launch (the cursor's fraction of "
        "B's memory traffic).");
  }
  const WholeUse whole = have_caps ? whole_launch_use(s, *t, *run) : WholeUse{};
  const int columns = 6 + (use_a ? 1 : 0) + (have_caps ? 1 : 0) + (whole.gpu ? 1 : 0);
  if (ImGui::BeginTable("links", columns, ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_RowBg)) {
    ImGui::TableSetupColumn("link");
    if (use_a) ImGui::TableSetupColumn("A busy");
    ImGui::TableSetupColumn(use_a ? "B busy (of capacity)" : "busy (of capacity)");
    if (have_caps) ImGui::TableSetupColumn(whole.window.steady ? "steady" : "launch");
    if (whole.gpu) ImGui::TableSetupColumn("H100");
    ImGui::TableSetupColumn("rate");
    ImGui::TableSetupColumn("moved");
    ImGui::TableSetupColumn("in flight: acc / sect");
    ImGui::TableSetupColumn("sectors in flight, whole launch", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableHeadersRow();
    for (int i = 0; i < kFlowLinks; ++i) {
      ImGui::TableNextRow();
      if (have_caps && i == whole.model.busiest && whole.model.fraction[i] > 0)
        ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg1, IM_COL32(110, 60, 30, 150));
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(flow_link_name(i));
      if (use_a) {
        ImGui::TableNextColumn();
        ImGui::TextDisabled("%s", link_use_text(use_a->fraction[i]).c_str());
      }
      ImGui::TableNextColumn();
      if (have_caps) {  // a bar to 100% and the figure
        const ImVec2 b = ImGui::GetCursorScreenPos();
        const float bw = 50, bh = ImGui::GetTextLineHeight();
        const float f = static_cast<float>(std::min(1.0, use.fraction[i]));
        dl->AddRectFilled(ImVec2(b.x, b.y + 3), ImVec2(b.x + bw, b.y + bh - 3),
                          IM_COL32(50, 54, 62, 255));
        dl->AddRectFilled(ImVec2(b.x, b.y + 3), ImVec2(b.x + bw * f, b.y + bh - 3),
                          color::kAccent);
        ImGui::Dummy(ImVec2(bw + 4, bh));
        ImGui::SameLine(0, 0);
        ImGui::TextUnformatted(link_use_text(use.fraction[i]).c_str());
        if (ImGui::IsItemHovered())
          ImGui::SetTooltip(use.gpu_wide && i > 0
                                ? "capacity: %s. Every SM's traffic, from the counter samples in "
                                  "the window (%d SMs had blocks)"
                                : "capacity: %s (the traced SM's traffic against its even share: "
                                  "%d SMs had blocks in the window)",
                            run->links.basis[i].c_str(), sharing);
      } else {
        ImGui::TextDisabled("-");
      }
      if (have_caps) {
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(link_use_text(whole.model.fraction[i]).c_str());
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", kWholeUseHelp);
      }
      if (whole.gpu) {
        ImGui::TableNextColumn();
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(color::kDram), "%3.0f%%",
                           whole.gpu->percent[size_t(i)]);
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", kWholeUseHelp);
      }
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(gbps_text(flow_gbps(r.bytes[i], span, mhz)).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(bytes_text(r.bytes[i]).c_str());
      ImGui::TableNextColumn();
      ImGui::Text("%d / %d", st.accesses[i], st.sectors[i]);
      ImGui::TableNextColumn();
      draw_queue_spark(s, i);
    }
    ImGui::EndTable();
  }
  ImGui::PushTextWrapPos(0.0f);  // the busiest-link lines wrap at the panel's edge
  if (have_caps && whole.model.fraction[whole.model.busiest] > 0) {
    const LinkUse& m = whole.model;
    char span[96];
    std::snprintf(span, sizeof span, "cycles %llu-%llu",
                  static_cast<unsigned long long>(whole.window.begin),
                  static_cast<unsigned long long>(whole.window.end));
    const double f = m.fraction[m.busiest];
    char use[64];
    if (link_use_text(f) == "100%+")  // requests came faster than it serves them
      std::snprintf(use, sizeof use, "saturated (asked for %.0f%% of capacity)", 100 * f);
    else
      std::snprintf(use, sizeof use, "at %.0f%% of capacity", 100 * f);
    ImGui::Text("busiest over the %s (%s): %s %s, %s",
                whole.window.steady ? "steady state" : "launch (one wave)", span,
                flow_link_name(m.busiest), use, busiest_detail(m).c_str());
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", kWholeUseHelp);
  }
  if (whole.gpu)
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(color::kDram),
                       "%s (Nsight Compute, whole kernel, %s): busiest %s at %.0f%% of peak",
                       "H100", whole.gpu->date.c_str(), flow_link_name(whole.gpu->busiest()),
                       whole.gpu->percent[size_t(whole.gpu->busiest())]);
  if (have_caps && use.fraction[use.busiest] > 0)
    ImGui::TextDisabled("in the window before the cursor: %s at %s", flow_link_name(use.busiest),
                        link_use_text(use.fraction[use.busiest]).c_str());
  ImGui::PopTextWrapPos();
  // 3. Efficiency and the whole GPU's DRAM.
  if (r.moved_bytes > 0)
    ImGui::Text("lanes used %.0f%% of the bytes the L1 delivered (%s asked for, %s moved)",
                100.0 * r.useful_bytes / r.moved_bytes, bytes_text(r.useful_bytes).c_str(),
                bytes_text(r.moved_bytes).c_str());
  else
    ImGui::TextDisabled("no data of this SM moved in the window");
  const double peak = t->dram_peak_bytes_per_second / 1e9;
  if (r.gpu_end > r.gpu_begin) {
    const double gpu = flow_gbps(r.gpu_dram_bytes, r.gpu_end - r.gpu_begin, mhz);
    ImGui::Text("whole GPU DRAM: %s of %s peak (%d SMs; an even share is %s per SM)",
                gbps_text(gpu).c_str(), gbps_text(peak).c_str(), t->sm_count,
                gbps_text(t->sm_count > 0 ? peak / t->sm_count : 0).c_str());
    const ImVec2 b = ImGui::GetCursorScreenPos();
    const float bw = std::min(width, 400.0f);
    const float f = peak > 0 ? static_cast<float>(std::min(1.0, gpu / peak)) : 0;
    dl->AddRectFilled(b, ImVec2(b.x + bw, b.y + 6), IM_COL32(50, 54, 62, 255));
    dl->AddRectFilled(b, ImVec2(b.x + bw * f, b.y + 6), color::kDram);
    ImGui::Dummy(ImVec2(bw, 8));
  } else {
    ImGui::TextDisabled("whole GPU DRAM: the window is shorter than one counter sample");
  }
}

}  // namespace warplab::app
