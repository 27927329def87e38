// A lesson step's questions and claims (lesson.toml, lab/lesson.h). "Check this step" runs the
// step's experiment as `warplab lesson` does (ui/app/model/lesson_steps.h) and shows every claim
// with the values on both sides of its comparison, on the simulator and, when one ran, the real
// GPU; questions are answered in place and compared with the value the run computed. A predict
// question (lesson.toml `predict = true`) is answered before the run, which then reveals the
// model's answer beside the GPU's (measured, or the committed H100 data).
#include <cmath>
#include <cstdio>
#include <string>

#include "ui/app/app_state.h"
#include "ui/app/style.h"

namespace warplab::app {

namespace {

ImVec4 col(ImU32 c) { return ImGui::ColorConvertU32ToFloat4(c); }

void draw_question(AppState& s, const lab::LessonQuestion& q, int qi, const StepCheck* check) {
  const std::pair<int, int> key{s.step, qi};
  ImGui::PushID(qi);
  ImGui::PushTextWrapPos(0);
  ImGui::TextUnformatted(q.text.c_str());
  ImGui::PopTextWrapPos();
  std::string& reply = s.step_replies[key];
  const StepCheck::Answer* a =
      check && size_t(qi) < check->answers.size() ? &check->answers[size_t(qi)] : nullptr;
  ImGui::BeginDisabled(q.predict && a);  // a prediction is kept once the run revealed the answer
  if (q.kind == lab::LessonQuestion::Kind::Choice) {
    for (size_t c = 0; c < q.choices.size(); ++c) {
      const std::string n = std::to_string(c + 1);
      if (ImGui::RadioButton(q.choices[c].c_str(), reply == n)) {
        reply = n;
        s.step_answered[key] = false;
      }
    }
  } else {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%s", reply.c_str());
    ImGui::SetNextItemWidth(140);
    if (ImGui::InputText("##reply", buf, sizeof buf)) {
      reply = buf;
      s.step_answered[key] = false;
    }
  }
  ImGui::EndDisabled();
  if (q.predict) {  // predict, then reveal: the run shows the model's answer and the GPU's
    if (!a) {
      ImGui::SameLine();
      ImGui::TextDisabled(reply.empty() ? "your prediction first, then Run and reveal"
                                        : "predicted: Run and reveal");
    } else {
      bool right = false;
      const std::string line = reveal_line(q, *a, reply, &right);
      ImGui::PushTextWrapPos(0);
      ImGui::TextColored(col(a->error.empty() && right ? color::kHit : color::kFail), "%s",
                         line.c_str());
      if (a->error.empty() && !q.explain.empty()) ImGui::TextDisabled("%s", q.explain.c_str());
      ImGui::PopTextWrapPos();
    }
    ImGui::PopID();
    ImGui::Spacing();
    return;
  }
  ImGui::SameLine();
  ImGui::BeginDisabled(!a || !a->value || reply.empty());
  if (ImGui::SmallButton("Answer")) s.step_answered[key] = true;
  ImGui::EndDisabled();
  ImGui::SameLine();
  ImGui::BeginDisabled(!a || !a->value);
  if (ImGui::SmallButton("Show the answer")) {
    reply = q.kind == lab::LessonQuestion::Kind::Choice && a && a->value
                ? std::to_string(std::lround(*a->value) + 1)
                : (a ? a->shown : "");
    s.step_answered[key] = true;
  }
  ImGui::EndDisabled();
  if (!a) {
    ImGui::TextDisabled("check the step: the simulator computes the answer");
  } else if (!a->error.empty()) {
    ImGui::TextColored(col(color::kFail), "the answer could not be computed: %s", a->error.c_str());
  } else if (s.step_answered[key]) {
    const bool right = lab::reply_is_right(q, *a->value, reply);
    if (!right && !q.hint.empty()) {  // a hint before the answer ("Show the answer" gives it)
      ImGui::PushTextWrapPos(0);
      ImGui::TextColored(col(color::kFail), "not yet. Hint: %s", q.hint.c_str());
      ImGui::PopTextWrapPos();
    } else {
      ImGui::TextColored(col(right ? color::kHit : color::kFail), "%s: the simulator says %s",
                         right ? "right" : "not quite", a->shown.c_str());
    }
    if (right && !q.explain.empty()) {
      ImGui::PushTextWrapPos(0);
      ImGui::TextDisabled("%s", q.explain.c_str());
      ImGui::PopTextWrapPos();
    }
  }
  ImGui::PopID();
  ImGui::Spacing();
}

void draw_claims(const lab::LessonStep& st, const StepCheck* check) {
  for (size_t i = 0; i < st.claims.size(); ++i) {
    const lab::LessonClaim& c = st.claims[i];
    ImGui::PushTextWrapPos(0);
    ImGui::Bullet();
    ImGui::TextUnformatted(c.text.c_str());
    ImGui::PopTextWrapPos();
    ImGui::Indent();
    ImGui::TextDisabled("%s   (checked on %s)", c.expr.c_str(),
                        c.where == lab::LessonClaim::Where::Sim   ? "the simulator"
                        : c.where == lab::LessonClaim::Where::Gpu ? "the real GPU"
                                                                  : "both");
    if (!check) {
      ImGui::TextDisabled("not checked yet");
    } else {
      for (const StepCheck::Claim& v : check->claims) {
        if (v.claim != i) continue;
        const std::string who_s = !v.on_gpu               ? "simulator"
                                  : v.measured_on.empty() ? "real GPU"
                                                          : "GPU, measured on " + v.measured_on;
        const char* who = who_s.c_str();
        if (!v.skipped.empty())
          ImGui::TextDisabled("%s: not checked (%s)", who, v.skipped.c_str());
        else if (!v.error.empty())
          ImGui::TextColored(col(color::kFail), "%s: error: %s", who, v.error.c_str());
        else if (v.value)
          ImGui::TextColored(col(v.value->holds ? color::kHit : color::kFail), "%s: %s   %s", who,
                             v.value->holds ? "holds" : "FAILS",
                             lab::claim_value_text(*v.value).c_str());
      }
    }
    ImGui::Unindent();
  }
}

}  // namespace

void draw_step_panel(AppState& s) {
  if (!s.steps) return;
  const lab::Lesson& l = *s.steps;
  if (s.step < 0 || s.step >= static_cast<int>(l.steps.size())) {
    ImGui::TextDisabled("Pick a step under Steps (left): its questions and claims show here.");
    return;
  }
  const lab::LessonStep& st = l.steps[size_t(s.step)];
  ImGui::BeginChild("step_scroll", ImVec2(0, 0), false, ImGuiWindowFlags_NoBackground);
  ImGui::Text("Step %d of %zu", s.step + 1, l.steps.size());
  ImGui::SameLine();
  ImGui::TextDisabled("%s%s%s", st.page.empty() ? "" : file_name(st.page).c_str(),
                      !st.page.empty() && !st.experiment.empty() ? " + " : "",
                      st.experiment.empty() ? "" : file_name(st.experiment).c_str());
  const StepCheck* check = nullptr;
  if (auto it = s.step_checks.find(s.step); it != s.step_checks.end()) check = &it->second;
  if (!st.experiment.empty()) {
    bool predicts = false;
    for (const lab::LessonQuestion& q : st.questions) predicts |= q.predict;
    const bool ready = predictions_ready(st, s.step_reply_list(s.step));
    ImGui::BeginDisabled(s.busy() || !ready);
    if (ImGui::Button(predicts ? "Run and reveal" : "Check this step")) s.check_step();
    ImGui::EndDisabled();
    ImGui::SameLine();
    if (s.step_checking == s.step)
      ImGui::Text("running %s ...", file_name(st.experiment).c_str());
    else if (!ready && !check)
      ImGui::TextDisabled("write your prediction below first");
    else if (check && !check->error.empty())
      ImGui::TextColored(col(color::kFail), "%s", check->error.c_str());
    else if (check) {
      ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
      ImGui::TextWrapped(  // wrapped at the panel's edge, not clipped
          "ran on %s, L2 %s, in %.1f s; its checks %s",
          check->backend == "both" ? "the simulator and the real GPU" : "the simulator",
          check->l2.c_str(), check->wall_s, check->checks_passed ? "passed" : "FAILED");
      ImGui::PopStyleColor();
    }
    help_marker(
        "Runs the step's experiment as `warplab lesson` does: the step's starting values (and "
        "your values of the parameters it lets you change), its L2 convention, the timing "
        "model, and the real GPU beside it when one is present and 'real GPU' is ticked. "
        "Answers are computed from the simulator's run; each claim is evaluated on every side "
        "it names, with both sides of its comparison shown.");
  }
  if (!st.questions.empty()) {
    ImGui::Separator();
    ImGui::TextUnformatted("Questions");
    for (size_t q = 0; q < st.questions.size(); ++q)
      draw_question(s, st.questions[q], static_cast<int>(q), check);
  }
  if (!st.claims.empty()) {
    ImGui::Separator();
    ImGui::TextUnformatted("What the lesson claims");
    draw_claims(st, check && check->error.empty() ? check : nullptr);
  }
  if (st.questions.empty() && st.claims.empty())
    ImGui::TextDisabled("This step asks no questions and makes no claims.");
  ImGui::EndChild();
}

}  // namespace warplab::app
