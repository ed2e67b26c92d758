// Region fill with its chi-squared test of uniformity, and headroom (region_fill.h). The
// incomplete gamma function is evaluated by its power series below x = a + 1 and by its
// continued fraction (modified Lentz) above, each converging fast on its side.
#include "analysis/region_fill.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <functional>
#include <limits>

#include "analysis/stats.h"
#include "bloomtool/error.h"
#include "filters/bloom.h"
#include "filters/key_rule.h"
#include "keys/hash.h"
#include "model/index_model.h"
#include "model/model.h"

namespace bloomtool {

namespace {

constexpr int kGammaMaxIterations = 100000;
constexpr double kGammaEpsilon = 1e-15;

// P(a, x) by its series: e^-x x^a / Gamma(a + 1) * sum_n x^n / ((a + 1) ... (a + n)).
double gamma_p_series(double a, double x) {
  double term = 1.0 / a, sum = term;
  for (int n = 1; n < kGammaMaxIterations; ++n) {
    term *= x / (a + n);
    sum += term;
    if (std::fabs(term) < std::fabs(sum) * kGammaEpsilon) break;
  }
  return sum * std::exp(-x + a * std::log(x) - std::lgamma(a));
}

// Q(a, x) by the continued fraction e^-x x^a / Gamma(a) * 1/(x + 1 - a - 1(1 - a)/(x + 3 - a -
// 2(2 - a)/(x + 5 - a - ...))), evaluated by the modified Lentz method.
double gamma_q_fraction(double a, double x) {
  constexpr double tiny = 1e-300;
  double b = x + 1.0 - a;
  double c = 1.0 / tiny;
  double d = 1.0 / b;
  double h = d;
  for (int i = 1; i < kGammaMaxIterations; ++i) {
    const double an = -i * (i - a);
    b += 2.0;
    d = an * d + b;
    if (std::fabs(d) < tiny) d = tiny;
    c = b + an / c;
    if (std::fabs(c) < tiny) c = tiny;
    d = 1.0 / d;
    const double delta = d * c;
    h *= delta;
    if (std::fabs(delta - 1.0) < kGammaEpsilon) break;
  }
  return std::exp(-x + a * std::log(x) - std::lgamma(a)) * h;
}

bool key_scheme_header(const FilterHeader& h) {
  return bloom_model(h.hash_id, static_cast<BloomVariant>(h.variant)) == BloomModel::kTextbook;
}
bool blocked_header(const FilterHeader& h) {
  return bloom_model(h.hash_id, static_cast<BloomVariant>(h.variant)) == BloomModel::kBlocked;
}

// The model's rate for the filter as a function of n, with anything that depends on m and k
// alone computed once.
std::function<double(double)> rate_of(const FilterHeader& h) {
  const double m = static_cast<double>(h.m);
  const uint32_t k = h.k;
  if (key_scheme_header(h)) return [m, k](double n) { return model::bloom_fpr(m, n, k); };
  if (blocked_header(h)) return [m, k](double n) { return model::blocked_fpr(m, n, k); };
  const std::vector<double> dist = model::standard_distinct_distribution(h.m, k);
  double mean_d = 0;
  for (uint32_t d = 0; d <= k; ++d) mean_d += d * dist[d];
  return [dist, mean_d, m, k](double n) {
    if (n <= 0) return 0.0;
    const double q = -std::expm1(-n * mean_d / m);
    double p = 0;
    for (uint32_t d = 1; d <= k; ++d)
      if (dist[d] > 0) p += dist[d] * std::exp(d * std::log(q));
    return p;
  };
}

// The key count at which the blocked model's rate with k hashes equals that with k2: for fewer
// keys the larger hash count is better. By bisection on the sign of the difference.
double blocked_crossover(double m, uint32_t k, uint32_t k2) {
  const uint32_t big = std::max(k, k2), small = std::min(k, k2);
  const auto big_better = [&](double n) {
    return model::blocked_fpr(m, n, big) < model::blocked_fpr(m, n, small);
  };
  double lo = m / 1e6, hi = m;
  if (!big_better(lo)) return lo;
  for (int i = 0; i < 60 && big_better(hi); ++i) hi *= 2;
  for (int i = 0; i < 100 && hi - lo > 1e-7 * hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    (big_better(mid) ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

// The design point's key count. Standard layout: where half the bits are set, m ln 2 / E[D] (E[D]
// the mean distinct positions of a key), the load at which k is the optimal hash count. Blocked:
// the middle (geometric mean) of the key counts for which k is the blocked model's best hash
// count; half fill when k is 1 or at the model's largest.
double design_point_keys(const FilterHeader& h) {
  const double m = static_cast<double>(h.m);
  if (key_scheme_header(h)) return model::bloom_fill_distinct(m / 2, m, h.k);
  if (blocked_header(h)) {
    if (h.k <= 1 || h.k >= 32) return model::blocked_fill_distinct(m / 2, m, h.k);
    return std::sqrt(blocked_crossover(m, h.k, h.k + 1) * blocked_crossover(m, h.k - 1, h.k));
  }
  const std::vector<double> dist = model::standard_distinct_distribution(h.m, h.k);
  double mean_d = 0;
  for (uint32_t d = 0; d <= h.k; ++d) mean_d += d * dist[d];
  return m * std::log(2.0) / mean_d;
}

double solve_keys(const std::function<double(double)>& rate, double p, double m) {
  double lo = 0, hi = std::max(1.0, m);
  for (int i = 0; i < 200 && rate(hi) < p; ++i) hi *= 2;
  for (int i = 0; i < 200 && hi - lo > 1e-9 * hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    (rate(mid) < p ? lo : hi) = mid;
  }
  return hi;
}

}  // namespace

double gamma_q(double a, double x) {
  if (!(a > 0) || !(x >= 0)) throw Error(ErrorCode::kInvalidArgument, "gamma_q: a > 0, x >= 0");
  if (x == 0) return 1.0;
  if (std::isinf(x)) return 0.0;
  if (x < a + 1.0) return std::clamp(1.0 - gamma_p_series(a, x), 0.0, 1.0);
  return std::clamp(gamma_q_fraction(a, x), 0.0, 1.0);
}

double chi_squared_p_value(double statistic, double df) {
  return gamma_q(df / 2.0, std::max(0.0, statistic) / 2.0);
}

RegionFillCounter::RegionFillCounter(uint64_t m_bits, uint32_t k, bool blocked)
    : m_(m_bits), k_(k), blocked_(blocked) {
  if (m_bits == 0) throw Error(ErrorCode::kInvalidArgument, "region fill: m is 0");
  uint64_t bits = (m_bits + kMaxRegions - 1) / kMaxRegions;
  bits = std::max(kMinRegionBits,
                  (bits + model::kBlockBits - 1) / model::kBlockBits * model::kBlockBits);
  region_words_ = bits / 64;
  counts_.assign((m_bits + bits - 1) / bits, 0);
}

void RegionFillCounter::add(std::span<const uint64_t> words) {
  size_t at = 0;
  while (at < words.size()) {
    const uint64_t region = next_word_ / region_words_;
    const uint64_t region_end = (region + 1) * region_words_;
    const size_t n =
        static_cast<size_t>(std::min<uint64_t>(words.size() - at, region_end - next_word_));
    if (region < counts_.size()) {
      uint64_t c = 0;
      for (size_t i = 0; i < n; ++i) c += static_cast<uint64_t>(std::popcount(words[at + i]));
      counts_[region] += c;
    }
    at += n;
    next_word_ += n;
  }
}

RegionFill RegionFillCounter::finish(double distinct) const {
  RegionFill r;
  const uint64_t stride = region_words_ * 64;
  r.region_bits = std::min(stride, m_);  // one region smaller than the minimum: the filter
  r.set_bits = counts_;
  r.bits.resize(counts_.size());
  uint64_t total = 0;
  for (size_t i = 0; i < counts_.size(); ++i) {
    r.bits[i] = std::min(m_, (i + 1) * stride) - i * stride;
    total += counts_[i];
  }
  const double m = static_cast<double>(m_);
  r.fill = static_cast<double>(total) / m;
  // Variance of one bit's worth of region: binomial for independent positions; for blocks, the
  // model's variance of one block's set bits (keys per block Poisson) over its 512 bits.
  double var_per_bit = r.fill * (1.0 - r.fill);
  if (blocked_ && std::isfinite(distinct) && distinct > 0) {
    const model::FillSpread s = model::blocked_fill_spread(m_, distinct, k_);
    var_per_bit = s.sd * s.sd / m;
  }
  r.region_sd = std::sqrt(var_per_bit * static_cast<double>(r.region_bits));
  const double full = static_cast<double>(r.region_bits);
  if (counts_.size() < 2) {
    r.why_not = "one region: too few bits for the test";
  } else if (r.fill * full < kMinExpectedPerRegion || (1 - r.fill) * full < kMinExpectedPerRegion ||
             !(var_per_bit > 0)) {
    r.why_not = "too few set (or clear) bits per region for the test";
  } else {
    double x2 = 0;
    for (size_t i = 0; i < counts_.size(); ++i) {
      const double b = static_cast<double>(r.bits[i]);
      const double dev = static_cast<double>(counts_[i]) - r.fill * b;
      x2 += dev * dev / (var_per_bit * b);
    }
    r.chi_squared = x2;
    r.df = static_cast<uint32_t>(counts_.size() - 1);
    r.p_value = chi_squared_p_value(x2, static_cast<double>(*r.df));
  }
  return r;
}

double keys_for_fpr(const FilterHeader& header, double p) {
  return solve_keys(rate_of(header), p, static_cast<double>(header.m));
}

std::optional<Headroom> compute_headroom(const FilterHeader& header, double distinct,
                                         std::optional<double> design_fpr) {
  if (header.kind != FilterKind::kBloom || header.m == 0 || header.k == 0) return std::nullopt;
  const auto rate = rate_of(header);
  Headroom h;
  if (design_fpr) {
    h.design_from_fill = false;
    h.design_fpr = *design_fpr;
    h.design_keys = solve_keys(rate, *design_fpr, static_cast<double>(header.m));
  } else {
    h.design_keys = design_point_keys(header);
    h.design_fpr = rate(h.design_keys);
  }
  h.keys_at_2x_design_fpr = 2 * h.design_fpr < 1
                                ? solve_keys(rate, 2 * h.design_fpr, static_cast<double>(header.m))
                                : std::numeric_limits<double>::infinity();
  h.headroom =
      distinct > 0 ? h.design_keys / distinct - 1.0 : std::numeric_limits<double>::infinity();
  h.fpr_1_25x = rate(1.25 * distinct);
  h.fpr_1_5x = rate(1.5 * distinct);
  h.fpr_2x = rate(2 * distinct);
  return h;
}

}  // namespace bloomtool
