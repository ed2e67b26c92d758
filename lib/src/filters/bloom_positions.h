// Where a key's bits go in a Bloom filter (bloom.cpp's layouts), for the code that sets them:
// BloomFilter itself and the parallel inserter that routes positions between threads.
#pragma once

#include <cstdint>

#include "keys/hash.h"

namespace bloomtool {

inline constexpr uint64_t kBlockBits = 512;

// Standard: calls fn(position) for the k positions of hash h in m bits.
template <typename Fn>
inline void for_each_standard_position(uint64_t h, uint32_t k, uint64_t m, Fn&& fn) {
  uint64_t a = h;
  uint64_t b = mix64(h) | 1;
  for (uint32_t i = 0; i < k; ++i) {
    fn(reduce64(a, m));
    a += b;
    b += i;
  }
}

// Blocked: calls fn(bit) for the k bits (0 to 511) of hash h inside its block.
template <typename Fn>
inline void for_each_block_bit(uint64_t h, uint32_t k, Fn&& fn) {
  uint64_t state = h ^ 0x5851F42D4C957F2Dull;
  uint64_t x = mix64(state);
  uint32_t left = 7;  // 9-bit fields remaining in x
  for (uint32_t i = 0; i < k; ++i) {
    if (left == 0) {
      state += 0x9E3779B97F4A7C15ull;  // splitmix64 step: a fresh 64-bit word per 7 fields
      x = mix64(state);
      left = 7;
    }
    fn(static_cast<uint32_t>(x & 511));
    x >>= 9;
    --left;
  }
}

}  // namespace bloomtool
