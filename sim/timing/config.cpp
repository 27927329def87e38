// Preset files: a strict reader for the flat TOML subset the presets use, and the field table.
//
// sim/ must build with nothing but a C++20 compiler, so this is not a TOML library: it accepts
// `[section]` headers, `key = value` lines (integers with optional `_` separators, decimals,
// "strings") and `#` comments, and rejects everything else with the file and line.
#include "sim/timing/config.h"

#include "sim/common/input_file.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <sstream>

#ifndef WARPLAB_CONFIG_DIR
#define WARPLAB_CONFIG_DIR "configs"
#endif

namespace warplab::timing {
namespace {

using Ref = std::variant<int64_t*, double*, std::string*>;

struct Field {
  const char* section;
  const char* key;
  const char* unit;
  const char* description;
  std::function<Ref(GpuConfig&)> ref;
};

#define F(SEC, KEY, UNIT, DESC, EXPR)                                 \
  Field {                                                             \
    SEC, KEY, UNIT, DESC, [](GpuConfig& c) -> Ref { return &c.EXPR; } \
  }
#define PIPE(NAME, MEMBER, WHAT)                                                                \
  F("pipes", NAME "_latency", "cycles", "issue-to-use latency of " WHAT, pipes.MEMBER.latency), \
      F("pipes", NAME "_interval", "cycles",                                                    \
        "cycles between two warp instructions on the " WHAT " pipe of one sub-partition",       \
        pipes.MEMBER.interval)

std::vector<Field> fields() {
  return {
      F("", "name", "", "preset name", name),
      F("", "description", "", "one-line description", description),
      F("core", "sm_count", "SMs", "streaming multiprocessors", core.sm_count),
      F("core", "clock_mhz", "MHz", "SM clock (cycles -> microseconds)", core.clock_mhz),
      F("core", "mma_clock_mhz", "MHz",
        "SM clock while a kernel that issues mma.sync runs (0: clock_mhz; sm_clock.h)",
        core.mma_clock_mhz),
      F("core", "wgmma_clock_mhz", "MHz",
        "SM clock while a kernel that issues wgmma runs (0: clock_mhz; sm_clock.h)",
        core.wgmma_clock_mhz),
      F("core", "sub_partitions", "per SM", "SM sub-partitions, each with one warp scheduler",
        core.sub_partitions),
      F("core", "max_warps_per_sm", "warps", "resident warps per SM", core.max_warps_per_sm),
      F("core", "max_blocks_per_sm", "blocks", "resident blocks per SM", core.max_blocks_per_sm),
      F("core", "max_threads_per_block", "threads", "largest block", core.max_threads_per_block),
      F("core", "registers_per_sm", "registers", "32-bit registers per SM", core.registers_per_sm),
      F("core", "register_alloc_unit", "registers", "per-warp register allocation granularity",
        core.register_alloc_unit),
      F("core", "max_registers_per_thread", "registers", "most registers a thread may use",
        core.max_registers_per_thread),
      F("core", "shared_per_sm", "bytes", "shared memory per SM", core.shared_per_sm),
      F("core", "shared_per_block_max", "bytes", "most shared memory one block may use",
        core.shared_per_block_max),
      F("core", "shared_alloc_unit", "bytes", "shared memory allocation granularity",
        core.shared_alloc_unit),
      F("core", "shared_reserved_per_block", "bytes", "shared memory the driver reserves per block",
        core.shared_reserved_per_block),
      F("core", "warp_scheduler", "", "warp scheduling policy: lrr or gto", core.warp_scheduler),
      F("core", "block_dispatch_interval", "cycles",
        "cycles between two block dispatches, GPU-wide", core.block_dispatch_interval),
      F("core", "block_launch_latency", "cycles", "from dispatch to a block's first issue",
        core.block_launch_latency),
      F("core", "launch_overhead_us", "us", "launch overhead added to time_us (event-timed)",
        core.launch_overhead_us),
      PIPE("fp32", fp32, "FP32"),
      PIPE("int", integer, "INT"),
      PIPE("fp64", fp64, "FP64"),
      PIPE("half", half, "FP16/BF16"),
      PIPE("sfu", sfu, "SFU (transcendentals)"),
      PIPE("branch", branch, "branch (latency: cycles before the next fetch)"),
      PIPE("warp", warp, "warp-level (shfl/vote/match/redux)"),
      PIPE("barrier", barrier, "barrier (latency: last arrival counted to release)"),
      F("pipes", "barrier_arrival_cycles", "cycles",
        "cycles a block's barrier counter takes per warp arriving at bar.sync (0: none)",
        pipes.barrier_arrival_cycles),
      F("pipes", "predicate_branch_latency", "cycles",
        "cycles from a compare writing a predicate (setp) to a branch guarded by it (0: the "
        "compare's latency)",
        pipes.predicate_branch_latency),
      PIPE("misc", misc, "miscellaneous"),
      PIPE("ldst", ldst, "load/store (address generation)"),
      PIPE("imad", imad, "integer multiply (IMAD, on the FMA pipe)"),
      PIPE("vote", vote, "warp vote (vote.sync: VOTE)"),
      PIPE("match", match, "warp match (match.sync: MATCH, a pipe of its own)"),
#define TENSOR(NAME, MEMBER, WHAT)                                                               \
  F("tensor", NAME "_latency", "cycles", "issue-to-result latency of mma.sync " WHAT,         \
    pipes.tensor.MEMBER.latency),                                                              \
      F("tensor", NAME "_interval", "cycles",                                                  \
        "cycles between two mma.sync " WHAT " on the tensor pipe of one sub-partition",        \
        pipes.tensor.MEMBER.interval)
      TENSOR("m16n8k16_f16", m16n8k16_f16, ".m16n8k16 with f16 inputs"),
      TENSOR("m16n8k16_bf16", m16n8k16_bf16, ".m16n8k16 with bf16 inputs"),
      TENSOR("m16n8k8_f16", m16n8k8_f16, ".m16n8k8 with f16 or bf16 inputs"),
      TENSOR("m16n8k8_tf32", m16n8k8_tf32, ".m16n8k8 with tf32 inputs"),
      TENSOR("m16n8k32_s8", m16n8k32_s8, ".m16n8k32 with s8/u8 inputs"),
      TENSOR("m16n8k32_fp8", m16n8k32_fp8, ".m16n8k32 with e4m3/e5m2 inputs"),
#undef TENSOR
      F("tensor", "wgmma_columns_per_cycle", "columns/cycle",
        "wgmma.mma_async m64nNk16 at the peak: an SM starts one every N / this cycles",
        pipes.tensor.wgmma_columns_per_cycle),
      F("tensor", "wgmma_issue_base", "cycles",
        "wgmma.mma_async issue floor for small N: one every wgmma_issue_base + N / "
        "wgmma_issue_columns_per_cycle cycles at most",
        pipes.tensor.wgmma_issue_base),
      F("tensor", "wgmma_issue_columns_per_cycle", "columns/cycle",
        "N columns per cycle of the small-N issue floor",
        pipes.tensor.wgmma_issue_columns_per_cycle),
      F("tensor", "wgmma_latency_base", "cycles",
        "wgmma.mma_async latency, start to accumulators ready: this + N / "
        "wgmma_latency_columns_per_cycle",
        pipes.tensor.wgmma_latency_base),
      F("tensor", "wgmma_latency_columns_per_cycle", "columns/cycle",
        "N columns per cycle of the wgmma latency", pipes.tensor.wgmma_latency_columns_per_cycle),
      F("tensor", "wgmma_chain_gap", "cycles",
        "extra cycles between two wgmma.mma_async of one warpgroup (its accumulator chain)",
        pipes.tensor.wgmma_chain_gap),
#define EXPANDED(NAME, MEMBER, WHAT)                                                        \
  F("pipes", NAME "_latency", "cycles", "issue-to-result latency of " WHAT,                 \
    pipes.MEMBER.latency),                                                                  \
      F("pipes", NAME "_interval", "cycles",                                                \
        "cycles one sub-partition's scheduler spends issuing the SASS sequence of " WHAT,   \
        pipes.MEMBER.interval),                                                             \
      F("pipes", NAME "_sfu_ops", "instructions",                                           \
        "instructions of the sequence of " WHAT " on the SFU pipe", pipes.MEMBER.sfu_ops)
      EXPANDED("div_f32", div_f32, "div.rn.f32"),
      EXPANDED("rcp_f32", rcp_f32, "rcp.rn.f32"),
      EXPANDED("sqrt_f32", sqrt_f32, "sqrt.rn.f32"),
      EXPANDED("div_u32", div_u32, "div/rem on unsigned integers up to 32 bits"),
      EXPANDED("div_s32", div_s32, "div/rem on signed integers up to 32 bits"),
      EXPANDED("div_f64", div_f64, "div.rn.f64 and rcp.rn.f64"),
      EXPANDED("sqrt_f64", sqrt_f64, "sqrt.rn.f64"),
#undef EXPANDED
      F("shared", "banks", "banks", "shared memory banks", shared.banks),
      F("shared", "bank_bytes", "bytes", "width of one bank", shared.bank_bytes),
      F("shared", "latency", "cycles", "load-to-use latency of a one-wavefront shared load",
        shared.latency),
      F("shared", "wavefronts_per_cycle", "per cycle", "shared wavefronts per SM per cycle",
        shared.wavefronts_per_cycle),
      F("shared", "matrix_cycles", "cycles",
        "ldmatrix/stmatrix: cycles of the shared-memory pipe per 8x8 matrix", shared.matrix_cycles),
      F("shared", "mio_queue", "instructions", "MIO queue depth per SM (stall_mio_throttle)",
        shared.mio_queue),
      F("l1", "size_bytes", "bytes", "L1 data cache capacity", l1.size_bytes),
      F("l1", "unified_bytes", "bytes",
        "L1 + shared memory per SM; a launch needing a larger shared carve-out than "
        "unified_bytes - size_bytes shrinks its L1 (0 = fixed L1)",
        l1.unified_bytes),
      F("l1", "line_bytes", "bytes", "cache line", l1.line_bytes),
      F("l1", "sector_bytes", "bytes", "sector (unit of transfer)", l1.sector_bytes),
      F("l1", "assoc", "ways", "associativity", l1.assoc),
      F("l1", "hit_latency", "cycles", "load-to-use latency on an L1 hit", l1.hit_latency),
      F("l1", "tag_lookups_per_cycle", "lines/cycle", "lines the L1 tag stage resolves per cycle",
        l1.tag_lookups_per_cycle),
      F("l1", "miss_lines_in_flight", "lines", "outstanding line misses per SM (MSHRs)",
        l1.miss_lines_in_flight),
      F("l1", "lsu_queue", "instructions", "LSU queue depth per SM (stall_lg_throttle)",
        l1.lsu_queue),
      F("l1", "fence_sc_latency", "cycles",
        "cycles a sequentially consistent fence of GPU or system scope (membar.gl, fence.sc.gpu: "
        "MEMBAR.SC.GPU) holds its warp, from its issue or its warp's last store's ack if later",
        l1.fence_sc_latency),
      F("l1", "fence_spacing", "cycles",
        "an SC fence of GPU scope ends at least this long after the SM's previous one ended",
        l1.fence_spacing),
      F("l1", "fence_join_cycles", "cycles",
        "an SC fence going out within this long of the SM's previous one ends with it",
        l1.fence_join_cycles),
      F("l1", "store_sectors_per_cycle", "sectors/cycle",
        "rate of the SM's store path to the L2: queued stores leave one after another, and an SC "
        "fence of GPU scope goes out behind them (0 = unlimited)",
        l1.store_sectors_per_cycle),
      F("l1", "store_partial_sectors", "sectors",
        "store path time of a sector the store covers only in part", l1.store_partial_sectors),
      F("l1", "store_queue_sectors", "sectors",
        "store path backlog at which the SM's global accesses stall (lg_throttle; 0 = none)",
        l1.store_queue_sectors),
      F("l1", "replacement", "", "replacement policy: lru or fifo", l1.replacement),
      F("l2", "size_bytes", "bytes", "L2 capacity", l2.size_bytes),
      F("l2", "assoc", "ways", "associativity", l2.assoc),
      F("l2", "slices", "slices", "independent L2 slices (address-interleaved)", l2.slices),
      F("l2", "hit_latency", "cycles", "load-to-use latency on an L2 hit", l2.hit_latency),
      F("l2", "sectors_per_cycle_per_slice", "sectors/cycle", "sectors one slice serves per cycle",
        l2.sectors_per_cycle_per_slice),
      F("l2", "atomic_latency", "cycles", "extra cycles for an atomic at the L2",
        l2.atomic_latency),
      F("l2", "atomic_return_latency", "cycles",
        "further cycles before an atomic that returns its old value (ATOMG, not RED) has it back",
        l2.atomic_return_latency),
      F("l2", "atomic_sector_cycles", "cycles",
        "cycles a slice's atomic unit spends per sector of a request", l2.atomic_sector_cycles),
      F("l2", "atomic_lane_cycles", "cycles",
        "cycles a slice's atomic unit spends per lane on one address (same-address lanes "
        "serialize)",
        l2.atomic_lane_cycles),
      F("l2", "atomic_float_lane_cycles", "cycles",
        "cycles per lane on one address for a floating-point add atomic, also between "
        "consecutive requests on that address",
        l2.atomic_float_lane_cycles),
      F("l2", "atomic_units", "units",
        "atomic units in the L2; slices / atomic_units slices share one (a divisor of slices; 0 = "
        "one per slice), or a pool of them (atomic_pool)",
        l2.atomic_units),
      F("l2", "atomic_pool", "flag",
        "1: atomic_units is a pool any slice's atomic takes (each slice one atomic at a time, at "
        "most atomic_units slices at once); 0: slices / atomic_units slices share each unit",
        l2.atomic_pool),
      F("l2", "partial_write_sectors", "sectors",
        "slice time of a store covering part of a sector (read-modify-write), in whole-sector "
        "accesses",
        l2.partial_write_sectors),
      F("l2", "full_write_sectors", "sectors",
        "slice time of a store's whole sector, in sector times (a read's sector takes 1)",
        l2.full_write_sectors),
      F("l2", "request_sectors", "sectors",
        "slice time of each request on top of its sectors' (tag lookup and request header), in "
        "sector times",
        l2.request_sectors),
      F("l2", "partial_request_sectors", "sectors",
        "slice time of a store request with a partly written sector on top of its sectors' "
        "(its read-modify-write), in sector times; unset (the default): request_sectors x "
        "partial_write_sectors",
        l2.partial_request_sectors),
      F("l2", "rw_share", "fraction",
        "share of a read's slice time that also holds the slice's write path, and of a store's "
        "that holds its read path (the tag lookups both go through): 0 = independent paths, 1 = "
        "one queue",
        l2.rw_share),
      F("l2", "dirty_ways", "ways",
        "dirty lines a set may hold; a store that makes one more writes back the set's line "
        "made dirty first (it stays, clean); 0 = no limit",
        l2.dirty_ways),
      F("l2", "slice_bytes", "bytes",
        "consecutive address bytes served by one slice before the slice hash moves on",
        l2.slice_bytes),
      F("l2", "fetch_bytes", "bytes",
        "a read miss fetches the aligned group of this many bytes around each missing sector "
        "(32 = just the sector; 64 = sector pairs, the H100's default L2 fetch granularity)",
        l2.fetch_bytes),
      F("l2", "fabric_bytes_per_cycle", "bytes/cycle",
        "bandwidth of each direction of the link between the L2's two partitions, which a far "
        "line's stores and DRAM-filled reads cross (l2_fabric.h); 0 = not modelled",
        l2.fabric_bytes_per_cycle),
      F("l2", "replacement", "", "replacement policy: lru or fifo", l2.replacement),
      F("dram", "latency", "cycles", "cycles an L2 miss adds to the L2 hit latency", dram.latency),
      F("dram", "bus_bits", "bits", "DRAM bus width", dram.bus_bits),
      F("dram", "data_rate_mtps", "MT/s", "transfers per second per pin", dram.data_rate_mtps),
      F("dram", "efficiency", "fraction",
        "fraction of peak bandwidth the bus sustains on open rows (refresh, read/write "
        "turnarounds); row misses are modelled apart",
        dram.efficiency),
      F("dram", "queue_half", "transfers",
        "0: the bus always sustains `efficiency`. Otherwise it does so only with a deep queue: "
        "with q transfers queued ahead on a channel, efficiency * (q + 1) / (q + 1 + queue_half); "
        "the transfer itself runs at full speed, the waste is a gap after it",
        dram.queue_half),
      F("dram", "channels", "channels", "independent DRAM channels", dram.channels),
      F("dram", "interleave_bytes", "bytes", "address bytes per channel before the next",
        dram.interleave_bytes),
      F("dram", "banks", "banks", "banks per channel, each with one open row (row buffer)",
        dram.banks),
      F("dram", "row_bytes", "bytes",
        "row (page) size per channel: consecutive interleave chunks of a channel fill one row",
        dram.row_bytes),
      F("dram", "t_rcd", "cycles", "tRCD: activating a row until its columns can be read",
        dram.t_rcd),
      F("dram", "t_rp", "cycles",
        "tRP: precharging (closing) a bank's open row before another opens", dram.t_rp),
      F("dram", "t_rrd", "cycles", "tRRD: least time between two row activations in one channel",
        dram.t_rrd),
      F("dram", "t_faw", "cycles",
        "tFAW: window in which one channel may activate at most four rows", dram.t_faw),
      F("compiler", "hoist_loads", "0/1",
        "model ptxas's loop unrolling and load hoisting (1) or issue loads in PTX order (0)",
        compiler.hoist_loads),
      F("compiler", "unroll", "copies",
        "loop iterations a load may be hoisted across (ptxas unrolls loops 4x)", compiler.unroll),
      F("compiler", "max_hoisted_loads", "loads",
        "loads a warp may issue ahead of its waiting instruction (bounded by registers)",
        compiler.max_hoisted_loads),
      F("compiler", "load_register_share", "fraction",
        "share of a thread's registers that may hold results of loads still in flight (a load "
        "is hoisted only while the warp's outstanding load registers stay below it)",
        compiler.load_register_share),
      F("compiler", "window", "instructions",
        "PTX instructions looked ahead of the waiting one for a load to hoist", compiler.window),
      F("compiler", "predicate_max_instructions", "instructions",
        "a forward conditional branch over at most this many instructions is predicated (loads "
        "move across it); a longer one stays a branch that no load moves above",
        compiler.predicate_max_instructions),
      F("compiler", "peeled_copy_serial_bytes", "bytes",
        "the first of a loop's peeled remainder copies (inside an outer loop) whose loads are at "
        "least this wide a thread gets one register set for loaded data: its loads wait for the "
        "store before them (0: never)",
        compiler.peeled_copy_serial_bytes),
      // asynchronous copies and mbarriers (sim/timing/async_copy.h, tma.h)
      F("async", "cp_async_fill", "cycles",
        "a cp.async's bytes reaching L1 to their landing in shared memory", async.cp_async_fill),
      F("async", "tma_latency", "cycles",
        "a bulk copy's (TMA) last line back from the L2 to its bytes in shared memory",
        async.tma_latency),
      F("async", "tma_bytes_per_cycle", "bytes/cycle",
        "bytes the SM's TMA unit moves per cycle from global to shared memory (loads)",
        async.tma_bytes_per_cycle),
      F("async", "tma_store_bytes_per_cycle", "bytes/cycle",
        "bytes the SM's TMA unit moves per cycle from shared to global memory (stores: it reads "
        "the shared source and sends the writes at this rate; loads and stores share the unit)",
        async.tma_store_bytes_per_cycle),
      F("async", "tma_tensor_latency", "cycles",
        "cycles a TMA tensor copy (cp.async.bulk.tensor) takes beyond a bulk copy of its bytes: "
        "reading the tensor map, walking the box (provisional: a starting figure, not measured)",
        async.tma_tensor_latency),
      F("async", "tma_descriptor_latency", "cycles",
        "the TMA unit's fetch of a tensor map it does not hold yet (its first copy through the map, "
        "or prefetch.tensormap): these cycles, after the map's line is read from the L2 when the "
        "map is in global memory (a parameter's map: these cycles alone)",
        async.tma_descriptor_latency),
      F("async", "try_wait_latency", "cycles",
        "an mbarrier test/try_wait whose phase has completed to the warp's next issue",
        async.try_wait_latency),
      F("async", "try_wait_suspend", "cycles",
        "how long a failed mbarrier.try_wait suspends its warp before the next try (provisional: "
        "not "
        "measured)",
        async.try_wait_suspend),
      // thread-block clusters (sim/timing/dsmem.h, block_scheduler.h)
      F("cluster", "gpcs", "GPCs",
        "GPCs the SMs are split into (evenly, in SM order): a cluster's blocks all go to one",
        cluster.gpcs),
      F("cluster", "gpc_sms", "SMs",
        "SMs of each GPC in SM order, space-separated, for clusters of more than 2 blocks (SMs "
        "after the last GPC take none; a GPC past core.sm_count is left out, and where none fits the "
        "SMs split evenly over gpcs); empty: the SMs split evenly over gpcs",
        cluster.gpc_sms),
      F("cluster", "remote_latency", "cycles",
        "a load from another block's shared memory (DSMEM), issue to data back",
        cluster.remote_latency),
      F("cluster", "remote_bytes_per_cycle", "bytes/cycle",
        "bytes an SM sends to other SMs' shared memory per cycle", cluster.remote_bytes_per_cycle),
      F("cluster", "barrier_latency", "cycles",
        "the last thread's barrier.cluster.arrive to the waiting warps going on",
        cluster.barrier_latency),
      F("cluster", "barrier_level_latency", "cycles",
        "what barrier_latency grows by per doubling of the cluster's size (log2 of its blocks)",
        cluster.barrier_level_latency),
      F("cluster", "barrier_warp_latency", "cycles",
        "what barrier_latency grows by per warp on the SM (its cluster blocks) beyond one per "
        "sub-partition",
        cluster.barrier_warp_latency),
      F("cluster", "barrier_poll", "cycles",
        "a barrier.cluster.wait that finds its phase running tries again after this long",
        cluster.barrier_poll),
  };
}
#undef F
#undef PIPE

constexpr uint64_t kMaxPresetBytes = uint64_t{1} << 20;  // a preset is a few KB of text

// Physical ranges: a value past one describes no GPU and would make the model allocate or loop
// without bound (sm_count = 1e8, a 1 TiB L2, 2e9 warps per SM). Generous: several times the
// largest GPU's (H100: 132 SMs, 64 warps and 32 blocks per SM, 50 MB L2, 256 KB L1).
struct Limit {
  const char* key;  // "section.key"
  double most;
};
constexpr Limit kLimits[] = {
    {"core.sm_count", 512},
    {"core.sub_partitions", 16},
    {"core.max_warps_per_sm", 256},
    {"core.max_blocks_per_sm", 256},
    {"core.max_threads_per_block", 4096},
    {"core.registers_per_sm", 1 << 20},
    {"core.register_alloc_unit", 1 << 16},
    {"core.max_registers_per_thread", 1024},
    {"core.shared_per_sm", 4 << 20},
    {"core.shared_per_block_max", 4 << 20},
    {"core.shared_alloc_unit", 1 << 20},
    {"core.shared_reserved_per_block", 1 << 20},
    {"core.clock_mhz", 100000},
    {"core.mma_clock_mhz", 100000},
    {"core.wgmma_clock_mhz", 100000},
    {"shared.banks", 1024},
    {"shared.bank_bytes", 1024},
    {"shared.wavefronts_per_cycle", 1024},
    {"shared.mio_queue", 1 << 16},
    {"l1.size_bytes", 4 << 20},
    {"l1.unified_bytes", 4 << 20},
    {"l1.line_bytes", 4096},
    {"l1.sector_bytes", 4096},
    {"l1.assoc", 1 << 16},
    {"l1.tag_lookups_per_cycle", 1024},
    {"l1.miss_lines_in_flight", 1 << 16},
    {"l1.lsu_queue", 1 << 16},
    {"l1.fence_sc_latency", 1 << 20},
    {"l1.fence_spacing", 1 << 20},
    {"l1.fence_join_cycles", 1 << 20},
    {"l1.store_sectors_per_cycle", 1024},
    {"l1.store_partial_sectors", 1024},
    {"l1.store_queue_sectors", 1 << 20},
    {"l2.size_bytes", 512 << 20},
    {"l2.assoc", 1 << 16},
    {"l2.slices", 1024},
    {"l2.slice_bytes", 1 << 30},
    {"l2.fetch_bytes", 4096},
    {"l2.atomic_units", 1024},
    {"dram.channels", 1024},
    {"dram.banks", 1024},
    {"dram.bus_bits", 1 << 16},
    {"dram.row_bytes", 1 << 20},
    {"dram.interleave_bytes", 1 << 20},
    {"dram.data_rate_mtps", 1e6},
    {"compiler.unroll", 64},
    {"compiler.max_hoisted_loads", 1 << 16},
    {"compiler.predicate_max_instructions", 4096},
};
// Every other number: cycles, latencies and rates stay below 1e9 (a cycle count that would
// overflow when added up describes no GPU either).
constexpr double kMostOther = 1e9;

std::string value_of(double v) {
  std::ostringstream o;
  o.precision(12);
  o << v;
  return o.str();
}

double most_of(const std::string& full) {
  for (const Limit& l : kLimits)
    if (full == l.key) return l.most;
  return kMostOther;
}

bool is_pow2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

std::string trim(std::string s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

// Strips a trailing comment outside a string.
std::string strip_comment(const std::string& s) {
  bool in_str = false;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '"') in_str = !in_str;
    if (s[i] == '#' && !in_str) return s.substr(0, i);
  }
  return s;
}

std::optional<int64_t> parse_int(std::string v) {
  v.erase(std::remove(v.begin(), v.end(), '_'), v.end());
  if (v.empty()) return std::nullopt;
  size_t i = (v[0] == '-' || v[0] == '+') ? 1 : 0;
  if (i == v.size()) return std::nullopt;
  for (size_t k = i; k < v.size(); ++k)
    if (v[k] < '0' || v[k] > '9') return std::nullopt;
  try {
    return std::stoll(v);
  } catch (...) {
    return std::nullopt;
  }
}

std::optional<double> parse_double(std::string v) {
  v.erase(std::remove(v.begin(), v.end(), '_'), v.end());
  if (v.empty()) return std::nullopt;
  char* end = nullptr;
  const double d = std::strtod(v.c_str(), &end);
  if (end != v.c_str() + v.size() || !std::isfinite(d)) return std::nullopt;
  return d;
}

std::optional<std::string> parse_string(const std::string& v) {
  if (v.size() < 2 || v.front() != '"' || v.back() != '"') return std::nullopt;
  const std::string inner = v.substr(1, v.size() - 2);
  if (inner.find('"') != std::string::npos || inner.find('\\') != std::string::npos)
    return std::nullopt;
  return inner;
}

std::string value_text(const Ref& r) {
  if (auto* p = std::get_if<int64_t*>(&r)) return std::to_string(**p);
  if (auto* p = std::get_if<double*>(&r)) {
    std::ostringstream o;
    o << **p;
    return o.str();
  }
  return "\"" + *std::get<std::string*>(r) + "\"";
}

Expected<GpuConfig> parse_impl(const std::string& text, const std::string& path,
                               const std::string& config_dir, int depth) {
  GpuConfig cfg;
  const auto table = fields();
  std::istringstream in(text);
  std::string raw, section;
  int line_no = 0;
  std::vector<std::string> seen;
  bool any_key = false;
  while (std::getline(in, raw)) {
    ++line_no;
    const std::string line = trim(strip_comment(raw));
    if (line.empty()) continue;
    if (line.front() == '[') {
      if (line.back() != ']')
        return Error{path, line_no, "malformed section header '" + line + "'"};
      section = trim(line.substr(1, line.size() - 2));
      static constexpr const char* kSections[] = {"core", "pipes", "tensor",   "shared", "l1",
                                                  "l2",   "dram",  "compiler", "async",  "cluster"};
      if (std::find_if(std::begin(kSections), std::end(kSections),
                       [&](const char* s) { return section == s; }) == std::end(kSections))
        return Error{path, line_no,
                     "unknown section [" + section +
                         "] (expected core, pipes, tensor, shared, l1, l2, dram, compiler, async, "
                         "cluster)"};
      continue;
    }
    const auto eq = line.find('=');
    if (eq == std::string::npos)
      return Error{path, line_no, "expected 'key = value' or '[section]', got '" + line + "'"};
    const std::string key = trim(line.substr(0, eq));
    const std::string value = trim(line.substr(eq + 1));
    const std::string full = section.empty() ? key : section + "." + key;
    if (std::find(seen.begin(), seen.end(), full) != seen.end())
      return Error{path, line_no, "key '" + full + "' is set twice"};
    seen.push_back(full);
    if (section.empty() && key == "base") {
      if (any_key) return Error{path, line_no, "'base' must come before every other key"};
      auto name = parse_string(value);
      if (!name) return Error{path, line_no, "base: expected a quoted preset name"};
      if (depth > 4) return Error{path, line_no, "base presets nest too deeply"};
      const std::string base_path = config_dir + "/" + *name + ".toml";
      if (name->find('/') != std::string::npos || input_file_problem(base_path) == "no such file")
        return Error{path, line_no, "base preset '" + *name + "' not found in " + config_dir};
      auto text = read_input_file(base_path, "preset file", kMaxPresetBytes);
      if (!text) return Error{path, line_no, "base preset: " + text.error().to_string()};
      auto base = parse_impl(*text, base_path, config_dir, depth + 1);
      if (!base) return base.error();
      cfg = *base;
      cfg.description.clear();
      continue;
    }
    any_key = true;
    const Field* field = nullptr;
    for (const auto& f : table)
      if (section == f.section && key == f.key) field = &f;
    if (!field) return Error{path, line_no, "unknown key '" + full + "'"};
    const Ref r = field->ref(cfg);
    if (auto* p = std::get_if<int64_t*>(&r)) {
      auto v = parse_int(value);
      if (!v) return Error{path, line_no, "'" + full + "' expects an integer, got '" + value + "'"};
      if (*v < 0) return Error{path, line_no, "'" + full + "' must not be negative"};
      if (static_cast<double>(*v) > most_of(full))
        return Error{path, line_no, "'" + full + "' = " + std::to_string(*v) +
                                        " is outside the physical range (at most " +
                                        value_of(most_of(full)) + ")"};
      **p = *v;
    } else if (auto* p = std::get_if<double*>(&r)) {
      auto v = parse_double(value);
      if (!v) return Error{path, line_no, "'" + full + "' expects a number, got '" + value + "'"};
      if (*v < 0) return Error{path, line_no, "'" + full + "' must not be negative"};
      if (*v > most_of(full))
        return Error{path, line_no, "'" + full + "' = " + value + " is outside the physical range (at most " +
                                        value_of(most_of(full)) + ")"};
      **p = *v;
    } else {
      auto v = parse_string(value);
      if (!v)
        return Error{path, line_no, "'" + full + "' expects a quoted string, got '" + value + "'"};
      *std::get<std::string*>(r) = *v;
    }
  }
  cfg.source = path;
  if (auto st = validate_config(cfg); !st) return Error{path, 0, st.error().message};
  return cfg;
}


}  // namespace

std::vector<FieldView> describe_config(const GpuConfig& config) {
  GpuConfig copy = config;
  std::vector<FieldView> out;
  for (const auto& f : fields())
    out.push_back({f.section, f.key, f.unit, f.description, value_text(f.ref(copy))});
  return out;
}

Status validate_config(const GpuConfig& c) {
  auto bad = [](std::string m) -> Status { return Error{"", 0, m}; };
  if (c.core.sm_count < 1) return bad("core.sm_count must be at least 1");
  if (c.core.clock_mhz <= 0) return bad("core.clock_mhz must be positive");
  if (c.core.mma_clock_mhz < 0 || c.core.wgmma_clock_mhz < 0)
    return bad("core.mma_clock_mhz and core.wgmma_clock_mhz must be 0 (clock_mhz) or positive");
  if (c.core.sub_partitions < 1) return bad("core.sub_partitions must be at least 1");
  if (c.core.max_warps_per_sm < 1 || c.core.max_blocks_per_sm < 1)
    return bad("core.max_warps_per_sm and core.max_blocks_per_sm must be at least 1");
  for (const PipeConfig* pc :
       {&c.pipes.fp32, &c.pipes.integer, &c.pipes.fp64, &c.pipes.half, &c.pipes.sfu,
        &c.pipes.branch, &c.pipes.warp, &c.pipes.barrier, &c.pipes.misc, &c.pipes.ldst,
        &c.pipes.imad, &c.pipes.vote, &c.pipes.match, &c.pipes.div_f32, &c.pipes.rcp_f32,
        &c.pipes.sqrt_f32, &c.pipes.div_u32, &c.pipes.div_s32, &c.pipes.div_f64,
        &c.pipes.sqrt_f64}) {
    if (pc->latency < 0 || pc->interval < 1 || pc->sfu_ops < 0)
      return bad("every pipes.*_latency and *_sfu_ops must be at least 0 and every "
                 "pipes.*_interval at least 1");
  }
  if (c.core.register_alloc_unit < 1 || c.core.shared_alloc_unit < 1)
    return bad("allocation units must be at least 1");
  if (c.shared.banks < 1 || c.shared.bank_bytes < 1 || c.shared.wavefronts_per_cycle < 1)
    return bad("shared.banks, bank_bytes and wavefronts_per_cycle must be at least 1");
  if (!is_pow2(c.l1.line_bytes) || !is_pow2(c.l1.sector_bytes) ||
      c.l1.sector_bytes > c.l1.line_bytes || c.l1.line_bytes / c.l1.sector_bytes > 32)
    return bad(
        "l1.line_bytes and l1.sector_bytes must be powers of two, at most 32 sectors a line");
  if (c.l1.assoc < 1 || c.l2.assoc < 1) return bad("associativity must be at least 1");
  if (c.l1.size_bytes < c.l1.line_bytes * c.l1.assoc) return bad("l1.size_bytes below one set");
  if (c.l2.size_bytes < c.l1.line_bytes * c.l2.assoc * c.l2.slices)
    return bad("l2.size_bytes below one set per slice");
  if (c.l1.tag_lookups_per_cycle < 1 || c.l1.miss_lines_in_flight < 1 || c.l1.lsu_queue < 1)
    return bad("l1.tag_lookups_per_cycle, miss_lines_in_flight and lsu_queue must be at least 1");
  if (c.l2.fetch_bytes < c.l1.sector_bytes || c.l2.fetch_bytes > c.l1.line_bytes ||
      c.l2.fetch_bytes % c.l1.sector_bytes != 0 ||
      (c.l1.line_bytes / c.l1.sector_bytes) % (c.l2.fetch_bytes / c.l1.sector_bytes) != 0)
    return bad("l2.fetch_bytes must be a whole number of sectors that divides the line");
  if (c.l1.store_sectors_per_cycle < 0 || c.l1.store_partial_sectors < 0 ||
      c.l1.store_queue_sectors < 0 || c.l1.fence_spacing < 0 || c.l1.fence_join_cycles < 0)
    return bad("l1.store_sectors_per_cycle, store_partial_sectors, store_queue_sectors, "
               "fence_spacing and fence_join_cycles must not be negative");
  if (c.l2.slices < 1 || c.l2.sectors_per_cycle_per_slice <= 0)
    return bad("l2 slices/throughput must be positive");
  if (c.l2.atomic_sector_cycles <= 0 || c.l2.atomic_lane_cycles <= 0 ||
      c.l2.atomic_float_lane_cycles <= 0 || c.l2.partial_write_sectors < 1 ||
      c.l2.request_sectors < 0 || c.l2.full_write_sectors < 1 || c.l2.rw_share < 0 ||
      c.l2.rw_share > 1 || c.l2.fabric_bytes_per_cycle < 0 || c.l2.dirty_ways < 0 ||
      c.l2.dirty_ways > c.l2.assoc)
    return bad(
        "l2.atomic_sector_cycles, atomic_lane_cycles and atomic_float_lane_cycles must be "
        "positive; "
        "l2.partial_write_sectors and full_write_sectors at least 1; l2.request_sectors not negative; l2.rw_share "
        "between 0 and 1; l2.fabric_bytes_per_cycle not negative; l2.dirty_ways between 0 and "
        "l2.assoc");
  if (c.pipes.barrier_arrival_cycles < 0 || c.pipes.barrier_arrival_cycles > 1e6)
    return bad("pipes.barrier_arrival_cycles must be between 0 and 1e6");
  if (c.pipes.predicate_branch_latency < 0 || c.pipes.predicate_branch_latency > 1000000)
    return bad("pipes.predicate_branch_latency must be between 0 and 1e6");
  if (c.l2.atomic_units < 0 || c.l2.atomic_units > c.l2.slices ||
      (c.l2.atomic_units > 0 && c.l2.slices % c.l2.atomic_units != 0))
    return bad("l2.atomic_units must divide l2.slices (0: one per slice)");
  if (c.l2.atomic_pool != 0 && c.l2.atomic_pool != 1) return bad("l2.atomic_pool must be 0 or 1");
  if (!is_pow2(c.l2.slice_bytes) || c.l2.slice_bytes < c.l1.line_bytes)
    return bad("l2.slice_bytes must be a power of two of at least one line");
  if (c.dram.channels < 1 || c.dram.bus_bits < 1 || c.dram.data_rate_mtps <= 0 ||
      c.dram.efficiency <= 0 || c.dram.efficiency > 1 || c.dram.interleave_bytes < 1 ||
      c.dram.queue_half < 0)
    return bad(
        "dram: channels, bus_bits, data_rate_mtps positive; efficiency in (0, 1]; queue_half >= 0");
  if (c.dram.banks < 1 || c.dram.row_bytes < c.dram.interleave_bytes ||
      c.dram.row_bytes % c.dram.interleave_bytes != 0)
    return bad("dram: banks at least 1; row_bytes a whole number of interleave_bytes chunks");
  if ((c.compiler.hoist_loads != 0 && c.compiler.hoist_loads != 1) || c.compiler.unroll < 1 ||
      c.compiler.max_hoisted_loads < 0 || c.compiler.window < 1 || c.compiler.window > 4096 ||
      !(c.compiler.load_register_share > 0 && c.compiler.load_register_share <= 1))
    return bad(
        "compiler: hoist_loads 0 or 1; unroll at least 1; max_hoisted_loads >= 0; window "
        "in 1..4096; load_register_share in (0, 1]");
  const TensorConfig& t = c.pipes.tensor;
  if (!(t.wgmma_columns_per_cycle > 0) || !(t.wgmma_issue_columns_per_cycle > 0) ||
      !(t.wgmma_latency_columns_per_cycle > 0) || t.wgmma_issue_base < 0 ||
      t.wgmma_latency_base < 0 || t.wgmma_chain_gap < 0)
    return bad(
        "tensor: wgmma_*_columns_per_cycle > 0; wgmma_issue_base, wgmma_latency_base, "
        "wgmma_chain_gap >= 0");
  if (c.async.cp_async_fill < 0 || c.async.tma_latency < 0 || c.async.tma_tensor_latency < 0 || c.async.tma_descriptor_latency < 0 || !(c.async.tma_bytes_per_cycle > 0) || !(c.async.tma_store_bytes_per_cycle > 0) ||
      c.async.try_wait_latency < 0 || c.async.try_wait_suspend < 1)
    return bad(
        "async: cp_async_fill, tma_latency, tma_tensor_latency, tma_descriptor_latency, try_wait_latency >= 0; tma_bytes_per_cycle, tma_store_bytes_per_cycle > 0; "
        "try_wait_suspend >= 1");
  if (c.cluster.gpcs < 1 || c.cluster.remote_latency < 0 ||
      !(c.cluster.remote_bytes_per_cycle > 0) || c.cluster.barrier_latency < 0 ||
      c.cluster.barrier_level_latency < 0 || c.cluster.barrier_warp_latency < 0 ||
      c.cluster.barrier_poll < 1 || !(c.shared.matrix_cycles > 0))
    return bad(
        "cluster: gpcs >= 1; remote_latency, barrier_latency, barrier_level_latency, barrier_warp_latency >= 0; remote_bytes_per_cycle > 0; "
        "barrier_poll >= 1; shared.matrix_cycles > 0");
  {
    // A list holding more SMs than core.sm_count is not an error: a preset derived with fewer
    // SMs (core.sm_count = 4 on the H100's) keeps the GPCs that fit (block_scheduler.cpp).
    std::istringstream in(c.cluster.gpc_sms);
    std::string word;
    while (in >> word)
      if (word.find_first_not_of("0123456789") != std::string::npos || word.size() > 6 ||
          std::stoll(word) < 1)
        return bad("cluster.gpc_sms: expected SM counts >= 1 separated by spaces, got '" + word + "'");
  }
  if (c.core.warp_scheduler != "lrr" && c.core.warp_scheduler != "gto")
    return bad("core.warp_scheduler: unknown policy '" + c.core.warp_scheduler + "' (lrr, gto)");
  for (const auto* r : {&c.l1.replacement, &c.l2.replacement})
    if (*r != "lru" && *r != "fifo")
      return bad("replacement: unknown policy '" + *r + "' (lru, fifo)");
  return Ok{};
}

std::string default_config_dir() { return WARPLAB_CONFIG_DIR; }

Expected<GpuConfig> parse_config(const std::string& text, const std::string& path,
                                 const std::string& config_dir) {
  return parse_impl(text, path, config_dir.empty() ? default_config_dir() : config_dir, 0);
}

Expected<GpuConfig> load_config(const std::string& name_or_path, const std::string& config_dir) {
  const std::string dir = config_dir.empty() ? default_config_dir() : config_dir;
  std::string path = name_or_path;
  const bool looks_like_path =
      name_or_path.find('/') != std::string::npos ||
      (name_or_path.size() > 5 && name_or_path.substr(name_or_path.size() - 5) == ".toml");
  if (!looks_like_path) path = dir + "/" + name_or_path + ".toml";
  if (input_file_problem(path) == "no such file") {
    std::string names;
    for (const auto& c : list_configs(dir)) names += (names.empty() ? "" : ", ") + c.name;
    return Error{"", 0, "unknown GPU config '" + name_or_path + "' (presets: " + names + ")"};
  }
  // A regular file of a preset's size only (--config /dev/zero is refused, not read forever).
  auto text = read_input_file(path, "preset file", kMaxPresetBytes);
  if (!text) return text.error();
  return parse_config(*text, path, dir);
}

std::vector<ConfigInfo> list_configs(const std::string& config_dir) {
  const std::string dir = config_dir.empty() ? default_config_dir() : config_dir;
  std::vector<ConfigInfo> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    if (e.path().extension() != ".toml") continue;
    ConfigInfo info{e.path().stem().string(), e.path().string(), ""};
    if (auto c = load_config(e.path().string(), dir))
      info.description = c->description;
    else
      info.description = "(invalid: " + c.error().to_string() + ")";
    out.push_back(info);
  }
  std::sort(out.begin(), out.end(), [](auto& a, auto& b) { return a.name < b.name; });
  return out;
}

}  // namespace warplab::timing
