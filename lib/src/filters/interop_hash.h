// The hash functions of foreign filter formats, bit for bit as their reference implementations
// compute them: MurmurHash3 x64 128 (what Guava's Hashing.murmur3_128() computes, seed 0 for its
// Bloom filters) and FNV-1 64 (Go's hash/fnv New64, used by DCSO bloom v1). Both are pure
// functions of the key bytes and never throw.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace bloomtool {

struct Hash128 {
  uint64_t h1 = 0;  // bytes 0..7 of the digest, read little-endian (Guava's HashCode.asLong())
  uint64_t h2 = 0;  // bytes 8..15 of the digest, read little-endian
  bool operator==(const Hash128&) const = default;
};

// MurmurHash3_x64_128 (Austin Appleby's reference, final version) of the key bytes.
Hash128 murmur3_x64_128(std::string_view key, uint32_t seed = 0) noexcept;

// FNV-1 64 (multiply, then xor) of the key bytes: offset basis 14695981039346656037,
// prime 1099511628211.
uint64_t fnv1_64(std::string_view key) noexcept;

// out[i] = fnv1_64(keys[i]) for every key, several keys at a time (faster for many keys).
inline constexpr size_t kFnvLanes = 4;  // keys hashed together
void fnv1_64_batch(std::span<const std::string_view> keys, uint64_t* out) noexcept;

}  // namespace bloomtool
