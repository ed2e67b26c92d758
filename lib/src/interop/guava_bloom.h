// Guava's BloomFilter (com.google.common.hash.BloomFilter), bit for bit: the MURMUR128_MITZ_64
// and MURMUR128_MITZ_32 strategies over the key bytes (what Funnels.stringFunnel(UTF_8) and
// Funnels.byteArrayFunnel() feed the hash), Guava's sizing for create(funnel, n, p), and the
// serialized form of BloomFilter.writeTo / readFrom:
//
//   offset 0  1 byte   strategy ordinal (signed; 0 = MURMUR128_MITZ_32, 1 = MURMUR128_MITZ_64)
//   offset 1  1 byte   number of hash functions k (unsigned, 1..255)
//   offset 2  4 bytes  number of 64-bit words W (big-endian signed int, 1..2^31-1)
//   offset 6  8*W      the words of the bit array, each a big-endian long; bit i of the filter
//                      is bit (i mod 64) of word i / 64
//
// The filter's bit size is always 64*W: Guava rounds the requested bit count up to whole words
// and indexes with `% (64*W)`.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace bloomtool::guava {

enum class Strategy : uint8_t {
  kMurmur128Mitz32 = 0,  // BloomFilterStrategies.MURMUR128_MITZ_32 (ordinal 0)
  kMurmur128Mitz64 = 1,  // BloomFilterStrategies.MURMUR128_MITZ_64 (ordinal 1, create's default)
};

// How create() derives k. Guava 31.1 (Debian 12's libguava-java) computes
// k = max(1, (int) Math.round(numBits / n * ln 2)) from the unrounded bit count; later Guava
// releases compute k = max(1, (int) Math.round(-ln p / ln 2)) from p alone.
enum class KRule : uint8_t { kFromBits, kFromFpp };

inline constexpr uint32_t kMaxHashFunctions = 255;
inline constexpr uint64_t kMaxWords = 0x7fffffff;  // Java array length (an int)
inline constexpr size_t kHeaderBytes = 6;

struct Sizing {
  uint64_t requested_bits = 0;  // optimalNumOfBits(n, p), before rounding to words
  uint64_t words = 0;           // ceil(requested_bits / 64)
  uint32_t k = 0;               // numHashFunctions
  uint64_t bit_size() const noexcept { return words * 64; }
};

// optimalNumOfBits(n, p) = (long) (-n * ln p / (ln 2)^2), p = 0 taken as Double.MIN_VALUE.
uint64_t optimal_num_of_bits(uint64_t n, double p) noexcept;

// Guava's BloomFilter.create(funnel, n, p) sizing (n = 0 is taken as 1, as Guava does). Throws
// kInvalidArgument where Guava throws IllegalArgumentException: p not in (0, 1), k above 255,
// a bit count of 0 or needing more than 2^31-1 words.
Sizing size_for(uint64_t n, double p, KRule rule = KRule::kFromBits);

class GuavaBloom {
 public:
  // An empty filter of `words` 64-bit words and k hash functions. Throws kInvalidArgument if
  // words is 0 or above kMaxWords, or k is 0 or above 255.
  GuavaBloom(uint64_t words, uint32_t k, Strategy strategy = Strategy::kMurmur128Mitz64);

  // BloomFilter.create(funnel, n, p[, strategy]).
  static GuavaBloom create(uint64_t n, double p, Strategy strategy = Strategy::kMurmur128Mitz64,
                           KRule rule = KRule::kFromBits);

  // BloomFilter.put: returns true if any bit changed.
  bool put(std::string_view key) noexcept;
  // BloomFilter.mightContain.
  bool might_contain(std::string_view key) const noexcept;

  // The k bit positions Guava's strategy derives for a key (for tests and converters); `out`
  // must hold k() entries.
  void positions(std::string_view key, uint64_t* out) const noexcept;

  Strategy strategy() const noexcept { return strategy_; }
  uint32_t k() const noexcept { return k_; }
  uint64_t bit_size() const noexcept { return words_.size() * 64; }
  uint64_t bit_count() const noexcept;  // set bits
  // BloomFilter.approximateElementCount(): round-half-up of -ln(1 - X/m) * m / k.
  uint64_t approximate_element_count() const noexcept;
  const std::vector<uint64_t>& words() const noexcept { return words_; }
  std::vector<uint64_t>& mutable_words() noexcept { return words_; }

  // writeTo's bytes.
  std::vector<uint8_t> serialize() const;
  // readFrom with full validation. `name` (a path) is used in messages. Trailing bytes after
  // the declared words are rejected unless allow_trailing (Guava's readFrom stops reading after
  // the last word and ignores them).
  static GuavaBloom deserialize(std::span<const uint8_t> bytes, const std::string& name,
                                bool allow_trailing = false);

  // Reads a file with deserialize (the file size is checked against max_bytes before reading).
  static GuavaBloom read_file(const std::string& path, bool allow_trailing = false,
                              uint64_t max_bytes = kMaxHeaderAndWords);
  // Writes serialize() atomically.
  void write_file(const std::string& path) const;

  static constexpr uint64_t kMaxHeaderAndWords = kHeaderBytes + kMaxWords * 8;

 private:
  std::vector<uint64_t> words_;
  uint32_t k_;
  Strategy strategy_;
};

}  // namespace bloomtool::guava
