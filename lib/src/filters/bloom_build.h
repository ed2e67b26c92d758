// Building a Bloom filter from a key stream: sizing from a capacity and rate, from a size, or
// exactly from the distinct keys of the input; the capacity check; the header of the result.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "bloomtool/error.h"
#include "filters/bloom.h"
#include "filters/hashed_keys.h"
#include "format/build_header.h"
#include "keys/key_stream.h"
#include "model/model.h"

namespace bloomtool {

// Memory that threads building a Bloom filter may spend on private copies of it.
inline constexpr uint64_t kMaxPrivateCopyBytes = uint64_t{32} << 20;

// How to size the filter. With a capacity, or with both bits and hashes, the filter is sized up
// front and keys stream into it; otherwise one hash per key is kept and the exact distinct count
// sizes it, so the rate holds for input of any length.
struct BloomPlan {
  std::optional<uint64_t> capacity;  // expected distinct keys, at least 1
  std::optional<double> fpr;         // target false-positive rate in (0, 1)
  std::optional<uint64_t> bits;      // filter size, 1 to model::kMaxBits
  std::optional<uint32_t> hashes;    // 1 to model::kMaxK
  BloomVariant variant = BloomVariant::kStandard;
  // Write the filter even when the distinct keys exceed the capacity by more than 20%.
  bool allow_overfill = false;
};

// m and k for n distinct keys under the plan, by the variant's own model. Throws
// kInvalidArgument when that needs more than 2^40 bits.
model::BloomSize bloom_size_for(const BloomPlan& plan, uint64_t n);

// The variant's model false-positive rate for m bits, n keys and k hashes.
double bloom_model_fpr(BloomVariant variant, double m, double n, double k);

// Thrown (code kLimitExceeded) when the input holds more than 20% more distinct keys than the
// plan's capacity and overfill is not allowed.
class OverfillError : public Error {
 public:
  OverfillError(uint64_t distinct, uint64_t capacity);
  uint64_t distinct() const noexcept { return distinct_; }
  uint64_t capacity() const noexcept { return capacity_; }

 private:
  uint64_t distinct_;
  uint64_t capacity_;
};

// A built Bloom filter, not yet written.
struct BloomBuild {
  std::unique_ptr<BloomFilter> filter;
  FilterHeader header;    // complete but for the payload fields
  InputStats input;       // what the key stream read
  uint64_t distinct = 0;  // distinct keys: exact, or estimated from the fill
  bool distinct_exact = false;
  unsigned threads = 1;  // the key stream's: the writer may use as many

  // Writes the filter to `path` atomically ("-": standard output), signed if `options` say so;
  // returns the bytes written.
  uint64_t write(const std::string& path, const WriteOptions& options = {});
};

// Reads every key of `keys` into a filter sized by `plan`. Two threads split the bit array in
// halves (each sets its own half, passing the other's bits across); more fill a small filter in
// private copies or-ed together at the end, a larger one region by region with plain stores (each
// region set by one thread at a time); the result is the same for any thread count. Throws
// OverfillError, kInvalidArgument on an impossible plan, and the stream's input errors.
BloomBuild build_bloom(KeyStream& keys, const BloomPlan& plan, const BuildProvenance& provenance);
// The same over any source of hashed keys.
BloomBuild build_bloom(const HashedKeys& keys, const BloomPlan& plan,
                       const BuildProvenance& provenance);

}  // namespace bloomtool
