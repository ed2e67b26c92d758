// How evenly a Bloom filter's set bits are spread, and what growth costs it.
//
// Region fill: the bit array cut into regions (blocked layout: runs of whole 512-bit blocks;
// standard layout and the peers' schemes: slices of the bit array), the set bits of each counted
// in the one pass `stats` makes over the bits anyway, and a chi-squared test of the hypothesis
// that every region fills alike (a uniform hash). Each region's squared deviation from its share
// of the set bits is divided by the variance the variant's model gives that region: binomial,
// b f (1 - f), for independent bit positions (the R x 2 contingency table of region against
// set/clear); for blocked filters the larger spread of whole blocks, whose keys arrive in
// Poisson numbers. The statistic then has R - 1 degrees of freedom.
//
// Headroom: the model's rate at more keys than the filter holds, and the key counts at which the
// rate reaches the design rate and twice it.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "format/filter_file.h"

namespace bloomtool {

// Regularized upper incomplete gamma function Q(a, x) = Gamma(a, x) / Gamma(a), a > 0, x >= 0.
double gamma_q(double a, double x);
// P(X >= statistic) for X chi-squared with `df` degrees of freedom (df > 0).
double chi_squared_p_value(double statistic, double df);

// Regions are never smaller than this many bits, and there are at most kMaxRegions of them.
inline constexpr uint64_t kMinRegionBits = 4096;
inline constexpr uint64_t kMaxRegions = 1024;
// The test needs at least this many set and this many clear bits expected in a full region.
inline constexpr double kMinExpectedPerRegion = 5.0;

struct RegionFill {
  uint64_t region_bits = 0;        // bits of every region but the last (a multiple of 512)
  std::vector<uint64_t> set_bits;  // per region, in order
  std::vector<uint64_t> bits;      // per region (the last may be shorter)
  double fill = 0;                 // all set bits / all bits
  double region_sd = 0;            // the model's sd of a full region's set-bit count
  // The test; empty when it does not apply (one region, or too few set or clear bits).
  std::optional<double> chi_squared;
  std::optional<uint32_t> df;
  std::optional<double> p_value;
  const char* why_not = nullptr;  // why the test is empty
};

// Counts the set bits of each region a window of words at a time, in order from the first word
// (windows in any sizes; for the blocked layout whole blocks). m_bits > 0.
class RegionFillCounter {
 public:
  RegionFillCounter(uint64_t m_bits, uint32_t k, bool blocked);
  void add(std::span<const uint64_t> words);
  // `distinct` is the key count the fill implies (for the blocked layout's spread).
  RegionFill finish(double distinct) const;
  uint64_t region_count() const noexcept { return counts_.size(); }

 private:
  uint64_t m_;
  uint32_t k_;
  bool blocked_;
  uint64_t region_words_;
  uint64_t next_word_ = 0;
  std::vector<uint64_t> counts_;
};

// What growth costs: rates the model gives at 1.25, 1.5 and 2 times the distinct keys, and the
// key counts at which the rate reaches design_fpr and twice it. Bloom filters only (an xor or
// binary fuse filter holds a fixed set). The design point, unless a rate is given, is the load
// for which the filter's k is the optimal hash count for its m, the load sizing aims at:
// standard layout m ln 2 / k keys (half the bits set); blocked, the middle (geometric mean) of
// the key counts for which k is the blocked model's best hash count.
struct Headroom {
  double design_keys = 0;  // keys at which the rate reaches design_fpr
  double design_fpr = 0;
  bool design_from_fill = true;  // false: design_fpr was given
  double keys_at_2x_design_fpr = 0;
  double headroom = 0;  // design_keys / distinct - 1 (infinity at 0 keys); negative: past it
  double fpr_1_25x = 0, fpr_1_5x = 0, fpr_2x = 0;
};
// `distinct` the filter's distinct keys; design_fpr in (0, 1) or empty.
std::optional<Headroom> compute_headroom(const FilterHeader& header, double distinct,
                                         std::optional<double> design_fpr = std::nullopt);
// The key count at which the model's rate for `header` reaches p (0 < p < 1): the smallest n
// whose rate is at least p, found by bisection.
double keys_for_fpr(const FilterHeader& header, double p);

}  // namespace bloomtool
