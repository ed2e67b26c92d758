// Bloom filters whose positions come from the key bytes by a peer's rule (format 1.1 hash ids
// 2-4: Guava MURMUR128_MITZ_64 and MURMUR128_MITZ_32, DCSO bloom v1 FNV-1), bit for bit as the
// peers compute them, so bloomtool can build, query, check and convert the filters those tools
// load. Bit i is bit i mod 64 of word i / 64, as in every bloomtool Bloom payload.
//
// These schemes have no 64-bit key hash: a key is answered only through the key-level calls
// (contains_keys, and load_filter.h's filter_contains_keys). The hash-level Filter interface
// cannot be honoured and answers "maybe" to every hash (never a false negative).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "filters/filter.h"
#include "keys/hash.h"
#include "base/word_buffer.h"

namespace bloomtool {

inline constexpr uint32_t kMaxSchemeK = 255;  // hash ids 2-4: one unsigned byte, as in Guava

// True for hash ids 2-4.
bool is_key_scheme(uint32_t hash_id) noexcept;
// The bits a scheme's positions can fall on: the first min(m, 2^31) for guava-mitz32 (its
// positions come from a non-negative Java int), all m for every other scheme.
inline constexpr uint64_t kGuavaMitz32ReachBits = uint64_t{1} << 31;
uint64_t scheme_reachable_bits(uint32_t hash_id, uint64_t m) noexcept;
// True when the scheme is known to break the textbook model at this geometry: dcso-fnv1 with a
// power-of-two m (its position sequence then sees only the low bits of wrapped products and
// passes far more non-members than its fill implies).
bool scheme_breaks_model(uint32_t hash_id, uint64_t m) noexcept;
// Why m and k are not valid for the scheme ("" when they are): k 1..255; m 1..2^40, and for
// Guava a whole number of 64-bit words (the peer's bit size is 64 times its word count).
std::string scheme_geometry_problem(uint32_t hash_id, uint64_t m, uint64_t k);

class SchemeBloom final : public Filter {
 public:
  // An empty filter. Throws kInvalidArgument when the geometry is not valid for the scheme.
  SchemeBloom(uint32_t hash_id, uint64_t m_bits, uint32_t k);
  // Adopts words (word_count(m) of them, bits at and above m zero).
  SchemeBloom(uint32_t hash_id, uint64_t m_bits, uint32_t k, WordBuffer words);

  // The k positions of a key; `out` must hold k() entries.
  void positions(std::string_view key, uint64_t* out) const noexcept;
  // The positions of every key, key after key (key i's at out[i * k()]); `out` must hold
  // keys.size() * k() entries. Faster than positions() key by key.
  void positions_batch(std::span<const std::string_view> keys, uint64_t* out) const noexcept;
  // The same as 32-bit numbers, for a filter of at most 2^32 bits (half the memory traffic).
  void positions_batch(std::span<const std::string_view> keys, uint32_t* out) const noexcept;
  void add(std::string_view key) noexcept;
  // Adds and reports whether any bit was newly set (DCSO counts such keys as its N).
  bool add_counting(std::string_view key) noexcept;
  // Adds the keys whose positions are given (k() per key, as positions_batch writes them), in
  // order, and returns how many of them set a new bit: add_counting key after key, with the
  // words fetched ahead. A partial key at the end is ignored.
  uint64_t add_counting_positions(std::span<const uint64_t> positions) noexcept;
  uint64_t add_counting_positions(std::span<const uint32_t> positions) noexcept;
  // Adds the keys, the words fetched ahead (one writer at a time).
  void add_batch(std::span<const std::string_view> keys) noexcept;
  // Adds with atomic stores: several threads may add to the same filter at once.
  void add_concurrent(std::span<const std::string_view> keys) noexcept;
  bool contains(std::string_view key) const noexcept;
  // out[i] = contains(keys[i]), the words of keys a few places ahead fetched while probing.
  void contains_keys(std::span<const std::string_view> keys, uint8_t* out) const noexcept;

  // The hash-level interface: always true (see the top of this file).
  bool contains_hash(uint64_t h) const noexcept override;
  // Hashes cannot name the words a key's probes read, so every word is visited: a lazily
  // verified payload is then verified whole before the first answer.
  void visit_probed_words(std::span<const uint64_t> hashes, WordVisitor visit,
                          void* ctx) const noexcept override;

  uint32_t hash_id() const noexcept { return hash_id_; }
  uint64_t bits() const noexcept { return m_; }
  uint32_t k() const noexcept { return k_; }
  uint64_t set_bit_count() const noexcept;
  std::span<const uint64_t> words() const noexcept override { return words_.span(); }
  std::span<uint64_t> mutable_words() noexcept { return words_.span(); }

 private:
  // fn(position) for each of the k positions from the key's hash (a, b): Guava's murmur3 halves
  // h1, h2, or DCSO's fnv1_64 and 0. fn returns false to stop.
  template <typename Fn>
  void walk(uint64_t a, uint64_t b, Fn&& fn) const noexcept;
  template <typename Fn>
  void for_each_position(std::string_view key, Fn&& fn) const noexcept;
  template <bool kAtomic>
  void add_keys(std::span<const std::string_view> keys) noexcept;
  template <typename Pos>
  void write_positions(std::span<const std::string_view> keys, Pos* out) const noexcept;
  template <typename Pos>
  uint64_t add_counting_in_order(std::span<const Pos> positions) noexcept;
  // fn(first, count, positions) for the keys in pieces of a few hundred, positions_batch's.
  template <typename Fn>
  void for_each_chunk(std::span<const std::string_view> keys, Fn&& fn) const noexcept;

  uint32_t hash_id_;
  uint64_t m_;
  uint32_t k_;
  uint64_t m_inverse_;  // floor((2^64 - 1) / m): x % m by multiplications (fast_mod.h)
  WordBuffer words_;
};

}  // namespace bloomtool
