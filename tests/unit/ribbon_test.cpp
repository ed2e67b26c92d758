// Ribbon filters (filters/ribbon.h): no false negatives, the measured rate against the model at
// fixed keys, the size at any rate, tiny and empty sets, repeats, thread counts, and the checks
// that keep a solution read from a file consistent with its parameters.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "bloomtool/error.h"
#include "filters/ribbon_construct.h"
#include "filters/ribbon_mapping.h"
#include "keys/hash.h"
#include "model/model.h"
#include "test_util.h"

using namespace bloomtool;
using bloomtool::test::count_present;
using bloomtool::test::inside_999_interval;
using bloomtool::test::key_hashes;

namespace {

RibbonBuildResult build_ribbon(std::vector<uint64_t> hashes, double rate, unsigned threads = 1,
                               uint32_t variant = 1) {
  RibbonBuildOptions o;
  o.rate = rate;
  o.threads = threads;
  o.variant = variant;
  return build_ribbon_filter(hashes, o);
}

// A filter read back from its payload words, as a file load gives them.
RibbonFilter reread(const RibbonFilter& f) {
  WordBuffer words(f.words().size());
  std::copy(f.words().begin(), f.words().end(), words.data());
  return RibbonFilter(f.params(), std::move(words));
}

}  // namespace

TEST_CASE("ribbon: unmix64 undoes mix64", "[ribbon]") {
  for (const uint64_t x : {uint64_t{0}, uint64_t{1}, uint64_t{0x8000000000000000ull}, ~uint64_t{0},
                           uint64_t{0x0123456789ABCDEFull}})
    CHECK(detail::unmix64(mix64(x)) == x);
  const std::vector<uint64_t> h = key_hashes("unmix:", 1000);
  for (const uint64_t x : h)
    REQUIRE(detail::ribbon_unseeded(detail::ribbon_seeded(x, 77), 77) == x);
}

TEST_CASE("ribbon: every key is found, at every kind of rate", "[ribbon]") {
  const std::vector<uint64_t> keys = key_hashes("member:", 20000);
  for (const double p : {0.5, 0.3, 0.01, 1.0 / 256, 0.001, 1e-6, 0x1p-30})
    for (const uint32_t variant : {0u, 1u}) {
      CAPTURE(p, variant);
      const RibbonBuildResult r = build_ribbon(keys, p, 1, variant);
      CHECK(r.filter->params().variant == variant);
      CHECK(r.filter->params().layers.size() == (variant == 0 ? 1u : 3u));
      REQUIRE(r.filter);
      CHECK(r.distinct == keys.size());
      CHECK(r.duplicates == 0);
      CHECK(count_present(*r.filter, keys) == keys.size());
      for (size_t i = 0; i < 200; ++i) CHECK(r.filter->contains_hash(keys[i]));
      CHECK(count_present(reread(*r.filter), keys) == keys.size());
    }
}

TEST_CASE("ribbon: measured rate inside the 99.9% binomial interval of the model", "[ribbon]") {
  // Fixed keys and probes: the counts are the same on every run. 100,000 keys, 2,000,000 probes.
  const std::vector<uint64_t> keys = key_hashes("rate-member:", 100000);
  const std::vector<uint64_t> probes = key_hashes("rate-other:", 2000000);
  for (const double p : {0.01, 0.001, 0.0039})
    for (const uint32_t variant : {0u, 1u}) {
      CAPTURE(p, variant);
      const RibbonBuildResult r = build_ribbon(keys, p, 1, variant);
      // Bumped Ribbon: about 4% of the starts of the first layer are answered by the next ones.
      if (variant == 1) CHECK(r.filter->params().layers.at(0).bumped > 3000);
      const double model = ribbon_model_rate(r.filter->params());
      CHECK(model <= p);
      CHECK(model > p * 0.999);  // the mix of column counts meets p, not the next power of two
      const uint64_t hits = count_present(*r.filter, probes);
      CAPTURE(hits, model);
      CHECK(inside_999_interval(hits, probes.size(), model));
    }
}

TEST_CASE("ribbon: bits per key at 1M keys follow the rate, not whole bits", "[ribbon]") {
  const uint64_t n = 1000000;
  struct Case {
    double p, most_over_bound, bumped_most_over_bound;
  };
  // Standard: extra rows at 10^6 keys are 3.9%; mixing two column counts costs at most 1.5%
  // more. Bumped (the sizes predicted before a build): about 0.5% of rows without a key, 2 bits
  // of codes per 64 rows, and the mixing.
  for (const Case c :
       {Case{0.01, 1.055, 1.025}, Case{0.0039, 1.045, 1.02}, Case{0.001, 1.045, 1.02},
        Case{0.0001, 1.05, 1.02}, Case{0x1p-30, 1.045, 1.01}, Case{0.5, 1.045, 1.04}})
    for (const uint32_t variant : {0u, 1u}) {
      CAPTURE(c.p, variant);
      const RibbonParams rp = ribbon_params_for(n, c.p, variant);
      const double bits = static_cast<double>(rp.solution_bits()) / static_cast<double>(n);
      const double bound = std::log2(1 / c.p);
      CAPTURE(bits, bound, rp.columns, rp.layers.size());
      CHECK(bits < bound * (variant == 0 ? c.most_over_bound : c.bumped_most_over_bound));
      CHECK(ribbon_model_rate(rp) <= c.p);
      CHECK(ribbon_model_rate(rp) > c.p * 0.99);
      CHECK(rp.slots % kRibbonBlockRows == 0);
      CHECK(ribbon_payload_words(rp) * 64 == rp.solution_bits());
    }
  // Between 2^-7 and 2^-6 the size moves with the rate.
  const RibbonParams a = ribbon_params_for(n, 0.01, 0), b = ribbon_params_for(n, 0.012, 0);
  CHECK(a.columns == 6);
  CHECK(b.columns == 6);
  CHECK(a.layers[0].upper_blocks > b.layers[0].upper_blocks);
  CHECK(b.layers[0].upper_blocks > 0);
  CHECK(a.layers[0].upper_blocks < a.layers[0].blocks());
}

TEST_CASE("ribbon: a bumped filter as built is within 1.03 times the bound at 1%", "[ribbon]") {
  const std::vector<uint64_t> keys = key_hashes("bumped-size:", 200000);
  const RibbonBuildResult r = build_ribbon(keys, 0.01);
  const RibbonParams& p = r.filter->params();
  const double bits = static_cast<double>(p.solution_bits()) / static_cast<double>(keys.size());
  CAPTURE(bits);
  CHECK(bits < 1.03 * std::log2(100.0));
  CHECK(ribbon_model_rate(p) <= 0.01);
  CHECK(ribbon_model_rate(p) > 0.01 * 0.999);
  // Every layer but the last bumps some starts, and the header's counts are the codes' (checked
  // again when the words are read back).
  REQUIRE(p.layers.size() >= 3);
  CHECK(r.layer_keys.size() == p.layers.size());
  CHECK(r.layer_keys[0] == keys.size());
  for (size_t i = 0; i + 1 < p.layers.size(); ++i) {
    CHECK(p.layers[i].bumping);
    CHECK(p.layers[i].bumped > 0);
    CHECK(r.layer_keys[i + 1] < r.layer_keys[i] / 10);
  }
  CHECK(!p.layers.back().bumping);
  CHECK(count_present(reread(*r.filter), keys) == keys.size());
}

TEST_CASE("ribbon: 0, 1, 2, 7, 63, 64 and 65 keys", "[ribbon]") {
  const std::vector<uint64_t> all = key_hashes("tiny:", 65);
  const std::vector<uint64_t> others = key_hashes("tiny-other:", 100000);
  for (const size_t n :
       {size_t{0}, size_t{1}, size_t{2}, size_t{7}, size_t{63}, size_t{64}, size_t{65}})
    for (const uint32_t variant : {0u, 1u}) {
      CAPTURE(n, variant);
      const std::vector<uint64_t> keys(all.begin(), all.begin() + static_cast<ptrdiff_t>(n));
      const RibbonBuildResult r = build_ribbon(keys, 0.01, 1, variant);
      REQUIRE(r.filter);
      CHECK(r.distinct == n);
      CHECK(r.attempts == 1);
      const RibbonParams& p = r.filter->params();
      CHECK(p.layers.size() == 1);  // a standard layer alone, whichever the variant
      CHECK(r.filter->words().size() == ribbon_payload_words(p));
      CHECK(count_present(*r.filter, keys) == n);
      CHECK(count_present(reread(*r.filter), keys) == n);
      if (n == 0) {
        CHECK(p.slots == 0);
        CHECK(r.filter->words().size() == 1);
        CHECK(r.filter->words()[0] == 0);
        CHECK(count_present(*r.filter, others) == 0);
        CHECK(!r.filter->contains_hash(all[0]));
      } else {
        CHECK(p.slots == 3 * kRibbonBlockRows);
        // 100,000 probes against the model rate of 1%.
        CHECK(inside_999_interval(count_present(*r.filter, others), others.size(),
                                  ribbon_model_rate(p)));
      }
    }
}

TEST_CASE("ribbon: bumped filters just above the size of one standard layer", "[ribbon]") {
  // 1,024 keys: one standard layer; from 1,025: a bumping layer of a few blocks, whose end bumps
  // more, then a standard one.
  const std::vector<uint64_t> all = key_hashes("small-bumped:", 5000);
  const std::vector<uint64_t> others = key_hashes("small-bumped-other:", 200000);
  for (const size_t n : {size_t{1024}, size_t{1025}, size_t{1100}, size_t{5000}}) {
    CAPTURE(n);
    const std::vector<uint64_t> keys(all.begin(), all.begin() + static_cast<ptrdiff_t>(n));
    const RibbonBuildResult r = build_ribbon(keys, 0.01);
    const RibbonParams& p = r.filter->params();
    CHECK(p.layers.size() == (n <= kRibbonLastLayerKeys ? 1u : 2u));
    CHECK(count_present(*r.filter, keys) == n);
    CHECK(count_present(reread(*r.filter), keys) == n);
    CHECK(ribbon_model_rate(p) <= 0.01);
    CHECK(
        inside_999_interval(count_present(*r.filter, others), others.size(), ribbon_model_rate(p)));
  }
}

TEST_CASE("ribbon: repeats are removed and change nothing", "[ribbon]") {
  const std::vector<uint64_t> keys = key_hashes("dup:", 5000);  // two layers
  std::vector<uint64_t> with_repeats = keys;
  with_repeats.insert(with_repeats.end(), keys.begin(), keys.begin() + 1000);
  with_repeats.insert(with_repeats.end(), keys.begin(), keys.begin() + 10);
  std::reverse(with_repeats.begin(), with_repeats.end());
  const RibbonBuildResult a = build_ribbon(keys, 0.01);
  RibbonBuildOptions o;
  o.rate = 0.01;
  std::vector<uint64_t> hashes = with_repeats;
  const RibbonBuildResult b = build_ribbon_filter(hashes, o);
  CHECK(b.distinct == keys.size());
  CHECK(b.duplicates == 1010);
  // The distinct hashes are given back (in some order).
  std::sort(hashes.begin(), hashes.end());
  std::vector<uint64_t> sorted = keys;
  std::sort(sorted.begin(), sorted.end());
  CHECK(hashes == sorted);
  CHECK(a.filter->params().kind_params() == b.filter->params().kind_params());
  CHECK(std::equal(a.filter->words().begin(), a.filter->words().end(), b.filter->words().begin(),
                   b.filter->words().end()));
  // 3,000 keys three times each: grouped as 9,000 hashes, banded as 3,000 in two layers.
  const std::vector<uint64_t> three = key_hashes("dup-three:", 3000);
  std::vector<uint64_t> tripled;
  for (int i = 0; i < 3; ++i) tripled.insert(tripled.end(), three.begin(), three.end());
  const RibbonBuildResult t = build_ribbon(tripled, 0.01);
  CHECK(t.distinct == three.size());
  CHECK(t.filter->params().layers.size() == 2);
  CHECK(count_present(*t.filter, three) == three.size());
  CHECK(t.filter->params().kind_params() ==
        build_ribbon(three, 0.01).filter->params().kind_params());
  // One key a thousand times.
  const RibbonBuildResult one = build_ribbon(std::vector<uint64_t>(1000, keys[0]), 0.01);
  CHECK(one.distinct == 1);
  CHECK(one.duplicates == 999);
  CHECK(one.filter->contains_hash(keys[0]));
}

TEST_CASE("ribbon: the same filter for any thread count and several buffers", "[ribbon]") {
  // Above the sizes where grouping and seeding run on several threads.
  const uint64_t n = 300000;
  const std::vector<uint64_t> keys = key_hashes("threads:", n);
  const RibbonBuildResult one = build_ribbon(keys, 0.02, 1);
  for (const unsigned t : {2u, 3u}) {
    CAPTURE(t);
    const RibbonBuildResult r = build_ribbon(keys, 0.02, t);
    CHECK(r.filter->params().kind_params() == one.filter->params().kind_params());
    CHECK(std::equal(r.filter->words().begin(), r.filter->words().end(),
                     one.filter->words().begin(), one.filter->words().end()));
  }
  std::vector<WordBuffer> parts;
  std::vector<size_t> counts;
  for (size_t first = 0; first < keys.size(); first += keys.size() / 3 + 1) {
    const size_t c = std::min(keys.size() - first, keys.size() / 3 + 1);
    parts.emplace_back(c);
    std::copy(keys.begin() + static_cast<ptrdiff_t>(first),
              keys.begin() + static_cast<ptrdiff_t>(first + c), parts.back().data());
    counts.push_back(c);
  }
  RibbonBuildOptions o;
  o.rate = 0.02;
  o.threads = 2;
  const RibbonBuildResult r = build_ribbon_filter(parts, counts, o);
  CHECK(r.distinct == n);
  CHECK(std::equal(r.filter->words().begin(), r.filter->words().end(), one.filter->words().begin(),
                   one.filter->words().end()));
}

TEST_CASE("ribbon: bad options and inconsistent parameters", "[ribbon]") {
  std::vector<uint64_t> keys = key_hashes("bad:", 10);
  RibbonBuildOptions o;
  for (const double p : {0.0, 0.6, 1.0, 0x1p-31, std::nan("")}) {
    o.rate = p;
    CHECK_THROWS_MATCHES(build_ribbon_filter(keys, o), Error,
                         Catch::Predicate<Error>([](const Error& e) {
                           return e.code() == ErrorCode::kInvalidArgument;
                         }));
  }
  o.rate = 0.01;
  o.max_attempts = 0;
  CHECK_THROWS_AS(build_ribbon_filter(keys, o), Error);

  o.max_attempts = 1;
  o.variant = 2;
  CHECK_THROWS_AS(build_ribbon_filter(keys, o), Error);

  RibbonParams out;
  CHECK(ribbon_params_from_file(0, 6, 192, {1, 5}, out).empty());
  CHECK(out.columns == 6);
  CHECK(out.layers.size() == 1);
  CHECK(out.layers[0].upper_blocks == 1);
  CHECK(out.layers[0].seed == 5);
  CHECK(ribbon_params_from_file(0, 6, 0, {0, 5}, out).empty());
  CHECK(ribbon_params_from_file(0, 6, 192, {1}, out) == "Ribbon filters need 2 kind parameters");
  CHECK(ribbon_params_from_file(0, 0, 192, {1, 5}, out) == "column count k=0 is not in [1, 30]");
  CHECK(ribbon_params_from_file(0, 31, 192, {1, 5}, out) == "column count k=31 is not in [1, 30]");
  CHECK(ribbon_params_from_file(0, 6, 200, {1, 5}, out) ==
        "m=200 is not 0 or a multiple of 64 of at least 192");
  CHECK(ribbon_params_from_file(0, 6, 128, {1, 5}, out) ==
        "m=128 is not 0 or a multiple of 64 of at least 192");
  CHECK(ribbon_params_from_file(0, 6, 192, {4, 5}, out) ==
        "upper block count 4 exceeds the 3 blocks");
  CHECK(ribbon_params_from_file(0, 6, uint64_t{1} << 41, {1, 5}, out) ==
        "m=2199023255552 exceeds 2^40 rows");

  // Variant 1: the layer count, then slots, upper blocks, seed, bumped upper, bumped per layer.
  CHECK(ribbon_params_from_file(1, 6, 448, {2, 256, 1, 7, 10, 20, 192, 1, 8, 0, 0}, out).empty());
  CHECK(out.layers.size() == 2);
  CHECK(out.layers[0].bumping);
  CHECK(!out.layers[1].bumping);
  CHECK(out.layers[1].seed == 8);
  CHECK(ribbon_params_from_file(1, 6, 192, {1, 192, 1, 7, 0, 0}, out).empty());
  CHECK(ribbon_params_from_file(1, 6, 0, {1, 0, 0, 7, 0, 0}, out).empty());
  CHECK(ribbon_params_from_file(1, 6, 192, {}, out) ==
        "a bumped Ribbon filter needs a layer count of 1 to 8");
  CHECK(ribbon_params_from_file(1, 6, 192, {9}, out) ==
        "a bumped Ribbon filter needs a layer count of 1 to 8");
  CHECK(ribbon_params_from_file(1, 6, 192, {1, 192, 1, 7, 0}, out) ==
        "a bumped Ribbon filter of 1 layers needs 6 kind parameters");
  CHECK(ribbon_params_from_file(1, 6, 448, {2, 256, 1, 7, 10, 20, 192, 1, 8, 0, 0, 0}, out) ==
        "a bumped Ribbon filter of 2 layers needs 11 kind parameters");
  CHECK(ribbon_params_from_file(1, 6, 192, {2, 0, 0, 7, 0, 0, 192, 1, 8, 0, 0}, out) ==
        "layer 0 rows=0 is not a multiple of 64 of at least 192");
  CHECK(ribbon_params_from_file(1, 6, 400, {2, 200, 0, 7, 0, 0, 200, 1, 8, 0, 0}, out) ==
        "layer 0 rows=200 is not a multiple of 64 of at least 192");
  CHECK(ribbon_params_from_file(1, 6, 448, {2, 256, 1, 7, 10, 20, 192, 1, 8, 0, 1}, out) ==
        "the last layer bumps 1 starts");
  CHECK(ribbon_params_from_file(1, 6, 448, {2, 256, 1, 7, 10, 130, 192, 1, 8, 0, 0}, out) ==
        "layer 0 bumps 130 starts (10 in upper blocks) of 129");
  CHECK(ribbon_params_from_file(1, 6, 448, {2, 256, 1, 7, 21, 20, 192, 1, 8, 0, 0}, out) ==
        "layer 0 bumps 20 starts (21 in upper blocks) of 129");
  CHECK(ribbon_params_from_file(1, 6, 448, {2, 256, 0, 7, 1, 20, 192, 1, 8, 0, 0}, out) ==
        "layer 0 bumps 20 starts (1 in upper blocks) of 129");
  CHECK(ribbon_params_from_file(1, 6, 512, {2, 256, 1, 7, 10, 20, 192, 1, 8, 0, 0}, out) ==
        "m=512 is not the layers' 448 rows");
  CHECK(ribbon_params_from_file(1, 6, 448, {2, 256, 5, 7, 10, 20, 192, 1, 8, 0, 0}, out) ==
        "upper block count 5 exceeds the 4 blocks");

  const RibbonBuildResult r = build_ribbon(keys, 0.01);
  WordBuffer short_words(r.filter->words().size() - 1);
  CHECK_THROWS_MATCHES(
      RibbonFilter(r.filter->params(), std::move(short_words)), Error,
      Catch::Predicate<Error>([](const Error& e) { return e.code() == ErrorCode::kCorrupt; }));
}

TEST_CASE("ribbon: a bumped layer's codes must give the starts its header counts", "[ribbon]") {
  const RibbonBuildResult r = build_ribbon(key_hashes("codes:", 1800), 0.01);
  const RibbonParams& p = r.filter->params();
  REQUIRE(p.layers.size() == 2);
  const RibbonLayer& l = p.layers[0];
  REQUIRE(l.blocks() < 31);  // one word of codes, its last bits unused
  REQUIRE(l.code_words() == 1);
  auto with_word = [&](size_t at, uint64_t value) {
    WordBuffer words(r.filter->words().size());
    std::copy(r.filter->words().begin(), r.filter->words().end(), words.data());
    words.data()[at] = value;
    return words;
  };
  auto corrupt = [&](WordBuffer words) -> std::string {
    try {
      RibbonFilter f(p, std::move(words));
    } catch (const Error& e) {
      if (e.code() == ErrorCode::kCorrupt) return e.what();
      return "not corrupt";
    }
    return "accepted";
  };
  CHECK(corrupt(with_word(0, r.filter->words()[0])) == "accepted");
  // One more block bumps all of its starts.
  uint64_t w = r.filter->words()[0];
  size_t b = 0;
  while (((w >> (2 * b)) & 3) != 0) ++b;
  REQUIRE(b < l.blocks());
  CHECK(corrupt(with_word(0, w | (uint64_t{3} << (2 * b)))).starts_with("layer 0 codes bump "));
  // Codes past the last block.
  CHECK(corrupt(with_word(0, w | (uint64_t{1} << 62))) == "layer 0 has codes past its last block");
}
