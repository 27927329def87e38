#include "ui/app/model/measured_links.h"

#include <cstdlib>
#include <filesystem>
#include <sstream>

namespace warplab::app {

namespace {

bool number(const std::string& s, double& v) {
  char* end = nullptr;
  v = std::strtod(s.c_str(), &end);
  return !s.empty() && end && *end == '\0';
}

// "lessons/02-coalescing/stride-sweep.toml" -> "02-coalescing/stride-sweep.toml".
std::string tail2(const std::string& p) {
  const std::filesystem::path f(p);
  return (f.parent_path().filename() / f.filename()).string();
}

}  // namespace

int MeasuredLinkUse::busiest() const {
  int b = 0;
  for (int i = 1; i < kFlowLinks; ++i)
    if (percent[size_t(i)] > percent[size_t(b)]) b = i;
  return b;
}

Expected<std::vector<MeasuredLinkUse>> parse_link_use(const std::string& text,
                                                      const std::string& path) {
  std::vector<MeasuredLinkUse> out;
  std::istringstream in(text);
  std::string line;
  bool header = false;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> f;
    std::istringstream cells(line);
    for (std::string c; std::getline(cells, c, '\t');) f.push_back(c);
    if (!header) {
      if (f.size() != 7 || f[0] != "experiment")
        return Error{path, n,
                     "expected the header experiment, set, lanes_l1, l1_l2, l2_dram, device, date"};
      header = true;
      continue;
    }
    if (f.size() != 7) return Error{path, n, "expected 7 tab-separated fields"};
    MeasuredLinkUse r;
    r.experiment = f[0];
    std::istringstream set(f[1]);
    for (std::string a; set >> a;) {
      const size_t eq = a.find('=');
      double v = 0;
      if (eq == std::string::npos || eq == 0 || !number(a.substr(eq + 1), v))
        return Error{path, n, "expected NAME=NUMBER in the set field, got '" + a + "'"};
      r.values[a.substr(0, eq)] = v;
    }
    for (int i = 0; i < kFlowLinks; ++i)
      if (!number(f[size_t(2 + i)], r.percent[size_t(i)]))
        return Error{path, n, "expected a percentage, got '" + f[size_t(2 + i)] + "'"};
    r.device = f[5];
    r.date = f[6];
    out.push_back(std::move(r));
  }
  return out;
}

std::optional<MeasuredLinkUse> find_link_use(
    const std::vector<MeasuredLinkUse>& rows, const std::string& experiment_path,
    const std::vector<std::pair<std::string, std::string>>& params) {
  for (const MeasuredLinkUse& r : rows) {
    if (tail2(r.experiment) != tail2(experiment_path)) continue;
    bool all = true;
    for (const auto& [name, want] : r.values) {
      bool found = false;
      for (const auto& [pn, pv] : params) {
        double v = 0;
        if (pn == name) found = number(pv, v) && v == want;
      }
      all = all && found;
    }
    if (all) return r;
  }
  return std::nullopt;
}

}  // namespace warplab::app
