// The timing trace and its Chrome trace-event export: see trace.h. Besides the warp slots' tracks,
// the asynchronous work (AsyncRecord) has tracks of its own under its SM, one per kind: TMA loads,
// stores and prefetches, cp.async fills, mbarrier waits (with an instant where the phase
// completed) and the tensor cores' warpgroup MMAs (with an instant where the accumulators were
// ready), so Perfetto shows the copies in flight beside the warps that wait for them.
#include "sim/timing/trace.h"

#include <algorithm>
#include <bit>
#include <set>
#include <string>

#include "sim/timing/json_writer.h"

namespace warplab::timing {

bool Trace::wants(int sm, uint64_t cycle) const {
  return cycle >= options.cycle_begin && cycle < options.cycle_end &&
         std::find(options.sms.begin(), options.sms.end(), sm) != options.sms.end();
}

int32_t Trace::intern(const std::string& s) {
  // Linear search is fine: a kernel has at most a few thousand distinct instructions, and the
  // SM caches the index per instruction.
  for (size_t i = 0; i < strings.size(); ++i)
    if (strings[i] == s) return static_cast<int32_t>(i);
  strings.push_back(s);
  return static_cast<int32_t>(strings.size() - 1);
}

static_assert(sizeof(AccessLine) == 16, "AccessLine is the trace's per-line record: keep it small");
static_assert(sizeof(AccessRecord) <= 128, "AccessRecord: keep the trace's size bound");

namespace {
// "L1", "L2", "DRAM" or "-" per sector of a line, e.g. "L1 - DRAM -".
std::string sector_sources(const AccessLine& l) {
  static constexpr const char* kNames[] = {"-", "L1", "L2", "DRAM"};
  std::string s;
  for (int i = 0; i < 4; ++i) (s += i ? " " : "") += kNames[static_cast<int>(l.source(i))];
  return s;
}

std::string hex(uint64_t v) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s;
  do {
    s.insert(s.begin(), kDigits[v & 15]);
  } while (v >>= 4);
  return "0x" + s;
}

// Asynchronous work gets tracks of its own under its SM's process, one per kind of unit (a warp
// slot's track would mix it with that warp's states, and the TMA unit and the tensor cores belong
// to no one warp): thread ids above every warp slot, named by the metadata.
constexpr int kAsyncTrackBase = 1 << 20;
struct AsyncKindInfo {
  const char* name;      // the event's name
  const char* category;  // its "cat"
  const char* track;     // the track's name
  const char* done;      // what `done` marks ("" when the kind has none)
  const char* amount;    // what `bytes` holds
};
AsyncKindInfo async_info(AsyncRecord::Kind k) {
  switch (k) {
    case AsyncRecord::Kind::TmaLoad:
      return {"TMA load", "tma", "TMA unit: loads (global -> shared)", "", "bytes"};
    case AsyncRecord::Kind::TmaStore:
      return {"TMA store", "tma", "TMA unit: stores (shared -> global)", "", "bytes"};
    case AsyncRecord::Kind::TmaPrefetch:
      return {"TMA prefetch", "tma", "TMA unit: prefetches (into L2)", "", "bytes"};
    case AsyncRecord::Kind::CpAsync:
      return {"cp.async fill", "cp_async", "cp.async fills (LDGSTS)", "", "bytes"};
    case AsyncRecord::Kind::MbarrierWait:
      return {"mbarrier wait", "mbarrier", "mbarrier phases (waits answered)", "phase complete",
              "bytes"};
    case AsyncRecord::Kind::Wgmma:
      return {"wgmma", "tensor_pipe", "tensor cores: warpgroup MMA (wgmma)",
              "accumulators ready", "n"};
  }
  return {"async", "async", "asynchronous work", "", "bytes"};
}
int async_track(AsyncRecord::Kind k) { return kAsyncTrackBase + static_cast<int>(k); }

const char* access_name(AccessRecord::Kind k) {
  switch (k) {
    case AccessRecord::Kind::GlobalLoad: return "global load";
    case AccessRecord::Kind::GlobalStore: return "global store";
    case AccessRecord::Kind::Atomic: return "atomic";
    case AccessRecord::Kind::LocalLoad: return "local load";
    case AccessRecord::Kind::LocalStore: return "local store";
    case AccessRecord::Kind::SharedLoad: return "shared load";
    case AccessRecord::Kind::SharedStore: return "shared store";
  }
  return "access";
}
}  // namespace

Status write_chrome_trace(const Trace& t, std::ostream& out) {
  JsonWriter j(out);
  j.begin_object();
  j.field("displayTimeUnit", "ns");
  j.key("otherData").begin_object();
  j.field("kernel", t.kernel).field("time_unit", "SM cycles (shown as us)");
  j.field("clock_mhz", t.clock_mhz).field("truncated", t.truncated).end_object();
  j.key("traceEvents").begin_array();
  const int gpu_pid = t.sm_count;
  // 1. Metadata: process per traced SM, thread per warp slot seen.
  std::set<std::pair<int, int>> threads;
  for (const auto& s : t.spans) threads.insert({s.sm, s.slot});
  for (const auto& s : t.issues) threads.insert({s.sm, s.slot});
  std::set<int> pids;
  for (auto [pid, tid] : threads) pids.insert(pid);
  std::set<std::pair<int, int>> async_tracks;  // (SM, track) of the asynchronous work
  for (const auto& a : t.async) {
    async_tracks.insert({a.sm, async_track(a.kind)});
    pids.insert(a.sm);
  }
  for (int pid : pids) {
    j.begin_object().field("ph", "M").field("name", "process_name").field("pid", pid).field("tid", 0);
    j.key("args").begin_object().field("name", "SM " + std::to_string(pid)).end_object().end_object();
  }
  for (auto [pid, tid] : threads) {
    j.begin_object().field("ph", "M").field("name", "thread_name").field("pid", pid).field("tid", tid);
    j.key("args").begin_object().field("name", "warp slot " + std::to_string(tid)).end_object().end_object();
  }
  for (auto [pid, tid] : async_tracks) {
    const char* name = async_info(static_cast<AsyncRecord::Kind>(tid - kAsyncTrackBase)).track;
    j.begin_object().field("ph", "M").field("name", "thread_name").field("pid", pid).field("tid", tid);
    j.key("args").begin_object().field("name", name).end_object().end_object();
    // Below the warp slots' tracks.
    j.begin_object().field("ph", "M").field("name", "thread_sort_index").field("pid", pid).field("tid", tid);
    j.key("args").begin_object().field("sort_index", tid).end_object().end_object();
  }
  j.begin_object().field("ph", "M").field("name", "process_name").field("pid", gpu_pid).field("tid", 0);
  j.key("args").begin_object().field("name", "GPU memory traffic").end_object().end_object();
  // 2. Warp state spans (complete events).
  for (const auto& s : t.spans) {
    j.begin_object().field("ph", "X").field("cat", "warp_state");
    j.field("name", warp_state_name(s.state)).field("pid", s.sm).field("tid", s.slot);
    j.field("ts", s.begin).field("dur", s.end - s.begin);
    j.key("args").begin_object().field("ptx_line", s.ptx_line).end_object().end_object();
  }
  // 3. Issued instructions (instant events on the warp's track).
  for (const auto& i : t.issues) {
    j.begin_object().field("ph", "i").field("s", "t").field("cat", "issue");
    j.field("name", i.text >= 0 && i.text < int32_t(t.strings.size()) ? t.strings[i.text] : "inst");
    j.field("pid", i.sm).field("tid", i.slot).field("ts", i.cycle);
    j.key("args").begin_object().field("ptx_line", i.ptx_line).field("block", i.block);
    j.field("warp_in_block", i.warp_in_block).field("active_lanes", std::popcount(i.active_mask));
    j.field("exec_lanes", std::popcount(i.exec_mask)).end_object().end_object();
  }
  // 4. Memory journeys (async begin/end pairs: issue -> data back).
  for (const auto& a : t.accesses) {
    for (int phase = 0; phase < 2; ++phase) {
      j.begin_object().field("ph", phase == 0 ? "b" : "e").field("cat", "memory");
      j.field("name", access_name(a.kind)).field("id", a.id).field("pid", a.sm).field("tid", a.slot);
      j.field("ts", phase == 0 ? a.issue : std::max(a.ready, a.issue));
      if (phase == 0) {
        j.key("args").begin_object().field("ptx_line", a.ptx_line);
        j.field("lanes", std::popcount(a.exec_mask)).field("access_bytes", a.access_bytes);
        j.field("first_address", a.first_address).field("tag_stage_cycle", a.tag_stage);
        j.field("lines", a.lines).field("sectors", a.sectors);
        j.field("l1_hit_sectors", a.l1_hit_sectors).field("l1_miss_sectors", a.l1_miss_sectors);
        j.field("dram_sectors", a.dram_sectors).field("wavefronts", a.wavefronts);
        j.field("bank_conflicts", a.bank_conflicts).field("ready_cycle", a.ready);
        const bool shared = a.kind == AccessRecord::Kind::SharedLoad ||
                            a.kind == AccessRecord::Kind::SharedStore;  // lanes, not lines
        if (!shared && a.line_count > 0 &&
            size_t(a.line_begin) + a.line_count <= t.access_lines.size()) {
          // Lane -> sector map (2 bits per lane) and each line: address, lanes, sectors, sources.
          j.field("lane_sectors", hex(a.lane_sectors));
          j.key("line_detail").begin_array();
          for (uint32_t k = 0; k < a.line_count; ++k) {
            const AccessLine& l = t.access_lines[a.line_begin + k];
            j.begin_object().field("address", l.address).field("lanes", hex(l.lane_mask));
            j.field("sector_mask", uint32_t{l.sector_mask}).field("served", sector_sources(l));
            j.end_object();
          }
          j.end_array();
        }
        j.end_object();
      }
      j.end_object();
    }
  }
  // 5. Asynchronous work (async begin/end pairs on its unit's track: copies may overlap), and an
  //    instant event where an mbarrier's phase completed or a wgmma's accumulators were ready.
  for (size_t k = 0; k < t.async.size(); ++k) {
    const AsyncRecord& a = t.async[k];
    const AsyncKindInfo info = async_info(a.kind);
    const std::string id = "async-" + std::to_string(k);
    const int tid = async_track(a.kind);
    for (int phase = 0; phase < 2; ++phase) {
      j.begin_object().field("ph", phase == 0 ? "b" : "e").field("cat", info.category);
      j.field("name", info.name).field("id", id).field("pid", a.sm).field("tid", tid);
      j.field("ts", phase == 0 ? a.begin : std::max(a.end, a.begin));
      if (phase == 0) {
        j.key("args").begin_object().field("ptx_line", a.ptx_line).field("warp_slot", a.slot);
        j.field(info.amount, a.bytes).field("end_cycle", a.end);
        if (*info.done) j.field("done_cycle", a.done);
        j.end_object();
      }
      j.end_object();
    }
    if (*info.done && a.done > 0) {
      j.begin_object().field("ph", "i").field("s", "t").field("cat", info.category);
      j.field("name", info.done).field("pid", a.sm).field("tid", tid).field("ts", a.done);
      j.key("args").begin_object().field("ptx_line", a.ptx_line).field("warp_slot", a.slot);
      j.end_object().end_object();
    }
  }
  // 6. Counter tracks.
  for (const auto& c : t.counters) {
    j.begin_object().field("ph", "C").field("name", "sectors").field("pid", gpu_pid).field("tid", 0);
    j.field("ts", c.cycle).key("args").begin_object().field("L1", c.l1_sectors).field("L2", c.l2_sectors);
    j.end_object().end_object();
    j.begin_object().field("ph", "C").field("name", "DRAM bytes").field("pid", gpu_pid).field("tid", 0);
    j.field("ts", c.cycle).key("args").begin_object().field("DRAM", c.dram_bytes).end_object().end_object();
    j.begin_object().field("ph", "C").field("name", "warp instructions").field("pid", gpu_pid).field("tid", 0);
    j.field("ts", c.cycle).key("args").begin_object().field("issued", c.warps_issued).end_object().end_object();
  }
  j.end_array().end_object();
  out << '\n';
  if (!out) return Error{"", 0, "failed writing the trace"};
  return Ok{};
}

}  // namespace warplab::timing
