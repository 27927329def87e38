// The PTX front end on TMA tensor copies and tensor maps: every form nvcc and Triton emit parses
// into the IR the executor expects (the map and its coordinates, one bracket, become an address
// and a vector operand), and the wrong forms are errors naming the line and what was expected,
// or unsupported code naming the feature.
#include <doctest/doctest.h>

#include <string>

#include "sim/ptx/parser.h"

using namespace warplab::ptx;

namespace {

// The kernel's body starts on line 9.
std::string kernel_with(std::string_view body) {
  return std::string(".version 8.3\n.target sm_90a\n.address_size 64\n.visible .entry k(") +
         ".param .align 64 .b8 tmap[128])\n{\n\t.reg .pred %p<4>;\n\t.reg .b32 %r<8>;\n"
         "\t.reg .b64 %rd<8>;\n" +
         std::string(body) + "\n}\n";
}

const Instruction& only(const Module& m) {
  REQUIRE(m.functions.size() == 1);
  REQUIRE(m.functions[0].unsupported.empty());
  REQUIRE(m.functions[0].instructions.size() == 1);
  return m.functions[0].instructions[0];
}

std::string error_text(const std::string& body) {
  const std::string text = kernel_with(body);
  auto m = parse_module(text, "bad.ptx");
  if (m) {
    REQUIRE(!m->functions.empty());
    if (m->functions[0].unsupported.empty()) FAIL("expected an error for:\n" << text);
    return "unsupported: " + m->functions[0].unsupported[0].message;
  }
  CHECK_MESSAGE(m.error().line == 9, m.error().to_string());
  return m.error().message;
}

}  // namespace

TEST_CASE("107 cp.async.bulk.tensor: load, store and prefetch forms") {
  auto m = parse_module(kernel_with("\tcp.async.bulk.tensor.3d.shared::cluster.global.tile."
                                    "mbarrier::complete_tx::bytes [%r1], [%rd1, {%r2, %r3, %r4}], "
                                    "[%r5];"),
                        "t.ptx");
  REQUIRE_MESSAGE(m, (m ? "" : m.error().to_string()));
  const Instruction& load = only(*m);
  CHECK(load.op == Opcode::CpAsyncBulkTensor);
  CHECK(load.mod.tma_rank == 3);
  CHECK(load.space == Space::Shared);
  CHECK(load.mod.async_src == Space::Global);
  REQUIRE(load.ops.size() == 4);
  CHECK(load.ops[0].kind == Operand::Kind::Addr);
  CHECK(load.ops[1].kind == Operand::Kind::Addr);
  CHECK(load.ops[2].kind == Operand::Kind::Vec);
  CHECK(load.ops[2].vec_count == 3);
  CHECK(load.ops[3].kind == Operand::Kind::Addr);

  m = parse_module(kernel_with("\tcp.async.bulk.tensor.5d.global.shared::cta.bulk_group.L2::"
                               "cache_hint [tmap, {%r1, %r2, %r3, %r4, %r5}], [%r6], %rd2;"),
                   "t.ptx");
  REQUIRE_MESSAGE(m, (m ? "" : m.error().to_string()));
  const Instruction& store = only(*m);
  CHECK(store.space == Space::Global);
  CHECK(store.mod.bulk_group);
  REQUIRE(store.ops.size() == 4);
  CHECK(store.ops[0].scope == Operand::Scope::Param);  // the parameter named directly
  CHECK(store.ops[1].vec_count == 5);
  CHECK(store.ops[1].wide.size() == 5);

  m = parse_module(kernel_with("\tcp.async.bulk.prefetch.tensor.2d.L2.global.tile [%rd1, {%r1, "
                               "%r2}];"),
                   "t.ptx");
  REQUIRE_MESSAGE(m, (m ? "" : m.error().to_string()));
  CHECK(only(*m).op == Opcode::CpAsyncBulkPrefetchTensor);
}

TEST_CASE("107 tensor maps: prefetch.tensormap, tensormap.replace, cp_fenceproxy, the fences") {
  auto one = [](const std::string& body) -> Instruction {
    auto m = parse_module(kernel_with(body), "t.ptx");
    REQUIRE_MESSAGE(m, (m ? "" : m.error().to_string()));
    return only(*m);
  };
  CHECK(one("\tprefetch.tensormap [%rd1];").op == Opcode::PrefetchTensormap);
  CHECK(one("\tprefetch.param.tensormap [tmap];").space == Space::Param);
  Instruction r = one("\ttensormap.replace.tile.box_dim.shared::cta.b1024.b32 [%r1], 1, %r2;");
  CHECK(r.op == Opcode::TensormapReplace);
  CHECK(r.mod.tmap_field == 2);
  CHECK(r.space == Space::Shared);
  CHECK(r.ops.size() == 3);
  r = one("\ttensormap.replace.tile.global_address.global.b1024.b64 [%rd1], %rd2;");
  CHECK(r.mod.tmap_field == 0);
  CHECK(r.space == Space::Global);
  CHECK(one("\ttensormap.replace.tile.fill_mode.shared::cta.b1024.b32 [%r1], 0;").mod.tmap_field ==
        10);
  r = one("\ttensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync."
          "aligned [%rd1], [%r1], 128;");
  CHECK(r.op == Opcode::TensormapCpFenceproxy);
  CHECK(r.mod.mem_scope == MemScope::Gpu);
  r = one("\tfence.proxy.tensormap::generic.acquire.gpu [%rd1], 128;");
  CHECK(r.op == Opcode::Fence);
  CHECK(r.mod.proxy_tensormap);
  CHECK(r.ops.size() == 2);
  CHECK(one("\tfence.proxy.tensormap::generic.release.gpu;").ops.empty());
}

TEST_CASE("107 TMA errors: wrong forms name what was expected; unsimulated modes are refused") {
  CHECK(error_text("\tcp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::"
                   "bytes [%r1], [%rd1, {%r2}], [%r3];")
            .find("needs 2 coordinates, found 1") != std::string::npos);
  CHECK(error_text("\tcp.async.bulk.tensor.2d.shared::cluster.global.tile [%r1], [%rd1, {%r2, "
                   "%r3}], [%r4];")
            .find("completes with .mbarrier::complete_tx::bytes") != std::string::npos);
  CHECK(error_text("\tcp.async.bulk.tensor.shared::cluster.global.tile.mbarrier::complete_tx::"
                   "bytes [%r1], [%rd1, {%r2}], [%r3];")
            .find("needs a dimension (.1d to .5d)") != std::string::npos);
  CHECK(error_text("\tcp.async.bulk.tensor.2d.global.shared::cta.tile [%rd1, {%r2, %r3}], [%r4];")
            .find("needs .bulk_group") != std::string::npos);
  const std::string im2col =
      error_text("\tcp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::"
                 "bytes [%r1], [%rd1, {%r2, %r3, %r4}], [%r5], {%rs1};");
  CHECK(im2col.find("unsupported") == 0);
  CHECK(im2col.find("im2col") != std::string::npos);
  CHECK(error_text("\ttensormap.replace.tile.global_stride.global.b1024.b64 [%rd1], 4, %rd2;")
            .find("outside 0..3") != std::string::npos);
  CHECK(error_text("\ttensormap.replace.tile.rank.global.b1024.b64 [%rd1], 1;")
            .find("needs .b1024.b32") != std::string::npos);
  CHECK(error_text("\ttensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu."
                   "sync.aligned [%rd1], [%r1], 64;")
            .find("the constant 128") != std::string::npos);
  CHECK(error_text("\tfence.proxy.tensormap::generic.acquire.gpu [%rd1], 64;")
            .find("takes '[addr], 128'") != std::string::npos);
}

TEST_CASE("107 .ptr .align N: the pointee's alignment, not the parameter's (Triton's scratch pointers)") {
  auto m = parse_module(R"(.version 8.3
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 .ptr .global .align 1 a, .param .u32 n,
                  .param .u64 .ptr .global .align 1 scratch)
{
  ret;
})",
                        "t.ptx");
  REQUIRE(m);
  const Function& f = m->functions.at(0);
  CHECK(f.params[1].offset == 8);
  CHECK(f.params[2].offset == 16);  // 8-byte aligned, as the driver lays it out (not 12)
  CHECK(f.param_bytes == 24);
}
