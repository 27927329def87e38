// Plot axes: tick positions, labels with SI prefixes and units, log scales (ui/app/model/axis.h).
#include <doctest/doctest.h>

#include "ui/app/model/axis.h"

using namespace warplab::app;

TEST_CASE("708 format_si: three significant digits and an SI prefix") {
  CHECK(format_si(1530, "cycles") == "1.53K cycles");
  CHECK(format_si(3.35e12, "B/s") == "3.35 TB/s");
  CHECK(format_si(12e-6, "s") == "12 us");
  CHECK(format_si(0, "B") == "0 B");
  CHECK(format_si(999, "") == "999");
  CHECK(format_si(-2500, "B") == "-2.5 KB");
  CHECK(format_si(1e3, "") == "1K");
}

TEST_CASE("708 linear ticks land on 1/2/5 x 10^k inside the range") {
  const auto t = linear_ticks(0, 10300, 4, "sectors");
  REQUIRE(t.size() == 3);  // 10300 / 4 = 2575 rounds up to a step of 5000: 0, 5000, 10000
  CHECK(t[0].value == 0);
  CHECK(t[1].value == doctest::Approx(5000));
  CHECK(t.back().value == doctest::Approx(10000));
  CHECK(t[1].label == "5K sectors");
  CHECK(linear_ticks(0, 10300, 6, "").size() == 6);  // 1717 -> step 2000: 0 .. 10000
  const auto u = linear_ticks(13, 17, 4, "");
  REQUIRE(u.size() == 5);
  CHECK(u.front().value == doctest::Approx(13));
  CHECK(u.back().value == doctest::Approx(17));
  CHECK(linear_ticks(5, 5, 4, "").empty());
}

TEST_CASE("708 log ticks: decades, with 2 and 5 between when the range is short") {
  const auto t = log_ticks(1, 64, "");
  std::vector<double> v;
  for (const auto& k : t) v.push_back(k.value);
  CHECK(v == std::vector<double>{1, 2, 5, 10, 20, 50});
  const auto w = log_ticks(1e-6, 1, "s");
  CHECK(w.size() == 7);
  CHECK(w[3].label == "1 ms");
  CHECK(log_ticks(0, 10, "").empty());
}

TEST_CASE("708 axis scale maps both ways, linear and log") {
  AxisScale lin{0, 200, false};
  CHECK(lin.to_unit(50) == doctest::Approx(0.25));
  CHECK(lin.from_unit(0.25) == doctest::Approx(50));
  AxisScale lg{1, 100, true};
  CHECK(lg.to_unit(10) == doctest::Approx(0.5));
  CHECK(lg.from_unit(0.5) == doctest::Approx(10));
}
