// Device memory: the global-memory arena that kernels read and write.
//
// Buffers are allocated at 256-byte aligned device addresses (like cudaMalloc) in one address
// range, with gaps between them, so an out-of-bounds access by a kernel lands outside every buffer
// and is reported instead of silently touching a neighbour.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/common/error.h"

namespace warplab::func {

struct BufferInfo {
  std::string name;
  uint64_t address = 0;    // device address of byte 0
  uint64_t size = 0;       // bytes
  std::string symbol_key;  // non-empty for a module's .global/.const variable (allocated by the
                           // executor on first launch; `name` is then the PTX variable name)
};

class DeviceMemory {
 public:
  // Allocates `bytes` (zeroed) and returns its device address.
  uint64_t allocate(const std::string& name, uint64_t bytes);
  const std::vector<BufferInfo>& buffers() const { return buffers_; }
  // The buffer containing [address, address+size), or nullptr.
  const BufferInfo* find(uint64_t address, uint64_t size) const;
  // Index of that buffer in buffers(), or -1 (binary search).
  int find_index(uint64_t address, uint64_t size) const;
  // The buffer nearest to `address` (for error reports), or nullptr when there are none.
  const BufferInfo* nearest(uint64_t address) const;
  // A module variable's buffer: found by `key`, else allocated as `name` with `init` copied in.
  uint64_t module_variable(const std::string& key, const std::string& name, uint64_t bytes,
                           const std::vector<uint8_t>& init);
  // Host view of a buffer's bytes.
  uint8_t* data(uint64_t address);  // address must be inside a buffer
  std::vector<uint8_t>& bytes(size_t buffer_index) { return storage_[buffer_index]; }
  const std::vector<uint8_t>& bytes(size_t buffer_index) const { return storage_[buffer_index]; }
  Status write(uint64_t address, const void* src, uint64_t n);
  Status read(uint64_t address, void* dst, uint64_t n) const;

  // The device-side printf buffer (CUDA's is a FIFO in device memory, 1 MiB by default, that
  // the host reads at synchronisation points). Kernels' printf lines are appended in the order
  // the simulator executes them; what does not fit is dropped, as on the GPU, and counted.
  static constexpr size_t kPrintfBufferBytes = size_t{1} << 20;
  // The text printf calls may produce between two take_printf() (one launch, for the runner),
  // kept or dropped: past it append_printf answers false and the caller stops the launch.
  static constexpr uint64_t kPrintfBudgetBytes = uint64_t{64} << 20;
  bool append_printf(const std::string& text);
  // Takes what the launches since the last call printed ("" when nothing), with a note when
  // lines were dropped, and empties the buffer.
  std::string take_printf();

 private:
  std::vector<BufferInfo> buffers_;
  std::vector<std::vector<uint8_t>> storage_;
  uint64_t next_ = 0x7f0000000000ull;  // first device address handed out
  std::string printf_;
  uint64_t printf_dropped_ = 0;
  uint64_t printf_produced_ = 0;  // bytes offered to append_printf since the last take
};

}  // namespace warplab::func
