// GPU configuration: every number the timing model uses, one typed struct per hardware unit.
//
// A real GPU's behaviour is set by a few hundred hardware parameters (how many SMs, how fast the
// clock runs, how big and how slow each cache is, how wide the DRAM bus is). WarpLab keeps the ones
// its model needs in the structs below, loads them from named preset files (configs/NAME.toml), and
// describes each field once (config_fields()) with its unit, so `warplab configs` and the UI can
// show students what every number means.
//
// Simplified: one clock domain (everything counts SM cycles); L1/shared carve-out is fixed per
// preset instead of chosen per kernel.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "sim/common/error.h"

namespace warplab::timing {

// SM core, block scheduling and launch. Defaults are the H100 SXM's.
struct CoreConfig {
  int64_t sm_count = 132;      // streaming multiprocessors
  double clock_mhz = 1980;     // SM clock
  int64_t sub_partitions = 4;  // SM sub-partitions (SMSPs), one warp scheduler each
  int64_t max_warps_per_sm = 64;
  int64_t max_blocks_per_sm = 32;
  int64_t max_threads_per_block = 1024;
  int64_t registers_per_sm = 65536;   // 32-bit registers
  int64_t register_alloc_unit = 256;  // registers per warp are allocated in these units
  int64_t max_registers_per_thread = 255;
  int64_t shared_per_sm = 233472;            // bytes (228 KiB)
  int64_t shared_per_block_max = 232448;     // bytes (227 KiB)
  int64_t shared_alloc_unit = 128;           // bytes
  int64_t shared_reserved_per_block = 1024;  // bytes the driver reserves per block (sm_80+)
  std::string warp_scheduler = "lrr";        // policy name (warp_scheduler.h)
  double block_dispatch_interval = 1.25;     // cycles between two block dispatches, GPU-wide
  int64_t block_launch_latency = 100;        // cycles from dispatch to the block's first issue
  double launch_overhead_us = 4.0;           // host launch + event overhead added to time_us
  // The SM clock while a kernel that issues mma.sync (HMMA) or wgmma (HGMMA) runs, in MHz; 0: the
  // kernel runs at clock_mhz (sim/timing/sm_clock.h).
  double mma_clock_mhz = 0;
  double wgmma_clock_mhz = 0;
};

// One functional-unit pipeline: how long until its result can be used, how often it accepts a warp.
struct PipeConfig {
  int64_t latency = 4;   // cycles from issue to a dependent instruction's issue
  int64_t interval = 1;  // cycles between two warp instructions on this pipe (per sub-partition)
  int64_t sfu_ops = 0;   // expanded instructions: how many of the sequence's instructions run on
                         // the SFU (XU) pipe, each holding it for sfu.interval
};

// The tensor pipe of one sub-partition (sim/timing/tensor_pipe.h): latency and issue interval of
// mma.sync by shape and input type (preset section [tensor]). Measured on the H100
// (scripts/microbench/h100-mma-timing-2026-11-26.tsv), except FP8 (see tensor_pipe.h).
struct TensorConfig {
  PipeConfig m16n8k16_f16{24, 6};   // f16 inputs (f32 or f16 accumulators)
  PipeConfig m16n8k16_bf16{24, 6};  // bf16 inputs
  PipeConfig m16n8k8_f16{17, 4};    // f16/bf16 inputs, half the K
  PipeConfig m16n8k8_tf32{24, 6};   // tf32 inputs (half the f16 rate per FLOP)
  PipeConfig m16n8k32_s8{24, 6};    // s8/u8 inputs (twice the f16 rate per operation)
  PipeConfig m16n8k32_fp8{52, 12};  // e4m3/e5m2: two f16 m16n8k16 and an FADD on sm_90 (inferred)
  // wgmma.mma_async m64nNk*, per SM (sim/timing/wgmma_pipe.h); H100 values, measured.
  double wgmma_columns_per_cycle = 2;        // N per cycle at the peak: interval >= N / this
  int64_t wgmma_issue_base = 16;             // cycles: interval >= this + N / the next
  double wgmma_issue_columns_per_cycle = 4;  // N per cycle above wgmma_issue_base
  int64_t wgmma_latency_base = 47;           // cycles: latency = this + N / the next
  double wgmma_latency_columns_per_cycle = 2;
  int64_t wgmma_chain_gap = 0;  // cycles more between two wgmmas of one warpgroup than of two
};

struct PipesConfig {
  PipeConfig fp32{4, 1}, integer{4, 2}, fp64{8, 2}, half{4, 1}, sfu{18, 8};
  PipeConfig branch{8, 1};    // latency: cycles before the next instruction can be fetched
  PipeConfig warp{24, 2};     // shfl/vote/match/redux
  PipeConfig barrier{20, 1};  // latency: cycles from the last arrival counted to release
  // cycles a block's barrier counter takes per warp arrival (block_barrier.h); 0: none
  double barrier_arrival_cycles = 0;
  // cycles from a compare that writes a predicate (ISETP/FSETP) to a branch that reads it: ptxas
  // keeps the compare's result from the branch this long (its stall count), longer than from an
  // instruction it predicates. 0: the compare's own latency.
  int64_t predicate_branch_latency = 0;
  PipeConfig misc{4, 1};
  PipeConfig ldst{4, 1};  // latency: address generation; interval: LSU issue rate
  // Integer multiplies (mul/mad .lo/.hi/.wide: IMAD) issue to the FMA pipe's heavy half, not to
  // the INT (ALU) pipe that shifts, logic and compares use.
  PipeConfig imad{4, 2};
  // Warp votes and matches, apart from shuffles (the `warp` pipe): VOTE answers sooner than SHFL,
  // MATCH.ANY later and one at a time per sub-partition (scripts/microbench/latency/chains.cu).
  // The defaults are the warp pipe's, for presets that do not measure them.
  PipeConfig vote{24, 2};   // vote.sync (VOTE.ANY/ALL, ballot)
  PipeConfig match{24, 2};  // match.any/all.sync (MATCH.ANY/ALL): a pipe of its own
  TensorConfig tensor;  // mma.sync (preset section [tensor])
  // PTX instructions that ptxas expands into a sequence of SASS instructions (an MUFU seed, FMA
  // refinement, a range check and a branch to a slow path that the model does not take).
  // interval: cycles the sub-partition's scheduler spends issuing the sequence (no other warp
  // issues meanwhile); sfu_ops: its instructions on the SFU (XU) pipe; latency: issue to
  // result. From the SASS and from scripts/microbench/expansion.cu, one op at a time
  // (validation/README.md).
  PipeConfig div_f32{58, 10, 2};   // div.rn.f32 (a / b): MUFU.RCP, FCHK, 5 FFMA, BSSY/BRA/BSYNC
  PipeConfig rcp_f32{77, 10, 1};   // rcp.rn.f32 (1.0f / x): MUFU.RCP, 2 FFMA, FADD, checks
  PipeConfig sqrt_f32{57, 10, 1};  // sqrt.rn.f32 (sqrtf): MUFU.RSQ, 2 FMUL, 2 FFMA, checks
  PipeConfig div_u32{61, 13, 0};   // div, rem on unsigned integers up to 32 bits: IMAD.HI chain
  PipeConfig div_s32{65, 17, 0};   // div, rem on signed integers up to 32 bits (IABS added)
  PipeConfig div_f64{125, 26, 0};  // div.rn.f64, rcp.rn.f64: MUFU.RCP64H, 7 DFMA, DMUL
  PipeConfig sqrt_f64{92, 27, 0};  // sqrt.rn.f64: MUFU.RSQ64H, DMUL/DFMA chain
};

struct SharedConfig {
  int64_t banks = 32;
  int64_t bank_bytes = 4;
  int64_t latency = 24;  // cycles, load-to-use with one wavefront
  int64_t wavefronts_per_cycle = 1;
  // ldmatrix/stmatrix: cycles of the SM's shared-memory pipe per 8x8 matrix moved
  // (shared_banks.h: matrix_access_cost counts the matrices' passes).
  double matrix_cycles = 1;
  int64_t mio_queue = 16;  // shared/SFU/shfl instructions waiting per SM (mio_throttle)
};

struct L1Config {
  int64_t size_bytes = 212992;  // data capacity left for L1 after the shared carve-out
  // L1 and shared memory are one array of unified_bytes per SM (0: not modelled, the L1 is always
  // size_bytes). A launch whose resident blocks need more shared memory than unified_bytes -
  // size_bytes gets the smallest carve-out of 0, 8, 16, 32, 64, 100, 132, 164, 196 or 228 KiB
  // (those up to core.shared_per_sm) that holds them, and the L1 keeps the rest.
  int64_t unified_bytes = 0;
  int64_t line_bytes = 128;
  int64_t sector_bytes = 32;
  int64_t assoc = 4;
  int64_t hit_latency = 36;            // cycles, load-to-use on a hit
  int64_t tag_lookups_per_cycle = 1;   // 128-byte lines the L1 t-stage resolves per cycle
  int64_t miss_lines_in_flight = 256;  // MSHRs: outstanding line misses per SM
  int64_t lsu_queue = 32;              // global/local instructions waiting per SM (lg_throttle)
  int64_t fence_sc_latency = 0;  // cycles a membar.gl/.sys or fence.sc.gpu/.sys holds its warp
  // The SM's store path to the L2 (l1tex.h): stores leave the SM one after another at this rate
  // (0: unlimited); a sector written whole costs 1, one written in part store_partial_sectors; at most
  // store_queue_sectors wait before the warps' global accesses throttle (lg_throttle).
  double store_sectors_per_cycle = 0;
  // Fences of one SM (l1tex.h): an SC fence of GPU scope ends at least fence_spacing cycles
  // after the SM's previous one; one issued within fence_join_cycles of it ends with it.
  int64_t fence_spacing = 0;
  int64_t fence_join_cycles = 0;
  double store_partial_sectors = 1;
  int64_t store_queue_sectors = 0;
  std::string replacement = "lru";     // policy name (replacement.h)
};

struct L2Config {
  int64_t size_bytes = 52428800;  // 50 MiB
  int64_t assoc = 16;
  int64_t slices = 96;
  int64_t hit_latency = 270;  // cycles, load-to-use from the SM on an L2 hit
  double sectors_per_cycle_per_slice = 1.0;
  int64_t atomic_latency = 12;  // cycles the slice's ALU adds for an atomic
  int64_t atomic_return_latency = 0;  // cycles more before an atomic's old value is back (ATOMG)
  // The slice's atomic unit works through a request sector by sector, and through lanes on one
  // address one after another: a request holds the unit for
  // max(sectors * atomic_sector_cycles, lanes on its busiest address * atomic_lane_cycles).
  double atomic_sector_cycles = 1.2;  // H100: a full-line 32-address RED every 4.85 cycles
  double atomic_lane_cycles = 1.45;   // H100: 32 lanes on one address every 46.5 cycles
  // Floating-point adds (atom/red .add.f32/.f64/.f16...) on one word wait for the unit's FP adder:
  // this many cycles per lane on the word, also between requests that update the same word one
  // after another (every warp's grand total on one address).
  double atomic_float_lane_cycles = 3.6;  // H100: 1.77 ns per lane, 1.85 ns per 1-lane warp
  int64_t slice_bytes = 512;          // consecutive address bytes one slice serves (then a hash)
  // Atomic units: slices / atomic_units slices share one (default: one per slice). An atomic
  // holds its slice for its sectors and its unit for the time above. 0: one unit per slice.
  int64_t atomic_units = 0;
  // 1: the atomic_units are a pool that every slice draws from instead of a fixed share: each
  // slice has its own atomic path (one request at a time, in order), and at most atomic_units
  // slices run an atomic at once (a request waits for its slice and for the first free unit).
  int64_t atomic_pool = 0;
  // A store that covers only part of a 32-byte sector is a read-modify-write of the slice's
  // ECC-protected data array: it holds the slice as long as this many whole-sector accesses.
  double partial_write_sectors = 2.0;
  double full_write_sectors = 1.0;  // slice time of a store's whole sector, in sector times
  double request_sectors = 0.0;  // slice time per request on top of its sectors (tag, header)
  // The same for a store request with a partly written sector (its read-modify-write); -1 (unset
  // in the preset): request_sectors x partial_write_sectors.
  double partial_request_sectors = -1.0;
  // Reads and stores queue on separate paths of a slice, but each also holds the other path
  // for this share of its slice time (the tag stage both go through): 0 = independent paths,
  // 1 = one queue for both.
  double rw_share = 0.0;
  // Dirty lines a set may hold (of assoc): a store that makes one more writes the set's line
  // made dirty first back to DRAM (it stays, clean). 0: no limit (dirty lines wait for eviction).
  int64_t dirty_ways = 0;
  int64_t fetch_bytes = 32;  // bytes a read miss fetches from DRAM (aligned sector group)
  // The link between the two L2 partitions (l2_fabric.h): bytes per cycle in each direction that
  // far lines' stores and read misses share; 0 = not modelled.
  double fabric_bytes_per_cycle = 0.0;
  std::string replacement = "lru";
};

struct DramConfig {
  int64_t latency = 400;  // cycles added to an L2 miss (beyond the L2 hit latency)
  int64_t bus_bits = 5120;
  double data_rate_mtps = 5238;  // mega-transfers per second per pin (2 x memory clock)
  double efficiency = 0.80;      // fraction of peak the bus sustains on open rows
  // 0: `efficiency` always. > 0: the bus reaches `efficiency` only with a deep queue; with q
  // transfers queued ahead on a channel it sustains efficiency * (q + 1) / (q + 1 + queue_half)
  // (a controller with more requests to choose from wastes fewer bus cycles; dram.h).
  double queue_half = 0;
  int64_t channels = 160;          // independent channels (HBM3: pseudo-channels, 32 per stack)
  int64_t interleave_bytes = 256;  // address bytes mapped to one channel before the next
  // Banks and rows (dram.h): each bank keeps one row open; a row miss pays t_rp + t_rcd, and a
  // channel activates rows at most every t_rrd and four per t_faw.
  int64_t banks = 32;        // banks per channel
  int64_t row_bytes = 1024;  // row (page) size per channel
  int64_t t_rcd = 28;        // cycles, activate to column access
  int64_t t_rp = 28;         // cycles, precharge (close the open row)
  int64_t t_rrd = 8;         // cycles, between two activations in one channel
  int64_t t_faw = 40;        // cycles, window holding at most four activations per channel
};

// What the model assumes the compiler (ptxas) did to the PTX it runs. The simulator issues the
// PTX, but the GPU runs ptxas's SASS: ptxas unrolls loops (4x on top of NVVM's own unrolling, as
// the SASS of the lesson kernels shows: 16 LDGs of matmul_naive's 4x-unrolled PTX loop issue
// before its first FFMA) and hoists independent loads above their uses, so a warp keeps many
// loads in flight. The model issues a warp's later loads while its next instruction waits,
// within the limits below (sm.h describes the rules).
struct CompilerConfig {
  int64_t hoist_loads = 1;         // 1: model ptxas's unrolling and load hoisting; 0: PTX order
  int64_t unroll = 4;              // loop copies a load may be hoisted across (ptxas's unroll)
  int64_t max_hoisted_loads = 32;  // loads issued ahead and not yet reached (registers hold them)
  // Registers that may hold loads in flight, as a share of the thread's registers: ptxas keeps
  // about half of them for load results and the rest for addresses, accumulators and the loop.
  double load_register_share = 0.5;
  int64_t window = 128;            // PTX instructions the model looks ahead of the waiting one
  // A forward conditional branch over at most this many PTX instructions (no branch among them)
  // is predicated by ptxas, not kept: loads move across it. A longer one stays a branch, and no
  // load moves above it (sm_compiler.cpp: guarded_branch).
  int64_t predicate_max_instructions = 7;
  // A loop's first peeled copy, inside an outer loop, whose loads are at least this many bytes a
  // thread (16: LDG.128, four registers each) loads through one register set: each of its loads
  // waits for the store before it (schedule.h: serial_copy_stores). 0: never.
  int64_t peeled_copy_serial_bytes = 0;
};

// Asynchronous copies and mbarriers (sim/timing/async_copy.h, tma.h). Defaults are the H100's
// (configs/h100-sxm.toml says where each comes from).
struct AsyncConfig {
  int64_t cp_async_fill = 16;        // cycles from a cp.async's bytes reaching L1 to shared memory
  int64_t tma_latency = 6;           // cycles from a bulk copy's last line (from L2) to shared
  double tma_bytes_per_cycle = 104;  // bytes a bulk copy moves per cycle per SM
  double tma_store_bytes_per_cycle = 32;  // bytes a shared->global bulk copy (a TMA store) moves
                                          // per cycle per SM
  int64_t tma_tensor_latency = 0;    // cycles a tensor copy adds: descriptor read, box walk
  int64_t tma_descriptor_latency = 0;  // cycles the TMA unit takes to fetch a tensor map it does
                                       // not hold (a global map's line read from the L2 adds)
  int64_t try_wait_latency = 31;     // cycles from a test/try_wait that succeeds to the next issue
  int64_t try_wait_suspend = 64;     // cycles a failed mbarrier.try_wait suspends its warp
};

// Thread-block clusters (sim/timing/dsmem.h, block_scheduler.h).
struct ClusterConfig {
  int64_t gpcs = 8;                    // GPCs: a cluster's blocks share one (SMs split evenly)
  std::string gpc_sms;                 // SMs of each GPC in SM order ("8 16 ..."), for clusters
                                       // of more than a TPC's 2 blocks; empty: gpcs equal parts
  int64_t remote_latency = 200;        // cycles: a remote shared::cluster load, issue -> data
  double remote_bytes_per_cycle = 32;  // bytes per cycle through an SM's port to other SMs
  int64_t barrier_latency = 190;       // cycles: the last barrier.cluster.arrive -> waiters go on
                                       // (a cluster of one block, one warp a sub-partition)
  int64_t barrier_level_latency = 0;   // cycles it adds per doubling of the cluster's size
  int64_t barrier_warp_latency = 0;    // cycles per warp on the SM beyond one a sub-partition
  int64_t barrier_poll = 32;           // cycles before a waiting barrier.cluster.wait tries again
};

struct GpuConfig {
  std::string name = "h100-sxm";
  std::string description;
  std::string source;  // file it was loaded from
  CoreConfig core;
  PipesConfig pipes;
  SharedConfig shared;
  L1Config l1;
  L2Config l2;
  DramConfig dram;
  CompilerConfig compiler;
  AsyncConfig async;
  ClusterConfig cluster;

  double peak_dram_bytes_per_second() const {
    return double(dram.bus_bits) / 8.0 * dram.data_rate_mtps * 1e6;
  }
  double peak_dram_bytes_per_cycle() const {
    return peak_dram_bytes_per_second() / (core.clock_mhz * 1e6);
  }
};

// Describes every field (section, key, unit, description, current value as text).
struct FieldView {
  std::string section, key, unit, description, value;
};
std::vector<FieldView> describe_config(const GpuConfig& config);

// Parses preset text (the flat TOML subset: [section], key = int | float | "string", # comments).
// A top-level `base = "NAME"` starts from another preset. Unknown keys, repeated keys and bad
// values are errors naming path:line. A base name is looked up in config_dir.
Expected<GpuConfig> parse_config(const std::string& text, const std::string& path,
                                 const std::string& config_dir);

// Loads a preset by name ("h100-sxm", looked up in the config directory) or by file path.
// config_dir "" means the built-in WARPLAB_CONFIG_DIR.
Expected<GpuConfig> load_config(const std::string& name_or_path,
                                const std::string& config_dir = "");

struct ConfigInfo {
  std::string name, path, description;
};
// The presets in the config directory, sorted by name.
std::vector<ConfigInfo> list_configs(const std::string& config_dir = "");
std::string default_config_dir();

// Checks the values make sense together (powers of two where needed, nonzero sizes).
Status validate_config(const GpuConfig& config);

}  // namespace warplab::timing
