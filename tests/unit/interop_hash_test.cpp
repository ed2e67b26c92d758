// Test vectors for the foreign formats' hash functions. The murmur3 digests are what Guava 31.1's
// Hashing.murmur3_128() returns for the UTF-8 bytes (h1, h2 = the digest's two halves read
// little-endian); the FNV-1 values are what Go's hash/fnv New64 returns.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "filters/interop_hash.h"

using namespace bloomtool;

TEST_CASE("murmur3_x64_128 matches Guava's murmur3_128 (seed 0)", "[interop][hash]") {
  struct Vector {
    const char* key;
    uint64_t h1, h2;
  };
  // Lengths 0, 1, 4, 5, 7, 8, 15, 16, 17 and longer: every tail case and whole blocks.
  const Vector vectors[] = {
      {"", 0x0000000000000000ull, 0x0000000000000000ull},
      {"a", 0x85555565f6597889ull, 0xe6b53a48510e895aull},
      {"hell", 0x629942693e10f867ull, 0x92db0b82baeb5347ull},
      {"hello", 0xcbd8a7b341bd9b02ull, 0x5b1e906a48ae1d19ull},
      {"hello w", 0x7552fd5459fe5513ull, 0x536b5526a1675925ull},
      {"hello wo", 0xf9d2c3093a3e3698ull, 0x45e9804b38277826ull},
      {"0123456789abcde", 0xa62dd5f6c0bf2351ull, 0x4fccf50c7c544cf0ull},
      {"0123456789abcdef", 0x4be06d94cf4ad1a7ull, 0x87c35b5c63a708daull},
      {"0123456789abcdef0", 0xeb24ae8785a5c075ull, 0x73fb68b3313128caull},
      {"The quick brown fox jumps over the lazy dog", 0xe34bbc7bbc071b6cull, 0x7a433ca9c49a9347ull},
      {"https://example.com/path?q=1", 0xb866d1cfc7fde4c2ull, 0x101e5efab6b6745aull},
  };
  for (const Vector& v : vectors) {
    CAPTURE(v.key);
    const Hash128 h = murmur3_x64_128(v.key);
    CHECK(h.h1 == v.h1);
    CHECK(h.h2 == v.h2);
  }
}

TEST_CASE("murmur3_x64_128 with a seed", "[interop][hash]") {
  // Guava: Hashing.murmur3_128(42).hashBytes("hello") = 086faf60c9b3b8c47abcefb075b83423
  const Hash128 h = murmur3_x64_128("hello", 42);
  CHECK(h.h1 == 0xc4b8b3c960af6f08ull);
  CHECK(h.h2 == 0x2334b875b0efbc7aull);
}

TEST_CASE("murmur3_x64_128 hashes bytes, not C strings", "[interop][hash]") {
  const std::string with_nul("a\0b", 3);
  CHECK_FALSE(murmur3_x64_128(with_nul) == murmur3_x64_128("a"));
  CHECK_FALSE(murmur3_x64_128(with_nul) == murmur3_x64_128("ab"));
}

TEST_CASE("fnv1_64 matches Go's hash/fnv New64 (FNV-1, not FNV-1a)", "[interop][hash]") {
  CHECK(fnv1_64("") == 0xcbf29ce484222325ull);
  CHECK(fnv1_64("a") == 0xaf63bd4c8601b7beull);
  CHECK(fnv1_64("foobar") == 0x340d8765a4dda9c2ull);
  CHECK(fnv1_64("hello") == 0x7b495389bdbdd4c7ull);
  CHECK(fnv1_64("https://example.com/path?q=1") == 0x6961b458da3e8629ull);
}

namespace {

// Appleby's MurmurHash3_x64_128 as published: blocks, then the tail assembled byte by byte.
Hash128 reference_murmur3(const std::string& key, uint64_t seed) {
  const auto* data = reinterpret_cast<const uint8_t*>(key.data());
  const size_t len = key.size();
  const uint64_t c1 = 0x87c37b91114253d5ull, c2 = 0x4cf5ad432745937full;
  const auto rotl = [](uint64_t x, int r) { return (x << r) | (x >> (64 - r)); };
  const auto fmix = [](uint64_t k) {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ull;
    return k ^ (k >> 33);
  };
  const auto word = [&](size_t at) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = (v << 8) | data[at + static_cast<size_t>(i)];
    return v;
  };
  uint64_t h1 = seed, h2 = seed;
  const size_t nblocks = len / 16;
  for (size_t i = 0; i < nblocks; ++i) {
    uint64_t k1 = word(i * 16), k2 = word(i * 16 + 8);
    k1 *= c1, k1 = rotl(k1, 31), k1 *= c2, h1 ^= k1;
    h1 = rotl(h1, 27), h1 += h2, h1 = h1 * 5 + 0x52dce729;
    k2 *= c2, k2 = rotl(k2, 33), k2 *= c1, h2 ^= k2;
    h2 = rotl(h2, 31), h2 += h1, h2 = h2 * 5 + 0x38495ab5;
  }
  const uint8_t* tail = data + nblocks * 16;
  uint64_t k1 = 0, k2 = 0;
  for (size_t i = len & 15; i > 8; --i) k2 ^= uint64_t{tail[i - 1]} << (8 * (i - 9));
  if ((len & 15) > 8) k2 *= c2, k2 = rotl(k2, 33), k2 *= c1, h2 ^= k2;
  for (size_t i = std::min<size_t>(len & 15, 8); i > 0; --i)
    k1 ^= uint64_t{tail[i - 1]} << (8 * (i - 1));
  if ((len & 15) != 0) k1 *= c1, k1 = rotl(k1, 31), k1 *= c2, h1 ^= k1;
  h1 ^= len, h2 ^= len;
  h1 += h2, h2 += h1;
  h1 = fmix(h1), h2 = fmix(h2);
  h1 += h2, h2 += h1;
  return Hash128{h1, h2};
}

std::string random_bytes(std::mt19937_64& rng, size_t len) {
  std::string s(len, '\0');
  for (char& c : s) c = static_cast<char>(rng());
  return s;
}

}  // namespace

TEST_CASE("murmur3_x64_128 equals the byte-by-byte reference at every length", "[interop][hash]") {
  std::mt19937_64 rng(5);
  for (size_t len = 0; len <= 100; ++len) {
    for (int rep = 0; rep < 20; ++rep) {
      const std::string key = random_bytes(rng, len);
      CAPTURE(len);
      CHECK(murmur3_x64_128(key) == reference_murmur3(key, 0));
      CHECK(murmur3_x64_128(key, 7) == reference_murmur3(key, 7));
    }
  }
}

TEST_CASE("fnv1_64_batch equals fnv1_64 key by key", "[interop][hash]") {
  std::mt19937_64 rng(6);
  // Batch sizes around the lane count, and keys of mixed lengths (0 to 90 bytes) so that lanes
  // finish at different places; also lanes of equal length.
  for (size_t n : {size_t{0}, size_t{1}, kFnvLanes - 1, kFnvLanes, kFnvLanes + 1, 3 * kFnvLanes + 5,
                   size_t{200}}) {
    for (bool same_length : {false, true}) {
      std::vector<std::string> keys;
      const size_t len = rng() % 64;
      for (size_t i = 0; i < n; ++i)
        keys.push_back(random_bytes(rng, same_length ? len : rng() % 91));
      const std::vector<std::string_view> views(keys.begin(), keys.end());
      std::vector<uint64_t> out(n + 1, 12345);
      fnv1_64_batch(views, out.data());
      for (size_t i = 0; i < n; ++i) CHECK(out[i] == fnv1_64(keys[i]));
      CHECK(out[n] == 12345);  // nothing written past the batch
    }
  }
}
