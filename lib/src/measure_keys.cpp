// False-positive measurement with given non-member keys: every thread counts the keys of its
// batches that the filter may contain, and the counts are summed.
#include "bloomtool/measure_keys.h"

#include <atomic>

namespace bloomtool {

FprMeasurement measure_fpr_with_keys(const Filter& filter, KeyStream& negatives, double model_fpr) {
  std::atomic<uint64_t> present{0};
  const InputStats in = negatives.for_each([&](const HashedBatch& b) {
    present.fetch_add(count_present(filter, b.hashes), std::memory_order_relaxed);
  });
  if (in.keys == 0) return FprMeasurement{};
  return judge_fpr(present.load(), in.keys, model_fpr);
}

}  // namespace bloomtool
