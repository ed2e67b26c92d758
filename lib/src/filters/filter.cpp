// The defaults of the Filter interface: one contains_hash call per key, no payload words.
#include "filters/filter.h"

namespace bloomtool {

void Filter::contains_batch(std::span<const uint64_t> hashes, uint8_t* out) const noexcept {
  for (size_t i = 0; i < hashes.size(); ++i) out[i] = contains_hash(hashes[i]) ? 1 : 0;
}

std::span<const uint64_t> Filter::words() const noexcept {
  return {};
}

void Filter::visit_probed_words(std::span<const uint64_t>, WordVisitor, void*) const noexcept {}

}  // namespace bloomtool
