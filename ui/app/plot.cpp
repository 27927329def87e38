#include "ui/app/plot.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "ui/app/model/axis.h"
#include "ui/app/style.h"

namespace warplab::app {
namespace {

// The index of the point of `s` nearest to x (by x), or -1.
int nearest(const PlotSeries& s, double x) {
  if (s.x.empty()) return -1;
  auto it = std::lower_bound(s.x.begin(), s.x.end(), x);
  int i = static_cast<int>(it - s.x.begin());
  if (i >= static_cast<int>(s.x.size())) return static_cast<int>(s.x.size()) - 1;
  if (i > 0 && std::fabs(s.x[i - 1] - x) < std::fabs(s.x[i] - x)) --i;
  return i;
}

}  // namespace

int draw_plot(const char* id, const PlotSpec& spec, const std::vector<PlotSeries>& series,
              ImVec2 size) {
  int clicked = -1;
  ImGui::PushID(id);
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  if (size.x <= 0) size.x = ImGui::GetContentRegionAvail().x;
  ImGui::InvisibleButton("plot", size);
  const bool hovered = ImGui::IsItemHovered();
  const bool pressed = ImGui::IsItemClicked();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float lh = ImGui::GetTextLineHeight();

  // 1. Data range.
  double xlo = std::numeric_limits<double>::infinity(), xhi = -xlo, ylo = xlo, yhi = -xlo;
  for (const auto& s : series)
    for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      if (spec.log_x && s.x[i] <= 0) continue;
      if (spec.log_y && s.y[i] <= 0) continue;
      xlo = std::min(xlo, s.x[i] - (spec.x_interval > 0 ? spec.x_interval : 0));
      xhi = std::max(xhi, s.x[i]);
      ylo = std::min(ylo, s.y[i]);
      yhi = std::max(yhi, s.y[i]);
    }
  if (spec.y_limit) yhi = std::max(yhi, *spec.y_limit);
  if (!(xhi >= xlo) || !(yhi >= ylo)) {
    dl->AddText(p0, color::kDim, (spec.title + ": no data").c_str());
    ImGui::PopID();
    return -1;
  }
  if (!spec.log_y && spec.y_from_zero) ylo = std::min(ylo, 0.0);
  if (spec.log_y) {
    ylo /= 1.3;
    yhi *= 1.3;
  } else {
    yhi += (yhi - ylo) * 0.08 + (yhi == ylo ? 1 : 0);
  }
  if (spec.log_x) {
    xlo /= 1.15;
    xhi *= 1.15;
  } else if (xhi == xlo) {
    xhi += 1;
  }
  const AxisScale sx{xlo, xhi, spec.log_x}, sy{ylo, yhi, spec.log_y};

  // 2. Frame: room on the left for y labels, below for x labels, above for the title and the
  //    legend, which wraps onto as many lines as it needs (every series keeps its name).
  const float left = 64, bottom = lh + 4;
  std::vector<ImVec2> legend_at;
  {
    float lx = p0.x + left + ImGui::CalcTextSize(spec.title.c_str()).x + 16, ly = p0.y;
    for (const auto& s : series) {
      const float w = 24 + ImGui::CalcTextSize(s.name.c_str()).x;
      if (lx + w > p0.x + size.x && lx > p0.x + left) {
        lx = p0.x + left;
        ly += lh;
      }
      legend_at.push_back(ImVec2(lx, ly));
      lx += w;
    }
  }
  const float top = (legend_at.empty() ? 0 : legend_at.back().y - p0.y) + lh + 2;
  const ImVec2 a(p0.x + left, p0.y + top), b(p0.x + size.x - 6, p0.y + size.y - bottom);
  if (b.x - a.x < 20 || b.y - a.y < 10) {
    ImGui::PopID();
    return -1;
  }
  auto px = [&](double x) { return a.x + float(sx.to_unit(x)) * (b.x - a.x); };
  auto py = [&](double y) { return b.y - float(sy.to_unit(y)) * (b.y - a.y); };
  dl->AddText(ImVec2(a.x, p0.y), color::kText, spec.title.c_str());
  for (size_t k = 0; k < series.size(); ++k) {
    const ImVec2 l = legend_at[k];
    dl->AddRectFilled(ImVec2(l.x, l.y + lh * 0.3f), ImVec2(l.x + 10, l.y + lh * 0.7f),
                      series[k].color);
    dl->AddText(ImVec2(l.x + 14, l.y), color::kDim, series[k].name.c_str());
  }

  // 3. Ticks and grid.
  const int ny = std::max(3, int((b.y - a.y) / (lh * 1.8f)));
  const auto yt =
      spec.log_y ? log_ticks(ylo, yhi, spec.y_unit) : linear_ticks(ylo, yhi, ny, spec.y_unit);
  float label_top =
      1e9f;  // labels go up the axis; one whose line would overlap the last is left out
  for (const auto& t : yt) {
    const float y = py(t.value);
    dl->AddLine(ImVec2(a.x, y), ImVec2(b.x, y), IM_COL32(255, 255, 255, 22));
    if (y + lh * 0.5f > label_top - 2) continue;
    const ImVec2 ts = ImGui::CalcTextSize(t.label.c_str());
    dl->AddText(ImVec2(a.x - ts.x - 4, y - lh * 0.5f), color::kDim, t.label.c_str());
    label_top = y - lh * 0.5f;
  }
  // Ticks between the ends too: a grid line at each, a label where it does not collide.
  const int nx = std::max(3, int((b.x - a.x) / 70));
  auto xt = spec.log_x ? log_ticks(xlo, xhi, spec.x_unit) : linear_ticks(xlo, xhi, nx, spec.x_unit);
  if (!spec.x_ticks_at.empty()) {  // the swept values, each labelled where labels do not collide
    xt.clear();
    float last_right = -1e9f;
    for (double v : spec.x_ticks_at) {
      const std::string label = format_si(v, spec.x_unit);
      const float x = px(v), w = ImGui::CalcTextSize(label.c_str()).x;
      if (x - w * 0.5f < last_right + 6) continue;
      xt.push_back({v, label});
      last_right = x + w * 0.5f;
    }
  }
  float label_right = -1e9f;
  for (const auto& t : xt) {
    const float x = px(t.value);
    dl->AddLine(ImVec2(x, a.y), ImVec2(x, b.y), IM_COL32(255, 255, 255, 16));
    dl->AddLine(ImVec2(x, b.y), ImVec2(x, b.y + 3), color::kDim);
    const ImVec2 ts = ImGui::CalcTextSize(t.label.c_str());
    const float lx = std::max(a.x - 8, std::min(x - ts.x * 0.5f, b.x - ts.x));
    if (lx < label_right + 8) continue;
    dl->AddText(ImVec2(lx, b.y + 2), color::kDim, t.label.c_str());
    label_right = lx + ts.x;
  }

  // 4. Limit line (dashed) and series.
  if (spec.y_limit) {
    const float y = py(*spec.y_limit);
    for (float x = a.x; x < b.x; x += 10)
      dl->AddLine(ImVec2(x, y), ImVec2(std::min(x + 5, b.x), y), color::kFail, 1.5f);
    const ImVec2 ts = ImGui::CalcTextSize(spec.y_limit_label.c_str());
    dl->AddText(ImVec2(b.x - ts.x - 4, y - lh - 1), color::kFail, spec.y_limit_label.c_str());
  }
  dl->PushClipRect(a, b, true);
  for (const auto& s : series) {
    ImVec2 prev;
    bool have = false;
    for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      if ((spec.log_x && s.x[i] <= 0) || (spec.log_y && s.y[i] <= 0)) {
        have = false;
        continue;
      }
      const ImVec2 p(px(s.x[i]), py(s.y[i]));
      if (i < s.y_lo.size() && i < s.y_hi.size() && (!spec.log_y || s.y_lo[i] > 0))
        dl->AddLine(ImVec2(p.x, py(s.y_lo[i])), ImVec2(p.x, py(s.y_hi[i])), s.color, 1.0f);
      if (have) dl->AddLine(prev, p, s.color, 1.5f);
      if (s.markers) dl->AddCircleFilled(p, 3.5f, s.color);
      prev = p;
      have = true;
    }
  }
  if (spec.x_highlight) {
    const float x = px(*spec.x_highlight);
    dl->AddLine(ImVec2(x, a.y), ImVec2(x, b.y), IM_COL32(255, 214, 64, 90), 1.0f);
    for (const auto& s : series)
      for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i)
        if (s.x[i] == *spec.x_highlight && (!spec.log_y || s.y[i] > 0))
          dl->AddCircle(ImVec2(x, py(s.y[i])), 7.0f, color::kCursor, 12, 2.0f);
  }
  if (spec.x_cursor) {
    const float x = px(*spec.x_cursor);
    if (x >= a.x && x <= b.x) dl->AddLine(ImVec2(x, a.y), ImVec2(x, b.y), color::kCursor);
  }
  dl->PopClipRect();

  // 5. Hover read-out: x (or the interval) and each series' value at the nearest point.
  const ImVec2 m = ImGui::GetIO().MousePos;
  if (hovered && m.x >= a.x && m.x <= b.x && !series.empty()) {
    const double x = sx.from_unit((m.x - a.x) / (b.x - a.x));
    dl->AddLine(ImVec2(m.x, a.y), ImVec2(m.x, b.y), IM_COL32(255, 255, 255, 60));
    ImGui::BeginTooltip();
    const int i0 = nearest(series[0], x);
    if (i0 >= 0) {
      const double xv = series[0].x[i0];
      if (spec.x_interval > 0)
        ImGui::Text("%s .. %s", format_si(xv - spec.x_interval, spec.x_unit).c_str(),
                    format_si(xv, spec.x_unit).c_str());
      else
        ImGui::Text("%s", format_si(xv, spec.x_unit).c_str());
    }
    for (const auto& s : series) {
      const int i = nearest(s, x);
      if (i < 0) continue;
      const bool range = size_t(i) < s.y_lo.size() && size_t(i) < s.y_hi.size();
      ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(s.color), "%s: %s%s", s.name.c_str(),
                         format_si(s.y[i], spec.y_unit).c_str(),
                         range ? (" (" + format_si(s.y_lo[i], spec.y_unit) + " .. " +
                                  format_si(s.y_hi[i], spec.y_unit) + ")")
                                     .c_str()
                               : "");
    }
    if (spec.hover_note && i0 >= 0)
      if (const std::string note = spec.hover_note(series[0].x[i0]); !note.empty())
        ImGui::TextUnformatted(note.c_str());
    if (spec.y_limit)
      ImGui::TextDisabled("%s: %s", spec.y_limit_label.c_str(),
                          format_si(*spec.y_limit, spec.y_unit).c_str());
    ImGui::EndTooltip();
    if (pressed) clicked = i0;
  }
  ImGui::PopID();
  return clicked;
}

}  // namespace warplab::app
