#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "bloomtool/error.h"
#include "keys/hash.h"
#include "analysis/region_fill.h"
#include "analysis/stats.h"

using namespace bloomtool;

namespace {

// Words whose bits are set independently with probability 1/2 (a good mixer's output).
std::vector<uint64_t> random_words(size_t n, uint64_t seed) {
  std::vector<uint64_t> w(n);
  for (size_t i = 0; i < n; ++i) w[i] = mix64(seed + 0x9E3779B97F4A7C15ull * (i + 1));
  return w;
}

FilterHeader bloom_header(uint64_t m, uint32_t k, BloomVariant variant) {
  FilterHeader h;
  h.kind = FilterKind::kBloom;
  h.variant = static_cast<uint32_t>(variant);
  h.hash_id = kHashXxh3_64;
  h.m = m;
  h.k = k;
  return h;
}

}  // namespace

TEST_CASE("gamma_q and the chi-squared p-value match known values", "[region_fill]") {
  // Q(1, x) = e^-x; Q(1/2, x) = erfc(sqrt x).
  for (double x : {0.1, 1.0, 2.5, 10.0, 40.0}) {
    CHECK(gamma_q(1.0, x) == Approx(std::exp(-x)).epsilon(1e-12));
    CHECK(gamma_q(0.5, x) == Approx(std::erfc(std::sqrt(x))).epsilon(1e-10));
  }
  CHECK(gamma_q(3.0, 0.0) == 1.0);
  // Tables: the 5% and 1% critical values.
  CHECK(chi_squared_p_value(3.841458820694124, 1) == Approx(0.05).epsilon(1e-9));
  CHECK(chi_squared_p_value(18.307038053275146, 10) == Approx(0.05).epsilon(1e-9));
  // Far in the tail, and at the mean of many degrees of freedom.
  CHECK(chi_squared_p_value(100.0, 10) < 1e-15);
  CHECK(chi_squared_p_value(1023.0, 1023) == Approx(0.494).margin(3e-3));
  CHECK_THROWS_AS(gamma_q(0.0, 1.0), Error);
}

TEST_CASE("region fill: uniform bits pass, uneven bits fail", "[region_fill]") {
  const uint64_t m = 1 << 22;  // 1024 regions of 4096 bits
  const std::vector<uint64_t> words = random_words(m / 64, 7);
  RegionFillCounter even(m, 1, false);
  // In windows of odd sizes: the regions do not depend on how the words arrive.
  for (size_t at = 0; at < words.size(); at += 1000)
    even.add(
        std::span<const uint64_t>(words).subspan(at, std::min<size_t>(1000, words.size() - at)));
  const RegionFill r = even.finish(0);
  REQUIRE(r.set_bits.size() == 1024);
  CHECK(r.region_bits == 4096);
  REQUIRE(r.p_value);
  CHECK(*r.df == 1023);
  CHECK(*r.p_value > 0.001);
  CHECK(r.fill == Approx(0.5).margin(0.001));

  // The same bits with every 8th word's upper half cleared in the first half of the array only.
  std::vector<uint64_t> uneven = words;
  for (size_t i = 0; i < uneven.size() / 2; i += 8) uneven[i] &= 0xFFFFFFFFull;
  RegionFillCounter skewed(m, 1, false);
  skewed.add(uneven);
  const RegionFill s = skewed.finish(0);
  REQUIRE(s.p_value);
  CHECK(*s.p_value < 1e-6);
}

TEST_CASE("region fill: too few bits or set bits leave the test empty", "[region_fill]") {
  RegionFillCounter one(4096, 3, false);
  one.add(random_words(64, 1));
  const RegionFill a = one.finish(0);
  CHECK(a.set_bits.size() == 1);
  CHECK_FALSE(a.p_value);
  CHECK(a.why_not != nullptr);

  std::vector<uint64_t> sparse(1 << 14, 0);
  sparse[5] = 1;
  RegionFillCounter few(sparse.size() * 64, 3, false);
  few.add(sparse);
  const RegionFill b = few.finish(0);
  CHECK(b.set_bits.size() == 256);
  CHECK(b.set_bits[0] == 1);
  CHECK_FALSE(b.p_value);
  // A last region shorter than the others.
  RegionFillCounter tail(8192 + 100, 3, false);
  CHECK(tail.region_count() == 3);
}

TEST_CASE("headroom: design point, growth and the key count of a rate", "[region_fill]") {
  const FilterHeader h = bloom_header(9585059, 7, BloomVariant::kStandard);
  const auto room = compute_headroom(h, 1000000);
  REQUIRE(room);
  // Standard: the design point is m ln 2 / k keys (half the bits set).
  CHECK(room->design_keys == Approx(9585059 * std::log(2.0) / 7).epsilon(1e-3));
  CHECK(room->design_fpr == Approx(std::pow(0.5, 7)).epsilon(0.01));
  CHECK(room->headroom == Approx(room->design_keys / 1e6 - 1).epsilon(1e-9));
  CHECK(room->fpr_2x == Approx(model_fpr_for(h, 2e6)).epsilon(1e-9));
  CHECK(room->fpr_1_25x < room->fpr_1_5x);
  CHECK(model_fpr_for(h, room->keys_at_2x_design_fpr) ==
        Approx(2 * room->design_fpr).epsilon(1e-6));
  // A rate given: the key count at which the model reaches it.
  const auto given = compute_headroom(h, 1000000, 0.01);
  REQUIRE(given);
  CHECK_FALSE(given->design_from_fill);
  CHECK(model_fpr_for(h, given->design_keys) == Approx(0.01).epsilon(1e-6));
  CHECK(keys_for_fpr(h, 0.01) == Approx(given->design_keys).epsilon(1e-9));
  // Blocked: the design point lies where k is the best hash count.
  const FilterHeader b = bloom_header(1 << 24, 8, BloomVariant::kBlocked512);
  const auto broom = compute_headroom(b, 1e6);
  REQUIRE(broom);
  const double n = broom->design_keys;
  for (uint32_t other : {7u, 9u})
    CHECK(model_fpr_for(b, n) <
          model_fpr_for(bloom_header(1 << 24, other, BloomVariant::kBlocked512), n));
  // xor filters hold a fixed set.
  FilterHeader x = h;
  x.kind = FilterKind::kXor;
  CHECK_FALSE(compute_headroom(x, 1000));
}
