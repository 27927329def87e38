// Lesson pages as data: Markdown parsed by md4c (CommonMark + GitHub tables) into a flat list of
// blocks that markdown_view.cpp lays out and paints. Parsing is separate from drawing so the
// conversion is tested without a display (tests/702) and a page is parsed once, not per frame.
//
// Supported: headings, paragraphs, emphasis (bold, italic), inline code, links (kept as text plus
// the target), fenced and indented code blocks, bullet and numbered lists (nested), block quotes,
// tables and horizontal rules. Raw HTML and images are kept as their text.
#pragma once

#include <string>
#include <vector>

namespace warplab::app {

struct TextRun {
  std::string text;
  bool bold = false, italic = false, code = false;
  std::string link;  // target when this run is a link's text ("" otherwise)
  bool operator==(const TextRun&) const = default;
};

struct MdBlock {
  enum class Kind { Heading, Paragraph, Code, ListItem, Quote, Table, Rule };
  Kind kind = Kind::Paragraph;
  int level = 0;              // Heading: 1-6; ListItem: nesting depth (1 = top); Quote: depth
  std::string marker;         // ListItem: "-" or "3."
  std::vector<TextRun> runs;  // Heading, Paragraph, ListItem, Quote
  std::string code, lang;     // Code
  std::vector<std::vector<std::vector<TextRun>>> rows;  // Table: rows -> cells -> runs
  int header_rows = 0;                                  // Table: leading rows that are <th>
};

struct MdDoc {
  std::vector<MdBlock> blocks;
  std::string title;  // the first heading's text ("" when none)
};

MdDoc parse_markdown(const std::string& text);
// The plain text of runs (for tests, titles and tooltips).
std::string plain_text(const std::vector<TextRun>& runs);

}  // namespace warplab::app
