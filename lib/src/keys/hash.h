// Key hashing. Every key is hashed once to 64 bits with XXH3-64 and a seed stored in the filter
// file (hash id kHashXxh3_64). Bloom filters derive k positions from that hash by enhanced double
// hashing and map each position onto [0, m) with a multiply-shift reduction, all in 64-bit
// arithmetic, so filters beyond 2^32 bits work.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace bloomtool {

inline constexpr uint32_t kHashXxh3_64 = 1;  // the hash id written into filter files
// Format 1.1: the peers' schemes, Bloom standard only (docs/FORMAT.md, "Hash schemes").
inline constexpr uint32_t kHashGuavaMitz64 = 2;  // Guava MURMUR128_MITZ_64
inline constexpr uint32_t kHashGuavaMitz32 = 3;  // Guava MURMUR128_MITZ_32
inline constexpr uint32_t kHashDcsoFnv1 = 4;     // DCSO bloom v1, FNV-1 64
inline constexpr uint64_t kDefaultSeed = 0x9E3779B97F4A7C15ull;

// The name `stats`, the Reader and the C API give a hash id: "xxh3-64", "guava-mitz64",
// "guava-mitz32", "dcso-fnv1", or "unknown".
const char* hash_scheme_name(uint32_t hash_id) noexcept;

// XXH3-64 of the key bytes with the given seed.
uint64_t hash_key(std::string_view key, uint64_t seed) noexcept;
// out[i] = hash_key(keys[i], seed) for every key (one call for a batch: the hash is inlined).
void hash_keys(std::span<const std::string_view> keys, uint64_t seed, uint64_t* out) noexcept;

// The xor-shift-multiply finaliser shape that splitmix64 and murmur3 share: bijective on 64 bits.
constexpr uint64_t xorshift_multiply(uint64_t x, int s1, uint64_t m1, int s2, uint64_t m2,
                                     int s3) noexcept {
  x = (x ^ (x >> s1)) * m1;
  x = (x ^ (x >> s2)) * m2;
  return x ^ (x >> s3);
}

// A bijective 64-bit mixer (splitmix64 finaliser); used to derive the second hash of a key.
constexpr uint64_t mix64(uint64_t x) noexcept {
  return xorshift_multiply(x, 30, 0xBF58476D1CE4E5B9ull, 27, 0x94D049BB133111EBull, 31);
}

// Maps x uniformly onto [0, n) by the high half of the 128-bit product (Lemire's reduction).
constexpr uint64_t reduce64(uint64_t x, uint64_t n) noexcept {
  __extension__ using U128 = unsigned __int128;
  return static_cast<uint64_t>((static_cast<U128>(x) * n) >> 64);
}

}  // namespace bloomtool
