#include "filters/interop_hash.h"

#include <algorithm>
#include <bit>
#include <cstring>

#include "keys/hash.h"
#include "base/byte_order.h"

namespace bloomtool {

namespace {

constexpr uint64_t kC1 = 0x87c37b91114253d5ull;
constexpr uint64_t kC2 = 0x4cf5ad432745937full;

constexpr uint64_t fmix64(uint64_t k) noexcept {
  return xorshift_multiply(k, 33, 0xff51afd7ed558ccdull, 33, 0xc4ceb9fe1a85ec53ull, 33);
}

// The per-block scrambles of the two halves of a 16-byte block.
constexpr uint64_t scramble1(uint64_t k1) noexcept {
  return std::rotl(k1 * kC1, 31) * kC2;
}
constexpr uint64_t scramble2(uint64_t k2) noexcept {
  return std::rotl(k2 * kC2, 33) * kC1;
}

}  // namespace

Hash128 murmur3_x64_128(std::string_view key, uint32_t seed) noexcept {
  const auto* data = reinterpret_cast<const uint8_t*>(key.data());
  const size_t len = key.size();
  const size_t nblocks = len / 16;
  uint64_t h1 = seed;
  uint64_t h2 = seed;

  for (size_t i = 0; i < nblocks; ++i) {
    h1 ^= scramble1(le::load<uint64_t>(data + i * 16));
    h1 = std::rotl(h1, 27);
    h1 += h2;
    h1 = h1 * 5 + 0x52dce729;
    h2 ^= scramble2(le::load<uint64_t>(data + i * 16 + 8));
    h2 = std::rotl(h2, 31);
    h2 += h1;
    h2 = h2 * 5 + 0x38495ab5;
  }

  // The last 1 to 15 bytes, zero-padded to a block: the same little-endian words the reference's
  // byte-by-byte switch assembles.
  // A key of 16 bytes or more ends with a whole block that holds the tail at its top: loaded
  // as one 128-bit number and shifted down, without the byte copy (and the store-to-load
  // forwarding stall that the copy's 8-byte reloads hit). Scrambling a zero word gives zero, so
  // a tail of 8 bytes or less changes h2 by nothing.
  const size_t rest = len & 15;
  if (rest != 0) {
    uint64_t t1, t2;
    if (nblocks != 0) {
      __extension__ using U128 = unsigned __int128;
      const U128 last =
          le::load<uint64_t>(data + len - 16) | U128{le::load<uint64_t>(data + len - 8)} << 64;
      const U128 tail = last >> (8 * (16 - rest));
      t1 = static_cast<uint64_t>(tail);
      t2 = static_cast<uint64_t>(tail >> 64);
    } else {
      uint8_t tail[16] = {};
      std::memcpy(tail, data, rest);
      t1 = le::load<uint64_t>(tail);
      t2 = le::load<uint64_t>(tail + 8);
    }
    h2 ^= scramble2(t2);
    h1 ^= scramble1(t1);
  }

  h1 ^= static_cast<uint64_t>(len);
  h2 ^= static_cast<uint64_t>(len);
  h1 += h2;
  h2 += h1;
  h1 = fmix64(h1);
  h2 = fmix64(h2);
  h1 += h2;
  h2 += h1;
  return Hash128{h1, h2};
}

namespace {

constexpr uint64_t kFnvOffset = 14695981039346656037ull;
constexpr uint64_t kFnvPrime = 1099511628211ull;

constexpr uint64_t fnv1_step(uint64_t h, unsigned char c) noexcept {
  return (h * kFnvPrime) ^ c;
}

}  // namespace

uint64_t fnv1_64(std::string_view key) noexcept {
  uint64_t h = kFnvOffset;
  for (unsigned char c : key) h = fnv1_step(h, c);
  return h;
}

void fnv1_64_batch(std::span<const std::string_view> keys, uint64_t* out) noexcept {
  // FNV-1 is one chain of dependent multiplications per key: a key alone waits out the
  // multiplier's latency at every byte. kFnvLanes keys step together over the bytes they all
  // have, so their chains overlap (the lane loops unrolled, so that the lanes live in
  // registers); each then finishes its own remaining bytes.
  constexpr size_t kLanes = kFnvLanes;
  size_t at = 0;
  for (; at + kLanes <= keys.size(); at += kLanes) {
    const unsigned char* p[kLanes];
    uint64_t h[kLanes];
    size_t common = keys[at].size();
#pragma GCC unroll 8
    for (size_t l = 0; l < kLanes; ++l) {
      p[l] = reinterpret_cast<const unsigned char*>(keys[at + l].data());
      h[l] = kFnvOffset;
      common = std::min(common, keys[at + l].size());
    }
    for (size_t i = 0; i < common; ++i) {
#pragma GCC unroll 8
      for (size_t l = 0; l < kLanes; ++l) h[l] = fnv1_step(h[l], p[l][i]);
    }
#pragma GCC unroll 8
    for (size_t l = 0; l < kLanes; ++l) {
      const size_t len = keys[at + l].size();
      for (size_t i = common; i < len; ++i) h[l] = fnv1_step(h[l], p[l][i]);
      out[at + l] = h[l];
    }
  }
  for (; at < keys.size(); ++at) out[at] = fnv1_64(keys[at]);
}

}  // namespace bloomtool
