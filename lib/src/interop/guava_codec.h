// Guava's BloomFilter (com.google.common.hash.BloomFilter) as bytes: Guava's sizing for
// create(funnel, n, p) and the serialized form of BloomFilter.writeTo / readFrom, to and from a
// BloomFilter (bloom.h) whose key rule is the strategy's (MURMUR128_MITZ_64 or MURMUR128_MITZ_32
// over the key bytes, what Funnels.stringFunnel(UTF_8) and Funnels.byteArrayFunnel() feed the
// hash; key_rule.h):
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

#include "filters/bloom.h"

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

// The hash id of a strategy's rule (kHashGuavaMitz64 or kHashGuavaMitz32) and back.
uint32_t hash_id_of(Strategy strategy) noexcept;
Strategy strategy_of(uint32_t hash_id) noexcept;

// BloomFilter.create(funnel, n, p[, strategy]): an empty filter.
BloomFilter create(uint64_t n, double p, Strategy strategy = Strategy::kMurmur128Mitz64,
                   KRule rule = KRule::kFromBits);
// An empty filter of `words` 64-bit words and k hash functions. Throws kInvalidArgument if words
// is 0 or above kMaxWords, or k is 0 or above 255.
BloomFilter make(uint64_t words, uint32_t k, Strategy strategy = Strategy::kMurmur128Mitz64);

// The header's fields, checked: strategy ordinal 0 or 1, k 1..255, a positive word count.
struct Header {
  Strategy strategy = Strategy::kMurmur128Mitz64;
  uint32_t k = 0;
  uint64_t words = 0;
};
// Reads the first 6 bytes of `head`; throws kCorrupt (truncated, k = 0, word count not positive)
// or kUnsupported (strategy) naming `name` and the offset.
Header decode_header(std::span<const uint8_t> head, const std::string& name);

// writeTo's bytes of a strategy, k and the bit array's words.
std::vector<uint8_t> encode(Strategy strategy, uint32_t k, std::span<const uint64_t> words);
// writeTo's bytes of a filter of a Guava rule.
std::vector<uint8_t> serialize(const BloomFilter& filter);
// readFrom with full validation. `name` (a path) is used in messages. Trailing bytes after the
// declared words are rejected unless allow_trailing (Guava's readFrom stops reading after the
// last word and ignores them).
BloomFilter deserialize(std::span<const uint8_t> bytes, const std::string& name,
                        bool allow_trailing = false);

inline constexpr uint64_t kMaxHeaderAndWords = kHeaderBytes + kMaxWords * 8;
// Reads a file with deserialize (the file size is checked against max_bytes before reading).
BloomFilter read_file(const std::string& path, bool allow_trailing = false,
                      uint64_t max_bytes = kMaxHeaderAndWords);
// Writes serialize(filter) atomically.
void write_file(const BloomFilter& filter, const std::string& path);

// BloomFilter.approximateElementCount(): round-half-up of -ln(1 - X/m) * m / k.
uint64_t approximate_element_count(const BloomFilter& filter) noexcept;

}  // namespace bloomtool::guava
