// SASS offsets to PTX lines (gpu/sass_lines.h), on recorded tool output: tests/data/pcsamp/ holds
// two PTX files (lesson 2's strided_copy and lesson 7's two reductions, from `nvcc -ptx -lineinfo
// -arch=sm_90`, .file paths shortened) and what `ptxas -arch=sm_90 -lineinfo` + `nvdisasm -c -gp`
// (CUDA 13.0 ptxas, 13.1 nvdisasm) printed for them. Each mapping is checked against the PTX text
// itself: the line a load's SASS maps to must be the PTX line holding that load. No GPU needed;
// the last cases run the tools when the toolkit is installed, and the GPU when there is one.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gpu/backend.h"
#include "gpu/sass_lines.h"
#include "lab/line_stalls.h"
#include "sim/ptx/parser.h"

using namespace warplab;

namespace {

std::string read(const std::string& rel) {
  std::ifstream f(std::string(WARPLAB_SOURCE_DIR) + "/tests/data/pcsamp/" + rel);
  REQUIRE_MESSAGE(f.good(), rel);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out{""};  // 1-based
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

// The SASS instructions of `fn` whose opcode starts with `op`.
std::vector<gpu::SassInstruction> find_ops(const gpu::SassLineMap& m, const std::string& fn,
                                           const std::string& op) {
  std::vector<gpu::SassInstruction> out;
  for (const auto& [off, ins] : m.at(fn)) {
    std::string t = ins.text;
    if (t.rfind("@", 0) == 0) t = t.substr(t.find(' ') + 1);  // guard
    while (!t.empty() && t.front() == ' ') t.erase(t.begin());
    if (t.rfind(op, 0) == 0) out.push_back(ins);
  }
  return out;
}

}  // namespace

TEST_CASE("605 nvdisasm -gp: strided_copy's loads and stores map to the PTX lines that hold them") {
  const std::string ptx = read("strided_copy.ptx");
  const auto text = lines_of(ptx);
  auto m = gpu::parse_nvdisasm_ptx_lines(read("strided_copy.nvdisasm-gp.txt"), "fixture");
  REQUIRE_MESSAGE(m.has_value(), m.error().to_string());
  REQUIRE(m->size() == 1);
  REQUIRE(m->count("strided_copy") == 1);
  const auto& fn = m->at("strided_copy");
  // Offsets step by 16 bytes (one sm_90 instruction) from 0.
  CHECK(fn.begin()->first == 0);
  for (auto it = std::next(fn.begin()); it != fn.end(); ++it)
    CHECK(it->first == std::prev(it)->first + 16);
  const auto ldg = find_ops(*m, "strided_copy", "LDG");
  const auto stg = find_ops(*m, "strided_copy", "STG");
  REQUIRE(ldg.size() == 1);
  REQUIRE(stg.size() == 1);
  CHECK(text.at(ldg[0].ptx_line).find("ld.global.f32") != std::string::npos);
  CHECK(text.at(stg[0].ptx_line).find("st.global.f32") != std::string::npos);
  // The guarded early exit is the PTX's `@%p1 bra`.
  CHECK(fn.at(0x70).text == "@P0 EXIT ;");
  CHECK(text.at(fn.at(0x70).ptx_line).find("@%p1 bra") != std::string::npos);
  // Every recorded line is a PTX instruction or the kernel's opening brace (the prologue).
  for (const auto& [off, ins] : fn) {
    CAPTURE(off);
    REQUIRE(ins.ptx_line > 0);
    const std::string& l = text.at(ins.ptx_line);
    CHECK(l.find(".loc") == std::string::npos);
    CHECK(l.find_first_not_of(" \t") != std::string::npos);
  }
  CHECK(gpu::ptx_line_of(*m, "strided_copy", 0x70) == fn.at(0x70).ptx_line);
  CHECK(gpu::ptx_line_of(*m, "strided_copy", 0x10000) == 0);
  CHECK(gpu::ptx_line_of(*m, "other", 0) == 0);
}

TEST_CASE("605 nvdisasm -gp: two kernels; shared loads, barriers and shuffles on their lines") {
  const std::string ptx = read("reduce.ptx");
  const auto text = lines_of(ptx);
  auto m = gpu::parse_nvdisasm_ptx_lines(read("reduce.nvdisasm-gp.txt"), "fixture");
  REQUIRE_MESSAGE(m.has_value(), m.error().to_string());
  REQUIRE(m->size() == 2);
  for (const char* fn : {"reduce_shared", "reduce_warp_shuffle"}) {
    CAPTURE(fn);
    REQUIRE(m->count(fn) == 1);
    int checked = 0;
    for (const auto& [op, ptx_op] : std::vector<std::pair<std::string, std::string>>{
             {"LDS", "ld.shared"}, {"BAR.SYNC", "bar.sync"}, {"SHFL", "shfl.sync"},
             {"LDG", "ld.global"}, {"RED", "red."}, {"ATOM", "atom."}}) {
      for (const auto& ins : find_ops(*m, fn, op)) {
        CAPTURE(ins.text);
        CHECK(text.at(ins.ptx_line).find(ptx_op) != std::string::npos);
        ++checked;
      }
    }
    CHECK(checked >= 2);
  }
  // Source lines through the PTX's .loc: the shuffle's samples land on reduce.cu's own line
  // (the header's inlined __shfl_down_sync resolved to its call site), never on the header.
  auto mod = ptx::parse_module(ptx, "reduce.ptx");
  REQUIRE_MESSAGE(mod.has_value(), mod.error().to_string());
  std::map<int32_t, lab::StallMix> samples;
  for (const auto& ins : find_ops(*m, "reduce_warp_shuffle", "SHFL"))
    samples[ins.ptx_line]["stall_short_scoreboard"] += 10;
  REQUIRE_FALSE(samples.empty());
  lab::KernelLineStalls k = lab::kernel_stalls_from_ptx_lines(samples, *mod, "reduce_warp_shuffle", 0);
  REQUIRE_FALSE(k.by_source_line.empty());
  uint64_t on_source = 0;
  for (const auto& s : k.by_source_line) {
    CHECK(s.file == "lessons/07-reductions/reduce.cu");
    on_source += lab::mix_total(s.mix);
  }
  CHECK(on_source == lab::mix_total(k.total));
}

TEST_CASE("605 nvdisasm output errors name the line; no code section is an error") {
  auto bad = gpu::parse_nvdisasm_ptx_lines(
      "\t.section\t.text.k,\"ax\",@progbits\n\t//## File \".nv_debug_ptx_txt\" line 3\n", "out.txt");
  REQUIRE_FALSE(bad.has_value());
  CHECK(bad.error().file == "out.txt");
  CHECK(bad.error().line == 2);
  auto none = gpu::parse_nvdisasm_ptx_lines("\t.target\tsm_90\n", "out.txt");
  REQUIRE_FALSE(none.has_value());
  CHECK(none.error().message.find("no code section") != std::string::npos);
  // CUDA-source records (-g) are not PTX lines: the instruction keeps the last PTX line.
  auto mixed = gpu::parse_nvdisasm_ptx_lines(
      "\t.section\t.text.k,\"ax\",@progbits\n"
      "\t//## File \".nv_debug_ptx_txt\", line 7\n"
      "        /*0000*/                   LDC R1, c[0x0][0x28] ;\n"
      "\t//## File \"k.cu\", line 99\n"
      "        /*0010*/                   EXIT ;\n",
      "out.txt");
  REQUIRE(mixed.has_value());
  CHECK(gpu::ptx_line_of(*mixed, "k", 0x10) == 7);
  CHECK(mixed->at("k").at(0).text == "LDC R1, c[0x0][0x28] ;");
}

TEST_CASE("605 ptxas + nvdisasm on this machine give the recorded table (skipped without them)") {
  if (gpu::find_cuda_tool("ptxas").empty() || gpu::find_cuda_tool("nvdisasm").empty()) {
    MESSAGE("ptxas or nvdisasm not found: skipped");
    return;
  }
  auto b = gpu::build_sass_with_lines(read("strided_copy.ptx"), "strided_copy.ptx", 90);
  REQUIRE_MESSAGE(b.has_value(), b.error().to_string());
  CHECK(b->cubin.size() > 64);
  CHECK(b->cubin[0] == 0x7f);  // ELF
  auto recorded = gpu::parse_nvdisasm_ptx_lines(read("strided_copy.nvdisasm-gp.txt"), "fixture");
  REQUIRE(recorded.has_value());
  // The same PTX line for every load and store (ptxas versions may schedule the rest apart).
  for (const char* op : {"LDG", "STG"}) {
    auto now = find_ops(b->lines, "strided_copy", op);
    auto then = find_ops(*recorded, "strided_copy", op);
    REQUIRE(now.size() == then.size());
    for (size_t i = 0; i < now.size(); ++i) CHECK(now[i].ptx_line == then[i].ptx_line);
  }
  auto missing = gpu::build_sass_with_lines(".version 9.0\n.target sm_90\nnot ptx\n", "bad.ptx", 90);
  REQUIRE_FALSE(missing.has_value());
  CHECK(missing.error().file == "bad.ptx");
  CHECK(missing.error().message.find("ptxas failed") != std::string::npos);
}

TEST_CASE("605 on the GPU: PC samples of a stride-32 copy land on PTX lines, most on its memory lines") {
  auto gpu = gpu::Backend::open();
  if (!gpu) {
    MESSAGE("GPU test skipped: " << gpu.error().to_string());
    return;
  }
  const std::string ptx = read("strided_copy.ptx");
  const auto text = lines_of(ptx);
  const gpu::DeviceInfo& d = gpu->device();
  auto b = gpu::build_sass_with_lines(ptx, "strided_copy.ptx", d.cc_major * 10 + d.cc_minor);
  if (!b) {
    MESSAGE("GPU test skipped: " << b.error().to_string());
    return;
  }
  const int n = 1 << 22, stride = 32;
  std::vector<gpu::GpuBuffer> bufs = {{"x", std::vector<uint8_t>(size_t(n) * 4, 1)},
                                      {"y", std::vector<uint8_t>(size_t(n) * 4, 0)}};
  gpu::ParamBlock p;
  p.add_buffer(0);
  p.add_buffer(1);
  p.add(int32_t{n});
  p.add(int32_t{stride});
  gpu::GpuLaunch l;
  l.kernel = "strided_copy";
  l.grid = {static_cast<uint32_t>(n / 256), 1, 1};
  l.block = {256, 1, 1};
  p.fill(l);
  gpu::PcSamplingOptions o;
  o.period_log2 = 8;
  auto s = gpu->sample_pcs(b->cubin, "strided_copy.ptx", l, bufs, /*flush_l2=*/true, o);
  REQUIRE_MESSAGE(s.has_value(), s.error().to_string());
  if (!s->available) {
    MESSAGE("GPU test skipped: PC sampling unavailable: " << s->reason);
    return;
  }
  std::map<int32_t, uint64_t> by_line;
  std::map<int32_t, lab::StallMix> mix;
  uint64_t total = 0;
  for (const gpu::PcSample& smp : s->samples) {
    const int32_t line = gpu::ptx_line_of(b->lines, smp.function, smp.pc_offset);
    by_line[line] += smp.samples;
    mix[line][lab::model_reason_for_cupti(smp.reason)] += smp.samples;
    total += smp.samples;
  }
  REQUIRE(total > 1000);
  CHECK(by_line[0] * 100 < total);  // under 1% of samples on no line
  uint64_t memory = 0;
  int32_t top = 0;
  for (const auto& [line, c] : by_line) {
    if (line > 0 && (text.at(line).find("ld.global") != std::string::npos ||
                     text.at(line).find("st.global") != std::string::npos))
      memory += c;
    if (c > by_line[top]) top = line;
  }
  MESSAGE("MEASURE pc sampling strided_copy n=2^22 stride=32 period=2^8: "
          << total << " samples (" << s->dropped_samples << " dropped), top PTX line " << top
          << " `" << (top > 0 ? text.at(top) : "") << "` " << 100 * by_line[top] / total
          << "%, its top reason " << lab::mix_top(mix[top]) << "; on ld/st.global lines "
          << 100 * memory / total << "%; reasons: " << s->reasons_collected.size());
  // A strided copy waits on memory: most warp samples sit on its load and store lines.
  CHECK(memory * 2 > total);
}
