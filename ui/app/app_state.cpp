#include "ui/app/app_state.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>

#include "gpu/backend.h"
#include "gpu/driver_api.h"
#include "lab/lesson_page.h"

namespace warplab::app {

void AppState::select_lesson(int i) {
  if (i < 0 || i >= static_cast<int>(lessons.size())) return;
  lesson = i;
  // Nothing picked in one lesson stays picked in the next (its lines mean other code there).
  pick_src_line = pick_ptx_line = 0;
  marked_ptx.clear();
  selected_access.reset();
  steps.reset();
  steps_error.clear();
  step = -1;
  step_checks.clear();
  step_replies.clear();
  step_answered.clear();
  const std::string toml = lessons[i].dir + "/lesson.toml";
  if (bool ok = false; (read_file_text(toml, &ok), ok)) {
    auto l = lab::load_lesson(toml);
    if (l)
      steps = std::move(*l);
    else
      steps_error = l.error().to_string();
  }
  step_titles.clear();
  if (steps)
    for (const lab::LessonStep& st : steps->steps) {
      std::string title;
      if (!st.page.empty()) title = parse_markdown(read_file_text(st.page)).title;
      // "2. Memory coalescing" -> "Memory coalescing": the list numbers the steps itself.
      const size_t dot = title.find(". ");
      if (dot != std::string::npos && dot > 0 && title.find_first_not_of("0123456789") == dot)
        title = title.substr(dot + 2);
      if (!st.experiment.empty()) {
        std::string stem = std::filesystem::path(st.experiment).stem().string();
        title += (title.empty() ? "" : ": ") + stem;
      }
      step_titles.push_back(title.empty() ? "step" : title);
    }
  experiments.clear();
  source_file.clear();
  experiment = -1;
  for (const std::string& path : lessons[i].experiments) {
    ExperimentSlot slot;
    slot.path = path;
    auto e = lab::load_experiment(path);
    if (e)
      slot.exp = std::move(*e);
    else
      slot.error = e.error().to_string();
    experiments.push_back(std::move(slot));
  }
  // Prefer an experiment without a sweep: the app runs one point.
  int first = 0;
  for (size_t k = 0; k < experiments.size(); ++k)
    if (experiments[k].exp && experiments[k].exp->sweep.empty()) {
      first = static_cast<int>(k);
      break;
    }
  select_experiment(first);
  select_page(0);
}

void AppState::probe_gpu() {
  // The driver library first (a dlopen), then a device behind it (cuInit, a device count).
  Status st = gpu::probe_library("libcuda.so.1");
  if (st) {
    auto g = gpu::Backend::open();
    if (!g) st = g.error();
  }
  if (st) return;
  gpu_absent = gpu_absent_line(st.error().message);
  settings.control.where = RunWhere::Sim;
}

void AppState::mark_lines(int src_line, int ptx_line) {
  pick_src_line = src_line;
  pick_ptx_line = ptx_line;
  marked_ptx.clear();
  if (run && src_line > 0 && ptx_line == 0) {
    for (const auto& [p, l] : run->ptx_to_src)
      if (l == src_line) marked_ptx.push_back(p);
  } else if (ptx_line > 0) {
    marked_ptx.push_back(ptx_line);
  }
  code_scroll = true;
  // The first access of those lines on the traced SM: the memory view shows it.
  const timing::Trace* t = trace();
  if (!t || marked_ptx.empty()) return;
  std::optional<uint32_t> first;
  for (uint32_t k = 0; k < t->accesses.size(); ++k) {
    const timing::AccessRecord& a = t->accesses[k];
    if (!std::binary_search(marked_ptx.begin(), marked_ptx.end(), a.ptx_line)) continue;
    if (!first || a.issue < t->accesses[*first].issue) first = k;
  }
  if (!first) return;
  selected_access = first;
  selected_row = index.row_of(t->accesses[*first].sm, t->accesses[*first].slot);
  cursor = double(t->accesses[*first].issue) + 1;
  playing = false;
}

const timing::Trace* AppState::pinned_trace() const {
  if (!pinned || pinned->launches.empty() || !pinned->launches[0].timing) return nullptr;
  return &pinned->launches[0].timing->trace;
}

void AppState::refresh_ab() {
  bool changed = false;
  if (pinned != figures_pinned_for) {
    figures_pinned_for = pinned;
    pinned_figures = pinned ? run_figures(*pinned) : RunFigures{};
    pinned_flow =
        pinned_trace() ? build_flow_index(*pinned_trace(), pinned->links.l2_costs) : FlowIndex{};
    pinned_index = pinned_trace() ? build_trace_index(*pinned_trace()) : TraceIndex{};
    changed = true;
  }
  if (run != figures_run_for) {
    figures_run_for = run;
    run_figures_now = run ? run_figures(*run) : RunFigures{};
    changed = true;
  }
  if (changed) {
    const bool both = pinned && run && pinned != run;
    ab_line = both ? difference_line(pinned_figures, run_figures_now) : std::string();
    ab_line_memory =
        both ? difference_line(pinned_figures, run_figures_now, false) : std::string();
  }
}

std::string AppState::experiment_path() const {
  if (experiment < 0 || experiment >= static_cast<int>(experiments.size())) return {};
  return experiments[experiment].path;
}

void AppState::select_experiment(int i) {
  if (i != experiment) source_file.clear();  // the kernel tab follows the experiment
  experiment = i;
  if (!shelf.select(experiment_path())) return;
  run = shelf.shown();
  select_launch(0);
}

void AppState::select_page(int i) {
  if (lesson < 0) return;
  const auto& pages = lessons[lesson].pages;
  if (i < 0 || i >= static_cast<int>(pages.size())) return;
  page = i;
  // A page of a step shows its embedded values from the steps' runs so far (lab/lesson_page.h),
  // "(run to see)" for those whose step has not run; other pages show as written.
  if (steps)
    for (size_t si = 0; si < steps->steps.size(); ++si)
      if (!steps->steps[si].page.empty() && same_file(steps->steps[si].page, pages[size_t(i)])) {
        std::vector<const lab::ExperimentResult*> runs(steps->steps.size(), nullptr);
        for (const auto& [k, c] : step_checks)
          if (k >= 0 && size_t(k) < runs.size()) runs[size_t(k)] = c.result.get();
        static const std::vector<lab::GpuDataset> kNone;
        lab::RenderedPage r =
            lab::render_lesson_page(*steps, si, runs, steps->data ? *steps->data : kNone);
        std::string text = r.text;
        for (const Error& e : r.errors) text += "\n\n**Error:** " + e.to_string() + "\n";
        doc = parse_markdown(text);
        return;
      }
  doc = parse_markdown(read_file_text(pages[size_t(i)]));
}

std::optional<RunRequest> AppState::request() {
  if (experiment < 0 || experiment >= static_cast<int>(experiments.size())) return std::nullopt;
  const ExperimentSlot& slot = experiments[experiment];
  if (!slot.exp) return std::nullopt;
  RunRequest req;
  req.experiment = *slot.exp;
  edit_error.clear();
  if (auto e = edits.find(slot.exp->source); e != edits.end()) {
    auto edited = experiment_with_edit(*slot.exp, e->second, edit_root);
    if (!edited) {
      edit_error = edited.error().to_string();
      return std::nullopt;
    }
    req.experiment = std::move(*edited);
  }
  req.config = settings.config;
  req.use_gpu = settings.use_gpu();
  req.gpu_only = settings.control.where == RunWhere::Gpu;
  req.sampled = settings.control.sampled;
  req.warp_scheduler = settings.control.scheduler;
  req.cold_l2 = settings.cold_l2;
  req.trace_sm = trace_sm;
  return req;
}

void AppState::start_run() {
  run_cancelled_note.clear();  // a new run: the last one's Cancel note goes
  if (auto req = request()) worker.start(std::move(*req));
}

std::string AppState::editable_source() const {
  if (experiment < 0 || experiment >= static_cast<int>(experiments.size())) return {};
  const auto& e = experiments[experiment].exp;
  return e && e->source_kind == lab::Experiment::SourceKind::Cuda ? e->source : std::string();
}

void AppState::load_edit_buffer() {
  const std::string src = editable_source();
  if (src.empty() || edit_buffer_for == src) return;
  auto e = edits.find(src);
  edit_buffer = e != edits.end() ? e->second : read_file_text(src);
  edit_buffer_for = src;
  editing = false;
}

void AppState::compile_edit() {
  const std::string src = editable_source();
  if (src.empty() || edit_buffer_for != src) return;
  edits[src] = edit_buffer;
  source_cache_path.clear();  // the copy on disk changes
  editing = false;            // the source view shows the run's counts, or its errors
  start_run();
}

void AppState::revert_edit() {
  const std::string src = editable_source();
  if (src.empty()) return;
  edits.erase(src);
  edit_buffer = read_file_text(src);
  edit_buffer_for = src;
  source_cache_path.clear();
}

void AppState::select_step(int i) {
  if (!steps || i < 0 || i >= static_cast<int>(steps->steps.size())) return;
  step = i;
  const lab::LessonStep& st = steps->steps[size_t(i)];
  if (lesson >= 0 && !st.page.empty())
    for (size_t p = 0; p < lessons[size_t(lesson)].pages.size(); ++p)
      if (same_file(lessons[size_t(lesson)].pages[p], st.page)) {
        select_page(static_cast<int>(p));
        center_tab = 0;
      }
  if (!st.experiment.empty())
    for (size_t e = 0; e < experiments.size(); ++e)
      if (same_file(experiments[e].path, st.experiment)) {
        select_experiment(static_cast<int>(e));
        if (experiments[e].exp)
          for (const auto& [k, v] : st.set) (void)lab::set_param(*experiments[e].exp, k + "=" + v);
      }
}

std::vector<std::string> AppState::step_reply_list(int st) const {
  std::vector<std::string> out;
  if (!steps || st < 0 || size_t(st) >= steps->steps.size()) return out;
  for (size_t q = 0; q < steps->steps[size_t(st)].questions.size(); ++q) {
    auto it = step_replies.find({st, static_cast<int>(q)});
    out.push_back(it == step_replies.end() ? "" : it->second);
  }
  return out;
}

void AppState::check_step() {
  if (!steps || step < 0 || busy()) return;
  const lab::LessonStep& st = steps->steps[size_t(step)];
  if (st.experiment.empty()) return;
  if (!predictions_ready(st, step_reply_list(step))) return;  // predict, then reveal
  StepRunOptions o;
  o.config = settings.config;
  o.use_gpu = settings.use_gpu();
  o.l2 = settings.cold_l2 ? "cold" : "warm";
  // The values the student changed, of the parameters the step lets them change.
  for (const ExperimentSlot& e : experiments)
    if (e.exp && same_file(e.path, st.experiment))
      for (const lab::ParamDef& p : e.exp->params)
        for (const std::string& name : st.editable)
          if (p.name == name) o.sets.push_back(p.name + "=" + p.value.to_string());
  // The runs of the steps its claims read (step(N)), where the student has run them.
  o.steps.resize(steps->steps.size());
  for (size_t need : lab::claim_run_steps(*steps, size_t(step)))
    if (auto it = step_checks.find(int(need)); it != step_checks.end())
      o.steps[need] = it->second.result;
  step_checking = step;
  step_checking_lesson = lesson;
  step_future = std::async(std::launch::async, run_lesson_step, *steps, size_t(step), o);
}

void AppState::poll_worker() {
  refresh_ab();
  if (step_checking >= 0 && step_future.valid() &&
      step_future.wait_for(std::chrono::seconds(0)) == std::future_status::ready) {
    StepCheck done = step_future.get();
    if (step_checking_lesson == lesson) step_checks[step_checking] = std::move(done);
    step_checking = -1;
    select_page(page);  // its embedded values may read the run that just finished
  }
  if (worker.generation() == seen_generation) return;
  seen_generation = worker.generation();
  if (auto sw = worker.latest_sweep(); sw) {
    // The first finished point of the selected experiment's sweep fills the panels until the
    // student clicks another.
    if (!run && sw->experiment_path == experiment_path() && !sw->points.empty())
      open_run(sw->points.front().run);
    sweeps[sw->experiment_path] = std::move(sw);
  }
  // A run that finishes after the student moved on is kept for its experiment, not shown.
  auto latest = worker.latest();
  if (!latest || latest == last_single) return;
  last_single = latest;
  run_cancelled_note.clear();
  if (latest->cancelled) {  // Cancel: the panels keep the last finished run
    std::string params;
    for (const auto& [k, v] : latest->params) params += (params.empty() ? "" : " ") + k + "=" + v;
    run_cancelled_note = "cancelled: the run of " + latest->experiment_name +
                         (params.empty() ? "" : " (" + params + ")") +
                         " stopped; the panels keep the last finished run";
    return;
  }
  if (!shelf.put(std::move(latest))) return;
  run = shelf.shown();
  select_launch(0);
}

void AppState::start_sweep() {
  run_cancelled_note.clear();
  if (auto req = request(); req && !req->experiment.sweep.empty())
    worker.start_sweep(std::move(*req));
}

void AppState::open_run(std::shared_ptr<const RunSnapshot> r) {
  if (!r || r == run) return;
  if (!shelf.put(std::move(r))) return;
  run = shelf.shown();
  // The sliders follow the run opened (a sweep point): its parameter values become the current
  // ones, so Run repeats it and the page's numbers match it.
  if (experiment >= 0 && experiment < static_cast<int>(experiments.size()) &&
      experiments[experiment].exp && same_file(run->experiment_path, experiment_path()))
    for (const auto& [name, value] : run->params)
      (void)lab::set_param(*experiments[experiment].exp, name + "=" + value);
  select_launch(0);
}

const SweepSnapshot* AppState::sweep() const {
  auto it = sweeps.find(experiment_path());
  return it != sweeps.end() ? it->second.get() : nullptr;
}

void AppState::select_launch(int i) {
  launch = i;
  index = {};
  flow = {};
  flow_occupancy = {};
  waves = {};
  schedulers = {};
  tensor = {};
  sched_fitted = false;
  selected_row = -1;
  selected_access.reset();
  playing = false;
  view_fitted = false;
  if (const timing::Trace* t = trace()) {
    index = build_trace_index(*t);
    flow = build_flow_index(*t, run ? run->links.l2_costs : L2Costs{});
    flow_occupancy = flow.occupancy(*t, 240);
    // Bandwidth window: a tenth of the launch's memory traffic span, in round cycles, and at
    // least two counter samples (the whole GPU's DRAM figure needs one inside the window).
    const uint64_t sample =
        t->counters.size() > 1 ? t->counters[1].cycle - t->counters[0].cycle : 0;
    flow_window = static_cast<int>(std::clamp<uint64_t>(
        std::max((flow.last_cycle - flow.first_cycle) / 1000 * 100, 2 * sample), 100, 20000));
    const timing::Occupancy& o = timing()->occupancy;
    // Warp slots per SM: theoretical occupancy is resident warps over that (occupancy.h).
    const int max_warps =
        o.theoretical > 0
            ? static_cast<int>(std::lround(o.blocks_per_sm * o.warps_per_block / o.theoretical))
            : 0;
    waves = build_gpu_waves(*t, o.blocks_per_sm, o.warps_per_block, max_warps);
    schedulers = build_scheduler_view(*t, index, t->options.sms.empty() ? 0 : t->options.sms[0]);
    if (run) tensor = tensor_activity(*t, t->options.sms.empty() ? 0 : t->options.sms[0], run->mma_lines);
    cursor = static_cast<double>(index.first_cycle);
    // Play the whole launch in about 20 seconds.
    play_speed = static_cast<float>(
        std::max<double>(10.0, double(index.last_cycle - index.first_cycle) / 20.0));
    if (!index.rows.empty()) selected_row = 0;
  }
}

const timing::TimingResult* AppState::timing() const {
  if (!run || launch < 0 || launch >= static_cast<int>(run->launches.size())) return nullptr;
  const auto& t = run->launches[launch].timing;
  return t ? &*t : nullptr;
}

const timing::Trace* AppState::trace() const {
  const timing::TimingResult* t = timing();
  return t ? &t->trace : nullptr;
}

std::optional<uint32_t> AppState::access_for_memory_panel() const {
  if (selected_access) return selected_access;
  const timing::Trace* t = trace();
  if (!t || index.rows.empty()) return std::nullopt;
  const size_t row = selected_row >= 0 ? static_cast<size_t>(selected_row) : 0;
  return index.access_near(*t, row, cursor);
}

}  // namespace warplab::app
