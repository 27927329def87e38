#include "ui/app/opaque_runs.h"

#include <cmath>

namespace warplab::app {

namespace {

bool solid(const ImDrawVert& v, ImVec2 white) {
  return (v.col & IM_COL32_A_MASK) == IM_COL32_A_MASK && v.uv.x == white.x && v.uv.y == white.y;
}

float area(const ImDrawVert& a, const ImDrawVert& b, const ImDrawVert& c) {
  return 0.5f * std::fabs((b.pos.x - a.pos.x) * (c.pos.y - a.pos.y) -
                          (c.pos.x - a.pos.x) * (b.pos.y - a.pos.y));
}

}  // namespace

void OpaqueRuns::split(ImDrawData* dd, ImDrawCallback blend_off, ImVec2 white_uv) {
  lists_.clear();
  saved_.clear();
  for (int n = 0; n < dd->CmdListsCount; ++n) {
    ImDrawList* l = dd->CmdLists[n];
    ImVector<ImDrawCmd> out;
    bool explicit_opaque = false;  // inside the list's own begin_opaque .. end_opaque
    bool blending = true;          // the state the commands so far leave the renderer in
    bool changed = false;
    for (const ImDrawCmd& cmd : l->CmdBuffer) {
      if (cmd.UserCallback) {
        if (cmd.UserCallback == blend_off) explicit_opaque = true, blending = false;
        if (cmd.UserCallback == ImDrawCallback_ResetRenderState)
          explicit_opaque = false, blending = true;
        out.push_back(cmd);
        continue;
      }
      if (explicit_opaque || cmd.ElemCount < 6) {
        out.push_back(cmd);
        continue;
      }
      // 1. Runs of solid and of other triangles, in order; a solid run too small to pay for its
      //    state change joins its neighbours.
      struct Run {
        unsigned begin, end;
        bool solid;
        float area;
      };
      std::vector<Run> runs;
      const ImDrawIdx* idx = l->IdxBuffer.Data + cmd.IdxOffset;
      const ImDrawVert* vtx = l->VtxBuffer.Data + cmd.VtxOffset;
      for (unsigned k = 0; k + 2 < cmd.ElemCount; k += 3) {
        const ImDrawVert &a = vtx[idx[k]], &b = vtx[idx[k + 1]], &c = vtx[idx[k + 2]];
        const bool s = solid(a, white_uv) && solid(b, white_uv) && solid(c, white_uv);
        if (runs.empty() || runs.back().solid != s) runs.push_back({k, k, s, 0});
        runs.back().end = k + 3;
        runs.back().area += area(a, b, c);
      }
      std::vector<Run> merged;
      for (Run r : runs) {
        if (r.solid && r.area < kMinArea) r.solid = false;
        if (!merged.empty() && merged.back().solid == r.solid)
          merged.back().end = r.end;
        else
          merged.push_back(r);
      }
      if (merged.size() == 1 && !merged[0].solid) {
        if (!blending) {  // an earlier solid run turned blending off
          ImDrawCmd reset{};
          reset.UserCallback = ImDrawCallback_ResetRenderState;
          out.push_back(reset);
          blending = true;
        }
        out.push_back(cmd);
        continue;
      }
      // 2. One command per run, blending switched where the kind changes.
      changed = true;
      for (const Run& r : merged) {
        if (r.solid == blending) {
          ImDrawCmd state{};
          state.UserCallback = r.solid ? blend_off : ImDrawCallback_ResetRenderState;
          out.push_back(state);
          blending = !r.solid;
        }
        ImDrawCmd part = cmd;
        part.IdxOffset = cmd.IdxOffset + r.begin;
        part.ElemCount = r.end - r.begin;
        out.push_back(part);
      }
    }
    if (!blending) {  // the next list starts from the backend's state
      ImDrawCmd reset{};
      reset.UserCallback = ImDrawCallback_ResetRenderState;
      out.push_back(reset);
    }
    if (!changed) continue;
    lists_.push_back(l);
    saved_.emplace_back();
    saved_.back().swap(l->CmdBuffer);
    l->CmdBuffer.swap(out);
  }
}

void OpaqueRuns::restore() {
  for (size_t i = 0; i < lists_.size(); ++i) lists_[i]->CmdBuffer.swap(saved_[i]);
  lists_.clear();
  saved_.clear();
}

}  // namespace warplab::app
