// Test vectors for the foreign formats' hash functions. The murmur3 digests are what Guava 31.1's
// Hashing.murmur3_128() returns for the UTF-8 bytes (h1, h2 = the digest's two halves read
// little-endian); the FNV-1 values are what Go's hash/fnv New64 returns.
#include <catch2/catch.hpp>

#include <string>

#include "bloomtool/interop_hash.h"

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
