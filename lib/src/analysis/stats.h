// What `bloomtool stats` (and the summary of `build`) reports about a filter: the figures its
// header and payload imply — fill, distinct keys, the model's false-positive rate for the keys it
// holds, the rate its fill implies, its distance from the information-theoretic lower bound — and
// a measured false-positive rate with confidence intervals, judged against the model.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "analysis/region_fill.h"
#include "filters/bloom.h"
#include "filters/filter.h"
#include "format/filter_file.h"

namespace bloomtool {

class BloomFilter;

// Standard normal quantiles of two-sided 95%, 99.9% and 1 - 10^-6 intervals.
inline constexpr double kZ95 = 1.959963984540054;
inline constexpr double kZ999 = 3.290526731491926;
inline constexpr double kZ1e6 = 4.891638475698;

struct Interval {
  double low = 0;
  double high = 0;
  bool contains(double x) const noexcept { return low <= x && x <= high; }
};

// Wilson score interval for `hits` successes in `trials` Bernoulli trials at quantile z.
// trials must be positive; the result lies within [0, 1].
Interval wilson_interval(uint64_t hits, uint64_t trials, double z);

// The interval a measurement is judged by: Garwood's exact Poisson interval up to 100 hits (where
// Wilson's lower end is too high: one hit would rule out a rate of 5e-8 in a million probes),
// Wilson's above. Within [0, 1].
Interval rate_interval(uint64_t hits, uint64_t trials, double z);

// A measured false-positive rate next to the rate it is judged against. For a Bloom filter that
// is the rate its own bits imply (a given filter's true rate), not the model's average over all
// filters of its size: the fill varies around the model, and a precise measurement sees it.
struct FprMeasurement {
  uint64_t probes = 0;
  uint64_t false_positives = 0;
  double rate = 0;          // false_positives / probes
  Interval ci95;            // rate_interval, 95%
  Interval ci999;           // rate_interval, 99.9%
  double expected_fpr = 0;  // the rate judged against
  bool consistent = false;  // expected_fpr lies inside ci999
};

// Judges `false_positives` out of `probes` (probes > 0) against `expected_fpr`.
FprMeasurement judge_fpr(uint64_t false_positives, uint64_t probes, double expected_fpr);

// Generated probe keys are 18 bytes: "\n\xff" and 16 pseudo-random bytes drawn from `probe_seed`.
// No key of a `lines` input can hold a line feed, and no NDJSON key can hold the byte 0xFF (it is
// never valid UTF-8), so a probe is never one of the filter's keys.
inline constexpr size_t kProbeKeyBytes = 18;
// The i-th probe key of a seed; the same seed always gives the same keys.
std::string probe_key(uint64_t probe_seed, uint64_t i);

// The quick measurement `build` and `xor-build` print at the end, and the default probe seed.
inline constexpr uint64_t kQuickProbes = 100000;
inline constexpr uint64_t kDefaultProbeSeed = 1;

// Queries `probes` generated keys (hashed with the filter's `hash_seed`) and judges the rate
// against `expected_fpr`. Deterministic for a given probe_seed. probes must be positive.
FprMeasurement measure_fpr(const Filter& filter, uint64_t hash_seed, uint64_t probes,
                           uint64_t probe_seed, double expected_fpr);

// How many of `hashes` the filter reports as possibly present.
uint64_t count_present(const Filter& filter, std::span<const uint64_t> hashes);

// A Bloom filter's bits read as evidence: set bits, the rate they imply and the distinct keys
// they imply, each by the model of the filter's variant.
struct BloomFill {
  uint64_t set_bits = 0;
  // Probability that a random non-member passes. Standard layout: the rate of X set bits at
  // random positions, with the index scheme's coinciding positions accounted for
  // (model::standard_scheme_fill_fpr; within a hair of (X/m)^k for large m). Blocked layout: the
  // exact mean over blocks of (X_b/512)^k, X_b the set bits of block b.
  double fpr = 0;
  // Standard: -(m/k) ln(1 - X/m). Blocked: the inverse of the blocked model's expected fill,
  // -(m/512) ln(1 - X/m) / (1 - (1 - 1/512)^k). Infinity when every bit is set.
  double distinct = 0;
};
BloomFill bloom_fill(const BloomFilter& filter);

// bloom_fill a window of words at a time, for payloads streamed from a file: add() the words in
// order from the first (every window but the last a whole number of 512-bit blocks), then
// finish(). Gives exactly what bloom_fill gives. The model is the key rule's and the layout's
// (bloom_model, bloom.h); the words beyond the bits the rule reaches (reachable_bits) are counted
// apart and enter no figure.
class BloomFillCounter {
 public:
  BloomFillCounter(uint64_t m_bits, uint32_t k, BloomVariant variant,
                   uint32_t hash_id = kHashXxh3_64);
  // Counts the words and returns those within the reachable bits (for RegionFillCounter).
  std::span<const uint64_t> add(std::span<const uint64_t> words);
  BloomFill finish() const;
  uint64_t reachable_bits() const noexcept { return reach_; }
  uint64_t unreachable_set_bits() const noexcept { return outside_; }

 private:
  uint64_t m_;
  uint32_t k_;
  BloomModel model_;
  uint64_t reach_;            // bits the rule's positions can fall on
  uint64_t next_word_ = 0;    // the index of the next word add() takes
  uint64_t set_bits_ = 0;     // within reach
  uint64_t outside_ = 0;      // set bits beyond reach
  double block_sum_ = 0;      // blocked: sum over blocks of (c/512)^k
  std::vector<double> pass_;  // blocked: (c/512)^k for c = 0..512
  bool keep_words_ = false;   // small standard filters: the exact fill needs the words
  std::vector<uint64_t> words_;
};

// Whether a Bloom filter's set-bit count is what n distinct keys give under the model of its
// variant: the expected count and an interval of z standard deviations (plus one bit) around it.
struct FillCheck {
  double expected_set_bits = 0;
  double sd = 0;
  Interval interval;  // at kZ999
  bool consistent = false;
};
FillCheck check_fill(const FilterHeader& header, uint64_t set_bits, double n, double z = kZ999);

// The bits a filter spends on its keys: Bloom m; xor / binary fuse m slots times k bits; Ribbon
// the solution (64 bits a column of each block). kCorrupt for inconsistent Ribbon parameters.
uint64_t header_filter_bits(const FilterHeader& header);

// A partitioned static filter's partitions (filters/partitioned_filter.h): how the keys spread
// over them, and whether that spread is what a uniform hash gives (the partitions' counts are
// multinomial: each within kZ1e6 standard deviations of n / P, with slack for small counts).
struct PartitionFacts {
  uint64_t count = 0;  // partitions in the file: P, or fewer in a part file
  uint64_t first = 0;  // the first of them (0 but in a part file)
  uint64_t total = 0;  // P, the partitions of the whole filter
  unsigned bits = 0;
  uint64_t min_keys = 0, max_keys = 0;
  uint64_t min_bytes = 0, max_bytes = 0;  // payload bytes of the smallest and largest partition
  double expected_keys = 0;               // n / P
  double sd = 0;                          // sqrt(n (1/P) (1 - 1/P))
  bool balanced = true;                   // every count within the interval
};

// Figures computed from a filter file's header and its filter. Values that do not apply to a
// kind (the fill of an xor filter) are empty.
struct FilterStats {
  uint64_t filter_bits = 0;    // header_filter_bits
  uint64_t distinct_keys = 0;  // the header's distinct count: exact, or estimated at build time
  std::optional<uint64_t> set_bits;
  std::optional<double> fill;                // set_bits / m
  std::optional<double> distinct_from_fill;  // empty also when every bit is set
  std::optional<double> bits_per_key;        // filter_bits / distinct_keys; empty when 0 keys
  // The variant's model for distinct_keys; 2^-f for xor / binary fuse; ribbon_model_rate.
  double model_fpr = 0;
  std::optional<double> fill_fpr;
  std::optional<FillCheck> fill_check;      // Bloom: the set bits against distinct_keys
  bool below_min_size = false;              // standard Bloom with m < model::min_standard_bits(k)
  std::optional<double> lower_bound_bits;   // distinct_keys * log2(1 / model_fpr)
  std::optional<double> lower_bound_ratio;  // filter_bits / lower_bound_bits
  // The bits the hash scheme's positions can fall on, when fewer than m (guava-mitz32 above 2^31
  // bits): fill, fill_fpr, distinct_from_fill, fill_check and model_fpr are computed over these,
  // and set_bits counts only these.
  std::optional<uint64_t> reachable_bits;
  uint64_t unreachable_set_bits = 0;  // set bits outside them (a crafted or damaged file)
  // Why the textbook model does not hold for this geometry ("" when it does): dcso-fnv1 with a
  // power-of-two m. Then model_fpr and fill_fpr understate the real rate; only a measurement
  // tells it.
  std::string model_breaks;
  // Bloom: the set bits of each region and the chi-squared test of their uniformity
  // (region_fill.h), counted in the same pass as the fill.
  std::optional<RegionFill> regions;
  // A partitioned file: its partitions, read from the partition table.
  std::optional<PartitionFacts> partitions;

  // The rate gates compare against when nothing was measured: the fill's rate when there is a
  // fill, else the model's.
  double expected_fpr() const noexcept { return fill_fpr.value_or(model_fpr); }
};

// Throws kUnsupported for a kind it does not know, kInvalidArgument when `filter` is not of the
// header's kind.
FilterStats compute_stats(const FilterHeader& header, const Filter& filter);

// compute_stats for a file read a window at a time (for_each_payload_chunk: every chunk of a raw
// payload verified) rather than held in memory, so memory stays near one window whatever the
// filter's size. `header` is the file's, already checked (load_filter).
FilterStats compute_stats_streamed(const FilterHeader& header, const std::string& path);

// compute_stats for a part file (a range of a partitioned filter's partitions, from a build on
// several hosts): no filter answers for it, so the figures come from the header and the
// partition table, and each partition's words are checked against the table's checksum
// (kCorrupt naming `path` when one differs). `payload` is the file's whole payload.
FilterStats compute_part_stats(const FilterHeader& header, std::span<const uint64_t> payload,
                               const std::string& path);

// Where the header's counts disagree with the filter's bits, one sentence each (empty when they
// agree): more distinct keys than keys added; set bits without keys or keys without set bits; more
// than k set bits per key added; a recorded distinct count further from the fill's estimate than
// ten standard deviations of that estimate, and at least 3%; a set-bit count outside the
// 1 - 10^-6 interval for the recorded distinct keys (bits cleared or set behind the header's
// back). Checksums prove the bytes are the
// ones written, not that the writer counted right.
std::vector<std::string> header_count_problems(const FilterHeader& header, const FilterStats& s);

// The model's rate for n distinct keys in a filter described by `header`.
double model_fpr_for(const FilterHeader& header, double n);

// One line such as "0.0101 (1010 of 100000 probes; 95% CI 0.0095 to 0.0107); fill p 0.01 is
// consistent (inside the 99.9% interval)"; `what` names the expected rate ("fill p", "model").
std::string describe_measurement(const FprMeasurement& m, const char* what = "model");

}  // namespace bloomtool
