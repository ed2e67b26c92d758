#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "model/index_model.h"
#include "model/model.h"

using namespace bloomtool::model;

TEST_CASE("standard Bloom formulas", "[model]") {
  const double ln2 = std::log(2.0);
  CHECK(bloom_optimal_bits(1e6, 0.01) ==
        Approx(-1e6 * std::log(0.01) / (ln2 * ln2)).epsilon(1e-12));
  CHECK(bloom_optimal_k(9585059, 1e6) == 7);
  CHECK(bloom_fpr(9585059, 1e6, 7) ==
        Approx(std::pow(1 - std::exp(-7e6 / 9585059), 7)).epsilon(1e-9));
  CHECK(bloom_fill_fpr(500, 1000, 3) == Approx(0.125));
  CHECK(bloom_fill_distinct(0, 1000, 3) == 0.0);
  CHECK(std::isinf(bloom_fill_distinct(1000, 1000, 3)));
  CHECK(lower_bound_bits(1000, 0.5) == Approx(1000));
  // Tiny p and huge m keep their precision.
  const double m = std::ldexp(1.0, 41);
  const double n = m / 60.0;
  const double k = 41;
  const double p = bloom_fpr(m, n, k);
  CHECK(p > 0);
  CHECK(p == Approx(std::pow(-std::expm1(-k * n / m), k)).epsilon(1e-9));
  CHECK(p < 1e-8);
}

TEST_CASE("standard sizing meets p, with and without a fixed k", "[model]") {
  for (double p : {0.1, 0.01, 0.001, 1e-6}) {
    const BloomSize s = standard_size(1000000, p);
    CHECK(bloom_fpr(static_cast<double>(s.m_bits), 1e6, s.k) <= p * 1.02);
    const uint64_t m4 = standard_bits_for_k(1000000, p, 4);
    // The closed form, grown where the index scheme's coinciding positions need it.
    CHECK(bloom_fpr(static_cast<double>(m4), 1e6, 4) == Approx(p).epsilon(1e-3));
    CHECK(standard_scheme_fpr(m4, 1e6, 4) <= p * 1.001);
    CHECK(standard_scheme_fpr(s.m_bits, 1e6, s.k) <= p * 1.02);
  }
}

TEST_CASE("blocked model: sized filters meet p and cost more than standard", "[model]") {
  for (double p : {0.1, 0.01, 0.001}) {
    const BloomSize b = blocked_size(1000000, p);
    CHECK(b.m_bits % kBlockBits == 0);
    CHECK(blocked_fpr(static_cast<double>(b.m_bits), 1e6, b.k) <= p);
    CHECK(blocked_fpr(static_cast<double>(b.m_bits - kBlockBits), 1e6, b.k) > p);
    CHECK(b.m_bits > standard_size(1000000, p).m_bits);
    // With many blocks the blocked rate is above the standard rate for the same m and k.
    CHECK(blocked_fpr(static_cast<double>(b.m_bits), 1e6, b.k) >
          bloom_fpr(static_cast<double>(b.m_bits), 1e6, b.k));
  }
}

TEST_CASE("fill estimates invert the expected fill", "[model]") {
  // Standard: X = m (1 - e^{-kn/m}).
  const double m = 1e7, n = 1e6, k = 7;
  const double x_std = m * -std::expm1(-k * n / m);
  CHECK(bloom_fill_distinct(x_std, m, k) == Approx(n).epsilon(1e-9));
  // Blocked: X = m (1 - exp(lambda (q - 1))), lambda = n B / m, q = (1 - 1/B)^k.
  const double b = static_cast<double>(kBlockBits);
  const double q = std::pow(1.0 - 1.0 / b, k);
  const double x_blk = m * -std::expm1(n * b / m * (q - 1.0));
  CHECK(blocked_fill_distinct(x_blk, m, k) == Approx(n).epsilon(1e-9));
  CHECK(blocked_fill_distinct(x_blk, m, k) > bloom_fill_distinct(x_blk, m, k));
}

namespace {

// blocked_fpr as it was written before its terms came from tables: the tables must not move a
// single bit of the result (sizes, and so files, depend on it).
double blocked_fpr_reference(double m_bits, double n, double k) {
  if (n <= 0) return 0.0;
  const double b = static_cast<double>(kBlockBits);
  const double lambda = n * b / m_bits;
  const double spread = 12.0 * std::sqrt(lambda) + 24.0;
  const double lo = std::max(0.0, std::floor(lambda - spread));
  const double hi = std::ceil(lambda + spread);
  const double log_miss = std::log1p(-1.0 / b);
  double sum = 0.0;
  for (double i = lo; i <= hi; i += 1.0) {
    const double log_pois = i * std::log(lambda) - lambda - std::lgamma(i + 1.0);
    const double set_frac = -std::expm1(i * k * log_miss);
    if (set_frac <= 0.0) continue;
    sum += std::exp(log_pois + k * std::log(set_frac));
  }
  return sum;
}

}  // namespace

TEST_CASE("blocked_fpr gives the untabled sum to the last bit", "[model]") {
  // Loads per block from 0.001 to 20,000 (past the tables' 4,096 terms), integer and fractional
  // k, k changing between calls and coming back (the per-thread table is rebuilt).
  int compared = 0;
  for (const double k : {7.0, 1.0, 7.0, 16.0, 2.5, 32.0, 64.0, 7.0}) {
    for (const double lambda :
         {0.001, 0.5, 3.0, 17.3, 53.4, 100.0, 370.0, 3000.0, 4090.0, 4200.0, 20000.0}) {
      for (const double m : {512.0, 95850584.0, 1e12}) {
        const double n = lambda * m / static_cast<double>(kBlockBits);
        const double got = blocked_fpr(m, n, k);
        const double want = blocked_fpr_reference(m, n, k);
        INFO("k " << k << " lambda " << lambda << " m " << m);
        CHECK(std::memcmp(&got, &want, sizeof got) == 0);
        ++compared;
      }
    }
  }
  CHECK(compared == 8 * 11 * 3);
}
