#include "lab/first_answers.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <sstream>

namespace warplab::lab {
namespace {

using nlohmann::json;

std::string one_decimal(double v) {
  std::ostringstream ss;
  ss << std::fixed << std::setprecision(1) << v;
  return ss.str();
}

}  // namespace

Expected<FirstAnswers> parse_first_answers(const std::string& json_text, const std::string& path) {
  json j;
  try {
    j = json::parse(json_text);
  } catch (const json::parse_error& e) {
    return Error{path, 0, std::string("not JSON: ") + e.what()};
  }
  if (!j.is_object() || j.value("schema", "") != "warplab.first-answers/1")
    return Error{path, 0, "expected an object with \"schema\": \"warplab.first-answers/1\""};
  if (!j.contains("groups") || !j["groups"].is_object())
    return Error{path, 0, "expected \"groups\": an object of groups"};
  FirstAnswers out;
  out.path = path;
  for (const auto& [name, g] : j["groups"].items()) {
    const std::string at = "groups." + name;
    if (!g.is_object() || !g.contains("time_us") || !g["time_us"].is_object())
      return Error{path, 0, at + ": expected an object with \"time_us\": {preset: {id: us}}"};
    FirstAnswerGroup group;
    for (const char* key : {"date", "commit", "note"}) {
      if (!g.contains(key)) continue;
      if (!g[key].is_string()) return Error{path, 0, at + "." + key + ": expected a string"};
      (std::string(key) == "date" ? group.date : std::string(key) == "commit" ? group.commit
                                                                              : group.note) =
          g[key].get<std::string>();
    }
    for (const auto& [preset, times] : g["time_us"].items()) {
      if (!times.is_object())
        return Error{path, 0, at + ".time_us." + preset + ": expected an object {id: us}"};
      for (const auto& [id, us] : times.items()) {
        if (!us.is_number() || !std::isfinite(us.get<double>()) || us.get<double>() <= 0)
          return Error{path, 0, at + ".time_us." + preset + "." + id + ": expected a positive time"};
        group.time_us[preset][id] = us.get<double>();
      }
    }
    out.groups[name] = std::move(group);
  }
  return out;
}

Expected<FirstAnswers> load_first_answers(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{path, 0, "cannot open file"};
  std::ostringstream ss;
  ss << in.rdbuf();
  return parse_first_answers(ss.str(), path);
}

std::vector<GroupSummary> summarize_groups(const std::vector<CorpusPoint>& points,
                                           const std::map<std::string, double>& sim_us,
                                           const std::map<std::string, double>& gpu_us,
                                           const FirstAnswers* first, const std::string& config) {
  std::vector<GroupSummary> out;
  std::map<std::string, std::pair<double, double>> sums;  // group -> (today, first) error sums
  for (const CorpusPoint& p : points) {
    if (p.group.empty()) continue;
    auto it = std::find_if(out.begin(), out.end(),
                           [&](const GroupSummary& s) { return s.group == p.group; });
    if (it == out.end()) {
      out.push_back({p.group});
      it = out.end() - 1;
    }
    auto s = sim_us.find(p.id), g = gpu_us.find(p.id);
    if (s == sim_us.end() || g == gpu_us.end() || !(g->second > 0)) continue;
    ++it->points;
    sums[p.group].first += abs_pct_error(s->second, g->second);
    if (!first) continue;
    auto fg = first->groups.find(p.group);
    if (fg == first->groups.end()) continue;
    auto fp = fg->second.time_us.find(config);
    if (fp == fg->second.time_us.end()) continue;
    auto f = fp->second.find(p.id);
    if (f == fp->second.end()) continue;
    ++it->first_points;
    sums[p.group].second += abs_pct_error(f->second, g->second);
  }
  for (GroupSummary& s : out) {
    if (s.points) s.mape = sums[s.group].first / s.points;
    if (s.first_points) s.first_answer_mape = sums[s.group].second / s.first_points;
  }
  return out;
}

GroupSummary summarize_latency_bound(const std::vector<CorpusPoint>& points,
                                     const std::vector<uint64_t>& widest_blocks,
                                     const std::map<std::string, double>& sim_us,
                                     const std::map<std::string, double>& gpu_us, int64_t sm_count) {
  GroupSummary out{"latency_bound"};
  double sum = 0;
  for (size_t i = 0; i < points.size() && i < widest_blocks.size(); ++i) {
    if (widest_blocks[i] == 0 || widest_blocks[i] >= uint64_t(sm_count)) continue;
    auto s = sim_us.find(points[i].id), g = gpu_us.find(points[i].id);
    if (s == sim_us.end() || g == gpu_us.end() || !(g->second > 0)) continue;
    ++out.points;
    sum += abs_pct_error(s->second, g->second);
  }
  if (out.points) out.mape = sum / out.points;
  return out;
}

std::string latency_bound_line(const GroupSummary& s) {
  return "VALIDATE group=" + s.group + " points=" + std::to_string(s.points) +
         " mape=" + (s.points ? one_decimal(s.mape) + "%" : "-");
}

std::string group_line(const GroupSummary& s) {
  std::string first = s.first_points ? one_decimal(s.first_answer_mape) + "%" : "-";
  if (s.first_points && s.first_points < s.points)
    first += " (" + std::to_string(s.first_points) + " of " + std::to_string(s.points) + ")";
  return "VALIDATE group=" + s.group + " points=" + std::to_string(s.points) +
         " first_answer_mape=" + first + " mape=" + (s.points ? one_decimal(s.mape) + "%" : "-");
}

}  // namespace warplab::lab
