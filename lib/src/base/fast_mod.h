// x % d without a division instruction, exact for every 64-bit x and every d >= 1 (Barrett's
// reduction, "Implementing the Rivest Shamir and Adleman public key encryption algorithm on a
// standard digital signal processor", CRYPTO 1986, in its 64-bit integer form): with
// r = floor((2^64 - 1) / d), the estimate q = floor(x * r / 2^64) is floor(x / d) or one less
// (r * d lies in [2^64 - d, 2^64)), so x - q * d is below 2d and one conditional subtraction
// finishes. One high and one low multiplication: several times faster than a hardware division
// on the position path of the peers' schemes. Private to the library.
#pragma once

#include <cstdint>

namespace bloomtool {

using FastModInverse = uint64_t;

// r for d (d >= 1).
inline FastModInverse fast_mod_inverse(uint64_t d) noexcept {
  return ~uint64_t{0} / d;
}

inline uint64_t fast_mod(uint64_t x, FastModInverse inverse, uint64_t d) noexcept {
  __extension__ using U128 = unsigned __int128;
  const auto q = static_cast<uint64_t>((U128{x} * inverse) >> 64);
  const uint64_t rem = x - q * d;
  return rem >= d ? rem - d : rem;
}

}  // namespace bloomtool
