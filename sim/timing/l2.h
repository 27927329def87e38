// The L2 cache: shared by all SMs, split into address-interleaved slices, backed by DRAM.
//
// Hardware: every SM's L1 misses, stores and atomics travel over the on-chip network to one L2
// slice chosen by address. Each slice is a sectored cache with its own tags and a limited rate
// (sectors per cycle); together the slices give the L2 several TB/s. On a miss the slice asks DRAM
// for the missing sectors. Stores are written into the L2 (write-back); dirty sectors go to DRAM
// when their line is evicted. Atomics are executed by ALUs next to the slice.
//
// Modelled: slices with a sectors-per-cycle queue each, a sectored cache per slice (write-back,
// write-allocate without fetching: stores mark their sectors valid and dirty), a fixed hit latency
// (as seen from the SM, so the network is folded in), DRAM on a miss, atomics serialized per slice
// (or per atomic unit that slices share, or per slice with at most l2.atomic_units slices at
// once: l2.atomic_pool).
// Floating-point add atomics: the H100 adds f32 REDs on one address at 3.5-3.7 cycles per lane,
// however they come (2..32 lanes of a warp, or one lane of many warps:
// scripts/microbench/h100-atomic-one-address-2026-11-25.tsv), the adder's read-modify-write of
// one word. The model makes that a chain per word: a word's updates wait for its previous update,
// atomic_float_lane_cycles per lane, while the unit takes other words' updates meanwhile at the
// integer rate (atomic_lane_cycles per further lane on one word). That the adder is pipelined over
// words is an assumption (scripts/microbench/atomic_float_words.cu measures it); holding the
// whole unit for a word's chain ran spmv_coo, whose warps add to many rows of one 512-byte
// chunk, at 2.0x the H100's time.
// Atomic units (l2.atomic_units, atomic_pool): with a pool, every slice runs its own atomics one
// at a time and at most atomic_units slices run one at once. Measured on the H100
// (scripts/microbench/h100-acc6c-2026-11-27.md): a few hot 512-byte chunks each run at their own
// slice's rate (histogram_skewed's 8 chunks), while the corpus's sequential one-word streams stay
// near 29 slices' rate; the GPU-wide rate alone (interleaved over 4096 chunks) is about 52.
// Which slice serves an address: consecutive 512-byte chunks (l2.slice_bytes) stay on one slice
// and a hash of the chunk number spreads chunks over slices. Measured on the H100 with global
// atomics (scripts/microbench, g_red_lines): 8 hot lines 128 bytes apart run only 2x faster than
// one line (they sit on 2 slices), 512 bytes apart 4x, 4 KiB apart 8x (8 slices).
// A read miss fetches whole aligned groups of l2.fetch_bytes (the H100 fetches 64-byte sector
// pairs by default), so a warp that uses one float per sector moves twice the bytes it needs.
// Its contents outlive a launch when the caller keeps one L2 across launches
// (TimingOptions::l2): a kernel launched again finds what the previous launch left there.
// Partial writes: a store covering part of a sector is a read-modify-write in the slice (ECC is
// kept per sector), so it holds the slice longer (l2.partial_write_sectors). When it misses, the
// sector holds only the new bytes: a later read fetches it from DRAM, and writing it back to DRAM
// is a read-modify-write there too (a DRAM read of the sector, then the write).
// Each request also costs its slice l2.request_sectors on top of its sectors (tag lookup and
// header: one lane per line runs at 1.67 sector times per request, not 1); a store request with a
// partly written sector l2.partial_request_sectors instead. Reads and stores go through separate
// paths of the slice, but both go through its tag lookups: each holds the other path for
// l2.rw_share of its time, from the request's arrival (the lookup comes first: a store waiting
// behind other stores does not hold up a read arriving now). The H100's L2-resident copies take
// their stores' time plus 0.40-0.85 of their loads' (scripts/microbench/h100-l2-rw-2026-11-27.tsv;
// 0.44 and the partial-store costs are fitted together there; not applied in the presets yet:
// configs/h100-sxm.toml). A whole-sector store
// holds its path l2.full_write_sectors sector times (the H100's L2-resident float4 stores alone
// take 1.44x its loads: the store data coming in through the crossbar port).
// Dirty lines: a set holds at most l2.dirty_ways of them; a store that makes one more writes
// the set's line made dirty first back to DRAM at once (it stays, clean). The H100 keeps about
// 22.3 MB of its 50 MiB dirty: 64 MiB of stores write 44.8 MB back during the kernel (same tsv).
// The two partitions and the link between them (l2_fabric.h): a store of a far line, and a read
// of a far line that misses, wait for the link's bandwidth (l2.fabric_bytes_per_cycle; 0 = none).
// Simplified: no network contention of its own.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "sim/timing/cache.h"
#include "sim/timing/config.h"
#include "sim/timing/dram.h"
#include "sim/timing/l2_fabric.h"
#include "sim/timing/turn_gate.h"

namespace warplab::timing {

struct L2Counters {
  uint64_t read_sector_hits = 0, read_sector_misses = 0;  // hits include merged ones (ncu)
  uint64_t write_sectors = 0, atomic_requests = 0;
  uint64_t writebacks = 0;          // dirty sectors written to DRAM
  uint64_t partial_writebacks = 0;  // of those: read-modify-writes
};

// The slice time of one store request (in sector times, before dividing by the slice's rate):
// `full` sectors it covers whole (full_write_sectors each), `part` it covers in part (each a
// read-modify-write of the ECC-protected sector, partial_write_sectors), and the request's own
// request_sectors, or partial_request_sectors when any sector is partial (negative:
// request_sectors x partial_write_sectors). Used by L2::write and by the app's memory-flow panel
// (ui/app/model/memory_flow.cpp).
double store_slice_sectors(const L2Config& l2, int full, int part);

class L2 {
 public:
  explicit L2(const GpuConfig& config);
  // A read of `sector_mask` of `line` arriving at cycle `now`: the cycle its data is back at the
  // SM. `dram_sectors` (optional) gets the number of sectors fetched from DRAM (fetch groups
  // included); `from_dram` (optional) gets the requested sectors whose data comes from DRAM
  // (fetched now, or merged into a fetch already in flight).
  uint64_t read(uint64_t line, uint32_t sector_mask, uint64_t now, int* dram_sectors = nullptr,
                uint32_t* from_dram = nullptr);
  // The earliest cycle read() can answer for a read arriving at `now`, whatever the L2 holds
  // (what a load held back to the cycle's end is known to take at least: l2_queue.h).
  uint64_t read_floor(uint64_t now) const;
  // A store of `sector_mask` arriving at `now`, covering `full_mask` of them completely and the
  // 32nds of the line in `word_mask`: the cycle it is complete in the L2.
  uint64_t write(uint64_t line, uint32_t sector_mask, uint32_t full_mask, uint32_t word_mask,
                 uint64_t now);
  // The earliest cycle write() can answer for a store arriving at `now`, whatever the L2 holds
  // (what a store held back to the cycle's end is known to take at least: l2_queue.h).
  uint64_t write_floor(uint64_t now) const;
  // An atomic on `sector_mask` of `line` whose lanes need `repeats` extra passes (per sector, the
  // most lanes on one of its words, less one, summed): the cycle its result is back at the SM.
  // `word`: the address of its busiest word; `float_add`: a floating-point add.
  uint64_t atomic(uint64_t line, uint32_t sector_mask, int repeats, uint64_t now,
                  uint64_t word = ~uint64_t{0}, bool float_add = false);

  // Sampled simulation (fast_forward.h): what a fast-forwarded access leaves in the L2, with no
  // time and no counters: the tags, the replacement order, the valid, dirty and partial sectors
  // change as read/write/atomic would change them; a dirty line it evicts is dropped (the
  // skipped waves' DRAM traffic is the sampler's to extrapolate). Returns the dirty sectors it
  // evicted.
  enum class Replay : uint8_t { Read, Store, Atomic };
  int replay(uint64_t line, uint32_t sector_mask, uint32_t full_mask, uint32_t word_mask,
             Replay kind);

  // A new launch on a warm L2 (back-to-back launches, as CUDA-event timings see them): the lines
  // and dirty sectors stay; queues, fill times and counters start again at cycle 0.
  void begin_launch();

  // The parallel loop's gate (turn_gate.h): read, write and atomic wait for the calling SM's
  // turn first, so the slices and DRAM see requests in the one-thread loop's order. nullptr: none.
  void set_gate(TurnGate* gate) { gate_ = gate; }
  TurnGate* gate() const { return gate_; }

  const L2Counters& counters() const { return counters_; }
  const Dram& dram() const { return dram_; }
  Dram& dram() { return dram_; }

 private:
  int slice_of(uint64_t line) const;
  uint32_t fetch_groups(uint32_t sector_mask) const;  // widened to aligned fetch_bytes groups
  // Holds a slice's read path (reads, atomics) or its write path (stores) for `sectors` sector
  // times from the first free cycle at or after `now`, and the other path for l2.rw_share of
  // them (from `now`, or after what it holds already); returns that start.
  uint64_t occupy(int slice, double sectors, uint64_t now, bool write_path = false);
  void write_back(const CacheAccess& a, uint64_t now);
  // The atomic path (l2.atomic_units, atomic_pool): when an atomic holding its unit `busy` cycles
  // and its slice's tags for `sectors` starts, at or after `now`; `chain` gets the index of the
  // same-word chain it belongs to (its unit, or its slice with a pool).
  double atomic_begin(int slice, int sectors, double busy, uint64_t now, int* chain);
  bool pooled() const;  // l2.atomic_pool with fewer units than slices

  const GpuConfig& config_;
  std::vector<SectoredCache> slices_;
  std::vector<double> slice_free_;  // per slice: when its read path is free
  std::vector<double> write_free_;  // per slice: when its write path is free
  std::vector<double> unit_free_;  // when each atomic unit is next free
  std::vector<uint64_t> unit_word_;  // the word each unit's last integer request updated most
  std::vector<double> atomic_free_;   // pool: per slice, when its atomic path is free
  std::vector<uint64_t> slice_word_;  // pool: the word each slice's last integer request updated
  // Per word a float add atomic updated this launch: when its adder finishes its last update.
  std::unordered_map<uint64_t, double> word_free_;
  std::vector<int> unit_of_;       // the atomic unit each slice shares (l2.atomic_units)
  Dram dram_;
  L2Fabric fabric_;  // the link between the two partitions (l2.fabric_bytes_per_cycle)
  L2Counters counters_;
  uint32_t line_bytes_, sector_bytes_;
  int lines_per_chunk_log2_;
  TurnGate* gate_ = nullptr;
};

}  // namespace warplab::timing
