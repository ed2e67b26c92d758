// The map from a key hash to its start and coefficient row, and the solution layout, shared by
// construction and queries of Ribbon filters (docs/FORMAT.md, "Ribbon"). Changing anything here
// changes the file format.
#pragma once

#include <algorithm>
#include <cstdint>

#include "filters/ribbon.h"
#include "keys/hash.h"

namespace bloomtool::detail {

// A key's equation: the xor of the solution rows [start, start + 128) selected by the bits of
// (lo, hi) is `fp` (bit j in column j). Bit 0 of lo (row `start`) is always set.
struct RibbonRow {
  uint64_t start, lo, hi;
  uint32_t fp;
};

// A key's hash under a seed: a bijection of the 64-bit key hash, so distinct hashes stay
// distinct. Every seed places the starts afresh (adding the seed to the hash would only rotate
// them, and a seed that fails for a crowded stretch of starts would fail again).
inline uint64_t ribbon_seeded(uint64_t h, uint64_t seed) noexcept {
  return mix64(h ^ seed);
}

// The inverse of mix64: the three xor-shifts and two multiplications undone in reverse order.
inline uint64_t unmix64(uint64_t x) noexcept {
  constexpr auto inverse = [](uint64_t m) {  // m * inverse(m) = 1 mod 2^64 (Newton's iteration)
    uint64_t v = m;
    for (int i = 0; i < 6; ++i) v *= 2 - m * v;
    return v;
  };
  constexpr auto unshift = [](uint64_t y, int s) {
    // Undoes y ^= y >> s: the xor of y >> (i s) for all i, in doubling steps.
    for (int t = s; t < 64; t *= 2) y ^= y >> t;
    return y;
  };
  x = unshift(x, 31);
  x *= inverse(0x94D049BB133111EBull);
  x = unshift(x, 27);
  x *= inverse(0xBF58476D1CE4E5B9ull);
  return unshift(x, 30);
}

inline uint64_t ribbon_unseeded(uint64_t a, uint64_t seed) noexcept {
  return unmix64(a) ^ seed;
}

// The equation of the key whose seeded hash is a: the start from its high bits (keys grouped by
// their top bits visit the solution in order), the coefficients and the fingerprint from three
// further mixes.
inline RibbonRow ribbon_row_seeded(uint64_t a, uint64_t starts) noexcept {
  return {reduce64(a, starts), mix64(a ^ 0x2545F4914F6CDD1Dull) | 1,
          mix64(a ^ 0xD6E8FEB86659FD93ull),
          static_cast<uint32_t>(mix64(a ^ 0x3C79AC492BA7B653ull))};
}

inline RibbonRow ribbon_row(uint64_t h, uint64_t seed, uint64_t starts) noexcept {
  return ribbon_row_seeded(ribbon_seeded(h, seed), starts);
}

// The word of block b's first column in its layer's solution: r words a block, one more for each
// block before b that stores column r.
inline uint64_t ribbon_block_offset(const RibbonLayer& p, uint64_t b) noexcept {
  return b * p.columns + std::min(b, ribbon_stored_upper(p));
}

// Columns block b stores.
inline uint32_t ribbon_stored_columns(const RibbonLayer& p, uint64_t b) noexcept {
  return p.columns + (b < ribbon_stored_upper(p) ? 1 : 0);
}

// Columns a key starting in block b is checked against.
inline uint32_t ribbon_block_columns(const RibbonLayer& p, uint64_t b) noexcept {
  return p.columns + (b < p.upper_blocks ? 1 : 0);
}

// Whether a bumping layer leaves the key starting at `start` to the next layer: its block's code
// (2 bits at bit 2 (b mod 32) of code word b / 32) says from which offset on keys are bumped.
inline bool ribbon_bumped(const uint64_t* codes, uint64_t start) noexcept {
  const uint64_t b = start / kRibbonBlockRows;
  const unsigned code = static_cast<unsigned>(codes[b / 32] >> (2 * (b % 32))) & 3;
  return ribbon_code_bumps(code, start % kRibbonBlockRows);
}

// Bits 0..63 of the 128-bit window at offset o of the words w0, w1 (o in [0, 64)): the shift by
// 64 - o is written as a shift by 1 and by 63 - o, which gives 0 for o = 0.
inline uint64_t ribbon_window(uint64_t w0, uint64_t w1, unsigned o) noexcept {
  return (w0 >> o) | ((w1 << 1) << (63 - o));
}

}  // namespace bloomtool::detail
