// The sweep chart's measured reference (ui/app/model/reference_curve.h): a measured point joins
// the curve only when its experiment, parameter values and row are the sweep's, each curve carries
// the device and the day it was measured, and the committed H100 file gives lesson 3's curve.
#include <doctest/doctest.h>

#include "lab/experiment.h"
#include "lab/validate.h"
#include "ui/app/model/reference_curve.h"

using namespace warplab;

namespace {

lab::MeasuredPoint point(const std::string& id, const std::vector<std::string>& set,
                         const std::string& row, double us, const std::string& date,
                         std::vector<std::string> launch = {}) {
  lab::MeasuredPoint m;
  m.id = id;
  m.ok = true;
  m.time_us = us;
  m.min_us = us - 1;
  m.max_us = us + 1;
  m.date = date;
  m.experiment = "../lessons/08-atomics-histogram/histogram.toml";
  m.set = set;
  m.row = {row};
  m.launch = std::move(launch);
  return m;
}

}  // namespace

TEST_CASE("711 reference_curves: matching size and row only, one curve per named launch") {
  auto exp = lab::load_experiment("lessons/08-atomics-histogram/histogram.toml");
  REQUIRE(exp);
  REQUIRE(exp->sweep.size() == 1);
  REQUIRE(exp->sweep[0].param == "bins");
  REQUIRE(exp->launches.size() == 2);
  lab::MeasuredData d;
  d.device = "GPU X";
  for (auto m :
       {point("g256", {}, "bins=256", 300, "2026-11-23T22:08:39Z", {"histogram_global"}),
        point("g1", {}, "bins=1", 800, "2026-11-23T22:08:39Z", {"histogram_global"}),
        point("s1", {}, "bins=1", 8, "2026-11-24T17:02:37Z", {"histogram_shared"}),
        point("big", {"N=16777216"}, "bins=1", 12000, "2026-11-23T00:00:00Z", {"histogram_global"}),
        point("both", {}, "bins=16", 500, "2026-11-23T00:00:00Z")})
    d.points[m.id] = m;
  lab::MeasuredPoint failed = point("bad", {}, "bins=16", 1, "", {"histogram_global"});
  failed.ok = false;
  d.points["bad"] = failed;
  const double n_default = 1 << 20;  // the experiment's own N (its file's default)
  REQUIRE(exp->params.front().name == "N");
  REQUIRE(exp->params.front().value.as_double() == n_default);

  const auto r = app::reference_curves(d, "validation", *exp, {{"N", n_default}, {"bins", 16}});
  CHECK(r.note.empty());
  REQUIRE(r.curves.size() == 2);
  const app::ReferenceCurve& g = r.curves[0];
  CHECK(g.launch == 0);
  CHECK(g.name == "GPU X, measured 2026-11-23: histogram_global");
  CHECK(g.date == "2026-11-23");
  REQUIRE(g.x.size() == 2);  // N = 2^24, the failed point and the two-launch sum are left out
  CHECK(g.x[0] == 1);
  CHECK(g.y[0] == 800);
  CHECK(g.x[1] == 256);
  CHECK(g.y[1] == 300);
  CHECK(g.y_min[1] == 299);
  CHECK(g.y_max[1] == 301);
  CHECK(g.ids[0] == "g1");
  CHECK(r.curves[1].launch == 1);
  CHECK(r.curves[1].name == "GPU X, measured 2026-11-24: histogram_shared");

  // At N = 2^24 only the large point is drawn; at another N none, with a note saying where.
  const auto big = app::reference_curves(d, "validation", *exp, {{"N", 16777216}});
  REQUIRE(big.curves.size() == 1);
  CHECK(big.curves[0].y == std::vector<double>{12000});
  const auto none = app::reference_curves(d, "validation", *exp, {{"N", 4096}});
  CHECK(none.curves.empty());
  CHECK(none.note.find("GPU X measured this sweep at N=1048576 or N=16777216") == 0);
  // Another experiment's file: nothing.
  auto other = lab::load_experiment("lessons/02-coalescing/stride-sweep.toml");
  REQUIRE(other);
  CHECK(app::reference_curves(d, "validation", *other, {}).curves.empty());
}

TEST_CASE("711 reference_curves: lesson 3's block sweep from the committed H100 measurements") {
  auto data = lab::load_measured("validation/data/h100.json");
  REQUIRE(data);
  auto exp = lab::load_experiment("lessons/03-block-size/block-size-sweep.toml");
  REQUIRE(exp);
  const auto r = app::reference_curves(*data, "validation", *exp, {{"N", 1 << 20}});
  REQUIRE(r.curves.size() == 1);
  const app::ReferenceCurve& c = r.curves[0];
  CHECK(c.device == "NVIDIA H100 80GB HBM3");
  CHECK(c.x == std::vector<double>{32, 64, 128, 256, 512, 1024});
  REQUIRE(c.ids.size() == 6);
  CHECK(c.ids[0] == "l3.block32.default");
  // Each y is the file's own median for that point, not a figure of this test's.
  for (size_t i = 0; i < c.ids.size(); ++i) CHECK(c.y[i] == data->points.at(c.ids[i]).time_us);
  // The curve carries the day its points were measured, from the file's own records.
  CHECK(c.date.size() == 10);
  CHECK(c.date == data->points.at(c.ids[0]).date.substr(0, 10));
  CHECK(c.date == data->points.at(c.ids[5]).date.substr(0, 10));
  // At the H100 figures' size (N = 2^24), the .ref points.
  const auto ref = app::reference_curves(*data, "validation", *exp, {{"N", 16777216}});
  REQUIRE(ref.curves.size() == 1);
  CHECK(ref.curves[0].ids[3] == "l3.block256.ref");
  CHECK(app::reference_data_path("validation/data", "h100-sxm") == "validation/data/h100.json");
  CHECK(app::reference_data_path("validation/data", "teaching") == "validation/data/h100.json");
  CHECK(app::reference_data_path("validation/data", "h200") == "validation/data/h200.json");
}
