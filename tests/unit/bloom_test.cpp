#include <catch2/catch.hpp>

#include <bit>

#include "filters/bloom.h"
#include "keys/hash.h"
#include "model/model.h"
#include "test_util.h"

using namespace bloomtool;

namespace {

struct Outcome {
  uint64_t false_negatives = 0;
  uint64_t false_positives = 0;
  double model_p = 0;
};

Outcome run(BloomVariant variant, double p, uint64_t n) {
  const auto members = test::make_keys("member:", 0, n);
  const auto others = test::make_keys("other:", 0, n);
  const model::BloomSize s =
      variant == BloomVariant::kStandard ? model::standard_size(n, p) : model::blocked_size(n, p);
  BloomFilter f(s.m_bits, s.k, variant);
  std::vector<uint64_t> hashes;
  for (const auto& k : members) hashes.push_back(hash_key(k, kDefaultSeed));
  f.add_batch(hashes);
  Outcome o;
  std::vector<uint8_t> found(n);
  f.contains_batch(hashes, found.data());
  for (uint8_t x : found) o.false_negatives += x == 0;
  hashes.clear();
  for (const auto& k : others) hashes.push_back(hash_key(k, kDefaultSeed));
  f.contains_batch(hashes, found.data());
  for (uint8_t x : found) o.false_positives += x;
  const double m = static_cast<double>(f.bits());
  o.model_p = variant == BloomVariant::kStandard ? model::bloom_fpr(m, n, f.k())
                                                 : model::blocked_fpr(m, n, f.k());
  return o;
}

}  // namespace

TEST_CASE("standard Bloom: no false negatives, false-positive rate matches the model",
          "[bloom][slow]") {
  const uint64_t n = 1000000;
  for (double p : {0.01, 0.001}) {
    CAPTURE(p);
    const Outcome o = run(BloomVariant::kStandard, p, n);
    CHECK(o.false_negatives == 0);
    CHECK(o.model_p == Approx(p).epsilon(0.02));
    CHECK(test::inside_999_interval(o.false_positives, n, o.model_p));
  }
}

TEST_CASE("blocked Bloom: no false negatives, rate matches the blocked model", "[bloom][slow]") {
  const uint64_t n = 1000000;
  for (double p : {0.01, 0.001}) {
    CAPTURE(p);
    const Outcome o = run(BloomVariant::kBlocked512, p, n);
    CHECK(o.false_negatives == 0);
    CHECK(o.model_p <= p);
    CHECK(test::inside_999_interval(o.false_positives, n, o.model_p));
  }
}

TEST_CASE("single add and query agree with the batch calls", "[bloom]") {
  for (auto variant : {BloomVariant::kStandard, BloomVariant::kBlocked512}) {
    BloomFilter f(10000, 5, variant);
    CHECK(f.set_bit_count() == 0);
    CHECK_FALSE(f.contains_hash(hash_key("a", 1)));
    f.add(hash_key("a", 1));
    CHECK(f.contains_hash(hash_key("a", 1)));
    CHECK(f.set_bit_count() >= 1);
    CHECK(f.set_bit_count() <= 5);
  }
}

TEST_CASE("filters above 2^32 bits address their whole range", "[bloom][big]") {
  const uint64_t m = 3 * (uint64_t{1} << 31);  // 6.4e9 bits, a third of them above 2^32
  BloomFilter f(m, 3);
  const auto keys = test::make_keys("big:", 0, 200000);
  std::vector<uint64_t> hashes;
  for (const auto& k : keys) hashes.push_back(hash_key(k, kDefaultSeed));
  f.add_batch(hashes);
  std::vector<uint8_t> found(hashes.size());
  f.contains_batch(hashes, found.data());
  uint64_t negatives = 0;
  for (uint8_t x : found) negatives += x == 0;
  CHECK(negatives == 0);
  // A third of the 600,000 bits land above 2^32; a 32-bit index would leave that range empty.
  uint64_t high = 0;
  const auto words = f.words();
  for (size_t i = (uint64_t{1} << 32) / 64; i < words.size(); ++i) high += std::popcount(words[i]);
  CHECK(high > 180000);
  CHECK(high < 220000);
}

TEST_CASE("parameters out of range are rejected", "[bloom]") {
  CHECK_THROWS(BloomFilter(0, 3));
  CHECK_THROWS(BloomFilter(100, 0));
  CHECK_THROWS(BloomFilter(100, 65));
  CHECK_THROWS(BloomFilter(model::kMaxBits + 1, 3));
  CHECK(BloomFilter(1000, 3, BloomVariant::kBlocked512).bits() == 1024);
}
