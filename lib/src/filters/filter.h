// The query interface every filter kind implements, so `query` and `stats` treat every kind and
// every key rule alike. A filter answers keys: it owns its key rule (key_rule.h). A filter whose
// rule takes the key's 64-bit xxh3 hash (rule().takes_key_hash()) also answers hashes, so that
// callers that hash keys once on their own threads skip hashing again. Queries never throw.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "filters/key_rule.h"

namespace bloomtool {

class BloomFilter;

class Filter {
 public:
  explicit Filter(const KeyRule& rule = {}) noexcept : rule_(rule) {}
  virtual ~Filter() = default;

  const KeyRule& rule() const noexcept { return rule_; }

  // out[i] = 1 if keys[i] may be in the set, else 0 (false means definitely absent). Keys are
  // normalised as the filter's file says. The default hashes with the rule's seed and calls
  // contains_batch.
  virtual void contains_keys(std::span<const std::string_view> keys, uint8_t* out) const noexcept;
  // Calls visit(ctx, w) with the index w of every payload word contains_keys(keys) may read
  // (some more than once), so that a lazily verified payload can check them first. The default
  // hashes and calls visit_probed_words.
  using WordVisitor = void (*)(void* ctx, uint64_t word) noexcept;
  virtual void visit_key_words(std::span<const std::string_view> keys, WordVisitor visit,
                               void* ctx) const noexcept;

  // The hash level, for a rule that takes_key_hash(): true if the key whose hash is h may be in
  // the set. A filter of another rule answers "maybe" to every hash (never a false negative).
  virtual bool contains_hash(uint64_t h) const noexcept = 0;
  // out[i] = contains_hash(hashes[i]); implementations prefetch to overlap memory latency.
  virtual void contains_batch(std::span<const uint64_t> hashes, uint8_t* out) const noexcept;
  // The words contains_batch(hashes) may read, as visit_key_words. The default visits nothing:
  // right for a filter without words().
  virtual void visit_probed_words(std::span<const uint64_t> hashes, WordVisitor visit,
                                  void* ctx) const noexcept;

  // The payload words, host order, as the file stores them (default: none).
  virtual std::span<const uint64_t> words() const noexcept;
  // The filter as a Bloom bit array (m, k, layout, set bits, reachable bits), whatever its key
  // rule; nullptr for a filter of another structure.
  virtual const BloomFilter* bloom() const noexcept { return nullptr; }

 private:
  KeyRule rule_;
};

}  // namespace bloomtool
