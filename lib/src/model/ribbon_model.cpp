// Ribbon geometry and rate model (model/ribbon_model.h).
#include "model/ribbon_model.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "bloomtool/error.h"
#include "model/model.h"

namespace bloomtool {

namespace {

// Rows for n keys. Banding fails when some stretch of starts holds so many more keys than rows
// that the keys pushed past it no longer fit in their 128 rows; the longer the solution, the
// larger the crowding somewhere, so the share of extra rows grows with log2(n), by about 0.33
// percentage points for each doubling (RocksDB's ribbon_config.cc reports 0.38 for the same
// width). The share below makes about two attempts in three succeed from 10^4 to 10^7 keys
// (measured with bench/ribbon_bench: 64% at 10^6 keys, 3.9% extra rows; 60% at 10^7, 5.0%); 32
// rows more keep sets of a few hundred keys from failing at the ends of the band.
uint64_t ribbon_slots(uint64_t n) {
  if (n == 0) return 0;
  const double log2n = std::log2(static_cast<double>(n));
  const double eps = std::max(0.0, 0.0033 * log2n - 0.027);
  const double rows = static_cast<double>(n) * (1.0 + eps) + 32.0;
  const auto blocks = static_cast<uint64_t>(std::ceil(rows / kRibbonBlockRows));
  return std::max<uint64_t>(blocks, 3) * kRibbonBlockRows;
}

}  // namespace

uint64_t RibbonParams::solution_bits() const noexcept {
  return slots == 0 ? 0 : uint64_t{kRibbonBlockRows} * ribbon_payload_words(*this);
}

std::vector<uint64_t> RibbonParams::kind_params() const {
  return {upper_blocks, seed};
}

double ribbon_model_rate(const RibbonParams& p) noexcept {
  const uint64_t s = p.starts();
  if (s == 0) return 0.0;
  const double upper = static_cast<double>(std::min(s, p.upper_blocks * kRibbonBlockRows));
  const double lower = static_cast<double>(s) - upper;
  return (upper * std::ldexp(1.0, -static_cast<int>(p.columns) - 1) +
          lower * std::ldexp(1.0, -static_cast<int>(p.columns))) /
         static_cast<double>(s);
}

RibbonParams ribbon_params_for(uint64_t n, double p) {
  const RibbonParams r = ribbon_geometry(n, p);
  if (r.solution_bits() > model::kMaxBits) {
    throw Error(ErrorCode::kInvalidArgument,
                std::to_string(n) + " keys need more than 2^40 bits of solution");
  }
  return r;
}

RibbonParams ribbon_geometry(uint64_t n, double p) {
  if (!(p >= kRibbonMinRate && p <= kRibbonMaxRate)) {
    throw Error(ErrorCode::kInvalidArgument,
                "false-positive rate " + std::to_string(p) + " is outside [2^-30, 0.5]");
  }
  RibbonParams r;
  r.columns = std::clamp(static_cast<uint32_t>(std::floor(-std::log2(p))), 1u, 30u);
  // p * 2^r in (1/2, 1]: some share of upper blocks brings 2^-r down to p (none when p = 2^-r).
  if (n > (uint64_t{1} << 59)) {
    throw Error(ErrorCode::kInvalidArgument,
                std::to_string(n) + " keys are more than the 2^59 a Ribbon filter is sized for");
  }
  r.slots = ribbon_slots(n);
  if (r.slots == 0) return r;
  // The smallest share of upper blocks whose modelled rate is at most p.
  uint64_t lo = 0, hi = r.blocks();
  while (lo < hi) {
    r.upper_blocks = lo + (hi - lo) / 2;
    if (ribbon_model_rate(r) <= p)
      hi = r.upper_blocks;
    else
      lo = r.upper_blocks + 1;
  }
  r.upper_blocks = lo;
  return r;
}

std::string ribbon_params_from_file(uint32_t columns, uint64_t m,
                                    const std::vector<uint64_t>& kind_params, RibbonParams& out) {
  if (kind_params.size() != 2) return "Ribbon filters need 2 kind parameters";
  RibbonParams p;
  p.slots = m;
  if (columns < 1 || columns > kRibbonMaxColumns - 1)
    return "column count k=" + std::to_string(columns) + " is not in [1, 30]";
  p.columns = columns;
  p.upper_blocks = kind_params[0];
  p.seed = kind_params[1];
  if (m % kRibbonBlockRows != 0 || (m != 0 && m < 3 * kRibbonBlockRows))
    return "m=" + std::to_string(m) + " is not 0 or a multiple of 64 of at least 192";
  if (m > model::kMaxBits) return "m=" + std::to_string(m) + " exceeds 2^40 rows";
  if (p.upper_blocks > p.blocks())
    return "upper block count " + std::to_string(p.upper_blocks) + " exceeds the " +
           std::to_string(p.blocks()) + " blocks";
  if (p.solution_bits() > model::kMaxBits) return "the solution exceeds 2^40 bits";
  out = p;
  return {};
}

uint64_t ribbon_payload_words(const RibbonParams& p) noexcept {
  if (p.slots == 0) return 1;
  return p.blocks() * p.columns + detail::ribbon_stored_upper(p);
}

}  // namespace bloomtool
