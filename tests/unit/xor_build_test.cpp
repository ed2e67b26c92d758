// Construction of xor and binary fuse filters (build_xor_filter): what xor_filter_test.cpp leaves
// out — de-duplication counts on the grouped path, the smallest sets in every configuration,
// order independence above the sorting threshold, and the limits.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "bloomtool/error.h"
#include "filters/xor_construct.h"
#include "keys/hash.h"
#include "test_util.h"

using namespace bloomtool;
using bloomtool::test::count_present;
using bloomtool::test::key_hashes;

namespace {

XorBuildOptions options(XorLayout layout, uint32_t bits,
                        uint32_t max_attempts = kXorDefaultMaxAttempts) {
  XorBuildOptions o;
  o.layout = layout;
  o.fingerprint_bits = bits;
  o.max_attempts = max_attempts;
  return o;
}

struct Config {
  XorLayout layout;
  uint32_t bits;
};
constexpr Config kConfigs[] = {
    {XorLayout::kFuse, 8}, {XorLayout::kFuse, 16}, {XorLayout::kXor, 8}, {XorLayout::kXor, 16}};

}  // namespace

TEST_CASE("xor build: 0, 1, 2 and 3 keys in every configuration", "[xor][build]") {
  const std::vector<uint64_t> all = key_hashes("tiny:", 3);
  const std::vector<uint64_t> others = key_hashes("not:", 2000);
  for (const Config c : kConfigs) {
    for (size_t n = 0; n <= 3; ++n) {
      CAPTURE(xor_layout_name(c.layout), c.bits, n);
      std::vector<uint64_t> hashes(all.begin(), all.begin() + static_cast<ptrdiff_t>(n));
      const XorBuildResult r = build_xor_filter(hashes, options(c.layout, c.bits));
      REQUIRE(r.filter);
      CHECK(r.distinct == n);
      CHECK(r.duplicates == 0);
      CHECK(r.attempts >= 1);
      CHECK(hashes.size() == n);
      const XorParams& p = r.filter->params();
      CHECK(p.layout == c.layout);
      CHECK(p.fingerprint_bits == c.bits);
      CHECK(p.slots == xor_params_for(c.layout, c.bits, n).slots);
      CHECK(r.filter->words().size() == xor_payload_words(p));
      for (size_t i = 0; i < n; ++i) CHECK(r.filter->contains_hash(all[i]));
      // Few slots, so a false positive or two is possible, but not many: p = 2^-bits.
      CHECK(count_present(*r.filter, others) <= (c.bits == 8 ? 30u : 2u));
      if (n == 0) {
        // Nothing was added: every slot is zero, so only a zero fingerprint matches.
        CHECK(std::all_of(r.filter->words().begin(), r.filter->words().end(),
                          [](uint64_t w) { return w == 0; }));
      }
    }
  }
}

TEST_CASE("xor build: repeats are removed and counted, on the grouped path too", "[xor][build]") {
  // Above 8,192 input hashes group_unique groups instead of sorting. 0 and ~0 are distinct hashes
  // like any other (0 is tracked apart by the de-duplication).
  const std::vector<uint64_t> distinct_small = key_hashes("dup:", 1000);
  const std::vector<uint64_t> distinct_large = key_hashes("dup:", 30000);
  for (const std::vector<uint64_t>* distinct : {&distinct_small, &distinct_large}) {
    std::vector<uint64_t> input;
    uint64_t repeats = 0;
    for (size_t i = 0; i < distinct->size(); ++i) {
      for (size_t copies = 0; copies <= i % 4; ++copies) input.push_back((*distinct)[i]);
      repeats += i % 4;
    }
    for (int i = 0; i < 5; ++i) input.push_back(0);
    for (int i = 0; i < 3; ++i) input.push_back(~uint64_t{0});
    repeats += 4 + 2;
    std::mt19937_64 rng(42);
    std::shuffle(input.begin(), input.end(), rng);
    std::vector<uint64_t> members = *distinct;
    members.push_back(0);
    members.push_back(~uint64_t{0});
    for (const Config c : kConfigs) {
      CAPTURE(distinct->size(), xor_layout_name(c.layout), c.bits);
      std::vector<uint64_t> hashes = input;
      const XorBuildResult r = build_xor_filter(hashes, options(c.layout, c.bits));
      CHECK(r.distinct == members.size());
      CHECK(r.duplicates == repeats);
      CHECK(r.distinct + r.duplicates == input.size());
      // The vector now holds exactly the distinct hashes.
      REQUIRE(hashes.size() == members.size());
      std::vector<uint64_t> sorted = hashes, want = members;
      std::sort(sorted.begin(), sorted.end());
      std::sort(want.begin(), want.end());
      CHECK(sorted == want);
      CHECK(r.filter->params().slots == xor_params_for(c.layout, c.bits, members.size()).slots);
      CHECK(count_present(*r.filter, members) == members.size());
    }
  }
}

TEST_CASE("xor build: the span overload leaves the distinct hashes in front, grouped",
          "[xor][build]") {
  const std::vector<uint64_t> distinct = key_hashes("span:", 20000);
  std::vector<uint64_t> input = distinct;
  input.insert(input.end(), distinct.begin(), distinct.begin() + 7000);
  std::mt19937_64 rng(7);
  std::shuffle(input.begin(), input.end(), rng);
  const XorBuildResult r =
      build_xor_filter(std::span<uint64_t>(input), options(XorLayout::kFuse, 8));
  CHECK(input.size() == 27000);  // the span cannot shrink
  REQUIRE(r.distinct == 20000);
  CHECK(r.duplicates == 7000);
  std::vector<uint64_t> front(input.begin(), input.begin() + 20000);
  // Grouped by the top clamp(bit_width(27000 / 2048), 1, 16) = 4 bits, ascending.
  size_t descents = 0;
  for (size_t i = 1; i < front.size(); ++i) descents += (front[i - 1] >> 60) > (front[i] >> 60);
  CHECK(descents == 0);
  std::sort(front.begin(), front.end());
  std::vector<uint64_t> want = distinct;
  std::sort(want.begin(), want.end());
  CHECK(front == want);
}

TEST_CASE("xor build: 100,000 keys, no false negatives, any input order gives the same bytes",
          "[xor][build]") {
  const std::vector<uint64_t> keys = key_hashes("order:", 100000);
  std::vector<uint64_t> shuffled = keys;
  std::mt19937_64 rng(2026);
  std::shuffle(shuffled.begin(), shuffled.end(), rng);
  for (size_t i = 0; i < 5000; ++i) shuffled.push_back(keys[(i * 7919) % keys.size()]);
  std::vector<uint64_t> reversed(keys.rbegin(), keys.rend());
  for (const Config c : kConfigs) {
    CAPTURE(xor_layout_name(c.layout), c.bits);
    std::vector<uint64_t> a_in = keys, b_in = shuffled, c_in = reversed;
    const XorBuildResult a = build_xor_filter(a_in, options(c.layout, c.bits));
    const XorBuildResult b = build_xor_filter(b_in, options(c.layout, c.bits));
    const XorBuildResult r = build_xor_filter(c_in, options(c.layout, c.bits));
    CHECK(count_present(*a.filter, keys) == keys.size());
    CHECK(b.duplicates == 5000);
    for (const XorBuildResult* other : {&b, &r}) {
      CHECK(other->distinct == a.distinct);
      CHECK(other->attempts == a.attempts);
      CHECK(other->filter->params().seed == a.filter->params().seed);
      CHECK(other->filter->params().segment_length == a.filter->params().segment_length);
      CHECK(other->filter->params().segment_count == a.filter->params().segment_count);
      CHECK(std::equal(a.filter->words().begin(), a.filter->words().end(),
                       other->filter->words().begin(), other->filter->words().end()));
    }
  }
}

TEST_CASE("xor build: an xor-layout set that needs a second seed, and the attempt limit",
          "[xor][build]") {
  // Found by search: these 3,000 keys peel with the fourth seed of the xor layout, not before.
  const std::vector<uint64_t> keys = key_hashes("retry65:", 3000);
  std::vector<uint64_t> first = keys;
  const XorBuildResult ok = build_xor_filter(first, options(XorLayout::kXor, 8));
  REQUIRE(ok.attempts == 4);
  CHECK(count_present(*ok.filter, keys) == keys.size());
  for (uint32_t limit = 1; limit < ok.attempts; ++limit) {
    CAPTURE(limit);
    std::vector<uint64_t> hashes = keys;
    try {
      build_xor_filter(hashes, options(XorLayout::kXor, 8, limit));
      FAIL("construction should have failed");
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::kLimitExceeded);
      CHECK(std::string(e.what()) ==
            "xor filter construction failed after " + std::to_string(limit) +
                (limit == 1 ? " attempt" : " attempts") + " (3000 distinct keys)");
    }
  }
  // Exactly enough attempts is enough.
  std::vector<uint64_t> hashes = keys;
  const XorBuildResult just = build_xor_filter(hashes, options(XorLayout::kXor, 8, ok.attempts));
  CHECK(just.attempts == ok.attempts);
  CHECK(just.filter->params().seed == ok.filter->params().seed);
}

TEST_CASE("xor build: bad options are invalid arguments", "[xor][build]") {
  std::vector<uint64_t> hashes = key_hashes("opt:", 10);
  const auto code_of = [&](const XorBuildOptions& o) {
    std::vector<uint64_t> h = hashes;
    try {
      build_xor_filter(h, o);
    } catch (const Error& e) {
      return e.code();
    }
    FAIL("no error");
    return ErrorCode::kCorrupt;
  };
  CHECK(code_of(options(XorLayout::kFuse, 8, 0)) == ErrorCode::kInvalidArgument);
  CHECK(code_of(options(XorLayout::kXor, 8, 0)) == ErrorCode::kInvalidArgument);
  for (const uint32_t bits : {0u, 4u, 12u, 32u}) {
    CAPTURE(bits);
    CHECK(code_of(options(XorLayout::kFuse, bits)) == ErrorCode::kInvalidArgument);
    CHECK(code_of(options(XorLayout::kXor, bits)) == ErrorCode::kInvalidArgument);
  }
  // The input is left as it was when the options are refused up front.
  std::vector<uint64_t> h = hashes;
  CHECK_THROWS_AS(build_xor_filter(h, options(XorLayout::kFuse, 8, 0)), Error);
  CHECK(h == hashes);
}

TEST_CASE("xor build: hashes not known to be distinct give the filter of the distinct ones",
          "[xor][build]") {
  // With `speculate`, from 8,192 hashes on, repeats are looked for in a sample; where it has
  // none the first attempt runs on the hashes as given and repeats are removed only if it fails.
  // Each case must give the bytes and the attempt count of a build from the distinct hashes alone.
  struct Case {
    const char* what;
    size_t n;
    XorLayout layout;
    size_t every;        // every `every`-th hash twice (0: none)
    bool largest_twice;  // the largest hash twice: outside the sample (top six bits zero)
  };
  const Case cases[] = {
      {"no repeats", 100000, XorLayout::kFuse, 0, false},
      {"repeats in the sample", 100000, XorLayout::kFuse, 7, false},
      {"one repeat outside the sample", 100000, XorLayout::kFuse, 0, true},
      {"xor layout, one repeat outside the sample", 50000, XorLayout::kXor, 0, true},
      // 11,500 keys just past a doubling of the fuse segment length: the first seed rarely peels.
      {"first seed fails, no repeats", 11500, XorLayout::kFuse, 0, false},
      {"first seed fails, one repeat outside the sample", 11500, XorLayout::kFuse, 0, true},
  };
  for (const Case& c : cases) {
    CAPTURE(c.what);
    const std::vector<uint64_t> distinct = key_hashes("spec:", c.n);
    std::vector<uint64_t> input = distinct;
    for (size_t i = 0; c.every != 0 && i < distinct.size(); i += c.every)
      input.push_back(distinct[i]);
    if (c.largest_twice) input.push_back(*std::max_element(distinct.begin(), distinct.end()));
    std::mt19937_64 rng(7);
    std::shuffle(input.begin(), input.end(), rng);
    XorBuildOptions known = options(c.layout, 8);
    known.assume_distinct = true;
    std::vector<uint64_t> d = distinct;
    const XorBuildResult want = build_xor_filter(d, known);
    std::vector<uint64_t> h = input;
    XorBuildOptions speculative = options(c.layout, 8);
    speculative.speculate = true;
    const XorBuildResult got = build_xor_filter(h, speculative);
    // A speculation that worked leaves the hashes as given (no repeats, and the first seed
    // peels); every other path leaves them grouped.
    const bool speculated = c.every == 0 && !c.largest_twice && want.attempts == 1;
    CHECK((h == input) == speculated);
    CHECK(got.distinct == distinct.size());
    CHECK(got.duplicates == input.size() - distinct.size());
    CHECK(got.attempts == want.attempts);
    CHECK(got.filter->params().seed == want.filter->params().seed);
    const std::span<const uint64_t> a = got.filter->words(), b = want.filter->words();
    CHECK(std::equal(a.begin(), a.end(), b.begin(), b.end()));
    std::sort(h.begin(), h.end());
    std::vector<uint64_t> sorted = distinct;
    std::sort(sorted.begin(), sorted.end());
    CHECK(h == sorted);
    if (c.n == 11500) CHECK(want.attempts >= 2);
  }
}
