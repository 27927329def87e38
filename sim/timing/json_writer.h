// A tiny streaming JSON writer (sim/ uses no JSON library). Handles commas and string escaping;
// the caller keeps objects and arrays balanced.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <ostream>
#include <string_view>
#include <vector>

namespace warplab::timing {

class JsonWriter {
 public:
  explicit JsonWriter(std::ostream& out) : out_(out) {}
  JsonWriter& begin_object() { sep(); out_ << '{'; first_.push_back(true); return *this; }
  JsonWriter& end_object() { out_ << '}'; first_.pop_back(); return *this; }
  JsonWriter& begin_array() { sep(); out_ << '['; first_.push_back(true); return *this; }
  JsonWriter& end_array() { out_ << ']'; first_.pop_back(); return *this; }
  JsonWriter& key(std::string_view k) { sep(); string(k); out_ << ':'; after_key_ = true; return *this; }
  JsonWriter& value(std::string_view s) { sep(); string(s); return *this; }
  JsonWriter& value(const char* s) { return value(std::string_view(s)); }
  JsonWriter& value(bool b) { sep(); out_ << (b ? "true" : "false"); return *this; }
  JsonWriter& value(int64_t v) { sep(); out_ << v; return *this; }
  JsonWriter& value(uint64_t v) { sep(); out_ << v; return *this; }
  JsonWriter& value(int v) { return value(int64_t{v}); }
  JsonWriter& value(uint32_t v) { return value(uint64_t{v}); }
  JsonWriter& value(double v) {
    sep();
    if (!std::isfinite(v)) { out_ << "null"; return *this; }
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.10g", v);
    out_ << buf;
    return *this;
  }
  template <class T>
  JsonWriter& field(std::string_view k, T v) { key(k); return value(v); }

 private:
  void sep() {
    if (after_key_) { after_key_ = false; return; }
    if (!first_.empty()) {
      if (!first_.back()) out_ << ',';
      first_.back() = false;
    }
  }
  void string(std::string_view s) {
    out_ << '"';
    for (unsigned char c : s) {
      switch (c) {
        case '"': out_ << "\\\""; break;
        case '\\': out_ << "\\\\"; break;
        case '\n': out_ << "\\n"; break;
        case '\t': out_ << "\\t"; break;
        case '\r': out_ << "\\r"; break;
        default:
          if (c < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            out_ << buf;
          } else {
            out_ << c;
          }
      }
    }
    out_ << '"';
  }
  std::ostream& out_;
  std::vector<bool> first_;
  bool after_key_ = false;
};

}  // namespace warplab::timing
