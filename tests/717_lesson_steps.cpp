// A lesson step checked in the app (ui/app/model/lesson_steps.h) gives the values `warplab
// lesson` computes: lesson 2's first step answers 4 sectors per request, its second evaluates
// every claim on the simulator with both sides of the comparison, and skips the GPU side without a
// GPU; a reply is right within the question's tolerance.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "lab/compile.h"
#include "ui/app/model/lesson_steps.h"

using namespace warplab;

TEST_CASE("717 a reply is right by choice number, choice text or within tolerance") {
  lab::LessonQuestion num;
  num.tolerance = 0.1;
  CHECK(lab::reply_is_right(num, 32, "32"));
  CHECK(lab::reply_is_right(num, 32, "30"));
  CHECK_FALSE(lab::reply_is_right(num, 32, "28"));
  CHECK_FALSE(lab::reply_is_right(num, 32, "many"));
  lab::LessonQuestion choice;
  choice.kind = lab::LessonQuestion::Kind::Choice;
  choice.choices = {"a", "b"};
  CHECK(lab::reply_is_right(choice, 1, "2"));
  CHECK(lab::reply_is_right(choice, 1, "b"));
  CHECK_FALSE(lab::reply_is_right(choice, 1, "1"));
  CHECK(lab::lesson_number(0.1 + 0.2) == "0.3");
}

TEST_CASE("717 lesson 2's steps checked as warplab lesson checks them") {
  if (!lab::Toolchain().has_nvrtc()) {
    MESSAGE("skipped: no NVRTC");
    return;
  }
  auto l = lab::load_lesson(std::string(WARPLAB_SOURCE_DIR) + "/lessons/02-coalescing/lesson.toml");
  REQUIRE(l);
  REQUIRE(l->steps.size() >= 2);
  app::StepRunOptions o;
  o.ci = true;  // CI sizes
  o.sets = {"N=65536"};
  const app::StepCheck first = app::run_lesson_step(*l, 0, o);
  INFO(first.error);
  REQUIRE(first.error.empty());
  CHECK(first.backend == "sim");
  CHECK(first.l2 == "cold");
  CHECK(first.checks_passed);
  REQUIRE(first.answers.size() == 1);
  REQUIRE(first.answers[0].value);
  CHECK(*first.answers[0].value == 4);  // sectors per request at stride 1
  CHECK(first.answers[0].shown == "4");

  o.sets.clear();  // the sweep at its own size, as `warplab lesson 02 --ci` runs it
  const app::StepCheck sweep = app::run_lesson_step(*l, 1, o);
  INFO(sweep.error);
  REQUIRE(sweep.error.empty());
  REQUIRE(sweep.answers.size() == 1);
  CHECK(sweep.answers[0].shown == "32");
  size_t sim = 0, gpu_skipped = 0;
  for (const app::StepCheck::Claim& c : sweep.claims) {
    if (c.on_gpu) {
      // No GPU asked for: the stride sweep at its own size is in the committed H100 data, so the
      // GPU side is evaluated there (lab/lesson_step.h), marked with the device and date.
      CHECK(c.skipped.empty());
      CHECK(c.measured_on.rfind("NVIDIA H100", 0) == 0);
      REQUIRE(c.value);
      CHECK(c.value->holds);
      ++gpu_skipped;
      continue;
    }
    REQUIRE(c.value);
    CHECK(c.value->holds);
    ++sim;
  }
  CHECK(sim == 3);          // three claims name the simulator ("both")
  CHECK(gpu_skipped == 4);  // and four the GPU
  // The first claim's two sides: 4 == 4.
  REQUIRE(sweep.claims[0].value);
  CHECK(sweep.claims[0].value->lhs == 4);
  CHECK(sweep.claims[0].value->rhs == 4);
  CHECK(sweep.claims[0].value->op == "==");
  // Predict, then reveal: the stride-8 question is asked before the run; its GPU answer comes from
  // the committed H100 measurements at the same values (every lane a sector of its own there too).
  CHECK(l->steps[1].questions[0].predict);
  REQUIRE(sweep.answers[0].gpu_value);
  CHECK(*sweep.answers[0].gpu_value == 32);
  CHECK(sweep.answers[0].gpu_measured_on.rfind("NVIDIA H100", 0) == 0);
  CHECK_FALSE(first.answers[0].gpu_value);  // not a predict question: no GPU side looked up
  bool right = true;
  CHECK(app::reveal_line(l->steps[1].questions[0], sweep.answers[0], "8", &right) ==
        "you predicted 8: not quite. Model: 32. GPU: 32 (measured on " +
            sweep.answers[0].gpu_measured_on + ")");
  CHECK_FALSE(right);
  CHECK(app::run_lesson_step(*l, 99, o).error == "no step 99");
}

TEST_CASE("717 predict = true loads; any other value is refused at its file:line") {
  const auto dir = std::filesystem::temp_directory_path() / "warplab-717";
  std::filesystem::create_directories(dir);
  auto write = [&](const std::string& name, const std::string& predict) {
    std::ofstream((dir / "page.md").string()) << "# p\n";
    std::ofstream((dir / name).string())
        << "[lesson]\nid = \"x\"\ntitle = \"t\"\n[[steps]]\npage = \"page.md\"\n"
           "experiment = \""
        << WARPLAB_SOURCE_DIR
        << "/lessons/02-coalescing/copy.toml\"\n"
           "[[steps.questions]]\ntext = \"q\"\nanswer = '4'\npredict = "
        << predict << "\n";
    return (dir / name).string();
  };
  auto good = lab::load_lesson(write("good.toml", "true"));
  INFO((good ? "" : good.error().to_string()));
  REQUIRE(good);
  CHECK(good->steps[0].questions[0].predict);
  auto bad = lab::load_lesson(write("bad.toml", "\"yes\""));
  REQUIRE_FALSE(bad);
  CHECK(bad.error().line == 10);
  CHECK(bad.error().message.find("predict: expected true or false") != std::string::npos);
}

TEST_CASE("717 predict, then reveal: the run waits for every prediction; the reveal line") {
  lab::LessonStep st;
  st.questions.resize(2);
  st.questions[1].predict = true;
  CHECK_FALSE(app::predictions_ready(st, {}));
  CHECK_FALSE(app::predictions_ready(st, {"4", "  "}));
  CHECK(app::predictions_ready(st, {"", "32"}));  // only the predict question needs a reply
  st.questions[1].predict = false;
  CHECK(app::predictions_ready(st, {}));

  lab::LessonQuestion q;
  q.predict = true;
  q.tolerance = 0.05;
  app::StepCheck::Answer a;
  a.value = 32;
  a.shown = "32";
  bool right = false;
  CHECK(app::reveal_line(q, a, "32", &right) ==
        "you predicted 32: right. Model: 32. GPU: no measurement at these values");
  CHECK(right);
  a.gpu_value = 31;
  a.gpu_shown = "31";
  CHECK(app::reveal_line(q, a, "16", &right) ==
        "you predicted 16: not quite. Model: 32. Real GPU: 31");
  CHECK_FALSE(right);
  lab::LessonQuestion c;
  c.kind = lab::LessonQuestion::Kind::Choice;
  c.choices = {"stride 1", "stride 32"};
  a = {};
  a.value = 1;
  a.shown = "stride 32";
  CHECK(app::reveal_line(c, a, "2", &right)
            .rfind("you predicted stride 32: right. Model: stride 32.", 0) == 0);
  a.error = "no such kernel";
  CHECK(app::reveal_line(c, a, "2", &right) ==
        "the model's answer could not be computed: no such kernel");
}
