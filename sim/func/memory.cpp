#include "sim/func/memory.h"

#include <algorithm>
#include <cstring>

namespace warplab::func {
namespace {
constexpr uint64_t kAlign = 256;       // cudaMalloc's alignment
constexpr uint64_t kGap = 1ull << 20;  // unmapped bytes between buffers (catches overruns)
uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }
}  // namespace

uint64_t DeviceMemory::allocate(const std::string& name, uint64_t bytes) {
  const uint64_t address = align_up(next_, kAlign);
  buffers_.push_back(BufferInfo{name, address, bytes, {}});
  storage_.emplace_back(bytes, uint8_t{0});
  next_ = align_up(address + std::max<uint64_t>(bytes, 1) + kGap, kAlign);
  return address;
}

int DeviceMemory::find_index(uint64_t address, uint64_t size) const {
  // Buffers are allocated at increasing addresses, so buffers_ is sorted.
  auto it = std::upper_bound(buffers_.begin(), buffers_.end(), address,
                             [](uint64_t a, const BufferInfo& b) { return a < b.address; });
  if (it == buffers_.begin()) return -1;
  --it;
  if (address - it->address > it->size || size > it->size - (address - it->address)) return -1;
  if (size == 0 && address == it->address + it->size && it->size != 0) return -1;
  return static_cast<int>(it - buffers_.begin());
}

const BufferInfo* DeviceMemory::find(uint64_t address, uint64_t size) const {
  const int i = find_index(address, size);
  return i < 0 ? nullptr : &buffers_[i];
}

const BufferInfo* DeviceMemory::nearest(uint64_t address) const {
  const BufferInfo* best = nullptr;
  uint64_t best_dist = ~0ull;
  for (const auto& b : buffers_) {
    const uint64_t end = b.address + b.size;
    const uint64_t dist = address < b.address ? b.address - address
                          : address >= end    ? address - end + 1
                                              : 0;
    if (dist < best_dist) best_dist = dist, best = &b;
  }
  return best;
}

uint8_t* DeviceMemory::data(uint64_t address) {
  const int i = find_index(address, 0);
  if (i < 0) return nullptr;
  return storage_[i].data() + (address - buffers_[i].address);
}

Status DeviceMemory::write(uint64_t address, const void* src, uint64_t n) {
  const int i = find_index(address, n);
  if (i < 0)
    return Error{"", 0,
                 "device write of " + std::to_string(n) + " bytes at 0x" + std::to_string(address) +
                     " is outside every buffer"};
  if (n) std::memcpy(storage_[i].data() + (address - buffers_[i].address), src, n);
  return Ok{};
}

Status DeviceMemory::read(uint64_t address, void* dst, uint64_t n) const {
  const int i = find_index(address, n);
  if (i < 0)
    return Error{"", 0,
                 "device read of " + std::to_string(n) + " bytes at 0x" + std::to_string(address) +
                     " is outside every buffer"};
  if (n) std::memcpy(dst, storage_[i].data() + (address - buffers_[i].address), n);
  return Ok{};
}

uint64_t DeviceMemory::module_variable(const std::string& key, const std::string& name,
                                       uint64_t bytes, const std::vector<uint8_t>& init) {
  for (const auto& b : buffers_)
    if (b.symbol_key == key) return b.address;
  const uint64_t address = allocate(name, bytes);
  buffers_.back().symbol_key = key;
  // An uninitialised variable has no init bytes (init.data() may be null: no memcpy from it).
  if (const uint64_t n = std::min<uint64_t>(init.size(), bytes); n)
    std::memcpy(storage_.back().data(), init.data(), n);
  return address;
}

bool DeviceMemory::append_printf(const std::string& text) {
  printf_produced_ += text.size();
  if (printf_.size() + text.size() > kPrintfBufferBytes) {
    ++printf_dropped_;
    return printf_produced_ <= kPrintfBudgetBytes;
  }
  printf_ += text;
  return true;
}

std::string DeviceMemory::take_printf() {
  std::string out = std::move(printf_);
  printf_.clear();
  if (printf_dropped_)
    out += "(" + std::to_string(printf_dropped_) +
           " printf call(s) dropped: the 1 MiB printf buffer was full, as the GPU's would be)\n";
  printf_dropped_ = 0;
  printf_produced_ = 0;
  return out;
}

}  // namespace warplab::func
