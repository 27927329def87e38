#include "ui/app/frame_damage.h"

#include <GLFW/glfw3.h>
#include <backends/imgui_impl_opengl3.h>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace warplab::app {

namespace {

constexpr size_t kMaxRects = 12;        // more than this: their bounding box
constexpr double kWholeFraction = 0.6;  // damage over this share of the screen: draw it whole

ImVec4 intersect(const ImVec4& a, const ImVec4& b) {
  return ImVec4(std::max(a.x, b.x), std::max(a.y, b.y), std::min(a.z, b.z), std::min(a.w, b.w));
}
bool empty(const ImVec4& r) { return r.z <= r.x || r.w <= r.y; }
ImVec4 unite(const ImVec4& a, const ImVec4& b) {
  return ImVec4(std::min(a.x, b.x), std::min(a.y, b.y), std::max(a.z, b.z), std::max(a.w, b.w));
}
bool near(const ImVec4& a, const ImVec4& b, float gap) {
  return a.x <= b.z + gap && b.x <= a.z + gap && a.y <= b.w + gap && b.y <= a.w + gap;
}
bool same_cmd(const ImDrawCmd& a, const ImDrawCmd& b) {
  return a.ClipRect.x == b.ClipRect.x && a.ClipRect.y == b.ClipRect.y &&
         a.ClipRect.z == b.ClipRect.z && a.ClipRect.w == b.ClipRect.w &&
         a.TextureId == b.TextureId && a.VtxOffset == b.VtxOffset && a.IdxOffset == b.IdxOffset &&
         a.ElemCount == b.ElemCount && a.UserCallback == b.UserCallback &&
         a.UserCallbackData == b.UserCallbackData;
}
ImVec4 cmds_area(const ImDrawCmd* c, size_t n) {
  ImVec4 r(1e9f, 1e9f, -1e9f, -1e9f);
  for (size_t i = 0; i < n; ++i)
    if (c[i].ElemCount > 0) r = unite(r, c[i].ClipRect);
  return r;
}
// Where a list's triangles are drawn: each command's triangles' box inside its clip rectangle
// (a command may clip to the whole screen, as labels drawn past a panel's edge do, and still draw
// a few pixels).
ImVec4 drawn_area(const ImDrawCmd* c, size_t n, const ImDrawVert* vtx, const ImDrawIdx* idx) {
  ImVec4 r(1e9f, 1e9f, -1e9f, -1e9f);
  for (size_t i = 0; i < n; ++i) {
    if (c[i].ElemCount == 0 || c[i].UserCallback) continue;
    ImVec4 box(1e9f, 1e9f, -1e9f, -1e9f);
    const ImDrawIdx* t = idx + c[i].IdxOffset;
    for (unsigned k = 0; k < c[i].ElemCount; ++k) {
      const ImVec2 p = vtx[c[i].VtxOffset + t[k]].pos;
      box = unite(box, ImVec4(p.x, p.y, p.x, p.y));
    }
    box = intersect(box, c[i].ClipRect);
    if (!empty(box)) r = unite(r, box);
  }
  return r;
}
ImVec4 drawn_area(const ImDrawList& l) {
  return drawn_area(l.CmdBuffer.Data, size_t(l.CmdBuffer.Size), l.VtxBuffer.Data, l.IdxBuffer.Data);
}

}  // namespace

void FrameDamage::probe(GLFWwindow* window) {
  unsigned char px[4] = {0, 0, 0, 0};
  glClearColor(1, 0, 0, 1);
  glClear(GL_COLOR_BUFFER_BIT);
  glfwSwapBuffers(window);
  glClearColor(0, 1, 0, 1);
  glClear(GL_COLOR_BUFFER_BIT);
  glfwSwapBuffers(window);
  glReadBuffer(GL_BACK);
  glReadPixels(0, 0, 1, 1, GL_RGBA, GL_UNSIGNED_BYTE, px);
  preserved_ = glGetError() == GL_NO_ERROR && px[0] < 8 && px[1] > 247 && px[2] < 8;
}

void FrameDamage::add_rect(ImVec4 r) {
  r = intersect(
      ImVec4(std::floor(r.x) - 1, std::floor(r.y) - 1, std::ceil(r.z) + 1, std::ceil(r.w) + 1),
      ImVec4(0, 0, float(w_), float(h_)));
  if (empty(r)) return;
  for (ImVec4& q : rects_)
    if (near(q, r, 8)) {
      q = unite(q, r);
      return;
    }
  rects_.push_back(r);
  if (rects_.size() > kMaxRects) {
    ImVec4 all = rects_[0];
    for (const ImVec4& q : rects_) all = unite(all, q);
    rects_.assign(1, all);
  }
}

void FrameDamage::damage_list(const ListCopy& old, const ImDrawList& now) {
  const size_t ncmd = size_t(now.CmdBuffer.Size);
  bool same = ncmd == old.cmds.size() && size_t(now.VtxBuffer.Size) == old.vtx.size() &&
              size_t(now.IdxBuffer.Size) == old.idx.size();
  for (size_t i = 0; same && i < ncmd; ++i) same = same_cmd(now.CmdBuffer[int(i)], old.cmds[i]);
  same = same &&
         std::memcmp(now.IdxBuffer.Data, old.idx.data(), old.idx.size() * sizeof(ImDrawIdx)) == 0;
  if (!same) {  // the whole area the list covered and covers
    add_rect(drawn_area(old.cmds.data(), old.cmds.size(), old.vtx.data(), old.idx.data()));
    add_rect(drawn_area(now));
    return;
  }
  // Same triangles: those with a changed vertex damage their old and new boxes.
  const ImDrawVert* nv = now.VtxBuffer.Data;
  const ImDrawVert* ov = old.vtx.data();
  std::vector<char> changed(old.vtx.size());
  bool any = false;
  for (size_t v = 0; v < old.vtx.size(); ++v) {
    changed[v] = std::memcmp(&nv[v], &ov[v], sizeof(ImDrawVert)) != 0;
    any = any || changed[v];
  }
  if (!any) return;
  for (size_t c = 0; c < ncmd; ++c) {
    const ImDrawCmd& cmd = now.CmdBuffer[int(c)];
    for (unsigned k = 0; k + 2 < cmd.ElemCount; k += 3) {
      const ImDrawIdx* t = now.IdxBuffer.Data + cmd.IdxOffset + k;
      const unsigned a = t[0] + cmd.VtxOffset, b = t[1] + cmd.VtxOffset, d = t[2] + cmd.VtxOffset;
      if (!changed[a] && !changed[b] && !changed[d]) continue;
      ImVec4 box(1e9f, 1e9f, -1e9f, -1e9f);
      for (const ImDrawVert* vs : {nv, ov})
        for (unsigned i : {a, b, d})
          box = unite(box, ImVec4(vs[i].pos.x, vs[i].pos.y, vs[i].pos.x, vs[i].pos.y));
      add_rect(intersect(box, cmd.ClipRect));
    }
  }
}

void FrameDamage::remember(ImDrawData* dd) {
  prev_.resize(size_t(dd->CmdListsCount));
  for (int n = 0; n < dd->CmdListsCount; ++n) {
    const ImDrawList* l = dd->CmdLists[n];
    ListCopy& c = prev_[size_t(n)];
    c.list = l;
    c.owner = l->_OwnerName ? l->_OwnerName : "";
    c.cmds.assign(l->CmdBuffer.begin(), l->CmdBuffer.end());
    c.vtx.assign(l->VtxBuffer.begin(), l->VtxBuffer.end());
    c.idx.assign(l->IdxBuffer.begin(), l->IdxBuffer.end());
  }
}

namespace {
void blend_off(const ImDrawList*, const ImDrawCmd*) { glDisable(GL_BLEND); }
}  // namespace

void begin_opaque(ImDrawList* dl) { dl->AddCallback(blend_off, nullptr); }
void end_opaque(ImDrawList* dl) { dl->AddCallback(ImDrawCallback_ResetRenderState, nullptr); }

void FrameDamage::render(ImDrawData* dd, int fb_w, int fb_h, const ImVec4& clear,
                         bool force_whole) {
  const ImVec2 scale = dd->FramebufferScale;
  const int w = int(dd->DisplaySize.x), h = int(dd->DisplaySize.y);
  bool whole = force_whole || !preserved_ || w != w_ || h != h_ || dd->DisplayPos.x != 0 ||
               dd->DisplayPos.y != 0;
  w_ = w;
  h_ = h;
  rects_.clear();
  // Lists kept from the last frame damage what changed in them; lists that came or went, the
  // area they cover or covered (draw_list_match.h).
  if (!whole) {
    keys_before_.clear();
    keys_now_.clear();
    for (const ListCopy& c : prev_) keys_before_.push_back({c.list, c.owner});
    for (int n = 0; n < dd->CmdListsCount; ++n) {
      const ImDrawList* l = dd->CmdLists[n];
      keys_now_.push_back({l, l->_OwnerName ? l->_OwnerName : ""});
    }
    const DrawListMatch m = match_draw_lists(keys_before_, keys_now_);
    whole = m.reordered;
    for (int n = 0; !whole && n < dd->CmdListsCount; ++n) {
      const int o = m.before_of[size_t(n)];
      if (o < 0)
        add_rect(drawn_area(*dd->CmdLists[n]));
      else
        damage_list(prev_[size_t(o)], *dd->CmdLists[n]);
    }
    for (size_t o : m.went)
      add_rect(drawn_area(prev_[o].cmds.data(), prev_[o].cmds.size(), prev_[o].vtx.data(),
                          prev_[o].idx.data()));
  }
  double area = 0;
  for (const ImVec4& r : rects_) area += double(r.z - r.x) * double(r.w - r.y);
  if (area > kWholeFraction * double(w) * double(h)) whole = true;
  glClearColor(clear.x, clear.y, clear.z, 1.0f);
  if (whole) {
    glViewport(0, 0, fb_w, fb_h);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(dd);
    last_px_ = double(w) * double(h);
  } else {
    last_px_ = area;
    std::vector<ImDrawList*> lists;
    std::vector<ImVec4> saved;
    for (const ImVec4& r : rects_) {
      // Clear the rectangle, then draw every list that reaches into it, clipped to it.
      glEnable(GL_SCISSOR_TEST);
      glScissor(int(r.x * scale.x), int(float(fb_h) - r.w * scale.y), int((r.z - r.x) * scale.x),
                int((r.w - r.y) * scale.y));
      glClear(GL_COLOR_BUFFER_BIT);
      glDisable(GL_SCISSOR_TEST);
      lists.clear();
      saved.clear();
      for (int n = 0; n < dd->CmdListsCount; ++n) {
        ImDrawList* l = dd->CmdLists[n];
        if (empty(intersect(cmds_area(l->CmdBuffer.Data, size_t(l->CmdBuffer.Size)), r))) continue;
        lists.push_back(l);
        for (ImDrawCmd& c : l->CmdBuffer) {
          saved.push_back(c.ClipRect);
          c.ClipRect = intersect(c.ClipRect, r);
          if (empty(c.ClipRect)) c.ClipRect = ImVec4(0, 0, 0, 0);  // the backend skips it
        }
      }
      if (lists.empty()) continue;
      ImDrawData part = *dd;
      part.CmdLists = lists.data();
      part.CmdListsCount = int(lists.size());
      glViewport(0, 0, fb_w, fb_h);
      ImGui_ImplOpenGL3_RenderDrawData(&part);
      size_t k = 0;
      for (ImDrawList* l : lists)
        for (ImDrawCmd& c : l->CmdBuffer) c.ClipRect = saved[k++];
    }
  }
  remember(dd);
}

}  // namespace warplab::app
