// Helpers shared by the unit tests: deterministic key sets and the binomial interval check.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace bloomtool::test {

// n distinct keys "<prefix><i>" for i in [first, first + n).
inline std::vector<std::string> make_keys(const std::string& prefix, uint64_t first, uint64_t n) {
  std::vector<std::string> keys;
  keys.reserve(n);
  for (uint64_t i = first; i < first + n; ++i) keys.push_back(prefix + std::to_string(i));
  return keys;
}

// True if `hits` out of `trials` lies inside the two-sided 99.9% normal-approximation interval
// of a binomial with success probability p (z = 3.2905).
inline bool inside_999_interval(uint64_t hits, uint64_t trials, double p) {
  const double mean = static_cast<double>(trials) * p;
  const double sd = std::sqrt(static_cast<double>(trials) * p * (1.0 - p));
  return std::fabs(static_cast<double>(hits) - mean) <= 3.2905 * sd;
}

}  // namespace bloomtool::test
