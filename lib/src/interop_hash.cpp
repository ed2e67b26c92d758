#include "bloomtool/interop_hash.h"

#include <bit>
#include <cstring>

#include "bloomtool/hash.h"
#include "byte_order.h"

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
  const size_t rest = len & 15;
  if (rest != 0) {
    uint8_t tail[16] = {};
    std::memcpy(tail, data + nblocks * 16, rest);
    if (rest > 8) h2 ^= scramble2(le::load<uint64_t>(tail + 8));
    h1 ^= scramble1(le::load<uint64_t>(tail));
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

uint64_t fnv1_64(std::string_view key) noexcept {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : key) {
    h *= 1099511628211ull;
    h ^= c;
  }
  return h;
}

}  // namespace bloomtool
