#include "sim/func/cfg.h"

#include <algorithm>

#include "sim/func/decoded.h"

namespace warplab::func {
namespace {

bool ends_path(ptx::Opcode op) {
  return op == ptx::Opcode::Ret || op == ptx::Opcode::Exit || op == ptx::Opcode::Trap;
}

struct Graph {
  std::vector<int32_t> start;              // first instruction of each block
  std::vector<std::vector<int32_t>> succ;  // block successors; `exit` = start.size()
};

Graph build(const ptx::Function& f) {
  const int32_t n = static_cast<int32_t>(f.instructions.size());
  std::vector<char> leader(n + 1, 0);
  leader[0] = 1;
  for (int32_t i = 0; i < n; ++i) {
    const auto& in = f.instructions[i];
    if (in.op == ptx::Opcode::Bra) {
      for (const auto& o : in.ops)
        if (o.kind == ptx::Operand::Kind::Label && o.label >= 0 && o.label <= n)
          leader[o.label] = 1;
      leader[i + 1] = 1;
    } else if (ends_path(in.op)) {
      leader[i + 1] = 1;
    }
  }
  Graph g;
  std::vector<int32_t> block_of(n + 1, -1);
  for (int32_t i = 0; i < n; ++i) {
    if (leader[i]) g.start.push_back(i);
    block_of[i] = static_cast<int32_t>(g.start.size()) - 1;
  }
  const int32_t nb = static_cast<int32_t>(g.start.size());
  const int32_t exit = nb;
  block_of[n] = exit;  // falling off the end leaves the function
  g.succ.resize(nb);
  for (int32_t b = 0; b < nb; ++b) {
    const int32_t last = (b + 1 < nb ? g.start[b + 1] : n) - 1;
    const auto& in = f.instructions[last];
    auto& s = g.succ[b];
    const bool guarded = in.guard >= 0;
    if (in.op == ptx::Opcode::Bra) {
      for (const auto& o : in.ops)
        if (o.kind == ptx::Operand::Kind::Label && o.label >= 0) s.push_back(block_of[o.label]);
      if (guarded) s.push_back(block_of[last + 1]);
    } else if (ends_path(in.op)) {
      s.push_back(exit);
      if (guarded) s.push_back(block_of[last + 1]);
    } else {
      s.push_back(block_of[last + 1]);
    }
  }
  return g;
}

}  // namespace

std::vector<int32_t> reconvergence_points(const ptx::Function& f) {
  const int32_t n = static_cast<int32_t>(f.instructions.size());
  std::vector<int32_t> out(n, -1);
  if (n == 0) return out;
  const Graph g = build(f);
  const int32_t nb = static_cast<int32_t>(g.start.size());
  const int32_t exit = nb;
  // Predecessors in the original graph = successors in the reversed graph.
  std::vector<std::vector<int32_t>> pred(nb + 1);
  for (int32_t b = 0; b < nb; ++b)
    for (int32_t s : g.succ[b]) pred[s].push_back(b);
  // Post-order of the reversed graph from the exit (iterative DFS).
  std::vector<int32_t> order, post_index(nb + 1, -1);
  std::vector<char> seen(nb + 1, 0);
  std::vector<std::pair<int32_t, size_t>> st{{exit, 0}};
  seen[exit] = 1;
  while (!st.empty()) {
    auto& [v, i] = st.back();
    if (i < pred[v].size()) {
      const int32_t u = pred[v][i++];
      if (!seen[u]) {
        seen[u] = 1;
        st.push_back({u, 0});
      }
    } else {
      post_index[v] = static_cast<int32_t>(order.size());
      order.push_back(v);
      st.pop_back();
    }
  }
  // Cooper-Harvey-Kennedy on the reversed graph: ipdom[v] among successors of v.
  std::vector<int32_t> ipdom(nb + 1, -1);
  ipdom[exit] = exit;
  auto intersect = [&](int32_t a, int32_t b) {
    while (a != b) {
      while (post_index[a] < post_index[b]) a = ipdom[a];
      while (post_index[b] < post_index[a]) b = ipdom[b];
    }
    return a;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t k = order.size(); k-- > 0;) {
      const int32_t v = order[k];
      if (v == exit) continue;
      int32_t nd = -1;
      for (int32_t s : g.succ[v]) {
        if (ipdom[s] < 0 || post_index[s] < 0) continue;
        nd = nd < 0 ? s : intersect(s, nd);
      }
      if (nd >= 0 && ipdom[v] != nd) {
        ipdom[v] = nd;
        changed = true;
      }
    }
  }
  for (int32_t b = 0; b < nb; ++b) {
    const int32_t last = (b + 1 < nb ? g.start[b + 1] : n) - 1;
    if (f.instructions[last].op != ptx::Opcode::Bra) continue;
    const int32_t pd = ipdom[b];
    out[last] = (pd < 0 || pd == exit) ? kNoPc : g.start[pd];
  }
  return out;
}

}  // namespace warplab::func
