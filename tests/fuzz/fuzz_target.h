// The interface every fuzz target implements: libFuzzer's. A target is one function that takes
// an input and returns 0; it must never crash, hang, leak or touch memory it does not own,
// whatever the bytes. Built with `clang++ -fsanitize=fuzzer` it runs under libFuzzer; otherwise
// tests/fuzz/driver.cpp supplies main() (a seed-corpus mutation driver, no compiler support
// needed). Either way the sanitizers (ASan, UBSan) are what turn a bug into a crash.
#pragma once

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
