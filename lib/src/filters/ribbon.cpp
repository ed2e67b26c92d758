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
  if (!ribbon_edge(p, b)) {
    // Blocks b, b + 1 and b + 2 store `stride` columns each, one block after the other. A
    // non-member fails the first column half the time: stopping there saves the other columns.
    const uint64_t* w = words + detail::ribbon_block_offset(p, b);
    const uint32_t stride = detail::ribbon_stored_columns(p, b);
    for (uint32_t j = 0; j < cols; ++j) {
      if (column_parity(row, w[j], w[stride + j], w[2 * stride + j], o) != ((row.fp >> j) & 1))
        return false;
    }
    return true;
  }
  uint64_t diff = 0;
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

RibbonFilter::RibbonFilter(const RibbonParams& params, WordBuffer words, uint64_t hash_seed)
    : Filter(KeyRule{kHashXxh3_64, hash_seed}), params_(params), words_(std::move(words)) {
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
