// The project's one key hash: XXH3-64 with a seed (hash id 1 in filter files).
#include "bloomtool/hash.h"

// Inlined from the header: the library call costs more than hashing a short key.
#define XXH_INLINE_ALL
#include <xxhash.h>

namespace bloomtool {

uint64_t hash_key(std::string_view key, uint64_t seed) noexcept {
  return XXH3_64bits_withSeed(key.data(), key.size(), seed);
}

}  // namespace bloomtool
