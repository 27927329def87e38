// The desktop app's state: what is selected, the run being shown and the view onto its trace.
// Panels (one file each, declared at the bottom) read it and change only selections and views;
// runs are started through the RunWorker and arrive as immutable snapshots.
#pragma once

#include <imgui.h>

#include <array>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lab/experiment.h"
#include "ui/app/model/code_profile.h"
#include "ui/app/model/gpu_line_stalls.h"
#include "ui/app/model/gpu_waves.h"
#include "ui/app/model/kernel_edit.h"
#include "ui/app/model/lesson_catalog.h"
#include "ui/app/model/lesson_steps.h"
#include "ui/app/model/markdown_doc.h"
#include "ui/app/model/measured_links.h"
#include "ui/app/model/memory_flow.h"
#include "ui/app/model/reference_curve.h"
#include "ui/app/model/run_compare.h"
#include "ui/app/model/run_control.h"
#include "ui/app/model/run_shelf.h"
#include "ui/app/model/run_snapshot.h"
#include "ui/app/model/run_worker.h"
#include "ui/app/model/scheduler_view.h"
#include "ui/app/model/tensor_activity.h"
#include "ui/app/model/timeline_view.h"
#include "ui/app/model/trace_index.h"

namespace warplab::app {

struct Fonts {
  ImFont* body = nullptr;
  ImFont* bold = nullptr;
  ImFont* italic = nullptr;
  ImFont* mono = nullptr;
  ImFont* small = nullptr;
  ImFont* h1 = nullptr;
  ImFont* h2 = nullptr;
  ImFont* h3 = nullptr;
};

struct ExperimentSlot {
  std::string path;
  std::optional<lab::Experiment> exp;  // loaded and validated; parameters edited in place
  std::string error;                   // why it did not load
};

struct AppState {
  Fonts fonts;
  std::string lessons_root;
  std::vector<LessonEntry> lessons;
  int lesson = -1, page = 0;
  MdDoc doc;
  std::vector<ExperimentSlot> experiments;
  int experiment = 0;

  // Run settings, shown next to every result: the timing preset, where the run goes and how the
  // model runs it (run_control.h: --backend, --sampled, --sched), the L2 convention.
  struct Settings {
    std::string config;  // "" = h100-sxm
    RunControl control{RunWhere::Both};
    bool cold_l2 = true;
    bool use_gpu() const { return control.where != RunWhere::Sim; }
  } settings;
  std::vector<std::string> presets;  // names found in the presets directory
  // Why no real GPU can run here, in one line ("" when a GPU opens; run_control.h
  // gpu_absent_line): probed once at start; the real-GPU choices start off and disabled, with
  // this line beside them.
  std::string gpu_absent;
  void probe_gpu();
  RunWorker worker;
  uint64_t seen_generation = 0;
  // The run on screen (immutable): always the selected experiment's latest run, or none. Runs are
  // kept per experiment file, so switching lesson or experiment never shows another one's run.
  std::shared_ptr<const RunSnapshot> run;
  RunShelf shelf;  // every finished run, by experiment file (run_shelf.h)
  std::shared_ptr<const RunSnapshot> last_single;  // the worker's last single run, once picked up
  // Sweeps by experiment file: the latest (possibly still growing) sweep of each.
  std::map<std::string, std::shared_ptr<const SweepSnapshot>> sweeps;
  // The measured reference curves' inputs (reference_curve.h), read once per file: the data file
  // for the sweep's preset and the experiment file's own defaults.
  struct ReferenceCache {
    std::string data_path;  // validation/data/<gpu>.json
    std::optional<lab::MeasuredData> data;
    std::string exp_path;
    std::optional<lab::Experiment> file_exp;
    // The curves of the last sweep asked for (recomputed when the sweep grows or changes).
    std::shared_ptr<const SweepSnapshot> sweep;
    size_t sweep_points = 0;
    ReferenceResult result;
  } reference;
  int launch = 0;    // which of its launches the trace panels show
  TraceIndex index;  // over that launch's trace
  FlowIndex flow;    // its accesses on the memory links (memory flow view)
  std::array<std::vector<int>, kFlowLinks> flow_occupancy;  // sectors in flight over the launch
  GpuWaves waves;            // its blocks on every SM (whole-GPU view)
  SchedulerView schedulers;  // the traced SM's warp schedulers (whole-GPU view, one SM)
  // The traced SM's tensor pipes, TMA copies, cp.async fills, mbarrier waits and wgmmas
  // (tensor_activity.h): the timeline's rows above the warps, the lanes view's fragments.
  TensorActivity tensor;
  int trace_sm = 0;          // the SM the next run traces in full detail
  int gpu_zoom_sm = -1;      // the SM the whole-GPU view zooms into (-1: every SM)
  TimelineView sched_view;   // the schedulers' cycles on screen
  bool sched_fitted = false;
  int flow_window = 1000;  // cycles over which the memory flow view measures bandwidth
  // The GPU's measured link use per kernel (validation/data/link-use-h100.tsv, measured_links.h),
  // read at the flow view's first use; the error when it did not load.
  std::optional<std::vector<MeasuredLinkUse>> link_use_data;
  std::string link_use_error;

  TimelineView view;
  float timeline_scroll_y = 0;  // rows scrolled, pixels
  bool timeline_dragged = false;
  bool show_help = false;  // the keyboard-shortcut overlay
  bool view_fitted = false;
  double cursor = 0;  // the cycle cursor
  bool playing = false;
  float play_speed = 2000.0f;               // cycles per second of wall time
  int selected_row = -1;                    // in index.rows
  std::optional<uint32_t> selected_access;  // index into the trace's accesses
  int focus_ptx_line = 0;                   // the instruction under the cursor/hover (0 = none)
  int pick_src_line = 0;  // CUDA line clicked in the source view (its PTX is listed beside it)
  int pick_ptx_line = 0;  // PTX line clicked: its issues are marked on the timeline
  // The code view (source_panel.cpp): full width when wanted (the lesson list and the experiment
  // panel give way), the pane beside the CUDA (0 PTX, 1 the model's schedule, 2 SASS), the PTX
  // lines whose issues the timeline marks (sorted; a clicked CUDA line marks all of its PTX), and
  // the per-line profile of the run shown, computed once per run.
  bool code_wide = true;
  bool code_tab_open = false;  // the code tab was drawn last frame (the layout widens it)
  int code_right = 0;
  std::vector<int32_t> marked_ptx;
  bool code_scroll = false;  // scroll the panes to the picked line once
  std::shared_ptr<const RunSnapshot> code_profile_run;
  CodeProfile code_prof;
  GpuLineStalls gpu_stalls;  // the H100's per-line stall samples for that run (committed data)
  // Marks PTX lines (a CUDA line's, or one) on the timeline and selects the first access of them
  // on the traced SM in the memory view, the cursor at its issue.
  void mark_lines(int src_line, int ptx_line);
  // A/B (run_compare.h): the pinned run, compared with the one shown in the views, and its
  // figures (computed when pinned / when the shown run changes).
  std::shared_ptr<const RunSnapshot> pinned;
  std::shared_ptr<const RunSnapshot> figures_pinned_for, figures_run_for;
  RunFigures pinned_figures, run_figures_now;
  FlowIndex pinned_flow;    // the pinned run's first launch on the memory links
  TraceIndex pinned_index;  // its trace's rows (the timeline draws A under B)
  std::string ab_line;      // difference_line(pinned, shown); "" without both
  std::string ab_line_memory;  // the same without the time ratio (a narrow memory flow)
  // Recomputes the A/B figures when the pinned or the shown run changed (poll_worker calls it).
  void refresh_ab();
  const timing::Trace* pinned_trace() const;
  // The sweep chart: its metric (sweep.h SweepMetric) and "relative to the first point".
  int sweep_metric = 0;
  bool sweep_relative = false;
  int center_tab = 0;  // 0 = page, 1 = kernel source, 2 = the step's questions (request to switch)
  struct BufferViewState {
    int selected = 0;  // index into run->buffers
    int mode = 1;      // 1 = heat map, 0 = numbers
    int width = 32;    // elements per row (32: one warp's lanes per row)
  } buffer_view;
  int left_tab = -1;  // request: 0 = warp timeline, 1 = buffers, 2 = whole GPU; -1 = none
  // request: 0 = memory access, 1 = lanes (divergence), 2 = memory flow, 3 = banks; -1 = none
  int lower_tab = -1;
  // The file the kernel-source tab shows: one picked under "Kernels", else ("") the selected
  // experiment's source. Its lines are read once per file, not every frame.
  std::string source_file;
  std::string source_cache_path;
  std::vector<std::string> source_cache_lines;
  // The student's edits of kernels (kernel_edit.h), by the lesson's source file: every run of an
  // experiment whose source has an edit compiles the edit. Kept while the app runs.
  std::map<std::string, std::string> edits;
  std::string edit_root = default_edit_root();
  bool editing = false;         // the kernel-source tab shows the editor
  std::string edit_buffer;      // the editor's text
  std::string edit_buffer_for;  // the source file it edits
  std::string edit_error;       // the edit could not be written (request() gives nullopt)

  // The selected lesson's steps (its lesson.toml, lab/lesson.h), when it has one, and each step's
  // last check (lesson_steps.h): questions answered by the run, claims with their values.
  std::optional<lab::Lesson> steps;
  std::string steps_error;               // lesson.toml did not load
  int step = -1;                         // the selected step
  std::vector<std::string> step_titles;  // per step: its page's heading and experiment's name
  std::map<int, StepCheck> step_checks;
  std::future<StepCheck> step_future;  // a check in progress (step_checking)
  int step_checking = -1, step_checking_lesson = -1;
  std::map<std::pair<int, int>, std::string> step_replies;  // (step, question) -> the reply
  std::string run_cancelled_note;  // the last single run was cancelled: what, shown by Run
  int browser_scrolled_to = -1;    // the lesson the browser's list last scrolled into view
  // The replies to step `st`'s questions in order ("" where none): predictions_ready reads them.
  std::vector<std::string> step_reply_list(int st) const;
  std::map<std::pair<int, int>, bool> step_answered;  // the reply was checked
  // Selects step `i`: its page and experiment, with the step's starting values.
  void select_step(int i);
  // Checks the selected step off the UI thread (its experiment with the current values of the
  // parameters the step lets the student change; the run settings beside Run).
  void check_step();
  bool busy() const { return worker.busy() || step_checking >= 0; }

  void select_lesson(int i);
  void select_page(int i);
  // Selects experiment `i` of the lesson and shows its latest run (none if it has not run).
  void select_experiment(int i);
  // The selected experiment's file ("" when there is none).
  std::string experiment_path() const;
  // The selected experiment with the current settings and the student's edit of its kernel, if
  // any (nullopt when none loaded, or when the edit could not be written: edit_error says why).
  std::optional<RunRequest> request();
  void start_run();
  // Kernel edits (source_panel.cpp, script commands). The selected experiment's CUDA source ("" for
  // a PTX experiment or none); loads it (its edit, else the lesson's file) into the editor's buffer
  // when the buffer holds another file's; runs the buffer as the kernel's edit (this run and every
  // later one compile it); drops the edit (runs compile the lesson's file again).
  std::string editable_source() const;
  void load_edit_buffer();
  void compile_edit();
  void revert_edit();
  // Runs every point of the selected experiment's [sweep] (points appear as they finish).
  void start_sweep();
  // Shows one finished run (a sweep point) in every panel.
  void open_run(std::shared_ptr<const RunSnapshot> r);
  const SweepSnapshot* sweep() const;  // the selected experiment's sweep, or nullptr
  // Picks up a finished run from the worker (call once per frame).
  void poll_worker();
  void select_launch(int i);
  const timing::Trace* trace() const;
  const timing::TimingResult* timing() const;
  // The access the memory panel shows: the selected one, else the one near the cursor on the
  // selected (or first) row.
  std::optional<uint32_t> access_for_memory_panel() const;
};

// Panels: one file each.
void draw_lesson_browser(AppState& s);                 // lesson_browser.cpp
void draw_page_view(AppState& s);                      // page_view.cpp (page + kernel source tabs)
void draw_markdown(const MdDoc& doc, const Fonts& f);  // markdown_view.cpp
void draw_source_view(AppState& s);                    // source_panel.cpp
void draw_step_panel(AppState& s);        // step_panel.cpp (a lesson step's questions and claims)
void draw_experiment_panel(AppState& s);  // experiment_panel.cpp
void draw_timeline_panel(AppState& s);    // timeline_panel.cpp
void draw_memory_panel(AppState& s);      // memory_panel.cpp
void draw_lanes_panel(AppState& s);       // lanes_panel.cpp (divergence)
void draw_buffers_panel(AppState& s);     // buffers_panel.cpp
void handle_shortcuts(AppState& s);       // shortcuts.cpp
void draw_help_overlay(AppState& s);      // shortcuts.cpp
void draw_counters_panel(AppState& s);    // counters_panel.cpp
void draw_flow_panel(AppState& s);        // flow_panel.cpp (memory traffic)
void draw_banks_panel(AppState& s);       // banks_panel.cpp (shared-memory banks)
void draw_gpu_panel(AppState& s);         // gpu_panel.cpp (every SM, waves)
void draw_scheduler_panel(AppState& s);   // scheduler_panel.cpp (one SM's warp schedulers)
// tensor_rows.cpp: the timeline's rows for the tensor pipes, TMA, cp.async and mbarriers (their
// height: 0 when the launch has none), and the lanes view's fragment tiles of an mma.sync.
float tensor_rows_height(const AppState& s);
void draw_tensor_rows(AppState& s, ImVec2 top, float label_w, float track_w);
void draw_fragments(AppState& s, const MmaLine& mma, int highlight_lane);

}  // namespace warplab::app
