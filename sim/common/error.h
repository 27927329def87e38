// Errors that library code returns instead of printing or exiting.
//
// Every error names where in the user's input it came from (file and line, when known) and what
// was expected there. Front ends (CLI, desktop app, tests) decide how to show it.
#pragma once

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace warplab {

struct Error {
  std::string file;     // input file the error is about ("" when none)
  int line = 0;         // 1-based line in that file (0 when unknown)
  std::string message;  // what went wrong and what was expected

  // "file:line: message", or fewer parts when file/line are unknown.
  std::string to_string() const {
    std::string out;
    if (!file.empty()) {
      out += file;
      if (line > 0) out += ":" + std::to_string(line);
      out += ": ";
    } else if (line > 0) {
      out += "line " + std::to_string(line) + ": ";
    }
    return out + message;
  }
};

// A value or an Error. Small on purpose: has_value(), value(), error(), and operator bool.
template <class T>
class Expected {
 public:
  Expected(T value) : v_(std::move(value)) {}      // NOLINT: implicit by design
  Expected(Error error) : v_(std::move(error)) {}  // NOLINT: implicit by design
  bool has_value() const { return v_.index() == 0; }
  explicit operator bool() const { return has_value(); }
  T& value() {
    assert(has_value());
    return std::get<0>(v_);
  }
  const T& value() const {
    assert(has_value());
    return std::get<0>(v_);
  }
  T& operator*() { return value(); }
  const T& operator*() const { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const Error& error() const {
    assert(!has_value());
    return std::get<1>(v_);
  }

 private:
  std::variant<T, Error> v_;
};

// For functions that return nothing but may fail.
struct Ok {};
using Status = Expected<Ok>;

}  // namespace warplab
