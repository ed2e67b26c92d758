// Ribbon filter parameters, the rate model, and queries. A query computes the key's start and
// coefficient row (ribbon_mapping.h), reads the three words of each column that the 128 rows from
// the start fall in (blocks b, b + 1, b + 2), and checks that the rows selected by the
// coefficients xor to zero in every column of the start's block. Batched queries compute the rows
// of a group of keys and prefetch their blocks before reading any.
#include "filters/ribbon.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <string>

#include "bloomtool/error.h"
#include "filters/ribbon_mapping.h"
#include "model/model.h"

namespace bloomtool {

namespace {

using detail::RibbonRow;

constexpr size_t kGroup = 16;

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

// True when blocks b, b + 1 and b + 2 do not all exist and store the same columns.
inline bool ribbon_edge(const RibbonParams& p, uint64_t b) noexcept {
  const uint64_t stored = detail::ribbon_stored_upper(p);
  return (b < stored && b + 2 >= stored) || b + 2 >= p.blocks();
}

// The xor of the rows selected by `row` in one column, given the column's three words.
inline uint64_t column_parity(const RibbonRow& row, uint64_t w0, uint64_t w1, uint64_t w2,
                              unsigned o) noexcept {
  const uint64_t lo = detail::ribbon_window(w0, w1, o);
  const uint64_t hi = detail::ribbon_window(w1, w2, o);
  // __builtin_parityll folds the word in registers; std::popcount without -mpopcnt is a call.
  return static_cast<uint64_t>(__builtin_parityll((lo & row.lo) ^ (hi & row.hi)));
}

// True when the key with this row may be present: every column of its start's block gives the
// key's fingerprint bit.
inline bool ribbon_matches(const RibbonParams& p, const uint64_t* words,
                           const RibbonRow& row) noexcept {
  const uint64_t b = row.start / kRibbonBlockRows;
  const unsigned o = static_cast<unsigned>(row.start % kRibbonBlockRows);
  const uint32_t cols = detail::ribbon_block_columns(p, b);
  uint64_t diff = 0;
  if (!ribbon_edge(p, b)) {
    // Blocks b, b + 1 and b + 2 store `stride` columns each, one block after the other.
    const uint64_t* w = words + detail::ribbon_block_offset(p, b);
    const uint32_t stride = detail::ribbon_stored_columns(p, b);
    for (uint32_t j = 0; j < cols; ++j) {
      diff |= column_parity(row, w[j], w[stride + j], w[2 * stride + j], o) ^ ((row.fp >> j) & 1);
    }
    return diff == 0;
  }
  // The last two blocks: rows past the end read as zero (they are never selected).
  auto word = [&](uint64_t bb, uint32_t j) -> uint64_t {
    if (bb >= p.blocks() || j >= detail::ribbon_stored_columns(p, bb)) return 0;
    return words[detail::ribbon_block_offset(p, bb) + j];
  };
  for (uint32_t j = 0; j < cols; ++j) {
    diff |= column_parity(row, word(b, j), word(b + 1, j), word(b + 2, j), o) ^ ((row.fp >> j) & 1);
  }
  return diff == 0;
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
  if (!(p >= kRibbonMinRate && p <= kRibbonMaxRate)) {
    throw Error(ErrorCode::kInvalidArgument,
                "false-positive rate " + std::to_string(p) + " is outside [2^-30, 0.5]");
  }
  RibbonParams r;
  r.columns = std::clamp(static_cast<uint32_t>(std::floor(-std::log2(p))), 1u, 30u);
  // p * 2^r in (1/2, 1]: some share of upper blocks brings 2^-r down to p (none when p = 2^-r).
  if (n > model::kMaxBits / (r.columns + 1)) {
    throw Error(ErrorCode::kInvalidArgument,
                std::to_string(n) + " keys need more than 2^40 bits of solution");
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
  if (r.solution_bits() > model::kMaxBits) {
    throw Error(ErrorCode::kInvalidArgument,
                std::to_string(n) + " keys need more than 2^40 bits of solution");
  }
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

RibbonFilter::RibbonFilter(const RibbonParams& params, WordBuffer words)
    : params_(params), words_(std::move(words)) {
  RibbonParams checked;
  const std::string why =
      ribbon_params_from_file(params.columns, params.slots, params.kind_params(), checked);
  if (!why.empty()) throw Error(ErrorCode::kCorrupt, why);
  if (words_.size() != ribbon_payload_words(params_)) {
    throw Error(ErrorCode::kCorrupt, "solution of " + std::to_string(words_.size()) +
                                         " words does not match " + std::to_string(params_.slots) +
                                         " rows");
  }
  if (params_.slots == 0 && words_.data()[0] != 0)
    throw Error(ErrorCode::kCorrupt, "the empty set's payload word is not zero");
}

bool RibbonFilter::contains_hash(uint64_t h) const noexcept {
  if (params_.slots == 0) return false;
  return ribbon_matches(params_, words_.data(),
                        detail::ribbon_row(h, params_.seed, params_.starts()));
}

void RibbonFilter::visit_probed_words(std::span<const uint64_t> hashes, WordVisitor visit,
                                      void* ctx) const noexcept {
  if (params_.slots == 0) return;
  for (const uint64_t h : hashes) {
    const RibbonRow row = detail::ribbon_row(h, params_.seed, params_.starts());
    const uint64_t b = row.start / kRibbonBlockRows;
    const uint64_t first = detail::ribbon_block_offset(params_, b);
    const uint64_t last = detail::ribbon_block_offset(params_, std::min(b + 3, params_.blocks()));
    for (uint64_t w = first; w < last; ++w) visit(ctx, w);
  }
}

void RibbonFilter::contains_batch(std::span<const uint64_t> hashes, uint8_t* out) const noexcept {
  if (params_.slots == 0) {
    std::fill(out, out + hashes.size(), 0);
    return;
  }
  const uint64_t* words = words_.data();
  const uint64_t starts = params_.starts();
  RibbonRow rows[kGroup];
  for (size_t first = 0; first < hashes.size(); first += kGroup) {
    const size_t end = std::min(hashes.size(), first + kGroup);
    for (size_t j = first; j < end; ++j) {
      const RibbonRow row = rows[j - first] = detail::ribbon_row(hashes[j], params_.seed, starts);
      const uint64_t b = row.start / kRibbonBlockRows;
      const uint64_t* w = words + detail::ribbon_block_offset(params_, b);
      const uint64_t* last = w + 3 * detail::ribbon_block_columns(params_, b) - 1;
      for (; w < last; w += 8) __builtin_prefetch(w, 0, 0);
      __builtin_prefetch(last, 0, 0);
    }
    for (size_t j = first; j < end; ++j)
      out[j] = ribbon_matches(params_, words, rows[j - first]) ? 1 : 0;
  }
}

}  // namespace bloomtool
