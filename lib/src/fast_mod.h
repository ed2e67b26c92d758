// x % d by multiplications only (Lemire, Kaser & Kurz, "Faster remainder by direct computation",
// 2019, the 64-bit form): with M = ceil(2^128 / d), x % d = ((M * x mod 2^128) * d) >> 128, exact
// for every 64-bit x and d >= 1. Several times faster than a hardware division on the position
// path of the peers' schemes. Private to the library.
#pragma once

#include <cstdint>

namespace bloomtool {

__extension__ using FastModInverse = unsigned __int128;

// M for d (d >= 1; d = 1 gives 0, and fast_mod then returns 0, as x % 1 is).
inline FastModInverse fast_mod_inverse(uint64_t d) noexcept {
  return ~FastModInverse{0} / d + 1;
}

inline uint64_t fast_mod(uint64_t x, FastModInverse inverse, uint64_t d) noexcept {
  const FastModInverse low = inverse * x;
  const FastModInverse bottom = (static_cast<FastModInverse>(static_cast<uint64_t>(low)) * d) >> 64;
  const FastModInverse top = static_cast<FastModInverse>(static_cast<uint64_t>(low >> 64)) * d;
  return static_cast<uint64_t>((bottom + top) >> 64);
}

}  // namespace bloomtool
