// The model's first answers on the generalization sets (issue 25): the time each point of a set
// simulated to when the set was written, before the model was changed for it. `warplab validate`
// reports, per group of points (corpus.toml's `group`), the MAPE of those first answers against
// the GPU beside the MAPE of today's model, so the gap between tuned and untuned code stays in
// view: a mechanism fitted to a set lowers its current MAPE, not its first-answer MAPE, and a
// new held-out set measures the model the way the first answers did.
//
// validation/data/first-answers.json (schema "warplab.first-answers/1"):
//   {"schema": "warplab.first-answers/1",
//    "groups": {"gen2": {"date": "...", "commit": "...", "note": "...",
//                        "time_us": {"h100-sxm": {"g2.spmv_csr_thread": 12.3, ...}}}}}
// time_us is per timing preset, since the simulated time depends on it.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "lab/validate.h"
#include "sim/common/error.h"

namespace warplab::lab {

struct FirstAnswerGroup {
  std::string date, commit, note;
  std::map<std::string, std::map<std::string, double>> time_us;  // preset -> point id -> us
};
struct FirstAnswers {
  std::string path;
  std::map<std::string, FirstAnswerGroup> groups;  // by group name
};
// Errors name the file and what was expected (schema, object shapes, positive finite times).
Expected<FirstAnswers> parse_first_answers(const std::string& json_text, const std::string& path);
Expected<FirstAnswers> load_first_answers(const std::string& path);

// One group's errors over its points with a GPU time: today's simulated times, and the first
// answers recorded for the preset (MAPE over the points that have one).
struct GroupSummary {
  std::string group;
  int points = 0;              // points of the group with both a simulated and a GPU time
  double mape = 0;             // %, today's model
  int first_points = 0;        // of those, with a first answer
  double first_answer_mape = 0;  // %
};
// Groups in order of first appearance among `points`; points without a group are left out.
std::vector<GroupSummary> summarize_groups(const std::vector<CorpusPoint>& points,
                                           const std::map<std::string, double>& sim_us,
                                           const std::map<std::string, double>& gpu_us,
                                           const FirstAnswers* first, const std::string& config);
// The latency-bound points (issue 25): those whose every launch has fewer blocks than the preset
// has SMs (`widest_blocks` below `sm_count`), where one warp's dependent chain, not a unit's
// throughput, sets the time. Group "latency_bound", today's MAPE only (first answers: none).
GroupSummary summarize_latency_bound(const std::vector<CorpusPoint>& points,
                                     const std::vector<uint64_t>& widest_blocks,
                                     const std::map<std::string, double>& sim_us,
                                     const std::map<std::string, double>& gpu_us, int64_t sm_count);
// "VALIDATE group=latency_bound points=N mape=X%" ("-" where no point has a GPU time).
std::string latency_bound_line(const GroupSummary& s);

// "VALIDATE group=NAME points=N first_answer_mape=X% mape=Y%" (one decimal; "-" where no point
// has the figure; "(K of N)" after the first-answer MAPE when only K points have one).
std::string group_line(const GroupSummary& s);

}  // namespace warplab::lab
