// Closed-form false-positive and sizing models for standard Bloom filters and the lower bound.
// log1p/expm1 keep precision when p is tiny (below 1e-8) or filters are huge (m > 2^40).
#include "model/model.h"

#include "model/index_model.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace bloomtool::model {

namespace {
// min_standard_bits(k) = max(floor, per * k^2); chosen from measurements (docs/MODEL.md).
constexpr uint64_t kMinStandardFloorBits = 1024;
constexpr uint64_t kMinStandardBitsPerK2 = 64;
}  // namespace

double bloom_fpr(double m_bits, double n, double k) {
  if (n <= 0) return 0.0;
  // (1 - e^{-kn/m})^k computed as exp(k * log(-expm1(-kn/m))).
  const double inner = -std::expm1(-k * n / m_bits);
  return std::exp(k * std::log(inner));
}

double bloom_optimal_bits(double n, double p) {
  const double ln2 = std::log(2.0);
  return -n * std::log(p) / (ln2 * ln2);
}

uint32_t bloom_optimal_k(double m_bits, double n) {
  if (n <= 0) return 1;
  const double k = std::round(m_bits / n * std::log(2.0));
  return static_cast<uint32_t>(std::clamp(k, 1.0, static_cast<double>(kMaxK)));
}

double bloom_fill_fpr(double set_bits, double m_bits, double k) {
  return std::pow(set_bits / m_bits, k);
}

double bloom_fill_distinct(double set_bits, double m_bits, double k) {
  if (set_bits >= m_bits) return std::numeric_limits<double>::infinity();
  return -(m_bits / k) * std::log1p(-set_bits / m_bits);
}

double lower_bound_bits(double n, double p) {
  const double bits = n * -std::log2(p);
  return bits == 0.0 ? 0.0 : bits;  // never -0 (p = 1)
}

}  // namespace bloomtool::model

namespace bloomtool::model {

namespace {

// blocked_fpr's terms for block loads i below this come from tables; sizing evaluates the model
// hundreds of times (blocked_size: every k from 1 to 32, a binary search each), and the library
// calls dominated a blocked build's start (5-7 ms of a 22 ms empty build). The tables hold exactly
// what the loop computes, so the sums are the same to the last bit (model_test compares them).
constexpr size_t kTableTerms = 4096;

// lgamma(i + 1) for i < kTableTerms.
const std::vector<double>& log_factorials() {
  static const std::vector<double> table = [] {
    std::vector<double> t(kTableTerms);
    for (size_t i = 0; i < kTableTerms; ++i) t[i] = std::lgamma(static_cast<double>(i) + 1.0);
    return t;
  }();
  return table;
}

// k * log(1 - (1 - 1/B)^(ik)) for one k and i < kTableTerms, and whether that fraction is
// positive (else the term is skipped); filled up to the largest i asked for, per thread.
struct SetTerm {
  bool used;
  double value;
};
struct SetTerms {
  double k = -1.0;
  std::vector<SetTerm> t;
};

SetTerm set_term(double i, double k, double log_miss) {
  const double set_frac = -std::expm1(i * k * log_miss);  // 1 - (1 - 1/B)^(ik)
  if (set_frac <= 0.0) return {false, 0.0};
  return {true, k * std::log(set_frac)};
}

}  // namespace

double blocked_fpr(double m_bits, double n, double k) {
  if (n <= 0) return 0.0;
  const double b = static_cast<double>(kBlockBits);
  const double lambda = n * b / m_bits;  // mean keys per block
  // Sum the Poisson terms around the mean until they stop contributing.
  const double spread = 12.0 * std::sqrt(lambda) + 24.0;
  const double lo = std::max(0.0, std::floor(lambda - spread));
  const double hi = std::ceil(lambda + spread);
  const double log_miss = std::log1p(-1.0 / b);
  const double log_lambda = std::log(lambda);
  const std::vector<double>& log_fact = log_factorials();
  thread_local SetTerms cache;
  if (!(cache.k == k)) {
    cache.k = k;
    cache.t.clear();
  }
  const double table_hi = std::min(hi, static_cast<double>(kTableTerms - 1));
  while (static_cast<double>(cache.t.size()) <= table_hi)
    cache.t.push_back(set_term(static_cast<double>(cache.t.size()), k, log_miss));
  double sum = 0.0;
  for (double i = lo; i <= hi; i += 1.0) {
    const bool tabled = i < static_cast<double>(kTableTerms);
    const size_t at = tabled ? static_cast<size_t>(i) : 0;
    const double log_pois =
        i * log_lambda - lambda - (tabled ? log_fact[at] : std::lgamma(i + 1.0));
    const SetTerm term = tabled ? cache.t[at] : set_term(i, k, log_miss);
    if (!term.used) continue;
    sum += std::exp(log_pois + term.value);
  }
  return sum;
}

uint32_t blocked_optimal_k(double m_bits, double n) {
  uint32_t best_k = 1;
  double best = blocked_fpr(m_bits, n, 1);
  for (uint32_t k = 2; k <= 32; ++k) {
    const double p = blocked_fpr(m_bits, n, k);
    if (p < best) {
      best = p;
      best_k = k;
    }
  }
  return best_k;
}

namespace {

// A bit count as an integer, at least 1; counts beyond 2^64 become UINT64_MAX, which every caller
// rejects as larger than the largest filter.
uint64_t whole_bits(double m) {
  if (!(m < 18446744073709551616.0)) return UINT64_MAX;
  return static_cast<uint64_t>(std::max(1.0, std::ceil(m)));
}

}  // namespace

uint64_t min_standard_bits(uint32_t k) noexcept {
  return std::max<uint64_t>(kMinStandardFloorBits, uint64_t{kMinStandardBitsPerK2} * k * k);
}

uint64_t standard_scheme_bits(uint64_t n, double p, uint32_t k, double m_start) {
  constexpr double kTwo64 = 18446744073709551616.0;
  const double start = std::max(std::ceil(m_start), static_cast<double>(min_standard_bits(k)));
  if (!(start < kTwo64)) return 0;
  const double nd = static_cast<double>(n);
  // The closed form's m (k rounded to a whole number) may miss p by a hair; that stays accepted,
  // and sizes grow only where the index scheme itself costs more than 0.1%.
  const double target = std::max(p, bloom_fpr(std::ceil(m_start), nd, k)) * 1.001;
  const auto ok = [&](uint64_t m) { return standard_scheme_fpr(m, nd, k) <= target; };
  uint64_t lo = static_cast<uint64_t>(start);
  if (ok(lo)) return lo;
  // Unreachable at any size (the rate's floor): say so at once.
  if (!ok(uint64_t{1} << 63)) return 0;
  // Grow by 1/16 until the rate is met, then bisect back.
  uint64_t hi = lo;
  while (!ok(hi)) {
    lo = hi;
    if (hi >= (uint64_t{1} << 62)) {
      hi = uint64_t{1} << 63;
      break;
    }
    hi = hi + hi / 16 + 1;
  }
  while (hi - lo > 1) {
    const uint64_t mid = lo + (hi - lo) / 2;
    if (ok(mid))
      hi = mid;
    else
      lo = mid;
  }
  return hi;
}

BloomSize standard_size(uint64_t n, double p) {
  const double m = std::ceil(bloom_optimal_bits(static_cast<double>(n), p));
  const uint32_t k = bloom_optimal_k(std::max(m, 1.0), static_cast<double>(n));
  const uint64_t bits = standard_scheme_bits(n, p, k, m);
  return {bits == 0 ? UINT64_MAX : bits, k};
}

uint64_t standard_bits_for_k(uint64_t n, double p, uint32_t k) {
  // Solve (1 - e^{-kn/m})^k = p for m.
  const double root = std::exp(std::log(p) / k);
  const double m = -static_cast<double>(k) * static_cast<double>(n) / std::log1p(-root);
  const uint64_t bits = standard_scheme_bits(n, p, k, std::max(1.0, m));
  return bits == 0 ? UINT64_MAX : bits;
}

BloomSize blocked_size(uint64_t n, double p, uint32_t k_fixed) {
  const double nd = static_cast<double>(n);
  BloomSize best{0, 0};
  const uint32_t k_lo = k_fixed ? k_fixed : 1, k_hi = k_fixed ? k_fixed : 32;
  for (uint32_t k = k_lo; k <= k_hi; ++k) {
    // Blocks needed: binary search on the block count, starting above the standard optimum.
    uint64_t lo = 1;
    uint64_t hi = std::max<uint64_t>(
        2, std::min(whole_bits(4.0 * bloom_optimal_bits(nd, p) / kBlockBits), kMaxBits) + 2);
    while (blocked_fpr(static_cast<double>(hi * kBlockBits), nd, k) > p) {
      if (hi > (kMaxBits / kBlockBits)) break;
      hi *= 2;
    }
    if (blocked_fpr(static_cast<double>(hi * kBlockBits), nd, k) > p) continue;
    while (lo < hi) {
      const uint64_t mid = lo + (hi - lo) / 2;
      if (blocked_fpr(static_cast<double>(mid * kBlockBits), nd, k) <= p)
        hi = mid;
      else
        lo = mid + 1;
    }
    const uint64_t bits = lo * kBlockBits;
    if (best.m_bits == 0 || bits < best.m_bits) best = {bits, k};
  }
  if (best.m_bits == 0) best = {kMaxBits, k_fixed ? k_fixed : 1};
  return best;
}

}  // namespace bloomtool::model

namespace bloomtool::model {

FuseGeometry fuse_geometry(uint64_t n) {
  // Segment length 2^floor(log_3.33(n) + 2.25), at most 2^18; size factor
  // max(1.125, 0.875 + 0.25 ln(10^6) / ln(n)) for arity 3.
  FuseGeometry g{};
  if (n <= 1) {
    g.segment_length = 4;
  } else {
    const double e = std::floor(std::log(static_cast<double>(n)) / std::log(3.33) + 2.25);
    g.segment_length = uint64_t{1} << static_cast<int>(std::clamp(e, 2.0, 18.0));
  }
  const double factor =
      n <= 1 ? 0.0
             : std::max(1.125, 0.875 + 0.25 * std::log(1e6) / std::log(static_cast<double>(n)));
  const uint64_t capacity = static_cast<uint64_t>(std::round(static_cast<double>(n) * factor));
  const uint64_t init_segments = (capacity + g.segment_length - 1) / g.segment_length;
  g.segment_count = init_segments > 2 ? init_segments - 2 : 1;
  g.array_length = (g.segment_count + 2) * g.segment_length;
  return g;
}

uint64_t xor_slots(uint64_t n) {
  const uint64_t raw = static_cast<uint64_t>(std::ceil(1.23 * static_cast<double>(n))) + 32;
  return (raw + 2) / 3 * 3;
}

double xor_fpr(uint32_t fingerprint_bits) {
  return std::ldexp(1.0, -static_cast<int>(fingerprint_bits));
}

}  // namespace bloomtool::model

namespace bloomtool::model {

double blocked_fill_distinct(double set_bits, double m_bits, double k) {
  if (set_bits >= m_bits) return std::numeric_limits<double>::infinity();
  const double b = static_cast<double>(kBlockBits);
  const double one_minus_q = -std::expm1(k * std::log1p(-1.0 / b));
  return -(m_bits / b) * std::log1p(-set_bits / m_bits) / one_minus_q;
}

}  // namespace bloomtool::model
