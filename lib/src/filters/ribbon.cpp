// Ribbon filter queries. In each layer it reaches, a query computes the key's start and
// coefficient row (ribbon_mapping.h); in a bumping layer it reads the start's block code (one
// word) and goes on to the next layer if the code bumps the start; else it reads the three words
// of each column that the 128 rows from the start fall in (blocks b, b + 1, b + 2) and checks
// that the rows selected by the coefficients xor to the fingerprint in every column of the
// start's block. Batched queries compute the first layer's rows of a group of keys and prefetch
// their code and blocks before reading any.
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
inline bool ribbon_edge(const RibbonLayer& p, uint64_t b) noexcept {
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
inline bool ribbon_matches(const RibbonLayer& p, const uint64_t* words,
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
  const std::string why = ribbon_params_from_file(params.variant, params.columns, params.slots,
                                                  params.kind_params(), checked);
  if (!why.empty()) throw Error(ErrorCode::kCorrupt, why);
  if (words_.size() != ribbon_payload_words(params_)) {
    throw Error(ErrorCode::kCorrupt, "payload of " + std::to_string(words_.size()) +
                                         " words does not match " + std::to_string(params_.slots) +
                                         " rows");
  }
  const uint64_t* w = words_.data();
  for (const RibbonLayer& l : params_.layers) {
    codes_.insert(codes_.end(), w, w + l.code_words());
    w += ribbon_layer_words(l);
  }
  w = words_.data();
  for (size_t i = 0, code = 0; i < params_.layers.size(); ++i) {
    const RibbonLayer& l = params_.layers[i];
    at_.push_back({codes_.data() + code, w + l.code_words()});
    code += l.code_words();
    w += ribbon_layer_words(l);
    if (l.slots == 0 && at_.back().solution[0] != 0) {
      throw Error(ErrorCode::kCorrupt,
                  "layer " + std::to_string(i) + " has no rows but a word that is not zero");
    }
    if (!l.bumping) continue;
    // The codes must give the bumped starts the header states (the rate model counts them), and
    // the bits past the last block must be zero.
    const uint64_t* c = at_.back().codes;
    uint64_t bumped = 0, bumped_upper = 0;
    const uint64_t starts = l.starts();
    for (uint64_t b = 0; b < l.blocks(); ++b) {
      const unsigned code_b = static_cast<unsigned>(c[b / 32] >> (2 * (b % 32))) & 3;
      const uint64_t n = ribbon_code_bumped(code_b, detail::ribbon_block_starts(starts, b));
      bumped += n;
      if (b < l.upper_blocks) bumped_upper += n;
    }
    if (l.blocks() % 32 != 0 && (c[l.blocks() / 32] >> (2 * (l.blocks() % 32))) != 0) {
      throw Error(ErrorCode::kCorrupt,
                  "layer " + std::to_string(i) + " has codes past its last block");
    }
    if (bumped != l.bumped || bumped_upper != l.bumped_upper) {
      throw Error(ErrorCode::kCorrupt,
                  "layer " + std::to_string(i) + " codes bump " + std::to_string(bumped) +
                      " starts (" + std::to_string(bumped_upper) + " in upper blocks), not " +
                      std::to_string(l.bumped) + " (" + std::to_string(l.bumped_upper) + ")");
    }
  }
}

std::vector<std::pair<uint64_t, uint64_t>> ribbon_code_words(const RibbonParams& p) {
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  uint64_t at = 0;
  for (const RibbonLayer& l : p.layers) {
    if (l.code_words() > 0) ranges.emplace_back(at, at + l.code_words());
    at += ribbon_layer_words(l);
  }
  return ranges;
}

bool RibbonFilter::contains_from(uint64_t h, size_t i) const noexcept {
  for (; i < params_.layers.size(); ++i) {
    const RibbonLayer& l = params_.layers[i];
    if (l.slots == 0) return false;
    const RibbonRow row = detail::ribbon_row(h, l.seed, l.starts());
    if (l.bumping && detail::ribbon_bumped(at_[i].codes, row.start)) continue;
    return ribbon_matches(l, at_[i].solution, row);
  }
  return false;
}

bool RibbonFilter::contains_hash(uint64_t h) const noexcept {
  return contains_from(h, 0);
}

void RibbonFilter::visit_probed_words(std::span<const uint64_t> hashes, WordVisitor visit,
                                      void* ctx) const noexcept {
  const uint64_t* base = words_.data();
  for (const uint64_t h : hashes) {
    for (size_t i = 0; i < params_.layers.size(); ++i) {
      const RibbonLayer& l = params_.layers[i];
      if (l.slots == 0) break;
      const RibbonRow row = detail::ribbon_row(h, l.seed, l.starts());
      const uint64_t b = row.start / kRibbonBlockRows;
      // The codes are the filter's own copy: no payload word to visit.
      if (l.bumping && detail::ribbon_bumped(at_[i].codes, row.start)) continue;
      const uint64_t first = detail::ribbon_block_offset(l, b);
      const uint64_t last = detail::ribbon_block_offset(l, std::min(b + 3, l.blocks()));
      const auto solution = static_cast<uint64_t>(at_[i].solution - base);
      for (uint64_t w = first; w < last; ++w) visit(ctx, solution + w);
      break;
    }
  }
}

void RibbonFilter::contains_batch(std::span<const uint64_t> hashes, uint8_t* out) const noexcept {
  const RibbonLayer& l = params_.layers[0];
  if (l.slots == 0) {
    std::fill(out, out + hashes.size(), 0);
    return;
  }
  const uint64_t* words = at_[0].solution;
  const uint64_t* codes = at_[0].codes;
  const uint64_t starts = l.starts();
  RibbonRow rows[kGroup];
  for (size_t first = 0; first < hashes.size(); first += kGroup) {
    const size_t end = std::min(hashes.size(), first + kGroup);
    for (size_t j = first; j < end; ++j) {
      const RibbonRow row = rows[j - first] = detail::ribbon_row(hashes[j], l.seed, starts);
      const uint64_t b = row.start / kRibbonBlockRows;
      if (l.bumping) __builtin_prefetch(codes + b / 32, 0, 0);
      const uint64_t* w = words + detail::ribbon_block_offset(l, b);
      const uint64_t* last = w + 3 * detail::ribbon_block_columns(l, b) - 1;
      for (; w < last; w += 8) __builtin_prefetch(w, 0, 0);
      __builtin_prefetch(last, 0, 0);
    }
    for (size_t j = first; j < end; ++j) {
      const RibbonRow& row = rows[j - first];
      // A bumped key (a few in a hundred) is answered by the next layers, one at a time.
      if (l.bumping && detail::ribbon_bumped(codes, row.start))
        out[j] = contains_from(hashes[j], 1) ? 1 : 0;
      else
        out[j] = ribbon_matches(l, words, row) ? 1 : 0;
    }
  }
}

}  // namespace bloomtool
