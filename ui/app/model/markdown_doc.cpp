#include "ui/app/model/markdown_doc.h"

#include <md4c.h>

#include <deque>

namespace warplab::app {
namespace {

struct Builder {
  MdDoc doc;                   // title only; blocks are collected in `blocks`
  std::deque<MdBlock> blocks;  // a deque: `current` stays valid while blocks are appended
  int bold = 0, italic = 0, code = 0;
  std::vector<std::string> links;
  struct List {
    bool ordered;
    unsigned next;
  };
  std::vector<List> lists;
  int quote_depth = 0;
  bool in_table = false, in_head = false;
  MdBlock* current = nullptr;  // the block text goes into (nullptr: none open)

  MdBlock& open(MdBlock::Kind k) {
    blocks.push_back(MdBlock{});
    blocks.back().kind = k;
    current = &blocks.back();
    return *current;
  }
  std::vector<TextRun>* runs() {
    if (in_table && current && current->kind == MdBlock::Kind::Table && !current->rows.empty() &&
        !current->rows.back().empty())
      return &current->rows.back().back();
    if (current && current->kind != MdBlock::Kind::Code && current->kind != MdBlock::Kind::Rule &&
        current->kind != MdBlock::Kind::Table)
      return &current->runs;
    return nullptr;
  }
  void add_text(const std::string& s) {
    if (current && current->kind == MdBlock::Kind::Code) {
      current->code += s;
      return;
    }
    std::vector<TextRun>* r = runs();
    if (!r) {  // text outside any block we track (e.g. loose list item): start a paragraph
      if (!lists.empty()) {
        open(MdBlock::Kind::ListItem).level = static_cast<int>(lists.size());
      } else {
        open(MdBlock::Kind::Paragraph);
      }
      r = runs();
    }
    TextRun t{s, bold > 0, italic > 0, code > 0, links.empty() ? "" : links.back()};
    if (!r->empty()) {
      TextRun& last = r->back();
      if (last.bold == t.bold && last.italic == t.italic && last.code == t.code &&
          last.link == t.link) {
        last.text += s;
        return;
      }
    }
    r->push_back(std::move(t));
  }

  static std::string attr(const MD_ATTRIBUTE& a) { return std::string(a.text, a.size); }

  int enter_block(MD_BLOCKTYPE type, void* detail) {
    switch (type) {
      case MD_BLOCK_H:
        open(MdBlock::Kind::Heading).level =
            static_cast<int>(static_cast<MD_BLOCK_H_DETAIL*>(detail)->level);
        break;
      case MD_BLOCK_P:
        // A tight list item's text has no <p>; a loose one's first paragraph belongs to the item.
        if (current && current->kind == MdBlock::Kind::ListItem && current->runs.empty()) break;
        if (quote_depth > 0)
          open(MdBlock::Kind::Quote).level = quote_depth;
        else
          open(MdBlock::Kind::Paragraph);
        break;
      case MD_BLOCK_CODE: {
        MdBlock& b = open(MdBlock::Kind::Code);
        b.lang = attr(static_cast<MD_BLOCK_CODE_DETAIL*>(detail)->lang);
        break;
      }
      case MD_BLOCK_UL:
        lists.push_back({false, 0});
        current = nullptr;
        break;
      case MD_BLOCK_OL:
        lists.push_back({true, static_cast<MD_BLOCK_OL_DETAIL*>(detail)->start});
        current = nullptr;
        break;
      case MD_BLOCK_LI: {
        MdBlock& b = open(MdBlock::Kind::ListItem);
        b.level = static_cast<int>(lists.size());
        if (!lists.empty() && lists.back().ordered)
          b.marker = std::to_string(lists.back().next++) + ".";
        else
          b.marker.assign(1, '-');
        break;
      }
      case MD_BLOCK_QUOTE:
        ++quote_depth;
        current = nullptr;
        break;
      case MD_BLOCK_HR:
        open(MdBlock::Kind::Rule);
        current = nullptr;
        break;
      case MD_BLOCK_TABLE:
        open(MdBlock::Kind::Table);
        in_table = true;
        break;
      case MD_BLOCK_THEAD:
        in_head = true;
        break;
      case MD_BLOCK_TR:
        if (current && current->kind == MdBlock::Kind::Table) {
          current->rows.emplace_back();
          if (in_head) ++current->header_rows;
        }
        break;
      case MD_BLOCK_TH:
      case MD_BLOCK_TD:
        if (current && current->kind == MdBlock::Kind::Table && !current->rows.empty())
          current->rows.back().emplace_back();
        break;
      default:
        break;
    }
    return 0;
  }
  int leave_block(MD_BLOCKTYPE type, void*) {
    switch (type) {
      case MD_BLOCK_H:
        if (doc.title.empty() && current) doc.title = plain_text(current->runs);
        current = nullptr;
        break;
      case MD_BLOCK_P:
      case MD_BLOCK_LI:
        current = nullptr;
        break;
      case MD_BLOCK_CODE:
        if (current && !current->code.empty() && current->code.back() == '\n')
          current->code.pop_back();
        current = nullptr;
        break;
      case MD_BLOCK_UL:
      case MD_BLOCK_OL:
        lists.pop_back();
        current = nullptr;
        break;
      case MD_BLOCK_QUOTE:
        --quote_depth;
        current = nullptr;
        break;
      case MD_BLOCK_THEAD:
        in_head = false;
        break;
      case MD_BLOCK_TABLE:
        in_table = false;
        current = nullptr;
        break;
      default:
        break;
    }
    return 0;
  }
  int enter_span(MD_SPANTYPE type, void* detail) {
    if (type == MD_SPAN_STRONG) ++bold;
    if (type == MD_SPAN_EM) ++italic;
    if (type == MD_SPAN_CODE) ++code;
    if (type == MD_SPAN_A) links.push_back(attr(static_cast<MD_SPAN_A_DETAIL*>(detail)->href));
    return 0;
  }
  int leave_span(MD_SPANTYPE type, void*) {
    if (type == MD_SPAN_STRONG) --bold;
    if (type == MD_SPAN_EM) --italic;
    if (type == MD_SPAN_CODE) --code;
    if (type == MD_SPAN_A && !links.empty()) links.pop_back();
    return 0;
  }
  int text(MD_TEXTTYPE type, const MD_CHAR* s, MD_SIZE n) {
    switch (type) {
      case MD_TEXT_SOFTBR:
        add_text(" ");
        break;
      case MD_TEXT_BR:
        add_text("\n");
        break;
      case MD_TEXT_NULLCHAR:
        break;
      case MD_TEXT_ENTITY: {
        const std::string e(s, n);
        add_text(e == "&amp;"    ? "&"
                 : e == "&lt;"   ? "<"
                 : e == "&gt;"   ? ">"
                 : e == "&quot;" ? "\""
                 : e == "&nbsp;" ? " "
                                 : e);
        break;
      }
      default:
        add_text(std::string(s, n));
    }
    return 0;
  }
};

}  // namespace

MdDoc parse_markdown(const std::string& text) {
  Builder b;
  MD_PARSER p{};
  p.abi_version = 0;
  p.flags = MD_FLAG_TABLES | MD_FLAG_STRIKETHROUGH | MD_FLAG_PERMISSIVEAUTOLINKS;
  p.enter_block = [](MD_BLOCKTYPE t, void* d, void* u) {
    return static_cast<Builder*>(u)->enter_block(t, d);
  };
  p.leave_block = [](MD_BLOCKTYPE t, void* d, void* u) {
    return static_cast<Builder*>(u)->leave_block(t, d);
  };
  p.enter_span = [](MD_SPANTYPE t, void* d, void* u) {
    return static_cast<Builder*>(u)->enter_span(t, d);
  };
  p.leave_span = [](MD_SPANTYPE t, void* d, void* u) {
    return static_cast<Builder*>(u)->leave_span(t, d);
  };
  p.text = [](MD_TEXTTYPE t, const MD_CHAR* s, MD_SIZE n, void* u) {
    return static_cast<Builder*>(u)->text(t, s, n);
  };
  md_parse(text.data(), static_cast<MD_SIZE>(text.size()), &p, &b);
  b.doc.blocks.assign(std::make_move_iterator(b.blocks.begin()),
                      std::make_move_iterator(b.blocks.end()));
  return std::move(b.doc);
}

std::string plain_text(const std::vector<TextRun>& runs) {
  std::string s;
  for (const TextRun& r : runs) s += r.text;
  return s;
}

}  // namespace warplab::app
