#include <catch2/catch.hpp>

#include <algorithm>
#include <bit>
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
  const std::vector<uint64_t> original = v;
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
  // The same through group_by_top_bits, then unique_in_groups in place.
  std::vector<uint64_t> g = original;
  group_by_top_bits(g.data(), g.size(), scratch.data());
  const int top = group_top_bits(g.size());
  const size_t kept2 = unique_in_groups(g.data(), g.size(), top);
  REQUIRE(kept2 == expect.size());
  g.resize(kept2);
  descents = 0;
  for (size_t i = 1; i < g.size(); ++i) descents += (g[i - 1] >> (64 - top)) > (g[i] >> (64 - top));
  CHECK(descents == 0);
  std::sort(g.begin(), g.end());
  CHECK(g == expect);
  // group_unless_repeats: all removed, or none (only grouped) when the sample has none.
  std::vector<uint64_t> u = original;
  const std::span<const uint64_t> whole(original);
  bool removed = false;
  const size_t kept3 =
      group_unless_repeats(std::span(&whole, 1), u.data(), scratch.data(), 1, removed);
  if (removed) {
    CHECK(kept3 == expect.size());
  } else {
    CHECK(kept3 == original.size());
  }
  u.resize(kept3);
  descents = 0;
  for (size_t i = 1; i < u.size(); ++i) descents += (u[i - 1] >> (64 - top)) > (u[i] >> (64 - top));
  if (original.size() >= 8192) CHECK(descents == 0);
  std::sort(u.begin(), u.end());
  u.erase(std::unique(u.begin(), u.end()), u.end());
  CHECK(u == expect);
  return kept;
}

}  // namespace

TEST_CASE(
    "group_unique, and unique_in_groups after group_by_top_bits, keep each distinct hash once, "
    "grouped by top bits",
    "[sort]") {
  for (uint64_t n : {0ull, 1ull, 100ull, 8191ull, 8192ull, 70000ull, 300000ull}) {
    CAPTURE(n);
    std::vector<uint64_t> v = hashes_of("g:", n);
    for (uint64_t i = 0; i < n; i += 3) v.push_back(v[i]);
    v.push_back(0);
    v.push_back(0);
    v.push_back(~uint64_t{0});
    CHECK(check_group_unique(v) == n + 2);
    CHECK(check_group_unique(hashes_of("d:", n)) == n);  // no repeats
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

TEST_CASE("group_unless_repeats removes repeats when its sample has some, else only groups",
          "[sort]") {
  const std::vector<uint64_t> distinct = hashes_of("u:", 70000);
  auto run = [](const std::vector<uint64_t>& v, bool& removed) {
    std::vector<uint64_t> out(v.size()), scratch(v.size());
    const std::span<const uint64_t> whole(v);
    return group_unless_repeats(std::span(&whole, 1), out.data(), scratch.data(), 2, removed);
  };
  bool removed = true;
  CHECK(run(distinct, removed) == distinct.size());
  CHECK_FALSE(removed);
  std::vector<uint64_t> many = distinct;
  for (size_t i = 0; i < distinct.size(); i += 3) many.push_back(distinct[i]);
  CHECK(run(many, removed) == distinct.size());
  CHECK(removed);
  // One repeat, of the largest hash: in the last group, outside the sample.
  std::vector<uint64_t> one = distinct;
  one.push_back(*std::max_element(distinct.begin(), distinct.end()));
  CHECK(run(one, removed) == one.size());
  CHECK_FALSE(removed);
  // Below 8,192 hashes: always removed (sorted).
  std::vector<uint64_t> small(distinct.begin(), distinct.begin() + 100);
  small.push_back(small[0]);
  CHECK(run(small, removed) == 100);
  CHECK(removed);
}
