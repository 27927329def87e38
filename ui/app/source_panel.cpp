// The code view, as Compiler Explorer lays it out with a profiler inside: the kernel's CUDA (or
// Triton Python) on one side and, beside or under it, the PTX the simulator ran, the model's
// schedule (what the timing model does in place of ptxas, ui/app/model/code_listing.h) or the
// SASS ptxas makes of the PTX where a CUDA toolkit is installed. Lines of one CUDA line share a
// colour in every pane. Per line, from the last run (ui/app/model/code_profile.h): warp
// instructions, the stall warp-cycles as a bar of the model's stall-reason mix, sectors per
// request and shared-memory bank conflicts per request. Clicking a line marks its issues on the
// warp timeline and selects its first access in the memory view. Panes scroll both ways; a faint
// guide marks column 80. "Edit kernel" opens an editor; "Compile and run" runs the edit
// (ui/app/model/kernel_edit.h) with NVRTC's errors in red under their lines.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "ui/app/app_state.h"
#include "ui/app/model/axis.h"
#include "ui/app/model/lesson_catalog.h"
#include "ui/app/style.h"

namespace warplab::app {

namespace {

// The colour of each class of line_hue() (code_profile.h): eight hues apart on the dark theme.
ImU32 hue_color(int hue, int alpha) {
  static constexpr unsigned char kRgb[kLineHues][3] = {
      {230, 120, 90}, {110, 170, 255}, {120, 200, 90},  {220, 180, 70},
      {190, 120, 230}, {80, 200, 200},  {240, 130, 180}, {170, 170, 110}};
  if (hue < 0) return 0;
  return IM_COL32(kRgb[hue][0], kRgb[hue][1], kRgb[hue][2], alpha);
}

// One row of a pane.
struct PaneRow {
  int32_t number = 0;    // shown in the first column (a CUDA, PTX or SASS line number; 0 none)
  int32_t ptx_line = 0;  // the PTX line it stands for (0: none)
  int32_t src_line = 0;  // the CUDA line it comes from (0: none)
  const std::string* text = nullptr;
  const LineProfile* prof = nullptr;
  const std::vector<std::string>* errors = nullptr;  // NVRTC's messages under it
  const lab::StallMix* gpu = nullptr;                // the GPU's samples on it (committed data)
};

// A warp-state colour for a reason key of the GPU data (the model's names; CUPTI names the model
// has no state for are dim).
ImU32 reason_color(const std::string& reason) {
  for (int i = 0; i < timing::kWarpStateCount; ++i)
    if (timing::warp_state_name(static_cast<timing::WarpState>(i)) == reason)
      return warp_state_color(static_cast<timing::WarpState>(i));
  return color::kDim;
}

// The GPU's bar: the line's stall samples against the largest line's, split by reason.
void draw_gpu_bar(const lab::StallMix& m, uint64_t max_line, float width) {
  uint64_t n = 0;
  for (const auto& [reason, c] : m)
    if (reason != "selected") n += c;
  if (n == 0) return;
  const ImVec2 at = ImGui::GetCursorScreenPos();
  const float h = ImGui::GetTextLineHeight();
  const float w = width * float(double(n) / double(std::max<uint64_t>(1, max_line)));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  float x = at.x;
  for (const auto& [reason, f] : gpu_stall_shares(m, 3)) {
    dl->AddRectFilled(ImVec2(x, at.y + 2), ImVec2(x + w * float(f), at.y + h - 2),
                      reason_color(reason));
    x += w * float(f);
  }
  if (x < at.x + w)
    dl->AddRectFilled(ImVec2(x, at.y + 2), ImVec2(at.x + w, at.y + h - 2), color::kDim);
  ImGui::TextUnformatted(format_si(double(n), "").c_str());
}

enum class PaneKind { Cuda, Ptx, Schedule, Sass };

// The stall bar: the line's stall warp-cycles against the largest line's, split by reason.
void draw_stall_bar(const LineProfile& p, uint64_t max_stall, float width) {
  const uint64_t st = p.stall_cycles();
  if (st == 0) return;
  const ImVec2 at = ImGui::GetCursorScreenPos();
  const float h = ImGui::GetTextLineHeight();
  const float w = width * float(double(st) / double(std::max<uint64_t>(1, max_stall)));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  float x = at.x;
  double shown = 0;
  for (const auto& [state, f] : stall_mix(p, 3)) {
    dl->AddRectFilled(ImVec2(x, at.y + 2), ImVec2(x + w * float(f), at.y + h - 2),
                      warp_state_color(state));
    x += w * float(f);
    shown += f;
  }
  if (shown < 0.999)
    dl->AddRectFilled(ImVec2(x, at.y + 2), ImVec2(at.x + w, at.y + h - 2), color::kDim);
  ImGui::TextUnformatted(format_si(double(st), "").c_str());
}

void line_tooltip(const PaneRow& r, const std::string& gpu_name) {
  if (!r.prof) return;
  const LineProfile& p = *r.prof;
  ImGui::BeginTooltip();
  if (r.src_line > 0) ImGui::Text("CUDA line %d", r.src_line);
  if (r.ptx_line > 0 && r.src_line != r.number) ImGui::Text("PTX line %d", r.ptx_line);
  ImGui::Text("%s warp instructions issued (every SM)",
              format_si(double(p.warp_instructions), "").c_str());
  const uint64_t st = p.stall_cycles();
  ImGui::Text("%s warp-cycles stalled here; the model's reasons:",
              format_si(double(st), "").c_str());
  for (const auto& [state, f] : stall_mix(p, 6))
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(warp_state_color(state)), "  %3.0f%%  %s",
                       100 * f, timing::warp_state_name(state).data());
  if (p.requests)
    ImGui::Text("%.1f sectors per request (%llu requests on the traced SM)",
                p.sectors_per_request(), static_cast<unsigned long long>(p.requests));
  if (p.shared_requests)
    ImGui::Text("%.1f bank conflicts per shared request (%.1f wavefronts per request)",
                p.conflicts_per_request(),
                double(p.wavefronts) / double(std::max<uint64_t>(1, p.shared_requests)));
  if (r.gpu) {
    ImGui::Text("%s PC samples here (CUPTI), by reason:", gpu_name.c_str());
    for (const auto& [reason, f] : gpu_stall_shares(*r.gpu, 6))
      ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(reason_color(reason)), "  %3.0f%%  %s",
                         100 * f, gpu_reason_label(reason).c_str());
  }
  ImGui::EndTooltip();
}

// Draws one pane as a table that scrolls both ways; the line-number and count columns stay put
// while the code scrolls sideways. Returns the row clicked (-1: none).
int draw_pane(AppState& s, const char* id, PaneKind kind, const std::vector<PaneRow>& rows,
              uint64_t max_stall, ImVec2 size, int scroll_to_row, uint64_t gpu_max = 0) {
  const bool stats = kind == PaneKind::Cuda || kind == PaneKind::Ptx;
  const bool gpu = stats && gpu_max > 0;  // the GPU's column
  const float cw = ImGui::GetFont()->CalcTextSizeA(s.fonts.mono->FontSize, 1e9f, 0, "0").x;
  size_t longest = 80;
  for (const PaneRow& r : rows)
    if (r.text) longest = std::max(longest, r.text->size());
  // No alternating row stripes and no full-width line bands: a line's colour fills its own cells
  // (the counts and the code up to its longest line), not the empty width right of the code; on a
  // software renderer a whole repaint of the wide code view costs by the pixel.
  const ImGuiTableFlags flags = ImGuiTableFlags_ScrollY | ImGuiTableFlags_ScrollX |
                                ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingFixedFit;
  const int cols = stats ? (gpu ? 7 : 6) : 2;
  if (!ImGui::BeginTable(id, cols, flags, size)) return -1;
  ImGui::TableSetupScrollFreeze(cols - 1, 1);
  ImGui::TableSetupColumn("line", ImGuiTableColumnFlags_WidthFixed, 34);
  if (stats) {
    ImGui::TableSetupColumn("inst", ImGuiTableColumnFlags_WidthFixed, 40);
    ImGui::TableSetupColumn("model stalls", ImGuiTableColumnFlags_WidthFixed, 84);
    if (gpu)
      ImGui::TableSetupColumn((s.gpu_stalls.gpu + " stalls").c_str(),
                              ImGuiTableColumnFlags_WidthFixed, 84);
    ImGui::TableSetupColumn("sect/req", ImGuiTableColumnFlags_WidthFixed, 54);
    ImGui::TableSetupColumn("bank cf", ImGuiTableColumnFlags_WidthFixed, 48);
  }
  ImGui::TableSetupColumn(kind == PaneKind::Cuda       ? "source"
                          : kind == PaneKind::Ptx      ? "PTX"
                          : kind == PaneKind::Schedule ? "the model's schedule"
                                                       : "SASS",
                          ImGuiTableColumnFlags_WidthFixed, float(longest + 2) * cw);
  ImGui::TableHeadersRow();
  const float row_h = ImGui::GetTextLineHeight() + 2 * ImGui::GetStyle().CellPadding.y;
  if (scroll_to_row >= 0)
    ImGui::SetScrollY(std::max(0.0f, float(scroll_to_row - 2) * row_h));
  int clicked = -1;
  ImGui::PushFont(s.fonts.mono);
  auto draw_row = [&](int i) {
    const PaneRow& r = rows[size_t(i)];
    ImGui::TableNextRow();
    const int hue = line_hue(r.src_line);
    const bool picked =
        (kind == PaneKind::Cuda && r.src_line > 0 && r.src_line == s.pick_src_line) ||
        (kind != PaneKind::Cuda && r.ptx_line > 0 &&
         std::binary_search(s.marked_ptx.begin(), s.marked_ptx.end(), r.ptx_line));
    const bool focus = r.ptx_line > 0 && r.ptx_line == s.focus_ptx_line;
    if (hue >= 0)
      for (int col = 0; col < cols; ++col)
        ImGui::TableSetBgColor(ImGuiTableBgTarget_CellBg, hue_color(hue, 34), col);
    if (focus || picked)
      ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg1,
                             picked ? IM_COL32(90, 80, 20, 190) : IM_COL32(90, 80, 20, 110));
    if (r.errors) ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg1, IM_COL32(150, 50, 40, 120));
    ImGui::TableSetColumnIndex(0);
    if (hue >= 0) {
      const ImVec2 p = ImGui::GetCursorScreenPos();
      ImGui::GetWindowDrawList()->AddRectFilled(
          ImVec2(p.x - 4, p.y), ImVec2(p.x - 1, p.y + ImGui::GetTextLineHeight()),
          hue_color(hue, 255));
    }
    if (r.number > 0) ImGui::TextDisabled("%d", r.number);
    if (stats && r.prof) {
      const LineProfile& p = *r.prof;
      ImGui::TableSetColumnIndex(1);
      if (p.warp_instructions)
        ImGui::TextUnformatted(format_si(double(p.warp_instructions), "").c_str());
      ImGui::TableSetColumnIndex(2);
      draw_stall_bar(p, max_stall, 80);
      int col = 3;
      if (gpu) {
        ImGui::TableSetColumnIndex(col++);
        if (r.gpu) draw_gpu_bar(*r.gpu, gpu_max, 80);
      }
      ImGui::TableSetColumnIndex(col++);
      if (p.requests) ImGui::Text("%.1f", p.sectors_per_request());
      ImGui::TableSetColumnIndex(col);
      if (p.shared_requests) ImGui::Text("%.1f", p.conflicts_per_request());
    }
    ImGui::TableSetColumnIndex(cols - 1);
    const ImVec2 c0 = ImGui::GetCursorScreenPos();
    ImGui::PushID(i);
    if (ImGui::Selectable(r.text ? r.text->c_str() : "", false,
                          ImGuiSelectableFlags_SpanAllColumns))
      clicked = i;
    if (ImGui::IsItemHovered() && r.prof) line_tooltip(r, s.gpu_stalls.gpu);
    ImGui::PopID();
    // Column 80's guide.
    const float gx = std::floor(c0.x + 80 * cw);  // whole pixels: one exact colour
    ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(gx, c0.y - 1), ImVec2(gx + 1, c0.y + row_h - 1),
                                              color::kColumnGuide);
    if (r.errors)
      for (const std::string& m : *r.errors) {  // NVRTC's messages, under their line
        ImGui::TableNextRow();
        ImGui::TableSetColumnIndex(cols - 1);
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(color::kFail), "%s", m.c_str());
      }
  };
  bool any_errors = false;
  for (const PaneRow& r : rows) any_errors |= r.errors != nullptr;
  if (!any_errors) {  // rows of one height: the clipper skips those out of view
    ImGuiListClipper clip;
    clip.Begin(static_cast<int>(rows.size()));
    while (clip.Step())
      for (int i = clip.DisplayStart; i < clip.DisplayEnd; ++i) draw_row(i);
  } else {
    for (int i = 0; i < static_cast<int>(rows.size()); ++i) draw_row(i);
  }
  ImGui::PopFont();
  ImGui::EndTable();
  return clicked;
}

int resize_string(ImGuiInputTextCallbackData* d) {
  if (d->EventFlag == ImGuiInputTextFlags_CallbackResize) {
    auto* text = static_cast<std::string*>(d->UserData);
    text->resize(static_cast<size_t>(d->BufTextLen));
    d->Buf = text->data();
  }
  return 0;
}

// The edit buttons above the source; with the editor open, the editor fills the panel and this
// returns true.
bool draw_edit_bar(AppState& s, const lab::Experiment& exp,
                   const std::map<int, std::vector<std::string>>& errors) {
  s.load_edit_buffer();
  const bool edited = s.edits.count(exp.source) > 0;
  if (ImGui::SmallButton(s.editing ? "Show counts" : "Edit kernel")) s.editing = !s.editing;
  ImGui::SameLine();
  ImGui::BeginDisabled(!s.editing || s.worker.busy());
  if (ImGui::SmallButton("Compile and run")) s.compile_edit();
  ImGui::EndDisabled();
  ImGui::SameLine();
  ImGui::BeginDisabled(!edited && (!s.editing || s.edit_buffer == read_file_text(exp.source)));
  if (ImGui::SmallButton("Revert to lesson original")) s.revert_edit();
  ImGui::EndDisabled();
  ImGui::SameLine();
  if (edited)
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(color::kCursor),
                       "edited: Run and sweeps use your version");
  else
    ImGui::TextDisabled(s.editing ? "editing (the lesson's file is never changed)"
                                  : "the lesson's file");
  if (!s.editing) return false;
  for (const auto& [line, msgs] : errors)
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(color::kFail), "line %d: %s", line,
                       msgs.front().c_str());
  ImGui::PushFont(s.fonts.mono);
  ImGui::InputTextMultiline("##kernel", s.edit_buffer.data(), s.edit_buffer.capacity() + 1,
                            ImVec2(-1, -1),
                            ImGuiInputTextFlags_CallbackResize | ImGuiInputTextFlags_AllowTabInput,
                            resize_string, &s.edit_buffer);
  ImGui::PopFont();
  return true;
}

}  // namespace

void draw_source_view(AppState& s) {
  // The file picked under "Kernels", else the selected experiment's source (the student's edit of
  // it when there is one). The counts are the selected experiment's last run, shown only when that
  // run executed this very file.
  std::string path = s.source_file;
  const lab::Experiment* exp = path.empty() && s.experiment >= 0 &&
                                       s.experiment < static_cast<int>(s.experiments.size()) &&
                                       s.experiments[s.experiment].exp
                                   ? &*s.experiments[s.experiment].exp
                                   : nullptr;
  const bool editable = exp && exp->source_kind == lab::Experiment::SourceKind::Cuda;
  if (exp) path = s.edits.count(exp->source) ? edit_path(s.edit_root, exp->source) : exp->source;
  if (path.empty()) {
    ImGui::TextDisabled("No kernel source: pick an experiment.");
    return;
  }
  // The last run's compile errors in this file, by line.
  std::map<int, std::vector<std::string>> errors;
  if (exp && s.run && !s.run->ok() && same_file(s.run->experiment_path, exp->path) &&
      same_file(s.run->source_path, path))
    errors = messages_by_line(s.run->error, path);
  if (editable && draw_edit_bar(s, *exp, errors)) return;
  if (s.source_cache_path != path) {
    s.source_cache_path = path;
    s.source_cache_lines.clear();
    std::istringstream in(read_file_text(path));
    for (std::string line; std::getline(in, line);) s.source_cache_lines.push_back(line);
  }
  const std::vector<std::string>& lines = s.source_cache_lines;
  const bool run_of_this_file = s.run && same_file(s.run->source_path, path);
  if (run_of_this_file && s.code_profile_run != s.run) {
    s.code_prof = code_profile(*s.run);
    s.code_profile_run = s.run;
    s.gpu_stalls = find_gpu_line_stalls(
        (std::filesystem::path(s.lessons_root).parent_path() / "validation" / "data" / "stalls")
            .string(),
        *s.run);
  }
  const GpuLineStalls* gst = run_of_this_file && s.gpu_stalls.total > 0 ? &s.gpu_stalls : nullptr;
  static const CodeProfile kNoProfile;
  const CodeProfile& prof = run_of_this_file ? s.code_prof : kNoProfile;

  // The header: where the code is from, the pane beside it, full width, Run.
  // The lesson's file name (an edit lives under a cache path named by its hash: not shown).
  ImGui::TextDisabled("%s%s", file_name(exp ? exp->source : path).c_str(),
                      exp && s.edits.count(exp->source) ? " (your edit)" : "");
  if (!run_of_this_file) {
    ImGui::SameLine();
    ImGui::TextDisabled(s.run ? "(no counts: the run shown used another file)"
                              : "(no counts: not run yet)");
  }
  help_marker(
      "Counts come from the simulator's last run, summed over its launches. 'inst': PTX warp "
      "instructions issued (a GPU runs the SASS ptxas makes, so its counts differ). 'stall "
      "cycles': warp-cycles the warps spent on the line in any state but selected, the bar "
      "split by the model's stall reasons (hover a line for the mix). 'H100 stalls' (where "
      "committed data has the run's values): the GPU's PC samples on the line (CUPTI), split by "
      "reason; compare each line's mix and share of the total, not the counts (samples against "
      "warp-cycles). 'sect/req': 32-byte "
      "sectors per global request after coalescing (1 warp x 4 B coalesced = 4); 'bank cf': "
      "extra shared-memory wavefronts per request (bank conflicts). The memory columns come from "
      "the traced SM. Lines of one CUDA line share a colour in every pane; click one to mark its "
      "issues on the warp timeline and open its first access in the memory view.");
  ImGui::SameLine(0, 16);
  ImGui::SetNextItemWidth(150);
  const char* right_names[] = {"PTX", "the model's schedule", "SASS (ptxas)"};
  ImGui::Combo("##right pane", &s.code_right, right_names, 3);
  ImGui::SameLine();
  ImGui::Checkbox("full width", &s.code_wide);
  ImGui::SameLine();
  ImGui::BeginDisabled(s.busy());
  if (ImGui::SmallButton("Run")) s.start_run();
  ImGui::EndDisabled();

  // Where the GPU's per-line stalls come from, or why there are none.
  if (run_of_this_file) {
    if (gst)
      ImGui::TextDisabled("%s per-line stalls%s%s: %s, driver %s, %s "
                          "(validation/data/stalls/%s): PC samples, compare each line's mix and "
                          "share",
                          gst->gpu.c_str(), gst->point.empty() ? "" : " at ", gst->point.c_str(),
                          gst->device.c_str(), gst->driver.c_str(), gst->date.c_str(),
                          gst->file.c_str());
    else
      ImGui::TextDisabled("%s", s.gpu_stalls.note.c_str());
  }
  // Rows of each pane.
  std::vector<PaneRow> left, right;
  for (size_t i = 0; i < lines.size(); ++i) {
    PaneRow r;
    r.number = r.src_line = static_cast<int32_t>(i + 1);
    r.text = &lines[i];
    if (auto it = prof.by_src.find(r.src_line); it != prof.by_src.end()) r.prof = &it->second;
    if (auto e = errors.find(r.src_line); e != errors.end()) r.errors = &e->second;
    if (gst)
      if (auto g = gst->by_src.find(r.src_line); g != gst->by_src.end()) r.gpu = &g->second;
    left.push_back(r);
  }
  const RunSnapshot* run = run_of_this_file ? s.run.get() : nullptr;
  auto src_of = [&](int32_t ptx) {
    if (!run) return 0;
    auto m = run->ptx_to_src.find(ptx);
    return m == run->ptx_to_src.end() ? 0 : m->second;
  };
  PaneKind right_kind = s.code_right == 1   ? PaneKind::Schedule
                        : s.code_right == 2 ? PaneKind::Sass
                                            : PaneKind::Ptx;
  std::string right_note;
  if (!run) {
    right_note = "run the experiment to see its PTX, schedule and SASS";
  } else if (right_kind == PaneKind::Ptx) {
    for (const auto& [line, text] : run->ptx_text) {
      PaneRow r;
      r.number = r.ptx_line = line;
      r.src_line = src_of(line);
      r.text = &text;
      if (auto it = prof.by_ptx.find(line); it != prof.by_ptx.end()) r.prof = &it->second;
      if (gst)
        if (auto g = gst->by_ptx.find(line); g != gst->by_ptx.end()) r.gpu = &g->second;
      right.push_back(r);
    }
  } else if (right_kind == PaneKind::Schedule) {
    for (const ListingLine& l : run->schedule) {
      PaneRow r;
      r.ptx_line = l.ptx_line;
      r.src_line = src_of(l.ptx_line);
      r.text = &l.text;
      right.push_back(r);
    }
    right_note = "what the timing model does in place of ptxas (warplab ptx --schedule)";
  } else {
    for (size_t i = 0; i < run->sass.lines.size(); ++i) {
      PaneRow r;
      r.number = static_cast<int32_t>(i + 1);
      r.text = &run->sass.lines[i];
      right.push_back(r);
    }
    right_note = run->sass.note + " (the simulator runs the PTX)";
  }

  // Side by side when each pane shows 80 columns and its counts; else one above the other.
  const float cw = s.fonts.mono->CalcTextSizeA(s.fonts.mono->FontSize, 1e9f, 0, "0").x;
  const float counts_w = 34 + 40 + 84 + 54 + 48 + 6 * 2 * ImGui::GetStyle().CellPadding.x + 24;
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const bool beside = avail.x / 2 - counts_w >= 80 * cw;
  const float note_h = ImGui::GetTextLineHeightWithSpacing();
  int scroll_left = -1, scroll_right = -1;
  if (s.code_scroll) {
    for (size_t i = 0; i < left.size(); ++i)
      if (left[i].src_line == s.pick_src_line) {
        scroll_left = static_cast<int>(i);
        break;
      }
    for (size_t i = 0; i < right.size(); ++i)
      if (right[i].ptx_line > 0 &&
          std::binary_search(s.marked_ptx.begin(), s.marked_ptx.end(), right[i].ptx_line)) {
        scroll_right = static_cast<int>(i);
        break;
      }
    s.code_scroll = false;
  }
  const ImVec2 left_size = beside ? ImVec2(avail.x / 2 - 4, avail.y)
                                  : ImVec2(avail.x, std::floor((avail.y - note_h) * 0.45f));
  const int lc = draw_pane(s, "cuda", PaneKind::Cuda, left, prof.max_stall_src, left_size,
                           scroll_left, gst ? gst->max_line_src : 0);
  if (lc >= 0) {
    const int line = left[size_t(lc)].src_line;
    s.mark_lines(s.pick_src_line == line ? 0 : line, 0);
    s.code_scroll = s.pick_src_line > 0;
  }
  if (beside) ImGui::SameLine();
  ImGui::BeginGroup();
  if (!right_note.empty()) ImGui::TextDisabled("%s", right_note.c_str());
  const ImVec2 right_size(0, beside ? avail.y - (right_note.empty() ? 0 : note_h) : 0);
  if (!right.empty()) {
    const int rc = draw_pane(s, "right", right_kind, right, prof.max_stall_ptx, right_size,
                             scroll_right, gst ? gst->max_line_ptx : 0);
    if (rc >= 0 && right[size_t(rc)].ptx_line > 0) {
      const PaneRow& r = right[size_t(rc)];
      if (s.pick_ptx_line == r.ptx_line)
        s.mark_lines(0, 0);
      else
        s.mark_lines(r.src_line, r.ptx_line);
      s.code_scroll = true;
    }
  }
  ImGui::EndGroup();
}

}  // namespace warplab::app
