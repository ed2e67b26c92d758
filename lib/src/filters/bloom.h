// Bloom filters over a 64-bit key hash: the standard layout (k positions anywhere in m bits) and
// the blocked layout (all k positions inside one 512-bit, cache-line-sized block).
#pragma once

#include <cstdint>
#include <span>

#include "filters/filter.h"
#include "base/word_buffer.h"

namespace bloomtool {

enum class BloomVariant : uint32_t { kStandard = 0, kBlocked512 = 1 };

// Returns "standard" or "blocked"; parse_bloom_variant throws kInvalidArgument on other names.
const char* bloom_variant_name(BloomVariant v) noexcept;
BloomVariant parse_bloom_variant(const char* name);

class BloomFilter final : public Filter {
 public:
  // An empty filter of m bits (rounded up to a multiple of 512 for the blocked variant) and k
  // hashes. Throws kInvalidArgument when m or k is out of range.
  BloomFilter(uint64_t m_bits, uint32_t k, BloomVariant variant = BloomVariant::kStandard);
  // Adopts words read from a file; words.size() must equal word_count(m_bits).
  BloomFilter(uint64_t m_bits, uint32_t k, BloomVariant variant, WordBuffer words);

  void add(uint64_t h) noexcept;
  void add_batch(std::span<const uint64_t> hashes) noexcept;
  // Like add_batch, but safe to call from several threads at once on the same filter (atomic OR);
  // the resulting bits are the same whatever the interleaving.
  void add_batch_concurrent(std::span<const uint64_t> hashes) noexcept;
  bool contains_hash(uint64_t h) const noexcept override;
  void contains_batch(std::span<const uint64_t> hashes, uint8_t* out) const noexcept override;

  uint64_t bits() const noexcept { return m_; }
  uint32_t k() const noexcept { return k_; }
  BloomVariant variant() const noexcept { return variant_; }
  uint64_t set_bit_count() const noexcept;
  std::span<const uint64_t> words() const noexcept override { return words_.span(); }
  void visit_probed_words(std::span<const uint64_t> hashes, WordVisitor visit,
                          void* ctx) const noexcept override;
  std::span<uint64_t> mutable_words() noexcept { return words_.span(); }

  // Number of 64-bit words that hold m bits.
  static uint64_t word_count(uint64_t m_bits) noexcept { return (m_bits + 63) / 64; }
  // The m actually used for a requested m: blocked filters round up to whole 512-bit blocks.
  static uint64_t effective_bits(uint64_t m_bits, BloomVariant variant) noexcept;

 private:
  template <bool kAtomic>
  void add_impl(std::span<const uint64_t> hashes) noexcept;

  uint64_t m_;
  uint32_t k_;
  BloomVariant variant_;
  WordBuffer words_;
};

}  // namespace bloomtool
