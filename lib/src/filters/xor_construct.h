// Constructing xor and binary fuse filters from a set of 64-bit key hashes (xor_construct.cpp):
// the options, the result with its timings, and the error when no mapping seed works.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "base/word_buffer.h"
#include "bloomtool/error.h"
#include "filters/xor_filter.h"

namespace bloomtool {

inline constexpr uint32_t kXorDefaultMaxAttempts = 100;

struct XorBuildOptions {
  XorLayout layout = XorLayout::kFuse;
  uint32_t fingerprint_bits = 8;
  uint32_t max_attempts = kXorDefaultMaxAttempts;  // seeds tried before giving up, at least 1
  // Threads for grouping, de-duplication, counting and assignment (peeling is sequential);
  // 0 or 1: the calling thread alone. The filter is the same for any count.
  unsigned threads = 1;
  // The caller guarantees that the hashes are distinct: they are grouped by their top bits but
  // not de-duplicated. With repeats, construction fails after max_attempts seeds.
  bool assume_distinct = false;
  // Without assume_distinct, on one thread, from 8,192 hashes: the caller expects no repeats (a
  // partitioned build none of whose partitions has had any), so the first attempt runs on the
  // hashes as they are, neither grouped nor freed of repeats, unless a sample (sample_has_repeats)
  // shows repeats; only if it fails are they grouped and freed of repeats. Same filter either
  // way; cheaper when the guess is right, one attempt dearer when a repeat escaped the sample.
  bool speculate = false;
  // With speculate, for a caller whose hash arrays are ordered by top bits: every hash whose top
  // kRepeatSampleBits bits are zero (the repeat sample) lies in the first `sample_parts` arrays,
  // and only those are looked through for the sample.
  size_t sample_parts = SIZE_MAX;
  // Working memory to reuse across builds (a partitioned build's thread keeps one for all its
  // partitions, whose pages are then faulted in once): replaced by a larger one when too small,
  // its contents overwritten. nullptr: memory of this build's own.
  WordBuffer* arena = nullptr;
  // The seed the hashes were made with (hash_key): the filter's key rule, so that it answers
  // keys too. Construction does not depend on it.
  uint64_t hash_seed = 0;
};

// Seconds spent in each step of construction, attempts that failed included: grouping by top
// bits and removing repeats; the counting pass (slot counts and hash xors); peeling; assignment
// (clearing the fingerprints and filling them in).
struct XorPhaseTimes {
  double group = 0, count = 0, peel = 0, assign = 0;
};

struct XorBuildResult {
  std::unique_ptr<XorFilter> filter;
  uint64_t distinct = 0;    // distinct hashes the filter holds
  uint64_t duplicates = 0;  // hashes removed as repeats
  uint32_t attempts = 0;    // seeds tried, the last one successful
  XorPhaseTimes cpu;        // CPU time of the calling thread (helper threads not included)
  XorPhaseTimes wall;       // wall-clock time
};

// Thrown (code kLimitExceeded) when no mapping seed works within the allowed attempts.
class XorConstructionError : public Error {
 public:
  explicit XorConstructionError(const std::string& message)
      : Error(ErrorCode::kLimitExceeded, message) {}
};

// Removes repeats from `hashes` in place (the distinct hashes end up, grouped by their top bits,
// in the first result.distinct entries; the rest is left undefined; a speculation that worked
// leaves them as they were), then builds the filter,
// trying a new mapping seed whenever the key set does not peel. Throws XorConstructionError
// ("construction failed after N attempts") when no seed works within options.max_attempts,
// kInvalidArgument on bad options. Deterministic: the same set of hashes, in any order and with
// any repeats, always gives the same filter.
XorBuildResult build_xor_filter(std::span<uint64_t> hashes, const XorBuildOptions& options);

// The same for a vector, which is then resized to the distinct hashes.
XorBuildResult build_xor_filter(std::vector<uint64_t>& hashes, const XorBuildOptions& options);

// The same for hashes held in several buffers, parts[i] holding counts[i] of them (a key
// stream's threads each fill one): they are never joined into one array first. The first buffer
// grows to hold them all and ends up with the distinct hashes at its front; the others are freed
// once grouping has read them, before construction needs its memory.
XorBuildResult build_xor_filter(std::vector<WordBuffer>& parts, std::span<const size_t> counts,
                                const XorBuildOptions& options);

// The same for hashes in pieces owned elsewhere, left as they are: grouping (when the build
// groups them) writes them into `scratch`, which grows to hold them all if it is smaller and can
// serve the next build (its pages stay mapped).
XorBuildResult build_xor_filter(std::span<const std::span<const uint64_t>> pieces,
                                WordBuffer& scratch, const XorBuildOptions& options);

}  // namespace bloomtool
