// Key hashing. Every key is hashed once to 64 bits with XXH3-64 and a seed stored in the filter
// file (hash id kHashXxh3_64). Bloom filters derive k positions from that hash by enhanced double
// hashing and map each position onto [0, m) with a multiply-shift reduction, all in 64-bit
// arithmetic, so filters beyond 2^32 bits work.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace bloomtool {

inline constexpr uint32_t kHashXxh3_64 = 1;  // the hash id written into filter files
inline constexpr uint64_t kDefaultSeed = 0x9E3779B97F4A7C15ull;

// XXH3-64 of the key bytes with the given seed.
uint64_t hash_key(std::string_view key, uint64_t seed) noexcept;

// A bijective 64-bit mixer (splitmix64 finaliser); used to derive the second hash of a key.
constexpr uint64_t mix64(uint64_t x) noexcept {
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBull;
  x ^= x >> 31;
  return x;
}

// Maps x uniformly onto [0, n) by the high half of the 128-bit product (Lemire's reduction).
constexpr uint64_t reduce64(uint64_t x, uint64_t n) noexcept {
  __extension__ using U128 = unsigned __int128;
  return static_cast<uint64_t>((static_cast<U128>(x) * n) >> 64);
}

}  // namespace bloomtool
