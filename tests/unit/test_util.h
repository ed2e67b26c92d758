// Helpers shared by the unit tests: deterministic key sets and hashes, counting hits, and the
// binomial interval check.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "filters/filter.h"
#include "keys/hash.h"

namespace bloomtool::test {

// Sanitizer builds run some of the costliest statistical tests on a subset of their cases: the
// same code paths, each case as deterministic as in the full run.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif

// n distinct keys "<prefix><i>" for i in [first, first + n).
inline std::vector<std::string> make_keys(const std::string& prefix, uint64_t first, uint64_t n) {
  std::vector<std::string> keys;
  keys.reserve(n);
  for (uint64_t i = first; i < first + n; ++i) keys.push_back(prefix + std::to_string(i));
  return keys;
}

// Hashes (default seed) of "<prefix><i>" for i in [0, n), built in one reused buffer.
inline std::vector<uint64_t> key_hashes(const std::string& prefix, uint64_t n) {
  std::vector<uint64_t> out;
  out.reserve(n);
  std::string key = prefix;
  for (uint64_t i = 0; i < n; ++i) {
    key.resize(prefix.size());
    key += std::to_string(i);
    out.push_back(hash_key(key, kDefaultSeed));
  }
  return out;
}

// How many of `hashes` the filter reports present.
inline uint64_t count_present(const Filter& f, const std::vector<uint64_t>& hashes) {
  std::vector<uint8_t> found(hashes.size());
  f.contains_batch(hashes, found.data());
  return static_cast<uint64_t>(std::count(found.begin(), found.end(), 1));
}

// True if `hits` out of `trials` lies inside the two-sided 99.9% normal-approximation interval
// of a binomial with success probability p (z = 3.2905).
inline bool inside_999_interval(uint64_t hits, uint64_t trials, double p) {
  const double mean = static_cast<double>(trials) * p;
  const double sd = std::sqrt(static_cast<double>(trials) * p * (1.0 - p));
  return std::fabs(static_cast<double>(hits) - mean) <= 3.2905 * sd;
}

}  // namespace bloomtool::test
