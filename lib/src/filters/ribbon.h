// Static Ribbon filters (Dillinger & Walzer, "Ribbon filter: practically smaller than Bloom and
// Xor", 2021), with 128-bit coefficient rows, over the 64-bit key hash of hash.h. Built once from
// the whole key set, like xor and binary fuse filters, at any rate from 1/2 down to 2^-30 without
// rounding the file up to whole bits per key.
//
// A filter is one layer (variant 0, standard Ribbon) or several (variant 1, bumped Ribbon after
// Walzer, Dillinger et al., "Fast Succinct Retrieval and Approximate Membership using Ribbon",
// 2022: "BuRR"). In a layer, each key hash gives (through the layer's seed) a start s, a 128-bit
// coefficient row c whose first bit is set, and a fingerprint. The layer stores a solution Z: m
// rows of up to 31 bits. A key may be present iff, in every column the key is checked against,
// the xor of the rows s + i of Z with bit i of c set equals the fingerprint's bit. Construction
// finds a Z that makes this true for every key (ribbon_construct.cpp); any other key matches a
// column with probability 1/2, whether or not its row is a sum of key rows, since its fingerprint
// is independent of Z.
//
// Bumping: every layer of variant 1 but the last has fewer rows than the keys that reach it, and
// a 2-bit code for each block of 64 starts; the code says below which offset in the block keys
// are left to the next layer (ribbon_mapping.h, ribbon_bumped). Such a key, member or not, is
// answered by the next layer alone; the last layer is a standard Ribbon with rows to spare.
//
// Fractional bits per key: rows are grouped in blocks of 64; in each layer the first
// `upper_blocks` blocks are checked in r + 1 columns and the others in r, by the block of the
// key's start. A key starting in an upper block is a false positive with probability 2^-(r+1),
// else 2^-r, so the share of upper blocks sets any rate between the two in proportion to the bits
// spent on it. This follows the column mixing of RocksDB's interleaved solution storage
// (util/ribbon_impl.h, "upper" and "lower" column counts), in blocks of 64 rows; column r is also
// stored in the two blocks after the upper ones, which the rows of keys starting in the last
// upper blocks reach into.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "base/word_buffer.h"
#include "bloomtool/error.h"
#include "filters/filter.h"
#include "model/ribbon_model.h"

namespace bloomtool {

// The ranges [first, last) of payload words that hold a bumped Ribbon filter's codes: the words
// a RibbonFilter reads when it is made (with the last payload word), so a raw payload's chunks
// holding them must be resident then.
std::vector<std::pair<uint64_t, uint64_t>> ribbon_code_words(const RibbonParams& p);

class RibbonFilter final : public Filter {
 public:
  // Adopts a payload laid out as in the file (words in host order, as filter_file.h returns
  // them). Throws kCorrupt when the parameters are inconsistent, words has the wrong size, a
  // layer without rows has a word that is not zero, or a bumping layer's codes do not give the
  // starts it says it bumps. `hash_seed` is the key rule's seed (keys hash with
  // XXH3-64 and it, as the file says).
  RibbonFilter(const RibbonParams& params, WordBuffer words, uint64_t hash_seed = 0);

  bool contains_hash(uint64_t h) const noexcept override;
  void contains_batch(std::span<const uint64_t> hashes, uint8_t* out) const noexcept override;

  const RibbonParams& params() const noexcept { return params_; }
  std::span<const uint64_t> words() const noexcept override { return words_.span(); }
  void visit_probed_words(std::span<const uint64_t> hashes, WordVisitor visit,
                          void* ctx) const noexcept override;

 private:
  // Where layer i's codes (in codes_) and solution (in words_) begin.
  struct LayerAt {
    const uint64_t* codes;
    const uint64_t* solution;
  };
  bool contains_from(uint64_t h, size_t layer) const noexcept;

  RibbonParams params_;
  WordBuffer words_;
  // The bumping layers' codes, copied when the filter is made: a raw (codec 2) payload's words
  // are read only in the chunks a query pins (load_filter.cpp), and whether a key goes to the
  // next layer, so which words it reads there, must be known before.
  std::vector<uint64_t> codes_;
  std::vector<LayerAt> at_;
};

}  // namespace bloomtool
