// Lesson pages with values bound to runs and data (lessons/FORMAT.md, "Embedded values"). A page
// never types a measured or simulated number: it embeds the expression that computes it,
//   {{ launch("gelu_fused").time | us }}                         the step's own run
//   {{ sweep(stride=8).time / sweep(stride=1).time | x }}        any claim-language value
//   {{ step(2).sweep(stride=64).dram_bytes | MiB }}              another step's run
//   {{ gpu("l2.stride8.ref").time | us }}                        committed H100 data
//   {{ preset("h100-sxm", "l2.size_bytes") | MiB }}              a timing-model preset
// and `warplab lesson` and the app render it. An expression that cannot be parsed, or names a
// function, metric, step, data point or preset field that does not exist, is an error at load
// with the page's file:line; a value whose step has not run yet renders as a placeholder.
//
// loose_numbers() is the drift check: every number in a page's prose that is neither embedded nor
// on the short allow-list (small counts, powers of two, hardware constants) is reported.
#pragma once

#include <string>
#include <vector>

#include "lab/lesson.h"
#include "sim/common/error.h"

namespace warplab::lab {

struct PageEmbed {
  int line = 0;          // 1-based line of the page where it starts
  size_t begin = 0, end = 0;  // byte range of "{{ ... }}" in the page text
  std::string expr;      // the expression
  std::string format;    // after '|' ("" = 3 significant digits)
};

// The embeds of a page, in order; an unterminated "{{" or an unknown format names path:line.
Expected<std::vector<PageEmbed>> parse_page_embeds(const std::string& text, const std::string& path);

// A value in a format: "" (3 significant digits), gN (N significant), fN (N decimals), int,
// x / xN (a ratio, "3.64x"), pct / pctN (x 100, "%"), us (microseconds, "12.3 us"), ns, B, KiB,
// MiB, GiB (bytes in those units), KB, MB, GB (decimal). Errors name the unknown format.
Expected<std::string> format_value(double v, const std::string& format);

// Checks every embed of every page of `lesson` (syntax, functions, metrics, steps, data points,
// preset fields) without running anything: errors name the page's file:line.
Status check_lesson_pages(const Lesson& lesson, const std::vector<GpuDataset>& data);

// A page rendered for reading.
struct RenderedPage {
  std::string text;                  // Markdown with every embed replaced
  int pending = 0;                   // values whose step has not run yet (shown as `placeholder`)
  std::vector<std::string> sources;  // "NVIDIA H100 80GB HBM3, 2026-11-24": where gpu() values come from
  std::vector<Error> errors;         // embeds that failed to evaluate (file:line)
};
// Renders step `step`'s page of `lesson`; runs[i] is step i's result (null: not run yet).
// `placeholder` stands for a pending value. With sources, a closing line names the GPU data.
RenderedPage render_lesson_page(const Lesson& lesson, size_t step,
                                const std::vector<const ExperimentResult*>& runs,
                                const std::vector<GpuDataset>& data,
                                const std::string& placeholder = "(run to see)");
RenderedPage render_page_text(const std::string& text, const std::string& path, const ExprEnv& env,
                              const std::string& placeholder = "(run to see)");

// The steps (0-based) whose runs a page's embeds read: its own for plain calls, N-1 for step(N).
std::vector<size_t> page_run_steps(const Lesson& lesson, size_t step);

// A number in prose that no embed computes and the allow-list does not cover.
struct LooseNumber {
  int line = 0;
  std::string text;
};
// Prose only: fenced code, `code spans`, embeds, link targets and digits inside words (H100,
// sm_90, float4, L2) are skipped. Allowed: integers up to 16, powers of two and one either side of
// them (lanes 0-31, a 33-wide padded tile), 100 (as in 100%), the exponent of 2^N.
std::vector<LooseNumber> loose_numbers(const std::string& text);

}  // namespace warplab::lab
