// Measuring a filter's false-positive rate with keys known not to be in it, read through a key
// stream hashed with the filter's seed.
#pragma once

#include "filters/filter.h"
#include "keys/key_stream.h"
#include "analysis/stats.h"

namespace bloomtool {

// Counts the keys of `negatives` that `filter` may contain and judges the rate against
// `model_fpr`. The stream's seed must be the filter's. Returns probes == 0 (and nothing judged)
// when the stream holds no keys.
FprMeasurement measure_fpr_with_keys(const Filter& filter, KeyStream& negatives, double model_fpr);

}  // namespace bloomtool
