// Fuzz target: the .npy reader. Whatever the bytes, parse_npy returns an array whose data holds
// exactly count x element size bytes, or an Error; an array it accepts converts to every element
// type and survives an encode/parse round trip unchanged (a difference aborts: a bug).
#include <cstdlib>
#include <vector>

#include "lab/buffers.h"
#include "lab/npy.h"
#include "tests/fuzz/fuzz_target.h"

using namespace warplab::lab;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::vector<uint8_t> bytes(data, data + size);
  auto a = parse_npy(bytes, "fuzz.npy");
  if (!a) return 0;
  if (a->data.size() != a->count() * elem_size(a->type)) std::abort();
  for (ElemType t : {ElemType::F16, ElemType::F64, ElemType::I8, ElemType::U64})
    if (convert_elements(*a, t).size() != a->count() * elem_size(t)) std::abort();
  auto again = parse_npy(encode_npy(*a), "again.npy");
  if (!again || again->data != a->data || again->type != a->type || again->count() != a->count())
    std::abort();
  return 0;
}
