// The default batched query: one contains_hash call per key.
#include "bloomtool/filter.h"

namespace bloomtool {

void Filter::contains_batch(std::span<const uint64_t> hashes, uint8_t* out) const noexcept {
  for (size_t i = 0; i < hashes.size(); ++i) out[i] = contains_hash(hashes[i]) ? 1 : 0;
}

}  // namespace bloomtool
