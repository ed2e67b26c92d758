#include "bloomtool/interop_hash.h"

#include <bit>

#include "byte_order.h"

namespace bloomtool {

namespace {

constexpr uint64_t fmix64(uint64_t k) noexcept {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdull;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ull;
  k ^= k >> 33;
  return k;
}

}  // namespace

Hash128 murmur3_x64_128(std::string_view key, uint32_t seed) noexcept {
  constexpr uint64_t c1 = 0x87c37b91114253d5ull;
  constexpr uint64_t c2 = 0x4cf5ad432745937full;
  const auto* data = reinterpret_cast<const uint8_t*>(key.data());
  const size_t len = key.size();
  const size_t nblocks = len / 16;
  uint64_t h1 = seed;
  uint64_t h2 = seed;

  for (size_t i = 0; i < nblocks; ++i) {
    uint64_t k1 = le::load<uint64_t>(data + i * 16);
    uint64_t k2 = le::load<uint64_t>(data + i * 16 + 8);
    k1 *= c1;
    k1 = std::rotl(k1, 31);
    k1 *= c2;
    h1 ^= k1;
    h1 = std::rotl(h1, 27);
    h1 += h2;
    h1 = h1 * 5 + 0x52dce729;
    k2 *= c2;
    k2 = std::rotl(k2, 33);
    k2 *= c1;
    h2 ^= k2;
    h2 = std::rotl(h2, 31);
    h2 += h1;
    h2 = h2 * 5 + 0x38495ab5;
  }

  const uint8_t* tail = data + nblocks * 16;
  uint64_t k1 = 0;
  uint64_t k2 = 0;
  switch (len & 15) {
    case 15:
      k2 ^= static_cast<uint64_t>(tail[14]) << 48;
      [[fallthrough]];
    case 14:
      k2 ^= static_cast<uint64_t>(tail[13]) << 40;
      [[fallthrough]];
    case 13:
      k2 ^= static_cast<uint64_t>(tail[12]) << 32;
      [[fallthrough]];
    case 12:
      k2 ^= static_cast<uint64_t>(tail[11]) << 24;
      [[fallthrough]];
    case 11:
      k2 ^= static_cast<uint64_t>(tail[10]) << 16;
      [[fallthrough]];
    case 10:
      k2 ^= static_cast<uint64_t>(tail[9]) << 8;
      [[fallthrough]];
    case 9:
      k2 ^= static_cast<uint64_t>(tail[8]);
      k2 *= c2;
      k2 = std::rotl(k2, 33);
      k2 *= c1;
      h2 ^= k2;
      [[fallthrough]];
    case 8:
      k1 ^= static_cast<uint64_t>(tail[7]) << 56;
      [[fallthrough]];
    case 7:
      k1 ^= static_cast<uint64_t>(tail[6]) << 48;
      [[fallthrough]];
    case 6:
      k1 ^= static_cast<uint64_t>(tail[5]) << 40;
      [[fallthrough]];
    case 5:
      k1 ^= static_cast<uint64_t>(tail[4]) << 32;
      [[fallthrough]];
    case 4:
      k1 ^= static_cast<uint64_t>(tail[3]) << 24;
      [[fallthrough]];
    case 3:
      k1 ^= static_cast<uint64_t>(tail[2]) << 16;
      [[fallthrough]];
    case 2:
      k1 ^= static_cast<uint64_t>(tail[1]) << 8;
      [[fallthrough]];
    case 1:
      k1 ^= static_cast<uint64_t>(tail[0]);
      k1 *= c1;
      k1 = std::rotl(k1, 31);
      k1 *= c2;
      h1 ^= k1;
      break;
    default:
      break;
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
