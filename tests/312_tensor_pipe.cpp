// The tensor pipe (sim/timing/tensor_pipe.h): exact issue cycles of mma.sync chains and streams
// from the [tensor] preset entries, and ldmatrix/stmatrix bank passes (matrix_access_cost).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <sstream>
#include <string>

#include "sim/func/executor.h"
#include "sim/ptx/parser.h"
#include "sim/timing/gpu_model.h"
#include "sim/timing/shared_banks.h"

using namespace warplab;
using namespace warplab::timing;

namespace {

// One warp: three mma that each read the previous one's D as C (a chain, lines "chain"), then
// three on independent accumulators (a stream, lines "stream"). `form` is the mma mnemonic.
std::string kernel(const std::string& form) {
  std::ostringstream p;
  p << ".version 8.0\n.target sm_90\n.address_size 64\n"
    << ".visible .entry k(.param .u64 out)\n{\n"
    << "\t.reg .b32 %r<64>;\n\t.reg .b64 %rd<4>;\n"
    << "\tld.param.u64 %rd1, [out];\n\tcvta.to.global.u64 %rd2, %rd1;\n";
  for (int i = 0; i < 40; ++i) p << "\tmov.b32 %r" << i << ", 0;\n";
  p << "\t" << form << " {%r10,%r11,%r12,%r13}, {%r0,%r1,%r2,%r3}, {%r4,%r5}, {%r6,%r7,%r8,%r9};"
    << " // chain\n"
    << "\t" << form
    << " {%r14,%r15,%r16,%r17}, {%r0,%r1,%r2,%r3}, {%r4,%r5}, {%r10,%r11,%r12,%r13};"
    << " // chain\n"
    << "\t" << form
    << " {%r18,%r19,%r20,%r21}, {%r0,%r1,%r2,%r3}, {%r4,%r5}, {%r14,%r15,%r16,%r17};"
    << " // chain\n";
  for (int i = 0; i < 3; ++i)
    p << "\t" << form << " {%r" << 22 + 4 * i << ",%r" << 23 + 4 * i << ",%r" << 24 + 4 * i << ",%r"
      << 25 + 4 * i << "}, {%r0,%r1,%r2,%r3}, {%r4,%r5}, {%r6,%r7,%r8,%r9}; // stream\n";
  p << "\tst.global.b32 [%rd2], %r21;\n\tst.global.b32 [%rd2+4], %r30;\n\tret;\n}\n";
  return p.str();
}

// Issue cycles of warp slot 0's instructions on lines containing `marker`, in order.
std::vector<uint64_t> cycles_of(const std::string& text, const TimingResult& r,
                                const std::string& marker) {
  std::vector<int> lines;
  std::istringstream in(text);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n)
    if (line.find(marker) != std::string::npos) lines.push_back(n);
  std::vector<uint64_t> out;
  for (const auto& i : r.trace.issues)
    if (i.slot == 0 && std::find(lines.begin(), lines.end(), i.ptx_line) != lines.end())
      out.push_back(i.cycle);
  return out;
}

TimingResult run(const std::string& text, const GpuConfig& cfg) {
  auto m = ptx::parse_module(text, "tensor.ptx");
  REQUIRE_MESSAGE(m, (m ? "" : m.error().to_string()));
  auto prog = func::Program::load(std::move(*m));
  REQUIRE_MESSAGE(prog, (prog ? "" : prog.error().to_string()));
  func::DeviceMemory mem;
  const uint64_t out = mem.allocate("out", 8);
  func::LaunchConfig launch{"k", {1, 1, 1}, {32, 1, 1}, 0, {}};
  launch.params.resize(8);
  std::memcpy(launch.params.data(), &out, 8);
  TimingOptions o;
  o.trace.enabled = true;
  auto r = run_timing(*prog, mem, launch, cfg, o);
  REQUIRE_MESSAGE(r, (r ? "" : r.error().to_string()));
  REQUIRE_FALSE(r->fault);
  return std::move(*r);
}

}  // namespace

TEST_CASE(
    "312 a chain of dependent mma.sync issues exactly every latency; a stream every interval") {
  const std::string form = "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32";
  const std::string text = kernel(form);
  for (auto [latency, interval] : {std::pair{32, 8}, std::pair{20, 5}}) {
    CAPTURE(latency);
    GpuConfig cfg;
    cfg.pipes.tensor.m16n8k16_bf16 = {latency, interval};
    const TimingResult r = run(text, cfg);
    const auto chain = cycles_of(text, r, "// chain"), stream = cycles_of(text, r, "// stream");
    REQUIRE(chain.size() == 3);
    REQUIRE(stream.size() == 3);
    CHECK(chain[1] - chain[0] == uint64_t(latency));
    CHECK(chain[2] - chain[1] == uint64_t(latency));
    // The stream's first mma waits only for the pipe (the chain's last issued `interval` ago);
    // the others follow every `interval` cycles.
    CHECK(stream[0] - chain[2] == uint64_t(interval));
    CHECK(stream[1] - stream[0] == uint64_t(interval));
    CHECK(stream[2] - stream[1] == uint64_t(interval));
  }
}

TEST_CASE("312 each mma form is timed by its own [tensor] entry") {
  struct Form {
    std::string text;
    PipeConfig TensorConfig::*entry;
  };
  const Form forms[] = {
      {"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", &TensorConfig::m16n8k16_f16},
      {"mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", &TensorConfig::m16n8k16_bf16},
      {"mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", &TensorConfig::m16n8k8_tf32},
      {"mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32", &TensorConfig::m16n8k32_s8},
      {"mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32", &TensorConfig::m16n8k32_fp8},
  };
  for (const Form& f : forms) {
    CAPTURE(f.text);
    GpuConfig cfg;
    cfg.pipes.tensor = TensorConfig{{11, 2}, {11, 2}, {11, 2}, {11, 2}, {11, 2}, {11, 2}};
    cfg.pipes.tensor.*f.entry = {37, 3};  // only this form's entry differs
    const std::string text = kernel(f.text);
    const TimingResult r = run(text, cfg);
    const auto chain = cycles_of(text, r, "// chain"), stream = cycles_of(text, r, "// stream");
    REQUIRE(chain.size() == 3);
    REQUIRE(stream.size() == 3);
    CHECK(chain[1] - chain[0] == 37);
    CHECK(stream[2] - stream[1] == 3);
  }
  // m16n8k8 with f16 inputs has an entry of its own too.
  GpuConfig cfg;
  cfg.pipes.tensor.m16n8k8_f16 = {19, 4};
  const std::string k8 = "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32";
  // m16n8k8 f16 takes 2 A registers and 1 B register: adapt the kernel's operand lists.
  std::string text = kernel(k8);
  const std::string k16_ab = "{%r0,%r1,%r2,%r3}, {%r4,%r5}";
  for (size_t at; (at = text.find(k16_ab)) != std::string::npos;)
    text.replace(at, k16_ab.size(), "{%r0,%r1}, {%r4}");
  const TimingResult r = run(text, cfg);
  const auto chain = cycles_of(text, r, "// chain"), stream = cycles_of(text, r, "// stream");
  REQUIRE(chain.size() == 3);
  CHECK(chain[2] - chain[1] == 19);
  CHECK(stream[1] - stream[0] == 4);
}

TEST_CASE("312 ldmatrix/stmatrix bank passes: one per 8x8 matrix unless its rows share banks") {
  std::array<uint64_t, 32> addr{};
  // x4 with rows 16 bytes apart (matrix i at 128*i): each matrix's rows cover all 32 banks.
  for (int l = 0; l < 32; ++l) addr[l] = 16 * l;
  SharedAccessCost c = matrix_access_cost(addr, 0xFFFFFFFFu, 32, 4);
  CHECK(c.wavefronts == 4);
  CHECK(c.bank_conflicts() == 0);
  CHECK(matrix_access_cost(addr, 0xFFu, 32, 4).wavefronts == 1);    // x1
  CHECK(matrix_access_cost(addr, 0xFFFFu, 32, 4).wavefronts == 2);  // x2
  // A 16x16 bf16 tile with 32-byte rows (row r at 32*r): rows r and r+4 share a bank group:
  // two passes per matrix.
  for (int l = 0; l < 32; ++l) addr[l] = 32 * (l % 8) + 512 * (l / 8);
  c = matrix_access_cost(addr, 0xFFFFFFFFu, 32, 4);
  CHECK(c.wavefronts == 8);
  CHECK(c.bank_conflicts() == 4);
  // Rows 128 bytes apart all fall in one bank group: 8 passes for one matrix.
  for (int l = 0; l < 8; ++l) addr[l] = 128 * l;
  CHECK(matrix_access_cost(addr, 0xFFu, 32, 4).wavefronts == 8);
  // Lanes giving the same row share it (no extra pass).
  for (int l = 0; l < 8; ++l) addr[l] = 64;
  CHECK(matrix_access_cost(addr, 0xFFu, 32, 4).wavefronts == 1);
}

TEST_CASE("312 ldmatrix's result is ready latency + wavefronts - 1 cycles after it issues") {
  // Lane l gives row address l * stride (bytes) in a 2 KB shared array; the add uses the result.
  auto text_for = [](int num, int stride) {
    std::ostringstream p;
    std::string regs = "{";
    for (int i = 0; i < num; ++i) regs += (i ? ", %r" : "%r") + std::to_string(10 + i);
    regs += "}";
    p << ".version 8.0\n.target sm_90\n.address_size 64\n"
      << ".visible .entry k(.param .u64 out)\n{\n\t.reg .b32 %r<20>;\n\t.reg .b64 %rd<4>;\n"
      << "\t.shared .align 16 .b8 sm[2048];\n"
      << "\tld.param.u64 %rd1, [out];\n\tcvta.to.global.u64 %rd2, %rd1;\n"
      << "\tmov.u32 %r0, %tid.x;\n\tmul.lo.u32 %r1, %r0, " << stride << ";\n"
      << "\tmov.u32 %r2, sm;\n\tadd.u32 %r3, %r2, %r1;\n"
      << "\tldmatrix.sync.aligned.m8n8.x" << num << ".shared.b16 " << regs << ", [%r3]; // ldm\n"
      << "\tadd.u32 %r4, %r10, 1; // use\n"
      << "\tst.global.u32 [%rd2], %r4;\n\tret;\n}\n";
    return p.str();
  };
  struct Case {
    int num, stride, wavefronts;
  };
  // 16-byte rows: conflict-free (1 pass per matrix); 32-byte rows: rows r and r+4 of a matrix
  // share a bank group (2 passes per matrix).
  for (const Case c : {Case{1, 16, 1}, Case{2, 16, 2}, Case{4, 16, 4}, Case{4, 32, 8}}) {
    CAPTURE(c.num);
    CAPTURE(c.stride);
    GpuConfig cfg;
    const std::string text = text_for(c.num, c.stride);
    const TimingResult r = run(text, cfg);
    const auto ldm = cycles_of(text, r, "// ldm"), use = cycles_of(text, r, "// use");
    REQUIRE(ldm.size() == 1);
    REQUIRE(use.size() == 1);
    CHECK(use[0] - ldm[0] == uint64_t(cfg.shared.latency + c.wavefronts - 1));
  }
}

TEST_CASE("312 the h100-sxm preset times mma.sync as measured on the H100") {
  // scripts/microbench/h100-mma-timing-2026-11-26.tsv: m16n8k16 24 cycles dependent, one warp mma
  // every 6.04-6.17 cycles per scheduler; m16n8k8 f16 17 and 4.05-4.12.
  auto cfg = load_config("h100-sxm");
  REQUIRE_MESSAGE(cfg, (cfg ? "" : cfg.error().to_string()));
  const std::string text = kernel("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32");
  const TimingResult r = run(text, *cfg);
  const auto chain = cycles_of(text, r, "// chain"), stream = cycles_of(text, r, "// stream");
  REQUIRE(chain.size() == 3);
  REQUIRE(stream.size() == 3);
  CHECK(chain[1] - chain[0] == 24);
  CHECK(stream[2] - stream[1] == 6);
  CHECK(cfg->pipes.tensor.m16n8k8_f16.latency == 17);
  CHECK(cfg->pipes.tensor.m16n8k8_f16.interval == 4);
}
