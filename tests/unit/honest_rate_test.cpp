// The rates `stats` reports are honest: tiny standard filters (a key's positions coincide), the
// verdict on healthy filters at high precision, and the fill-versus-n check on tampered bits.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "filters/bloom.h"
#include "keys/hash.h"
#include "model/model.h"
#include "analysis/stats.h"
#include "test_util.h"

using namespace bloomtool;

namespace {

FilterHeader header_for(const BloomFilter& f, uint64_t n) {
  FilterHeader h;
  h.kind = FilterKind::kBloom;
  h.variant = static_cast<uint32_t>(f.variant());
  h.m = f.bits();
  h.k = f.k();
  h.keys_added = n;
  h.distinct_estimate = n;
  h.seed = kDefaultSeed;
  return h;
}

BloomFilter with_keys(uint64_t m, uint32_t k, uint64_t n, const std::string& tag,
                      BloomVariant v = BloomVariant::kStandard) {
  BloomFilter f(m, k, v);
  for (uint64_t i = 0; i < n; ++i) f.add(hash_key(tag + std::to_string(i), kDefaultSeed));
  return f;
}

}  // namespace

TEST_CASE("tiny filters: the fill's rate matches a 1M-probe measurement", "[honest]") {
  int rows = 0, fill_deviates = 0;
  // Sanitizer builds take the 1% rows only (the same code; a third of the probes).
  const std::vector<double> rates =
      test::kSanitized ? std::vector<double>{0.01} : std::vector<double>{0.1, 0.01, 0.001};
  for (const double p : rates) {
    for (uint64_t n = 1; n <= 20; ++n) {
      CAPTURE(p, n);
      // As build sizes them now, and as earlier versions did (no minimum size).
      const model::BloomSize now = model::standard_size(n, p);
      CHECK(now.m_bits >= model::min_standard_bits(now.k));
      const double m_old = std::max(1.0, std::ceil(model::bloom_optimal_bits(n, p)));
      const model::BloomSize old{static_cast<uint64_t>(m_old), model::bloom_optimal_k(m_old, n)};
      for (const model::BloomSize& s : {now, old}) {
        const BloomFilter f = with_keys(s.m_bits, s.k, n, fmt::format("t{}-{}-", p, n));
        const FilterStats st = compute_stats(header_for(f, n), f);
        const FprMeasurement m =
            measure_fpr(f, kDefaultSeed, 1000000, kDefaultProbeSeed, st.expected_fpr());
        CAPTURE(s.m_bits, s.k, st.expected_fpr(), m.rate);
        CHECK(m.consistent);
        CHECK(st.expected_fpr() >= m.ci999.low);      // what --max-fpr compares
        fill_deviates += !st.fill_check->consistent;  // a 0.1% test: rare, not never
        if (&s == &now) CHECK(st.model_fpr <= p * 1.02);
        ++rows;
      }
    }
  }
  CHECK(rows == 40 * static_cast<int>(rates.size()));
  CHECK(fill_deviates <= 2);
}

TEST_CASE("m = 10, k = 7 for one key: the old file's rate is reported, and flagged", "[honest]") {
  const BloomFilter f = with_keys(10, 7, 1, "one");
  const FilterStats st = compute_stats(header_for(f, 1), f);
  const FprMeasurement m = measure_fpr(f, kDefaultSeed, 1000000, 3, st.expected_fpr());
  CHECK(st.below_min_size);
  CHECK(m.consistent);
  CHECK(st.expected_fpr() > 0.02);  // not the classic 0.0078
}

TEST_CASE("verdict on a healthy filter: about 0.1% deviate at 2M probes", "[honest]") {
  const BloomFilter f = with_keys(95851, 7, 10000, "healthy");
  const FilterStats st = compute_stats(header_for(f, 10000), f);
  int deviates = 0;
  // Sanitizer builds check the first 10 probe seeds (the same code, 20M probes instead of 200M).
  const uint64_t seeds = test::kSanitized ? 10 : 100;
  for (uint64_t seed = 1; seed <= seeds; ++seed)
    deviates += !measure_fpr(f, kDefaultSeed, 2000000, seed, st.expected_fpr()).consistent;
  CHECK(deviates <= 2);
  CHECK(st.fill_check->consistent);
}

TEST_CASE("5% of set bits cleared behind the header's back: the fill check fails", "[honest]") {
  for (const BloomVariant v : {BloomVariant::kStandard, BloomVariant::kBlocked512}) {
    BloomFilter f = with_keys(95851, 7, 10000, "cleared", v);
    const FilterHeader h = header_for(f, 10000);
    REQUIRE(compute_stats(h, f).fill_check->consistent);
    REQUIRE(header_count_problems(h, compute_stats(h, f)).empty());
    // Clear every 20th set bit.
    uint64_t seen = 0;
    for (uint64_t& w : f.mutable_words()) {
      for (int b = 0; b < 64; ++b) {
        if (((w >> b) & 1) && ++seen % 20 == 0) w &= ~(uint64_t{1} << b);
      }
    }
    const FilterStats st = compute_stats(h, f);
    CHECK_FALSE(st.fill_check->consistent);
    const auto problems = header_count_problems(h, st);
    CHECK(std::any_of(problems.begin(), problems.end(), [](const std::string& s) {
      return s.find("where 10000 distinct keys would put the count") != std::string::npos;
    }));
  }
}

TEST_CASE("rate_interval: exact at few hits, Wilson above", "[honest]") {
  // One hit in a million does not rule out a rate of 5e-8 (P(X >= 1) = 5%).
  CHECK(rate_interval(1, 1000000, kZ999).low < 5e-8);
  CHECK(rate_interval(0, 1000000, kZ999).high == Approx(-std::log(0.0005) / 1e6).epsilon(1e-6));
  const Interval w = rate_interval(200000, 20000000, kZ999);
  CHECK(w.low == wilson_interval(200000, 20000000, kZ999).low);
}
