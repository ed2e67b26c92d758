#include <catch2/catch.hpp>

#include <algorithm>
#include <bit>
#include <span>
#include <string>
#include <vector>

#include "keys/hash.h"
#include "keys/hash_sort.h"

using namespace bloomtool;

namespace {

std::vector<uint64_t> hashes_of(const std::string& prefix, uint64_t n) {
  std::vector<uint64_t> out;
  for (uint64_t i = 0; i < n; ++i)
    out.push_back(hash_key(prefix + std::to_string(i), kDefaultSeed));
  return out;
}

}  // namespace

TEST_CASE("sort_unique sorts and removes repeats", "[sort]") {
  for (uint64_t n : {0ull, 1ull, 100ull, 5000ull, 70000ull}) {
    CAPTURE(n);
    std::vector<uint64_t> v = hashes_of("s:", n);
    std::vector<uint64_t> expect = v;
    for (uint64_t i = 0; i < n; i += 3) v.push_back(v[i]);
    v.push_back(0);
    v.push_back(~uint64_t{0});
    expect.push_back(0);
    expect.push_back(~uint64_t{0});
    std::sort(expect.begin(), expect.end());
    const size_t before = v.size();
    sort_unique(v);
    CHECK(before - v.size() == (n + 2) / 3);
    CHECK(v == expect);
  }
  // Hashes crafted to share their top 40 bits land in one run of the radix sort, and a hash
  // repeated many times fills one bucket: both fall back to comparison sorting.
  std::vector<uint64_t> v;
  for (uint64_t i = 0; i < 20000; ++i) v.push_back((0xABCDEull << 40) | ((i * 7919) % 20000));
  for (uint64_t i = 0; i < 30000; ++i) v.push_back(42);
  for (uint64_t i = 0; i < 20000; ++i) v.push_back(mix64(i));
  std::vector<uint64_t> expect = v;
  std::sort(expect.begin(), expect.end());
  expect.erase(std::unique(expect.begin(), expect.end()), expect.end());
  sort_unique(v);
  CHECK(v == expect);
}

namespace {

// group_unique on a copy of `v`: checks that the result is the distinct set and that the group
// (the documented number of top bits) never goes down; returns the number of distinct hashes.
size_t check_group_unique(std::vector<uint64_t> v) {
  std::vector<uint64_t> expect = v;
  std::sort(expect.begin(), expect.end());
  expect.erase(std::unique(expect.begin(), expect.end()), expect.end());
  std::vector<uint64_t> scratch(v.size());
  const size_t kept = group_unique(v.data(), v.size(), scratch.data());
  REQUIRE(kept == expect.size());
  std::vector<uint64_t> got(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(kept));
  const int bits =
      v.size() < 8192 ? 63 : std::clamp(static_cast<int>(std::bit_width(v.size() / 2048)), 1, 16);
  size_t descents = 0;
  for (size_t i = 1; i < got.size(); ++i)
    descents += (got[i - 1] >> (64 - bits)) > (got[i] >> (64 - bits));
  CHECK(descents == 0);
  std::sort(got.begin(), got.end());
  CHECK(got == expect);
  return kept;
}

}  // namespace

TEST_CASE("group_unique keeps each distinct hash once, grouped by top bits", "[sort]") {
  for (uint64_t n : {0ull, 1ull, 100ull, 8191ull, 8192ull, 70000ull, 300000ull}) {
    CAPTURE(n);
    std::vector<uint64_t> v = hashes_of("g:", n);
    for (uint64_t i = 0; i < n; i += 3) v.push_back(v[i]);
    v.push_back(0);
    v.push_back(0);
    v.push_back(~uint64_t{0});
    CHECK(check_group_unique(v) == n + 2);
  }
  // Crafted hashes: one group of 20,000 sharing their top 40 bits (too large for the table),
  // 30,000 copies of one hash, and a group whose low bits all collide (probes overflow): each
  // falls back to sorting that group, with the same result.
  std::vector<uint64_t> v;
  for (uint64_t i = 0; i < 20000; ++i) v.push_back((0xABCDEull << 40) | ((i * 7919) % 20000));
  for (uint64_t i = 0; i < 30000; ++i) v.push_back(42);
  for (uint64_t i = 0; i < 5000; ++i) v.push_back((uint64_t{0x77} << 56) | (i << 20));
  for (uint64_t i = 0; i < 20000; ++i) v.push_back(mix64(i));
  check_group_unique(v);
}

TEST_CASE("sample_has_repeats looks at the hashes whose top six bits are zero and the first ones",
          "[sort]") {
  const std::vector<uint64_t> v = hashes_of("s:", 50000);
  const std::span<const uint64_t> whole(v);
  CHECK_FALSE(sample_has_repeats(std::span(&whole, 1)));
  CHECK_FALSE(sample_has_repeats(std::span(&whole, 0)));
  // A repeat inside the sample, its copies in two arrays: seen. One outside it: not.
  const uint64_t in = uint64_t{0x0123} << 40, out = uint64_t{0xF123} << 48;
  std::vector<uint64_t> a = v, b{in};
  a.push_back(in);
  const std::span<const uint64_t> two[] = {a, b};
  CHECK(sample_has_repeats(two));
  std::vector<uint64_t> c = v;
  c.push_back(out);
  c.push_back(out);
  const std::span<const uint64_t> one(c);
  CHECK_FALSE(sample_has_repeats(std::span(&one, 1)));
  // Outside the sample but among the first 4,096 hashes (a key given over and over): seen.
  std::vector<uint64_t> d{out, 5, out};
  d.insert(d.end(), v.begin(), v.end());
  const std::span<const uint64_t> first(d);
  CHECK(sample_has_repeats(std::span(&first, 1)));
  std::vector<uint64_t> e(5000, out);
  const std::span<const uint64_t> same(e);
  CHECK(sample_has_repeats(std::span(&same, 1)));
  // Crafted: the sample's hashes all collide in the table (probes overflow): taken as repeats.
  std::vector<uint64_t> crafted;
  for (uint64_t i = 1; i <= 200; ++i) crafted.push_back(i << 40);
  const std::span<const uint64_t> cs(crafted);
  CHECK(sample_has_repeats(std::span(&cs, 1)));
}
