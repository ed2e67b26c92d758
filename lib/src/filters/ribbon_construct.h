// Constructing a Ribbon filter from the 64-bit hashes of its keys: grouping, de-duplication,
// banding and back-substitution (ribbon_construct.cpp), with bounded retries on new seeds.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "base/word_buffer.h"
#include "bloomtool/error.h"
#include "filters/ribbon.h"

namespace bloomtool {

inline constexpr uint32_t kRibbonDefaultMaxAttempts = 100;

struct RibbonBuildOptions {
  double rate = 0.01;                                 // target false-positive rate, in [2^-30, 1/2]
  uint32_t max_attempts = kRibbonDefaultMaxAttempts;  // seeds tried before giving up, at least 1
  // Threads for grouping, de-duplication, banding (a section of rows each) and back-substitution
  // (a range of columns each); 0 or 1: the calling thread alone. The filter is the same for any
  // count.
  unsigned threads = 1;
  // The caller guarantees that the hashes are distinct: they are grouped but not de-duplicated.
  bool assume_distinct = false;
  // The seed the keys were hashed with (the filter's key rule); does not change the solution.
  uint64_t hash_seed = 0;
  // 1: bumped Ribbon (smaller, the default); 0: standard Ribbon, one layer.
  uint32_t variant = 1;
};

struct RibbonBuildResult {
  std::unique_ptr<RibbonFilter> filter;
  uint64_t distinct = 0;             // distinct hashes the filter holds
  uint64_t duplicates = 0;           // hashes removed as repeats
  uint32_t attempts = 0;             // seeds tried for the last layer, the last one kept
  std::vector<uint64_t> layer_keys;  // keys that reach each layer
  uint64_t redundant = 0;    // keys whose row was a sum of rows banded before it (the last attempt)
  double band_seconds = 0;   // wall-clock time of banding (all attempts)
  double solve_seconds = 0;  // wall-clock time of back-substitution
};

// Thrown (code kLimitExceeded) when no seed gives a usable solution within the allowed attempts.
class RibbonConstructionError : public Error {
 public:
  explicit RibbonConstructionError(const std::string& message)
      : Error(ErrorCode::kLimitExceeded, message) {}
};

// Every entry point below builds from a set of 64-bit hashes and options alone (a partitioned
// filter may call one per partition).
//
// Removes repeats from `hashes` in place (the distinct hashes end up, in no particular order, in
// the first result.distinct entries; the rest is left undefined), then builds the filter, trying
// a new seed for the last (standard) layer whenever its keys' equations have no common solution.
// Throws RibbonConstructionError ("construction failed after N attempts") when no seed works within
// options.max_attempts, kInvalidArgument on bad options.
// Deterministic: the same set of hashes, in any order and with any repeats, always gives the same
// filter, for any thread count.
RibbonBuildResult build_ribbon_filter(std::span<uint64_t> hashes,
                                      const RibbonBuildOptions& options);

// The same for a vector, which is then resized to the distinct hashes.
RibbonBuildResult build_ribbon_filter(std::vector<uint64_t>& hashes,
                                      const RibbonBuildOptions& options);

// The same for hashes held in several buffers, parts[i] holding counts[i] of them (a key
// stream's threads each fill one); the buffers are overwritten. The first buffer grows to hold
// them all; the others are freed once grouping has read them.
RibbonBuildResult build_ribbon_filter(std::vector<WordBuffer>& parts,
                                      std::span<const size_t> counts,
                                      const RibbonBuildOptions& options);

}  // namespace bloomtool
