#include "lab/lesson_page.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace warplab::lab {

namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

std::string printf_str(const char* fmt, double v) {
  char b[64];
  std::snprintf(b, sizeof b, fmt, v);
  return b;
}

// N significant digits, without an exponent for the magnitudes pages show.
std::string sig(double v, int n) {
  if (v == 0 || !std::isfinite(v)) return printf_str("%g", v);
  const int mag = int(std::floor(std::log10(std::fabs(v))));
  const int decimals = std::max(0, n - 1 - mag);
  if (decimals == 0) return printf_str("%.0f", std::round(v));
  return printf_str(("%." + std::to_string(decimals) + "f").c_str(), v);
}

// The digits after a format's name ("x2" -> 2), or `def` when there are none.
std::optional<int> digits_after(const std::string& f, size_t at, int def) {
  if (at == f.size()) return def;
  int n = 0;
  for (size_t i = at; i < f.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(f[i])) || n > 9) return std::nullopt;
    n = n * 10 + (f[i] - '0');
  }
  return n;
}

}  // namespace

Expected<std::string> format_value(double v, const std::string& f) {
  auto with = [&](const char* name, int def) -> std::optional<int> {
    const size_t n = std::char_traits<char>::length(name);
    if (f.compare(0, n, name) != 0) return std::nullopt;
    return digits_after(f, n, def);
  };
  if (f.empty()) return sig(v, 3);
  if (f == "int") return printf_str("%.0f", std::round(v));
  if (f == "us") return sig(v, 3) + " µs";
  if (f == "ns") return sig(v * 1000, 3) + " ns";
  static const std::pair<const char*, double> kBytes[] = {
      {"B", 1},       {"KiB", 1024.0},     {"MiB", 1048576.0}, {"GiB", 1073741824.0},
      {"KB", 1e3},    {"MB", 1e6},         {"GB", 1e9}};
  for (const auto& [unit, scale] : kBytes)
    if (f == unit) return sig(v / scale, 3) + " " + unit;
  if (f[0] == 'x')
    if (auto n = with("x", 2)) return printf_str(("%." + std::to_string(*n) + "f").c_str(), v) + "x";
  if (auto n = with("pct", 0))
    return printf_str(("%." + std::to_string(*n) + "f").c_str(), v * 100) + "%";
  if (f[0] == 'g')
    if (auto n = with("g", 3); n && *n > 0) return sig(v, *n);
  if (f[0] == 'f')
    if (auto n = with("f", 2)) return printf_str(("%." + std::to_string(*n) + "f").c_str(), v);
  return Error{"", 0,
               "unknown format '" + f +
                   "' (expected gN, fN, int, x, xN, pct, pctN, us, ns, B, KiB, MiB, GiB, KB, MB, "
                   "GB)"};
}

Expected<std::vector<PageEmbed>> parse_page_embeds(const std::string& text,
                                                   const std::string& path) {
  std::vector<PageEmbed> out;
  int line = 1;
  size_t i = 0;
  while (i < text.size()) {
    if (text[i] == '\n') {
      ++line, ++i;
      continue;
    }
    if (text.compare(i, 2, "}}") == 0)
      return Error{path, line, "'}}' without '{{' (embedded values are {{ expression | format }})"};
    if (text.compare(i, 2, "{{") != 0) {
      ++i;
      continue;
    }
    const size_t close = text.find("}}", i + 2);
    const size_t nl = text.find('\n', i + 2);
    if (close == std::string::npos || (nl != std::string::npos && nl < close))
      return Error{path, line, "'{{' without '}}' on the same line"};
    PageEmbed e;
    e.line = line;
    e.begin = i;
    e.end = close + 2;
    std::string body = text.substr(i + 2, close - i - 2);
    // The format is after the last '|' outside quotes (expressions have no '|').
    size_t bar = std::string::npos;
    bool quoted = false;
    for (size_t k = 0; k < body.size(); ++k) {
      if (body[k] == '"') quoted = !quoted;
      if (body[k] == '|' && !quoted) bar = k;
    }
    e.expr = trim(body.substr(0, bar));
    e.format = bar == std::string::npos ? "" : trim(body.substr(bar + 1));
    if (e.expr.empty()) return Error{path, line, "empty {{ }}: expected an expression"};
    if (auto f = format_value(1.0, e.format); !f) return Error{path, line, f.error().message};
    out.push_back(std::move(e));
    i = e.end;
  }
  return out;
}

std::vector<size_t> page_run_steps(const Lesson& lesson, size_t step) {
  std::vector<size_t> out;
  if (step >= lesson.steps.size() || lesson.steps[step].page.empty()) return out;
  auto embeds = parse_page_embeds(read_text(lesson.steps[step].page), lesson.steps[step].page);
  if (!embeds) return out;
  auto add = [&](size_t s) {
    if (s < lesson.steps.size() && std::find(out.begin(), out.end(), s) == out.end())
      out.push_back(s);
  };
  for (const PageEmbed& e : *embeds) {
    // step(N) anywhere names step N-1; a call outside step(...) reads the page's own step.
    std::string rest = e.expr;
    size_t at = 0;
    while ((at = rest.find("step(", at)) != std::string::npos) {
      add(size_t(std::strtoul(rest.c_str() + at + 5, nullptr, 10)) - 1);
      at += 5;
    }
    for (const char* fn : {"launch(", "launch_sum(", "sweep(", "run(", "sectors_per_request(",
                           "buffer("}) {
      for (size_t p = e.expr.find(fn); p != std::string::npos; p = e.expr.find(fn, p + 1)) {
        const bool part_of_name =
            p > 0 && (std::isalnum(static_cast<unsigned char>(e.expr[p - 1])) || e.expr[p - 1] == '_');
        const bool after_step = p > 0 && e.expr[p - 1] == '.';
        if (!part_of_name && !after_step && !lesson.steps[step].experiment.empty()) add(step);
      }
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

namespace {

ExprEnv page_env(const Lesson& lesson, size_t step, const std::vector<const ExperimentResult*>& runs,
                 const std::vector<GpuDataset>& data) {
  ExprEnv env;
  env.steps = runs;
  env.steps.resize(lesson.steps.size(), nullptr);
  for (const LessonStep& st : lesson.steps) env.step_runs.push_back(!st.experiment.empty());
  env.own_run = !lesson.steps[step].experiment.empty();
  env.result = env.steps[step];
  env.data = &data;
  return env;
}

}  // namespace

Status check_lesson_pages(const Lesson& lesson, const std::vector<GpuDataset>& data) {
  for (size_t si = 0; si < lesson.steps.size(); ++si) {
    const LessonStep& st = lesson.steps[si];
    if (st.page.empty()) continue;
    auto embeds = parse_page_embeds(read_text(st.page), st.page);
    if (!embeds) return embeds.error();
    ExprEnv env = page_env(lesson, si, {}, data);
    env.check = true;
    for (const PageEmbed& e : *embeds)
      if (auto v = eval_env_expr(e.expr, env); !v) return Error{st.page, e.line, v.error().message};
  }
  return Ok{};
}

RenderedPage render_page_text(const std::string& text, const std::string& path, const ExprEnv& env,
                              const std::string& placeholder) {
  RenderedPage out;
  auto embeds = parse_page_embeds(text, path);
  if (!embeds) {
    out.text = text;
    out.errors.push_back(embeds.error());
    return out;
  }
  size_t at = 0;
  for (const PageEmbed& e : *embeds) {
    out.text += text.substr(at, e.begin - at);
    at = e.end;
    auto v = eval_env_expr(e.expr, env);
    if (!v) {
      out.errors.push_back(Error{path, e.line, v.error().message});
      out.text += "(error)";
      continue;
    }
    if (v->pending) {
      ++out.pending;
      out.text += placeholder;
      continue;
    }
    for (const std::string& s : v->sources)
      if (std::find(out.sources.begin(), out.sources.end(), s) == out.sources.end())
        out.sources.push_back(s);
    auto shown = format_value(v->value, e.format);
    out.text += shown ? *shown : "(error)";
  }
  out.text += text.substr(at);
  if (!out.sources.empty()) {
    std::string list;
    for (const std::string& s : out.sources) list += (list.empty() ? "" : "; ") + s;
    if (!out.text.empty() && out.text.back() != '\n') out.text += "\n";
    out.text += "\n*GPU figures on this page: measured on " + list +
                " (validation/data/*.json).*\n";
  }
  return out;
}

RenderedPage render_lesson_page(const Lesson& lesson, size_t step,
                                const std::vector<const ExperimentResult*>& runs,
                                const std::vector<GpuDataset>& data,
                                const std::string& placeholder) {
  if (step >= lesson.steps.size() || lesson.steps[step].page.empty()) return {};
  const std::string& path = lesson.steps[step].page;
  return render_page_text(read_text(path), path, page_env(lesson, step, runs, data), placeholder);
}

// ---------------------------------------------------------------- the drift check
namespace {

bool allowed_number(const std::string& t, bool after_caret) {
  if (after_caret) return true;  // 2^20: the exponent of a size
  if (t.find_first_not_of("0123456789") != std::string::npos) return false;  // 3.5, 11,264
  if (t.size() > 12) return false;
  const unsigned long long v = std::stoull(t);
  if (v <= 16 || v == 100) return true;
  // Powers of two (32 lanes, 128-byte lines, 1024 threads) and their neighbours (lanes 0-31,
  // a 33-column padded tile).
  for (const unsigned long long w : {v, v + 1, v - 1})
    if ((w & (w - 1)) == 0) return true;
  return false;
}

}  // namespace

std::vector<LooseNumber> loose_numbers(const std::string& text) {
  std::vector<LooseNumber> out;
  std::istringstream in(text);
  std::string line;
  int ln = 0;
  bool fence = false;
  while (std::getline(in, line)) {
    ++ln;
    if (line.rfind("```", 0) == 0) {
      fence = !fence;
      continue;
    }
    if (fence) continue;
    // Blank out code spans, embeds and link targets, keeping the columns.
    auto blank = [&](size_t b, size_t e) {
      for (size_t k = b; k < e && k < line.size(); ++k) line[k] = ' ';
    };
    for (size_t b = line.find('`'); b != std::string::npos; b = line.find('`', b)) {
      const size_t e = line.find('`', b + 1);
      if (e == std::string::npos) break;
      blank(b, e + 1);
      b = e + 1;
    }
    for (size_t b = line.find("{{"); b != std::string::npos; b = line.find("{{", b)) {
      const size_t e = line.find("}}", b);
      if (e == std::string::npos) break;
      blank(b, e + 2);
      b = e + 2;
    }
    for (size_t b = line.find("]("); b != std::string::npos; b = line.find("](", b)) {
      const size_t e = line.find(')', b);
      if (e == std::string::npos) break;
      blank(b + 1, e + 1);
      b = e + 1;
    }
    for (size_t i = 0; i < line.size();) {
      const unsigned char c = static_cast<unsigned char>(line[i]);
      if (!std::isdigit(c)) {
        ++i;
        continue;
      }
      // Digits inside a word (H100, sm_90, float4, L2, 0x1f) belong to the word.
      const bool in_word =
          i > 0 && (std::isalpha(static_cast<unsigned char>(line[i - 1])) || line[i - 1] == '_');
      size_t e = i;
      while (e < line.size() && (std::isdigit(static_cast<unsigned char>(line[e])) ||
                                 ((line[e] == '.' || line[e] == ',') && e + 1 < line.size() &&
                                  std::isdigit(static_cast<unsigned char>(line[e + 1])))))
        ++e;
      const bool hex = e < line.size() && i + 1 == e && line[i] == '0' && line[e] == 'x';
      if (!in_word && !hex) {
        const std::string t = line.substr(i, e - i);
        const bool after_caret = i > 0 && line[i - 1] == '^';
        if (!allowed_number(t, after_caret)) out.push_back({ln, t});
      }
      i = e;
      while (i < line.size() && (std::isalnum(static_cast<unsigned char>(line[i])) || line[i] == '_'))
        ++i;  // the rest of a word such as 3x3 or 4th
    }
  }
  return out;
}

}  // namespace warplab::lab
