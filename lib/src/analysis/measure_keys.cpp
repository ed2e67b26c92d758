// False-positive measurement with given non-member keys: every thread counts the keys of its
// batches that the filter may contain, and the counts are summed.
#include "analysis/measure_keys.h"

#include <atomic>
#include <vector>

namespace bloomtool {

FprMeasurement measure_fpr_with_keys(const Filter& filter, KeyStream& negatives, double model_fpr) {
  std::atomic<uint64_t> present{0};
  const bool by_key = !filter.rule().takes_key_hash();
  const InputStats in = negatives.for_each([&](const HashedBatch& b) {
    uint64_t found = 0;
    if (by_key) {  // positions from the key bytes (the peers' rules)
      std::vector<uint8_t> out(b.keys.size());
      filter.contains_keys(b.keys, out.data());
      for (const uint8_t o : out) found += o;
    } else {
      found = count_present(filter, b.hashes);
    }
    present.fetch_add(found, std::memory_order_relaxed);
  });
  if (in.keys == 0) return FprMeasurement{};
  return judge_fpr(present.load(), in.keys, model_fpr);
}

}  // namespace bloomtool
