// A fixed-size array of trivially copyable values that start as all-zero bytes, taken from
// calloc: a large one comes from pages the kernel hands out already zeroed, so memory the
// simulation never touches (most of a cold 50 MiB L2's tags for a small kernel) is neither
// written nor faulted in, where std::vector(n, 0) writes every byte (issue 26: a timing launch
// builds its caches anew). Aligned to `Align` bytes (at least alignof(T)).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <type_traits>

namespace warplab {

template <typename T, size_t Align = alignof(T)>
class ZeroedArray {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);
  static_assert(Align >= alignof(T) && (Align & (Align - 1)) == 0);

 public:
  ZeroedArray() = default;
  explicit ZeroedArray(size_t n) : size_(n) {
    if (n == 0) return;
    raw_.reset(std::calloc(n * sizeof(T) + Align, 1));
    if (!raw_) throw std::bad_alloc();
    const uintptr_t p = reinterpret_cast<uintptr_t>(raw_.get());
    data_ = reinterpret_cast<T*>((p + Align - 1) / Align * Align);
  }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  size_t size() const { return size_; }

 private:
  struct Free {
    void operator()(void* p) const { std::free(p); }
  };
  std::unique_ptr<void, Free> raw_;
  T* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace warplab
