#include "lab/npy.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string_view>

#include "sim/common/input_file.h"
#include "sim/common/output_file.h"

namespace warplab::lab {
namespace {

// Finds 'key': in the header dict and returns the text after the colon (trimmed).
std::string dict_value(const std::string& header, const std::string& key) {
  for (const char* quote : {"'", "\""}) {
    std::string pat = quote + key + quote;
    size_t k = header.find(pat);
    if (k == std::string::npos) continue;
    k = header.find(':', k + pat.size());
    if (k == std::string::npos) return "";
    ++k;
    while (k < header.size() && header[k] == ' ') ++k;
    return header.substr(k);
  }
  return "";
}

}  // namespace

Expected<NpyArray> parse_npy(const std::vector<uint8_t>& b, const std::string& path) {
  auto fail = [&](const std::string& what) {
    return Error{path, 0, "not a valid .npy file: " + what};
  };
  static constexpr uint8_t kMagic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
  if (b.size() < 10 || std::memcmp(b.data(), kMagic, 6) != 0)
    return fail("missing the \\x93NUMPY magic");
  uint8_t major = b[6];
  size_t header_len, header_at;
  if (major == 1) {
    header_len = b[8] | (b[9] << 8);
    header_at = 10;
  } else if (major == 2 || major == 3) {
    if (b.size() < 12) return fail("truncated header");
    header_len = b[8] | (b[9] << 8) | (b[10] << 16) | (static_cast<size_t>(b[11]) << 24);
    header_at = 12;
  } else {
    return fail("unsupported version " + std::to_string(major));
  }
  if (header_at + header_len > b.size()) return fail("truncated header");
  std::string header(reinterpret_cast<const char*>(b.data() + header_at), header_len);

  NpyArray a;
  std::string descr = dict_value(header, "descr");
  if (descr.size() < 2) return fail("no 'descr' in header");
  char q = descr[0];
  size_t end = descr.find(q, 1);
  if (end == std::string::npos) return fail("bad 'descr'");
  descr = descr.substr(1, end - 1);
  auto type = elem_type_from_npy(descr);
  if (!type)
    return fail("dtype '" + descr + "' is not supported (little-endian " + elem_type_names() +
                " are)");
  a.type = *type;
  std::string fortran = dict_value(header, "fortran_order");
  if (fortran.rfind("True", 0) == 0)
    return fail("fortran_order arrays are not supported (save with np.ascontiguousarray)");
  std::string shape = dict_value(header, "shape");
  if (shape.empty() || shape[0] != '(') return fail("no 'shape' in header");
  size_t close = shape.find(')');
  if (close == std::string::npos) return fail("bad 'shape'");
  // Dimensions: plain decimal numbers (no sign), at most 32 of them, whose product and byte size
  // fit in 64 bits. Parsed in one pass (a long header must not cost quadratic time).
  const std::string_view dims(shape.data() + 1, close - 1);
  uint64_t count = 1;
  for (size_t pos = 0; pos < dims.size();) {
    while (pos < dims.size() && (dims[pos] == ' ' || dims[pos] == ',')) ++pos;
    if (pos >= dims.size()) break;
    if (!std::isdigit(static_cast<unsigned char>(dims[pos])))
      return fail("bad 'shape' " + shape.substr(0, std::min<size_t>(close + 1, 80)) +
                  " (dimensions are whole numbers >= 0)");
    uint64_t v = 0;
    while (pos < dims.size() && std::isdigit(static_cast<unsigned char>(dims[pos]))) {
      if (__builtin_mul_overflow(v, 10u, &v) || __builtin_add_overflow(v, dims[pos] - '0', &v))
        return fail("a 'shape' dimension does not fit in 64 bits");
      ++pos;
    }
    if (a.shape.size() == 32) return fail("more than 32 dimensions in 'shape'");
    a.shape.push_back(v);
    if (__builtin_mul_overflow(count, v, &count))
      return fail("the 'shape' holds more than 2^64 elements");
  }
  uint64_t bytes = 0;
  if (__builtin_mul_overflow(count, uint64_t{elem_size(a.type)}, &bytes))
    return fail("the 'shape' needs more than 2^64 bytes");
  size_t data_at = header_at + header_len;
  if (b.size() - data_at < bytes)
    return fail("data is " + std::to_string(b.size() - data_at) + " bytes, shape needs " +
                std::to_string(bytes));
  a.data.assign(b.begin() + static_cast<std::ptrdiff_t>(data_at),
                b.begin() + static_cast<std::ptrdiff_t>(data_at + bytes));
  return a;
}

Expected<NpyArray> read_npy(const std::string& path) {
  // The magic and version first, from the first bytes: a large file that is no .npy is refused
  // before it is read.
  auto head = read_input_prefix(path, ".npy file", 12);
  if (!head) return head.error();
  if (head->size() < 10 || head->compare(0, 6, "\x93NUMPY") != 0)
    return Error{path, 0, "not a valid .npy file: missing the \\x93NUMPY magic"};
  if ((*head)[6] < 1 || (*head)[6] > 3)
    return Error{path, 0,
                 "not a valid .npy file: unsupported version " +
                     std::to_string(static_cast<int>(static_cast<uint8_t>((*head)[6])))};
  constexpr uint64_t kMaxNpyBytes = uint64_t{4} << 30;  // 4 GiB: more than any buffer here
  auto text = read_input_file(path, ".npy file", kMaxNpyBytes);
  if (!text) return text.error();
  return parse_npy(std::vector<uint8_t>(text->begin(), text->end()), path);
}

std::vector<uint8_t> encode_npy(const NpyArray& a) {
  std::string shape = "(";
  for (size_t k = 0; k < a.shape.size(); ++k) shape += std::to_string(a.shape[k]) + ", ";
  if (a.shape.size() > 1)
    shape.resize(shape.size() - 2);
  else if (a.shape.size() == 1)
    shape.resize(shape.size() - 1);  // "(1024,)"
  shape += ")";
  std::string header = "{'descr': '" + std::string(npy_descr(a.type)) +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::vector<uint8_t> out = {0x93,
                              'N',
                              'U',
                              'M',
                              'P',
                              'Y',
                              1,
                              0,
                              static_cast<uint8_t>(header.size() & 0xff),
                              static_cast<uint8_t>(header.size() >> 8)};
  out.reserve(out.size() + header.size() + a.data.size());
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), a.data.begin(), a.data.end());
  return out;
}

Status write_npy(const std::string& path, const NpyArray& a) {
  std::vector<uint8_t> bytes = encode_npy(a);
  // A unique temporary beside the target, then a rename: a reader never sees half a file, and a
  // link planted in the folder is never written through (sim/common/output_file.h).
  return write_output_file(
      path, std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()),
      ".npy file");
}

}  // namespace warplab::lab
