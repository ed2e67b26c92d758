// Building the Bloom filters that Guava and DCSO `bloom` load, from a key stream: sized as the
// peer sizes them (Guava's BloomFilter.create(funnel, n, p), DCSO's Initialize(n, p)), filled
// by the peer's key rule (key_rule.h), written in the peer's own file format.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "interop/foreign_format.h"
#include "interop/guava_codec.h"
#include "keys/key_stream.h"
#include "model/size_calc.h"

namespace bloomtool {

struct CompatPlan {
  FileFormat format = FileFormat::kGuava;  // kGuava or kDcso
  uint64_t capacity = 0;                   // n: expected distinct keys, at least 1
  double fpr = 0.01;                       // p in (0, 1)
  // Explicit geometry instead of the peer's sizing: m in bits (Guava: rounded up to whole
  // 64-bit words) and k (1 to 255). n and p are still recorded in a DCSO file.
  std::optional<uint64_t> bits;
  std::optional<uint32_t> hashes;
  guava::KRule guava_k_rule = guava::KRule::kFromBits;  // Guava 31.1's rule (Debian 12)
  bool allow_overfill = false;
};

// m and k for the plan, as the peer computes them. Throws kInvalidArgument where the peer would
// refuse the arguments, naming the field ("n", "p", "m", "k").
struct CompatSize {
  uint64_t m = 0;
  uint32_t k = 0;
};
CompatSize compat_size(const CompatPlan& plan);

// The `size` calculator for a peer: the filter the peer makes for n and p (or n and m, or a fixed
// k), its textbook rate for n keys, and the lower bound for that rate. Throws FieldError ("n",
// "p", "m", "k") where the peer would refuse, or when n is not given.
std::vector<SizeRow> compat_size_table(const SizeQuery& q, FileFormat format);

struct CompatBuild {
  LoadedFilter filter;  // hash id 2 (Guava MITZ_64) or 4 (DCSO), field 7 set for DCSO
  InputStats input;
  double distinct_from_fill = 0;  // the textbook estimate of the distinct keys
  uint64_t counted = 0;           // DCSO's N: keys that set at least one new bit, in input order
  // Guava: keys that are not valid UTF-8. Guava's string funnel hashes a Java String's UTF-8
  // bytes, which are never these, so a service using it does not find such keys.
  uint64_t non_utf8_keys = 0;
};

// Reads every key of `keys` into the filter. Guava: threads add with atomic stores (the bits do
// not depend on order). DCSO: threads compute positions and one thread sets the bits in input
// order, so N is what `bloom create` counts for the same input. Throws OverfillError
// (bloom_build.h) when the fill implies more than 20% over the capacity without allow_overfill.
CompatBuild build_compat(KeyStream& keys, const CompatPlan& plan);

// Writes `bytes` to `path` atomically, or as a stream to "-", a FIFO or a character device.
uint64_t write_output_bytes(const std::string& path, std::span<const uint8_t> bytes);

}  // namespace bloomtool
