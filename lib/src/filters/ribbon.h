// Static Ribbon filters (Dillinger & Walzer, "Ribbon filter: practically smaller than Bloom and
// Xor", 2021), standard Ribbon with 128-bit coefficient rows, over the 64-bit key hash of hash.h.
// Built once from the whole key set, like xor and binary fuse filters, at any rate from 1/2 down
// to 2^-30 without rounding the file up to whole bits per key.
//
// Each key hash gives (through the seed) a start s, a 128-bit coefficient row c whose first bit
// is set, and a fingerprint. The filter stores a solution Z: m rows of up to 31 bits. A key may
// be present iff, in every column the key is checked against, the xor of the rows s + i of Z with
// bit i of c set equals the fingerprint's bit. Construction finds a Z that makes this true for
// every key (ribbon_build.cpp); any other key matches a column with probability 1/2, whether or
// not its row is a sum of key rows, since its fingerprint is independent of Z.
//
// Fractional bits per key: rows are grouped in blocks of 64; the first `upper_blocks` blocks are
// checked in r + 1 columns and the others in r, by the block of the key's start. A key starting
// in an upper block is a false positive with probability 2^-(r+1), else 2^-r, so the share of
// upper blocks sets any rate between the two in proportion to the bits spent on it. This follows
// the column mixing of RocksDB's interleaved solution storage (util/ribbon_impl.h, "upper" and
// "lower" column counts), in blocks of 64 rows; column r is also stored in the two blocks after
// the upper ones, which the rows of keys starting in the last upper blocks reach into.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "base/word_buffer.h"
#include "bloomtool/error.h"
#include "filters/filter.h"
#include "model/ribbon_model.h"

namespace bloomtool {

class RibbonFilter final : public Filter {
 public:
  // Adopts a solution laid out as in the file payload (words in host order, as filter_file.h
  // returns them). Throws kCorrupt when the parameters are inconsistent, words has the wrong
  // size or the empty set's word is not zero. `hash_seed` is the key rule's seed (keys hash with
  // XXH3-64 and it, as the file says).
  RibbonFilter(const RibbonParams& params, WordBuffer words, uint64_t hash_seed = 0);

  bool contains_hash(uint64_t h) const noexcept override;
  void contains_batch(std::span<const uint64_t> hashes, uint8_t* out) const noexcept override;

  const RibbonParams& params() const noexcept { return params_; }
  std::span<const uint64_t> words() const noexcept override { return words_.span(); }
  void visit_probed_words(std::span<const uint64_t> hashes, WordVisitor visit,
                          void* ctx) const noexcept override;

 private:
  RibbonParams params_;
  WordBuffer words_;
};

}  // namespace bloomtool
