// The defaults of the Filter interface: keys hashed with the rule's seed a batch at a time and
// answered by hash, one contains_hash call per hash, no payload words.
#include "filters/filter.h"

namespace bloomtool {

void Filter::contains_keys(std::span<const std::string_view> keys, uint8_t* out) const noexcept {
  for_each_key_hash(keys, rule_.seed, [&](size_t at, std::span<const uint64_t> hashes) {
    contains_batch(hashes, out + at);
  });
}

void Filter::visit_key_words(std::span<const std::string_view> keys, WordVisitor visit,
                             void* ctx) const noexcept {
  for_each_key_hash(keys, rule_.seed, [&](size_t, std::span<const uint64_t> hashes) {
    visit_probed_words(hashes, visit, ctx);
  });
}

void Filter::contains_batch(std::span<const uint64_t> hashes, uint8_t* out) const noexcept {
  for (size_t i = 0; i < hashes.size(); ++i) out[i] = contains_hash(hashes[i]) ? 1 : 0;
}

std::span<const uint64_t> Filter::words() const noexcept {
  return {};
}

void Filter::visit_probed_words(std::span<const uint64_t>, WordVisitor, void*) const noexcept {}

}  // namespace bloomtool
