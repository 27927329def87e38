#include "sim/func/mbarrier.h"

namespace warplab::func {

Mbarrier Mbarrier::decode(uint64_t word) {
  Mbarrier m;
  m.pending = static_cast<uint32_t>(word & kMaxCount);
  m.expected = static_cast<uint32_t>((word >> 20) & kMaxCount);
  const auto raw = static_cast<uint32_t>((word >> 40) & 0x1FFFFF);
  m.tx = (raw & 0x100000) ? static_cast<int32_t>(raw) - 0x200000 : static_cast<int32_t>(raw);
  m.valid = ((word >> 62) & 1) != 0;
  m.parity = ((word >> 63) & 1) != 0;
  return m;
}

uint64_t Mbarrier::encode() const {
  const auto tx21 = static_cast<uint64_t>(static_cast<uint32_t>(tx) & 0x1FFFFF);
  return uint64_t{pending} | uint64_t{expected} << 20 | tx21 << 40 | uint64_t{valid} << 62 |
         uint64_t{parity} << 63;
}

bool Mbarrier::try_complete() {
  if (pending != 0 || tx != 0) return false;
  parity = !parity;
  pending = expected;
  tx = 0;
  return true;
}

std::string Mbarrier::init(uint64_t count) {
  if (count < 1 || count > kMaxCount)
    return "mbarrier.init with a count of " + std::to_string(count) +
           " (the PTX ISA allows 1 to 1048575)";
  *this = Mbarrier{};
  pending = expected = static_cast<uint32_t>(count);
  valid = true;
  return "";
}

std::string Mbarrier::arrive(uint64_t count, bool drop, bool no_complete, bool& completed) {
  completed = false;
  if (!valid) return "arrive on an mbarrier that is not initialised (mbarrier.init first)";
  if (count < 1 || count > kMaxCount)
    return "arrive with a count of " + std::to_string(count) + " (the PTX ISA allows 1 to 1048575)";
  if (count > pending)
    return std::to_string(count) + " arrival(s) on an mbarrier whose phase waits for only " +
           std::to_string(pending) + " more (more arrivals than the mbarrier.init count)";
  if (drop) expected -= static_cast<uint32_t>(count);
  pending -= static_cast<uint32_t>(count);
  if (no_complete && pending == 0 && tx == 0)
    return "mbarrier.arrive.noComplete completed the phase (undefined in the PTX ISA)";
  completed = try_complete();
  return "";
}

std::string Mbarrier::expect_tx(uint64_t bytes) {
  if (!valid) return "expect_tx on an mbarrier that is not initialised (mbarrier.init first)";
  if (bytes > static_cast<uint64_t>(kMaxTx) || tx + static_cast<int64_t>(bytes) > kMaxTx)
    return "expect_tx of " + std::to_string(bytes) + " bytes takes the tx-count past 1048575";
  tx += static_cast<int32_t>(bytes);
  return "";
}

std::string Mbarrier::complete_tx(uint64_t bytes, bool& completed) {
  completed = false;
  if (!valid) return "complete_tx on an mbarrier that is not initialised (mbarrier.init first)";
  if (bytes > static_cast<uint64_t>(kMaxTx) || tx - static_cast<int64_t>(bytes) < -kMaxTx)
    return "complete_tx of " + std::to_string(bytes) + " bytes takes the tx-count below -1048575";
  tx -= static_cast<int32_t>(bytes);
  completed = try_complete();
  return "";
}

std::string Mbarrier::inval() {
  if (!valid) return "mbarrier.inval on an mbarrier that is not initialised";
  *this = Mbarrier{};
  return "";
}

bool Mbarrier::phase_done(uint64_t state_or_parity, bool parity_form) const {
  const bool p = parity_form ? (state_or_parity & 1) != 0 : parity_of(state_or_parity);
  return parity != p;
}

}  // namespace warplab::func
