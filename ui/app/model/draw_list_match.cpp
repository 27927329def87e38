#include "ui/app/model/draw_list_match.h"

namespace warplab::app {

DrawListMatch match_draw_lists(const std::vector<DrawListKey>& before,
                               const std::vector<DrawListKey>& now) {
  DrawListMatch m;
  m.before_of.assign(now.size(), -1);
  std::vector<char> kept(before.size(), 0);
  size_t next = 0;  // lists kept must appear in the last frame's order from here on
  for (size_t n = 0; n < now.size(); ++n) {
    size_t o = 0;
    while (o < before.size() &&
           (kept[o] || before[o].list != now[n].list || before[o].owner != now[n].owner))
      ++o;
    if (o == before.size()) continue;  // it came
    if (o < next) m.reordered = true;
    next = o + 1;
    kept[o] = 1;
    m.before_of[n] = static_cast<int>(o);
  }
  for (size_t o = 0; o < before.size(); ++o)
    if (!kept[o]) m.went.push_back(o);
  return m;
}

}  // namespace warplab::app
