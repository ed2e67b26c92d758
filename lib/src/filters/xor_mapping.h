// The map from a key hash to three fingerprint slots and a fingerprint, shared by construction
// and queries of xor and binary fuse filters (docs/FORMAT.md, "Xor and binary fuse"). Changing
// anything here changes the file format.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>

#include "keys/hash.h"

namespace bloomtool::detail {

struct Slots {
  uint64_t p0, p1, p2;
};

// Binary fuse: the first slot falls anywhere in the first segment_count segments (by the high
// bits of h + seed, so keys sorted by hash visit the array in order); the other two lie at
// independent offsets in the next two segments.
struct FuseMapping {
  uint64_t seed;
  uint64_t segment_length;  // a power of two, at most 2^18
  uint64_t span;            // segment_count * segment_length

  Slots slots(uint64_t h) const noexcept {
    const uint64_t a = h + seed;
    const uint64_t g = mix64(a);
    const uint64_t mask = segment_length - 1;
    const uint64_t p0 = reduce64(a, span);
    const uint64_t base = p0 & ~mask;
    return {p0, base + segment_length + (g & mask), base + 2 * segment_length + ((g >> 32) & mask)};
  }
};

// Classic xor filter: one slot in each of three blocks of equal length.
struct XorMapping {
  uint64_t seed;
  uint64_t block_length;

  Slots slots(uint64_t h) const noexcept {
    const uint64_t a = h + seed;
    const uint64_t g = mix64(a);
    return {reduce64(a, block_length), block_length + reduce64(g, block_length),
            2 * block_length + reduce64(std::rotl(g, 32), block_length)};
  }
};

// The fingerprint is the low bits of h + seed: independent of the slot choice, which uses the
// high bits of h + seed and the mixed word.
template <typename Fp>
inline Fp fingerprint(uint64_t h, uint64_t seed) noexcept {
  return static_cast<Fp>(h + seed);
}

// Fingerprints are stored little-endian, packed into the payload's 64-bit words. The words are in
// host order in memory, so on a big-endian host byte j of the payload is memory byte j ^ 7.
inline constexpr uint64_t kByteFlip = std::endian::native == std::endian::big ? 7 : 0;

template <typename Fp>
inline Fp load_fp(const uint8_t* bytes, uint64_t i) noexcept {
  if constexpr (sizeof(Fp) == 1) {
    return bytes[i ^ kByteFlip];
  } else if constexpr (kByteFlip == 0) {
    Fp v;
    std::memcpy(&v, bytes + 2 * i, 2);
    return v;
  } else {
    return static_cast<Fp>(bytes[(2 * i) ^ kByteFlip] | (bytes[(2 * i + 1) ^ kByteFlip] << 8));
  }
}

template <typename Fp>
inline void store_fp(uint8_t* bytes, uint64_t i, Fp v) noexcept {
  if constexpr (sizeof(Fp) == 1) {
    bytes[i ^ kByteFlip] = v;
  } else if constexpr (kByteFlip == 0) {
    std::memcpy(bytes + 2 * i, &v, 2);
  } else {
    bytes[(2 * i) ^ kByteFlip] = static_cast<uint8_t>(v);
    bytes[(2 * i + 1) ^ kByteFlip] = static_cast<uint8_t>(v >> 8);
  }
}

}  // namespace bloomtool::detail
