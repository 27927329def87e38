#include "gpu/launcher.h"

namespace warplab::gpu {

uint32_t ParamBlock::align_to(uint32_t align) {
  if (align == 0) align = 1;
  const uint32_t offset = (static_cast<uint32_t>(bytes_.size()) + align - 1) / align * align;
  bytes_.resize(offset, 0);
  return offset;
}

uint32_t ParamBlock::add_bytes(const void* data, uint32_t size, uint32_t align) {
  const uint32_t offset = align_to(align);
  bytes_.resize(offset + size);
  if (size) std::memcpy(bytes_.data() + offset, data, size);
  return offset;
}

Expected<std::vector<uint8_t>> patch_params(const GpuLaunch& launch,
                                            const std::vector<uint64_t>& addresses) {
  std::vector<uint8_t> out = launch.params;
  for (size_t i = 0; i < launch.buffer_params.size(); ++i) {
    const BufferPatch& p = launch.buffer_params[i];
    if (p.buffer >= addresses.size()) {
      return Error{"", 0,
                   "kernel " + launch.kernel + ": pointer argument " + std::to_string(i) +
                       " names buffer " + std::to_string(p.buffer) + " but the launch has " +
                       std::to_string(addresses.size()) + " buffers"};
    }
    if (uint64_t{p.param_offset} + 8 > out.size()) {
      return Error{"", 0,
                   "kernel " + launch.kernel + ": pointer argument " + std::to_string(i) +
                       " at parameter offset " + std::to_string(p.param_offset) +
                       " lies outside the " + std::to_string(out.size()) + "-byte parameter block"};
    }
    const uint64_t address = addresses[p.buffer] + p.byte_offset;
    std::memcpy(out.data() + p.param_offset, &address, sizeof(address));
  }
  return out;
}

Status validate_launch(const GpuLaunch& l) {
  auto fail = [&](const std::string& what) {
    return Error{"", 0, "launch of " + (l.kernel.empty() ? "<no kernel>" : l.kernel) + ": " + what};
  };
  if (l.kernel.empty()) return fail("no kernel name");
  if (l.grid.x == 0 || l.grid.y == 0 || l.grid.z == 0) return fail("grid has a zero dimension");
  if (l.block.x == 0 || l.block.y == 0 || l.block.z == 0) return fail("block has a zero dimension");
  if (l.block.count() > 1024) {
    return fail("block of " + std::to_string(l.block.count()) + " threads (at most 1024)");
  }
  if (l.block.x > 1024 || l.block.y > 1024 || l.block.z > 64) {
    return fail("block dimensions exceed 1024 x 1024 x 64");
  }
  if (l.grid.y > 65535 || l.grid.z > 65535) return fail("grid.y or grid.z exceeds 65535");
  if (l.grid.x > 0x7fffffffu) return fail("grid.x exceeds 2^31-1");
  return Ok{};
}

}  // namespace warplab::gpu
