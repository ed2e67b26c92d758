// The `bloomtool size` calculator: given two of keys (n), false-positive rate (p) and size in
// bits (m), the third for every filter the tool builds, by the same models `build` and
// `xor-build` size with, next to the information-theoretic lower bound. A calculator, so it
// answers beyond the 2^40-bit build limit (and says so) up to 2^64 bits.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace bloomtool {

struct SizeQuery {
  std::optional<uint64_t> n;
  std::optional<double> p;
  std::optional<uint64_t> m_bits;
  std::optional<uint32_t> k;  // fixes the Bloom rows' hash count
};

struct SizeRow {
  // "standard", "blocked", "xor8", "xor16", "fuse8", "fuse16", "ribbon", "lower_bound"
  std::string name;
  std::string title;  // "standard Bloom", "binary fuse 8-bit", ...
  uint64_t keys = 0;  // n as given, or the capacity for the given p and m
  uint64_t bits = 0;
  std::optional<double> bits_per_key;        // empty when keys is 0
  std::optional<uint32_t> k;                 // Bloom rows: hash count
  std::optional<uint32_t> fingerprint_bits;  // xor and binary fuse rows
  double fpr = 0;
  std::optional<bool> meets_p;     // xor / fuse rows when p was given: 2^-f <= p
  bool above_build_limit = false;  // more bits than model::kMaxBits
  bool unreachable = false;        // no size below 2^64 bits reaches p (bits, k, fpr unset)

  uint64_t bytes() const noexcept { return bits / 8 + (bits % 8 != 0); }
};

// Largest n accepted (2^59): beyond it the 16-bit rows no longer fit in 64 bits.
inline constexpr uint64_t kMaxSizeKeys = uint64_t{1} << 59;

// Exactly two of n, p, m must be given. Throws kInvalidArgument naming the option for impossible
// input (n = 0, m = 0, p outside (0, 1), k outside 1..64, or a size of 2^64 bits or more).
std::vector<SizeRow> size_table(const SizeQuery& q);

// Smallest blocked Bloom filter (m a multiple of 512) for n keys at rate p, like
// model::blocked_size but without its 2^40-bit cap; k_fixed != 0 fixes k. Returns m = 0 when no
// size below 2^64 bits reaches p.
struct BlockedSize {
  uint64_t m_bits;
  uint32_t k;
};
BlockedSize blocked_size_unbounded(uint64_t n, double p, uint32_t k_fixed = 0);

}  // namespace bloomtool
