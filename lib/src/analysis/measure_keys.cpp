// False-positive measurement with given non-member keys: every thread counts the keys of its
// batches that the filter may contain, and the counts are summed.
#include "analysis/measure_keys.h"

#include <atomic>
#include <vector>

#include "filters/scheme_bloom.h"

namespace bloomtool {

FprMeasurement measure_fpr_with_keys(const Filter& filter, KeyStream& negatives, double model_fpr) {
  std::atomic<uint64_t> present{0};
  const auto* scheme = dynamic_cast<const SchemeBloom*>(&filter);
  const InputStats in = negatives.for_each([&](const HashedBatch& b) {
    uint64_t found = 0;
    if (scheme != nullptr) {  // positions from the key bytes (the peers' schemes)
      for (std::string_view key : b.keys) found += scheme->contains(key) ? 1 : 0;
    } else {
      found = count_present(filter, b.hashes);
    }
    present.fetch_add(found, std::memory_order_relaxed);
  });
  if (in.keys == 0) return FprMeasurement{};
  return judge_fpr(present.load(), in.keys, model_fpr);
}

}  // namespace bloomtool
