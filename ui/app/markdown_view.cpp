// Paints a parsed lesson page (model/markdown_doc.h) with ImGui. Text is laid out word by word
// with the draw list so bold, italic, inline code and links can sit in one wrapped paragraph
// (ImGui has no rich text of its own); code blocks are monospace children, tables ImGui tables.
#include <cfloat>
#include <string>

#include "ui/app/app_state.h"
#include "ui/app/style.h"

namespace warplab::app {

namespace {

ImFont* font_for(const TextRun& r, const Fonts& f, ImFont* base) {
  if (r.code) return f.mono;
  if (base) return base;
  if (r.bold) return f.bold;
  if (r.italic) return f.italic;
  return f.body;
}

// Lays out and paints `runs` from the cursor, wrapping at the right edge of the content region,
// then advances the cursor past them. `base` overrides the font (headings).
void flow_runs(const std::vector<TextRun>& runs, const Fonts& f, ImFont* base = nullptr,
               ImU32 text_color = color::kText) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const float width = std::max(40.0f, ImGui::GetContentRegionAvail().x);
  const float line_h = (base ? base->FontSize : f.body->FontSize) * 1.38f;
  float x = 0, y = 0;
  std::string hovered_link;
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  for (const TextRun& r : runs) {
    ImFont* font = font_for(r, f, base);
    const float size = font->FontSize;
    const float baseline_pad = (line_h - size) * 0.5f;
    size_t i = 0;
    const std::string& t = r.text;
    while (i < t.size()) {
      if (t[i] == '\n') {
        x = 0;
        y += line_h;
        ++i;
        continue;
      }
      // A token: a word and the spaces after it (inline code keeps its spaces as one piece).
      size_t j = i;
      if (r.code) {  // inline code stays in one piece (unless it is wider than the column)
        while (j < t.size() && t[j] != '\n') ++j;
        if (font->CalcTextSizeA(size, FLT_MAX, 0.0f, t.data() + i, t.data() + j).x > width) j = i;
      }
      if (j == i) {
        while (j < t.size() && t[j] != ' ' && t[j] != '\n') ++j;
        while (j < t.size() && t[j] == ' ') ++j;
      }
      const char* b = t.data() + i;
      const char* e = t.data() + j;
      ImVec2 sz = font->CalcTextSizeA(size, FLT_MAX, 0.0f, b, e);
      if (x > 0 && x + sz.x > width) {
        // Drop the spaces that would start the new line.
        x = 0;
        y += line_h;
      }
      const ImVec2 p(origin.x + x, origin.y + y + baseline_pad);
      ImU32 col = text_color;
      if (r.code) {
        const char* we = e;
        while (we > b && we[-1] == ' ') --we;
        const float w = font->CalcTextSizeA(size, FLT_MAX, 0.0f, b, we).x;
        dl->AddRectFilled(ImVec2(p.x - 2, p.y - 1), ImVec2(p.x + w + 2, p.y + size + 1),
                          IM_COL32(48, 53, 62, 255), 3.0f);
        col = IM_COL32(230, 190, 140, 255);
      }
      if (!r.link.empty()) {
        col = color::kLink;
        dl->AddLine(ImVec2(p.x, p.y + size), ImVec2(p.x + sz.x, p.y + size),
                    IM_COL32(110, 170, 255, 120));
        if (mouse.x >= p.x && mouse.x < p.x + sz.x && mouse.y >= p.y && mouse.y < p.y + size)
          hovered_link = r.link;
      }
      dl->AddText(font, size, p, col, b, e);
      x += sz.x;
      i = j;
    }
  }
  ImGui::Dummy(ImVec2(width, y + line_h));
  if (!hovered_link.empty() && ImGui::IsWindowHovered())
    ImGui::SetTooltip("link: %s\n(open the lesson from the list on the left)",
                      hovered_link.c_str());
}

void draw_code_block(const MdBlock& b, const Fonts& f, int id) {
  int lines = 1;
  for (char c : b.code) lines += c == '\n';
  const float h = lines * f.mono->FontSize * 1.25f + 14;
  ImGui::PushStyleColor(ImGuiCol_ChildBg, ImGui::ColorConvertU32ToFloat4(color::kCodeBg));
  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(8, 6));
  ImGui::PushStyleVar(ImGuiStyleVar_ItemSpacing, ImVec2(0, f.mono->FontSize * 0.25f));
  ImGui::BeginChild(ImGui::GetID(reinterpret_cast<void*>(static_cast<intptr_t>(id + 1))),
                    ImVec2(0, h), true, ImGuiWindowFlags_HorizontalScrollbar);
  ImGui::PushFont(f.mono);
  ImGui::PushStyleColor(ImGuiCol_Text, IM_COL32(210, 214, 220, 255));
  ImGui::TextUnformatted(b.code.c_str());
  ImGui::PopStyleColor();
  ImGui::PopFont();
  ImGui::EndChild();
  ImGui::PopStyleVar(2);
  ImGui::PopStyleColor();
}

void draw_table(const MdBlock& b, const Fonts& f, int id) {
  size_t cols = 0;
  for (const auto& row : b.rows) cols = std::max(cols, row.size());
  if (cols == 0) return;
  const ImGuiTableFlags flags =
      ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp;
  ImGui::PushID(id);
  if (ImGui::BeginTable("md_table", static_cast<int>(cols), flags)) {
    for (size_t r = 0; r < b.rows.size(); ++r) {
      const bool head = static_cast<int>(r) < b.header_rows;
      ImGui::TableNextRow(head ? ImGuiTableRowFlags_Headers : 0);
      for (size_t c = 0; c < cols; ++c) {
        ImGui::TableSetColumnIndex(static_cast<int>(c));
        if (c < b.rows[r].size()) flow_runs(b.rows[r][c], f, head ? f.bold : nullptr);
      }
    }
    ImGui::EndTable();
  }
  ImGui::PopID();
}

}  // namespace

void draw_markdown(const MdDoc& doc, const Fonts& f) {
  int id = 0;
  for (const MdBlock& b : doc.blocks) {
    ++id;
    switch (b.kind) {
      case MdBlock::Kind::Heading: {
        ImFont* font = b.level == 1 ? f.h1 : b.level == 2 ? f.h2 : f.h3;
        if (id > 1) ImGui::Dummy(ImVec2(0, b.level <= 2 ? 6.0f : 2.0f));
        flow_runs(b.runs, f, font, b.level == 1 ? IM_COL32(240, 242, 245, 255) : color::kText);
        if (b.level <= 2) {
          const ImVec2 p = ImGui::GetCursorScreenPos();
          ImGui::GetWindowDrawList()->AddLine(
              ImVec2(p.x, p.y - 4), ImVec2(p.x + ImGui::GetContentRegionAvail().x, p.y - 4),
              IM_COL32(255, 255, 255, 30));
        }
        break;
      }
      case MdBlock::Kind::Paragraph:
        flow_runs(b.runs, f);
        ImGui::Dummy(ImVec2(0, 2));
        break;
      case MdBlock::Kind::ListItem: {
        const float indent = 18.0f * static_cast<float>(b.level);
        ImGui::Indent(indent);
        const ImVec2 p = ImGui::GetCursorScreenPos();
        const float lh = f.body->FontSize * 1.38f;
        if (b.marker == "-")
          ImGui::GetWindowDrawList()->AddCircleFilled(ImVec2(p.x - 9, p.y + lh * 0.5f), 2.5f,
                                                      color::kDim);
        else
          ImGui::GetWindowDrawList()->AddText(
              f.body, f.body->FontSize,
              ImVec2(p.x - 6 - ImGui::CalcTextSize(b.marker.c_str()).x,
                     p.y + (lh - f.body->FontSize) * 0.5f),
              color::kDim, b.marker.c_str());
        flow_runs(b.runs, f);
        ImGui::Unindent(indent);
        break;
      }
      case MdBlock::Kind::Quote: {
        const ImVec2 p0 = ImGui::GetCursorScreenPos();
        ImGui::Indent(14);
        flow_runs(b.runs, f, nullptr, IM_COL32(190, 196, 205, 255));
        ImGui::Unindent(14);
        const ImVec2 p1 = ImGui::GetCursorScreenPos();
        ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(p0.x + 2, p0.y),
                                                  ImVec2(p0.x + 5, p1.y - 4), color::kAccent);
        break;
      }
      case MdBlock::Kind::Code:
        draw_code_block(b, f, id);
        ImGui::Dummy(ImVec2(0, 2));
        break;
      case MdBlock::Kind::Table:
        draw_table(b, f, id);
        ImGui::Dummy(ImVec2(0, 4));
        break;
      case MdBlock::Kind::Rule:
        ImGui::Separator();
        break;
    }
  }
}

}  // namespace warplab::app
