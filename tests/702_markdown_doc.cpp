// Lesson pages as blocks (ui/app/model/markdown_doc.h): md4c's events turned into headings,
// paragraphs with styled runs, code blocks, list items, tables.
#include <doctest/doctest.h>

#include "ui/app/model/lesson_catalog.h"
#include "ui/app/model/markdown_doc.h"

using warplab::app::MdBlock;
using warplab::app::parse_markdown;
using warplab::app::plain_text;

TEST_CASE("702 headings and paragraphs with bold, italic, code and links") {
  const auto doc = parse_markdown(
      "# 2. Memory coalescing\n\nThe **32-byte sectors** and *lanes* read `x[i]`, see "
      "[FORMAT](FORMAT.md).\nSecond line.\n\n## On a real H100\n");
  REQUIRE(doc.blocks.size() == 3);
  CHECK(doc.title == "2. Memory coalescing");
  CHECK(doc.blocks[0].kind == MdBlock::Kind::Heading);
  CHECK(doc.blocks[0].level == 1);
  const MdBlock& p = doc.blocks[1];
  CHECK(p.kind == MdBlock::Kind::Paragraph);
  CHECK(plain_text(p.runs) == "The 32-byte sectors and lanes read x[i], see FORMAT. Second line.");
  bool bold = false, italic = false, code = false, link = false;
  for (const auto& r : p.runs) {
    bold |= r.bold && r.text == "32-byte sectors";
    italic |= r.italic && r.text == "lanes";
    code |= r.code && r.text == "x[i]";
    link |= r.link == "FORMAT.md" && r.text == "FORMAT";
  }
  CHECK(bold);
  CHECK(italic);
  CHECK(code);
  CHECK(link);
  CHECK(doc.blocks[2].level == 2);
}

TEST_CASE("702 code blocks keep their text and language") {
  const auto doc =
      parse_markdown("Run:\n\n    build/warplab run x.toml\n\n```cuda\nint i;\nfloat f;\n```\n");
  REQUIRE(doc.blocks.size() == 3);
  CHECK(doc.blocks[1].kind == MdBlock::Kind::Code);
  CHECK(doc.blocks[1].code == "build/warplab run x.toml");
  CHECK(doc.blocks[2].lang == "cuda");
  CHECK(doc.blocks[2].code == "int i;\nfloat f;");
}

TEST_CASE("702 lists: markers, numbering and nesting") {
  const auto doc = parse_markdown("- one\n- two\n  1. inner\n  2. next\n\n3. three\n4. four\n");
  REQUIRE(doc.blocks.size() == 6);
  CHECK(doc.blocks[0].kind == MdBlock::Kind::ListItem);
  CHECK(doc.blocks[0].marker == "-");
  CHECK(plain_text(doc.blocks[0].runs) == "one");
  CHECK(doc.blocks[2].level == 2);
  CHECK(doc.blocks[2].marker == "1.");
  CHECK(doc.blocks[3].marker == "2.");
  CHECK(doc.blocks[4].marker == "3.");
  CHECK(doc.blocks[5].marker == "4.");
  CHECK(plain_text(doc.blocks[5].runs) == "four");
}

TEST_CASE("702 tables: header row and cells") {
  const auto doc =
      parse_markdown("| stride | 2 | 4 |\n|---|---|---|\n| H100 | 2.01 | **3.96** |\n");
  REQUIRE(doc.blocks.size() == 1);
  const MdBlock& t = doc.blocks[0];
  CHECK(t.kind == MdBlock::Kind::Table);
  CHECK(t.header_rows == 1);
  REQUIRE(t.rows.size() == 2);
  REQUIRE(t.rows[1].size() == 3);
  CHECK(plain_text(t.rows[0][0]) == "stride");
  CHECK(plain_text(t.rows[1][2]) == "3.96");
  CHECK(t.rows[1][2][0].bold);
}

TEST_CASE("702 every lesson page parses into blocks with a title") {
  const auto lessons = warplab::app::scan_lessons(std::string(WARPLAB_SOURCE_DIR) + "/lessons");
  REQUIRE(lessons.size() >= 8);
  for (const auto& l : lessons)
    for (const auto& page : l.pages) {
      const auto doc = parse_markdown(warplab::app::read_file_text(page));
      CAPTURE(page);
      CHECK(!doc.blocks.empty());
      CHECK(!doc.title.empty());
    }
}
