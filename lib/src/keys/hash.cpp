// The project's one key hash: XXH3-64 with a seed (hash id 1 in filter files).
#include "keys/hash.h"

// Inlined from the header: the library call costs more than hashing a short key.
#define XXH_INLINE_ALL
#include <xxhash.h>

namespace bloomtool {

uint64_t hash_key(std::string_view key, uint64_t seed) noexcept {
  return XXH3_64bits_withSeed(key.data(), key.size(), seed);
}

void hash_keys(std::span<const std::string_view> keys, uint64_t seed, uint64_t* out) noexcept {
  for (size_t i = 0; i < keys.size(); ++i)
    out[i] = XXH3_64bits_withSeed(keys[i].data(), keys[i].size(), seed);
}

const char* hash_scheme_name(uint32_t hash_id) noexcept {
  switch (hash_id) {
    case kHashXxh3_64:
      return "xxh3-64";
    case kHashGuavaMitz64:
      return "guava-mitz64";
    case kHashGuavaMitz32:
      return "guava-mitz32";
    case kHashDcsoFnv1:
      return "dcso-fnv1";
    default:
      return "unknown";
  }
}

}  // namespace bloomtool
