// Bloom filters: one bit array (bit i is bit i mod 64 of word i / 64, as in every bloomtool Bloom
// payload) under a key rule (key_rule.h). The xxh3 rule takes the key's 64-bit hash and lays the
// filter out standard (k positions anywhere in m bits) or blocked (all k positions inside one
// 512-bit, cache-line-sized block); the peers' rules (Guava, DCSO) take positions from the key
// bytes, standard layout only, bit for bit as the peers compute them, so bloomtool builds, queries,
// checks and converts the filters those tools load.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "base/word_buffer.h"
#include "filters/filter.h"
#include "filters/key_rule.h"

namespace bloomtool {

enum class BloomVariant : uint32_t { kStandard = 0, kBlocked512 = 1 };

// Returns "standard" or "blocked"; parse_bloom_variant throws kInvalidArgument on other names.
const char* bloom_variant_name(BloomVariant v) noexcept;
BloomVariant parse_bloom_variant(const char* name);

// The model (model.h) that describes a Bloom filter's bits under a key rule and layout: the xxh3
// rule's index scheme in the standard layout (index_model.h: its positions of a key may
// coincide), the blocked layout's, or the textbook model of k independent uniform positions (the
// peers' rules, over the bits they reach: scheme_reachable_bits).
enum class BloomModel { kIndexScheme, kBlocked, kTextbook };
BloomModel bloom_model(uint32_t hash_id, BloomVariant variant) noexcept;

class BloomFilter final : public Filter {
 public:
  // An empty xxh3 filter (seed 0) of m bits (rounded up to a multiple of 512 for the blocked
  // variant) and k hashes. Throws kInvalidArgument when m or k is out of range.
  BloomFilter(uint64_t m_bits, uint32_t k, BloomVariant variant = BloomVariant::kStandard);
  // Adopts words read from a file; words.size() must equal word_count(m_bits).
  BloomFilter(uint64_t m_bits, uint32_t k, BloomVariant variant, WordBuffer words);
  // A filter of any rule: empty (no words: as the first constructor, for a peer's rule sized
  // exactly m) or adopting `words` (word_count(m) of them, bits at and above m zero). A peer's
  // rule takes the standard layout and a geometry scheme_geometry_problem accepts; else throws
  // kInvalidArgument.
  BloomFilter(const KeyRule& rule, uint64_t m_bits, uint32_t k,
              BloomVariant variant = BloomVariant::kStandard, WordBuffer words = {});

  // The hash level (xxh3 rule; see filter.h).
  void add(uint64_t h) noexcept;
  void add_batch(std::span<const uint64_t> hashes) noexcept;
  // Like add_batch, but safe to call from several threads at once on the same filter (atomic OR);
  // the resulting bits are the same whatever the interleaving.
  void add_batch_concurrent(std::span<const uint64_t> hashes) noexcept;
  bool contains_hash(uint64_t h) const noexcept override;
  void contains_batch(std::span<const uint64_t> hashes, uint8_t* out) const noexcept override;
  void visit_probed_words(std::span<const uint64_t> hashes, WordVisitor visit,
                          void* ctx) const noexcept override;

  // The key level, every rule.
  void add_key(std::string_view key) noexcept;
  // Adds the keys, the words fetched ahead (one writer at a time).
  void add_keys(std::span<const std::string_view> keys) noexcept;
  // Adds with atomic stores: several threads may add to the same filter at once.
  void add_keys_concurrent(std::span<const std::string_view> keys) noexcept;
  // Adds and reports whether any bit was newly set (DCSO counts such keys as its N).
  bool add_counting(std::string_view key) noexcept;
  bool contains(std::string_view key) const noexcept;
  void contains_keys(std::span<const std::string_view> keys, uint8_t* out) const noexcept override;
  void visit_key_words(std::span<const std::string_view> keys, WordVisitor visit,
                       void* ctx) const noexcept override;

  // Positions: the k bit positions of a key; `out` must hold k() entries.
  void positions(std::string_view key, uint64_t* out) const noexcept;
  // The positions of every key, key after key (key i's at out[i * k()]); `out` must hold
  // keys.size() * k() entries. The 32-bit form is for a filter of at most 2^32 bits.
  void positions_batch(std::span<const std::string_view> keys, uint64_t* out) const noexcept;
  void positions_batch(std::span<const std::string_view> keys, uint32_t* out) const noexcept;
  // Sets the bits of the keys whose positions are given (k() per key, as positions_batch writes
  // them), in order, and returns how many keys set a new bit: add_counting key after key, with
  // the words fetched ahead. A partial key at the end is ignored.
  uint64_t add_counting_positions(std::span<const uint64_t> positions) noexcept;
  uint64_t add_counting_positions(std::span<const uint32_t> positions) noexcept;

  uint64_t bits() const noexcept { return m_; }
  uint32_t k() const noexcept { return k_; }
  BloomVariant variant() const noexcept { return variant_; }
  // The bits the rule's positions can fall on (scheme_reachable_bits): m but for guava-mitz32
  // above 2^31 bits.
  uint64_t reachable_bits() const noexcept;
  uint64_t set_bit_count() const noexcept;
  std::span<const uint64_t> words() const noexcept override { return words_.span(); }
  std::span<uint64_t> mutable_words() noexcept { return words_.span(); }
  const BloomFilter* bloom() const noexcept override { return this; }

  // Number of 64-bit words that hold m bits.
  static uint64_t word_count(uint64_t m_bits) noexcept { return (m_bits + 63) / 64; }
  // The m actually used for a requested m: blocked filters round up to whole 512-bit blocks.
  static uint64_t effective_bits(uint64_t m_bits, BloomVariant variant) noexcept;

 private:
  template <bool kAtomic>
  void add_impl(std::span<const uint64_t> hashes) noexcept;
  template <bool kAtomic>
  void add_peer_keys(std::span<const std::string_view> keys) noexcept;
  template <typename Pos>
  uint64_t add_counting_in_order(std::span<const Pos> positions) noexcept;
  // fn(first, count, positions) for the keys in pieces of a few hundred (a peer's rule).
  template <typename Fn>
  void for_each_chunk(std::span<const std::string_view> keys, Fn&& fn) const noexcept;

  uint64_t m_;
  uint32_t k_;
  BloomVariant variant_;
  WordBuffer words_;
  std::optional<PeerRule> peer_;  // set for a peer's rule
};

}  // namespace bloomtool
