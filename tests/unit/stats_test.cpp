#include <catch2/catch.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <set>

#include "filters/bloom.h"
#include "bloomtool/error.h"
#include "keys/hash.h"
#include "model/index_model.h"
#include "model/model.h"
#include "analysis/stats.h"
#include "test_util.h"

using namespace bloomtool;

namespace {

// A filter that answers from a fixed rule, to check measurement bookkeeping exactly.
class RuleFilter final : public Filter {
 public:
  explicit RuleFilter(uint64_t modulus) : modulus_(modulus) {}
  bool contains_hash(uint64_t h) const noexcept override { return h % modulus_ == 0; }

 private:
  uint64_t modulus_;
};

BloomFilter filled(BloomVariant variant, uint64_t m, uint32_t k, uint64_t n,
                   const std::string& prefix = "key:") {
  BloomFilter f(m, k, variant);
  std::vector<uint64_t> hashes;
  for (const auto& key : test::make_keys(prefix, 0, n)) hashes.push_back(hash_key(key, 7));
  f.add_batch(hashes);
  return f;
}

}  // namespace

TEST_CASE("Wilson interval: known values and edges", "[stats]") {
  // 10 of 100 at 95%: the textbook interval 0.0552 to 0.1744.
  const Interval a = wilson_interval(10, 100, kZ95);
  CHECK(a.low == Approx(0.055229).epsilon(1e-4));
  CHECK(a.high == Approx(0.174366).epsilon(1e-4));
  // 0 hits: the lower end is 0, the upper end z^2 / (n + z^2).
  const Interval z = wilson_interval(0, 1000000, kZ999);
  CHECK(z.low == 0.0);
  CHECK(z.high == Approx(kZ999 * kZ999 / (1e6 + kZ999 * kZ999)).epsilon(1e-9));
  // All hits: the upper end is 1, the lower end n / (n + z^2).
  const Interval all = wilson_interval(50, 50, kZ95);
  CHECK(all.high == 1.0);
  CHECK(all.low == Approx(50.0 / (50.0 + kZ95 * kZ95)).epsilon(1e-9));
  // The 99.9% interval contains the 95% one.
  const Interval w95 = wilson_interval(1234, 100000, kZ95);
  const Interval w999 = wilson_interval(1234, 100000, kZ999);
  CHECK(w999.low < w95.low);
  CHECK(w999.high > w95.high);
  CHECK(w95.contains(0.01234));
}

TEST_CASE("judge_fpr: consistent inside the 99.9% interval, deviates outside", "[stats]") {
  const FprMeasurement ok = judge_fpr(1000, 100000, 0.01);
  CHECK(ok.rate == 0.01);
  CHECK(ok.consistent);
  // sd = sqrt(1000) ~ 31.6 hits: 0.0111 is about 3.5 sd away, 0.0108 about 2.5.
  CHECK_FALSE(judge_fpr(1000, 100000, 0.0112).consistent);
  CHECK(judge_fpr(1000, 100000, 0.0108).consistent);
  CHECK_FALSE(judge_fpr(1000, 100000, 0.0089).consistent);
  // Nothing seen is consistent with a tiny model rate, not with a large one.
  CHECK(judge_fpr(0, 1000000, 1e-9).consistent);
  CHECK(judge_fpr(0, 1000000, 0.0).consistent);
  CHECK_FALSE(judge_fpr(0, 1000000, 1e-4).consistent);
  CHECK(describe_measurement(ok).find("consistent") != std::string::npos);
  CHECK(describe_measurement(judge_fpr(1000, 100000, 0.02)).find("deviates") != std::string::npos);
}

TEST_CASE("probe keys cannot be lines or NDJSON keys and are reproducible", "[stats]") {
  std::set<std::string> seen;
  for (uint64_t i = 0; i < 1000; ++i) {
    const std::string k = probe_key(42, i);
    REQUIRE(k.size() == kProbeKeyBytes);
    CHECK(k.find('\n') != std::string::npos);
    CHECK(k.find('\xff') != std::string::npos);
    CHECK(k == probe_key(42, i));
    seen.insert(k);
  }
  CHECK(seen.size() == 1000);
  CHECK(probe_key(42, 0) != probe_key(43, 0));
}

TEST_CASE("measure_fpr counts exactly what the filter answers", "[stats]") {
  // Brute force over the same probe keys agrees with the batched measurement.
  const RuleFilter every_third(3);
  uint64_t expected = 0;
  for (uint64_t i = 0; i < 10000; ++i) expected += hash_key(probe_key(5, i), 99) % 3 == 0;
  const FprMeasurement m = measure_fpr(every_third, 99, 10000, 5, 1.0 / 3);
  CHECK(m.probes == 10000);
  CHECK(m.false_positives == expected);
  CHECK(m.consistent);
  CHECK(measure_fpr(RuleFilter(1), 0, 5000, 1, 1.0).false_positives == 5000);
  CHECK(measure_fpr(every_third, 99, 10000, 5, 0.5).consistent == false);
  CHECK_THROWS_AS(measure_fpr(every_third, 0, 0, 1, 0.1), Error);
  // Same seed, same answer; another seed, other keys.
  CHECK(measure_fpr(every_third, 99, 10000, 5, 0.3).false_positives == expected);
  CHECK(measure_fpr(every_third, 99, 10000, 6, 0.3).false_positives != expected);
}

TEST_CASE("measured rate of Bloom filters agrees with the fill and the model", "[stats]") {
  for (BloomVariant v : {BloomVariant::kStandard, BloomVariant::kBlocked512}) {
    CAPTURE(bloom_variant_name(v));
    const uint64_t n = 50000;
    const BloomFilter f = filled(v, 479253, 7, n);  // about 9.6 bits per key, p ~ 1%
    const BloomFill fill = bloom_fill(f);
    const FprMeasurement m = measure_fpr(f, 7, 400000, 11, fill.fpr);
    CHECK(m.consistent);
    const double model = v == BloomVariant::kStandard
                             ? model::bloom_fpr(static_cast<double>(f.bits()), n, 7)
                             : model::blocked_fpr(static_cast<double>(f.bits()), n, 7);
    CHECK(m.ci999.contains(model));
    // A member is always present, so the keys themselves measure 100%.
    std::vector<uint64_t> members;
    for (const auto& key : test::make_keys("key:", 0, 1000)) members.push_back(hash_key(key, 7));
    CHECK(count_present(f, members) == 1000);
  }
}

TEST_CASE("bloom_fill: set bits, fill rate and distinct estimate per variant", "[stats]") {
  SECTION("standard: (X/m)^k and -(m/k) ln(1 - X/m)") {
    const BloomFilter f = filled(BloomVariant::kStandard, 100000, 5, 10000);
    const BloomFill fill = bloom_fill(f);
    const double x = static_cast<double>(f.set_bit_count());
    CHECK(fill.set_bits == f.set_bit_count());
    // (X/m)^k, corrected for the index scheme's coinciding positions: a hair above it.
    CHECK(fill.fpr == Approx(std::pow(x / 100000, 5)).epsilon(1e-3));
    CHECK(fill.fpr >= std::pow(x / 100000, 5));
    CHECK(fill.distinct == Approx(-(100000.0 / 5) * std::log1p(-x / 100000)).epsilon(1e-12));
  }
  SECTION("blocked: the mean over blocks of (X_b/512)^k") {
    BloomFilter f(1024, 3, BloomVariant::kBlocked512);
    auto w = f.mutable_words();
    for (int i = 0; i < 4; ++i) w[i] = ~uint64_t{0};  // block 0: 256 of 512 bits set
    w[8] = 0xFF;                                      // block 1: 8 bits set
    const BloomFill fill = bloom_fill(f);
    CHECK(fill.set_bits == 264);
    CHECK(fill.fpr == Approx((std::pow(0.5, 3) + std::pow(8.0 / 512, 3)) / 2).epsilon(1e-12));
    const double per_key = 1 - std::pow(1 - 1.0 / 512, 3);
    CHECK(fill.distinct == Approx(-(2 / per_key) * std::log(1 - 264.0 / 1024)).epsilon(1e-12));
  }
  SECTION("empty and saturated") {
    BloomFilter f(640, 4);
    CHECK(bloom_fill(f).set_bits == 0);
    CHECK(bloom_fill(f).fpr == 0.0);
    CHECK(bloom_fill(f).distinct == 0.0);
    for (auto& word : f.mutable_words()) word = ~uint64_t{0};
    CHECK(bloom_fill(f).fpr == 1.0);
    CHECK(std::isinf(bloom_fill(f).distinct));
  }
}

// The CLI test checks 1,000,000 keys with duplicates end to end; this one checks the estimators.
TEST_CASE("distinct estimate within 1% for 200,000 keys, both variants", "[stats]") {
  const uint64_t n = 200000;
  // Standard at p = 1%; blocked at p = 1e-4, where k = 13 and the standard formula applied to a
  // blocked filter would be off by about (k - 1) / (2 * 512) = 1.2%.
  const model::BloomSize s = model::standard_size(n, 0.01);
  const model::BloomSize b = model::blocked_size(n, 1e-4);
  const BloomFilter fs = filled(BloomVariant::kStandard, s.m_bits, s.k, n);
  const BloomFilter fb = filled(BloomVariant::kBlocked512, b.m_bits, b.k, n);
  const double es = bloom_fill(fs).distinct;
  const double eb = bloom_fill(fb).distinct;
  CHECK(std::fabs(es - 2e5) / 2e5 < 0.01);
  CHECK(std::fabs(eb - 2e5) / 2e5 < 0.01);
  const double naive = model::bloom_fill_distinct(static_cast<double>(bloom_fill(fb).set_bits),
                                                  static_cast<double>(fb.bits()), fb.k());
  CHECK(std::fabs(eb - 2e5) < std::fabs(naive - 2e5));
  CHECK(std::fabs(naive - 2e5) / 2e5 > 0.01);
}

TEST_CASE("compute_stats for Bloom and for xor / binary fuse headers", "[stats]") {
  SECTION("bloom") {
    const BloomFilter f = filled(BloomVariant::kStandard, 95851, 7, 10000);
    FilterHeader h;
    h.kind = FilterKind::kBloom;
    h.m = f.bits();
    h.k = f.k();
    h.keys_added = 12000;
    h.distinct_estimate = 10000;
    const FilterStats s = compute_stats(h, f);
    CHECK(s.filter_bits == 95851);
    CHECK(*s.set_bits == f.set_bit_count());
    CHECK(*s.fill == Approx(static_cast<double>(f.set_bit_count()) / 95851));
    CHECK(*s.bits_per_key == Approx(9.5851));
    CHECK(s.model_fpr == Approx(model::standard_scheme_fpr(95851, 10000, 7)));
    CHECK(s.model_fpr == Approx(model::bloom_fpr(95851, 10000, 7)).epsilon(1e-3));
    CHECK(*s.fill_fpr == Approx(bloom_fill(f).fpr));
    CHECK(s.expected_fpr() == *s.fill_fpr);
    CHECK(*s.lower_bound_bits == Approx(10000 * std::log2(1 / s.model_fpr)));
    CHECK(*s.lower_bound_ratio == Approx(95851 / *s.lower_bound_bits));
    CHECK(std::fabs(*s.distinct_from_fill - 10000) < 100);
    // A non-Bloom object under a Bloom header is a programming error, reported, not a crash.
    CHECK_THROWS_AS(compute_stats(h, RuleFilter(2)), Error);
  }
  SECTION("blocked uses the blocked model") {
    const BloomFilter f = filled(BloomVariant::kBlocked512, 102400, 7, 10000);
    FilterHeader h;
    h.kind = FilterKind::kBloom;
    h.variant = 1;
    h.m = f.bits();
    h.k = 7;
    h.distinct_estimate = 10000;
    CHECK(compute_stats(h, f).model_fpr == Approx(model::blocked_fpr(102400, 10000, 7)));
  }
  for (FilterKind kind : {FilterKind::kXor, FilterKind::kBinaryFuse}) {
    for (uint32_t fbits : {8u, 16u}) {
      CAPTURE(filter_kind_name(kind), fbits);
      FilterHeader h;
      h.kind = kind;
      h.k = fbits;
      h.m = 1125000;
      h.keys_added = h.distinct_estimate = 1000000;
      const FilterStats s = compute_stats(h, RuleFilter(256));
      CHECK(s.filter_bits == 1125000ull * fbits);
      CHECK(s.model_fpr == std::ldexp(1.0, -static_cast<int>(fbits)));
      CHECK(!s.fill);
      CHECK(!s.set_bits);
      CHECK(!s.fill_fpr);
      CHECK(!s.distinct_from_fill);
      CHECK(s.expected_fpr() == s.model_fpr);
      CHECK(*s.bits_per_key == Approx(1.125 * fbits));
      CHECK(*s.lower_bound_ratio == Approx(1.125));
    }
  }
  SECTION("no keys: no bits per key, no lower bound") {
    const BloomFilter f(1024, 3);
    FilterHeader h;
    h.m = 1024;
    h.k = 3;
    const FilterStats s = compute_stats(h, f);
    CHECK(s.model_fpr == 0.0);
    CHECK(!s.bits_per_key);
    CHECK(!s.lower_bound_bits);
  }
}

TEST_CASE("header_count_problems: a header that lies about its filter", "[stats]") {
  const BloomFilter f = filled(BloomVariant::kStandard, 95851, 7, 10000);
  FilterHeader h;
  h.kind = FilterKind::kBloom;
  h.m = f.bits();
  h.k = 7;
  h.keys_added = 10000;
  h.distinct_estimate = 10000;
  CHECK(header_count_problems(h, compute_stats(h, f)).empty());
  h.keys_added = 12000;  // duplicates: fine
  CHECK(header_count_problems(h, compute_stats(h, f)).empty());

  h.distinct_estimate = 9000;  // 10% off the fill's estimate: the set-bit count disagrees too
  auto p = header_count_problems(h, compute_stats(h, f));
  REQUIRE(p.size() == 2);
  CHECK(p[0].find("the fill implies") != std::string::npos);
  CHECK(p[1].find("where 9000 distinct keys would put the count") != std::string::npos);

  h.distinct_estimate = 10000;
  h.keys_added = 9000;  // fewer keys added than distinct keys
  p = header_count_problems(h, compute_stats(h, f));
  REQUIRE(!p.empty());
  CHECK(p[0].find("only 9000 keys added") != std::string::npos);

  h.keys_added = 100;  // 700 bits at most, far more are set
  h.distinct_estimate = 100;
  p = header_count_problems(h, compute_stats(h, f));
  CHECK(std::any_of(p.begin(), p.end(), [](const std::string& s) {
    return s.find("more than k=7 per key") != std::string::npos;
  }));

  const BloomFilter empty(95851, 7);
  h.keys_added = 5;
  h.distinct_estimate = 5;
  p = header_count_problems(h, compute_stats(h, empty));
  CHECK(std::any_of(p.begin(), p.end(), [](const std::string& s) {
    return s.find("5 keys added but 0 bits set") != std::string::npos;
  }));
  h.keys_added = h.distinct_estimate = 0;
  CHECK(header_count_problems(h, compute_stats(h, empty)).empty());
}
