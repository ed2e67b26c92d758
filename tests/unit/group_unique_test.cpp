// group_unique's documented order, exactly: groups ascending by their top bits, and within a
// group the order in which the hashes first appear (hash_sort_test.cpp checks the set and the
// grouping).
#include <catch2/catch.hpp>

#include <algorithm>
#include <bit>
#include <random>
#include <unordered_set>
#include <vector>

#include "keys/hash.h"
#include "keys/hash_sort.h"

using namespace bloomtool;

namespace {

// What group_unique documents for input `v` of at least 8,192 hashes.
std::vector<uint64_t> expected_grouping(const std::vector<uint64_t>& v) {
  const int bits = std::clamp(static_cast<int>(std::bit_width(v.size() / 2048)), 1, 16);
  std::vector<std::vector<uint64_t>> groups(size_t{1} << bits);
  std::unordered_set<uint64_t> seen;
  for (const uint64_t h : v) {
    if (seen.insert(h).second) groups[h >> (64 - bits)].push_back(h);
  }
  std::vector<uint64_t> out;
  for (const auto& g : groups) out.insert(out.end(), g.begin(), g.end());
  return out;
}

}  // namespace

TEST_CASE("group_unique keeps first-appearance order within each group", "[sort]") {
  for (const uint64_t n : {8192u, 50000u, 120000u}) {
    CAPTURE(n);
    std::vector<uint64_t> v;
    for (uint64_t i = 0; i < n; ++i) v.push_back(mix64(i * 0x9E3779B97F4A7C15ull + 1));
    // Repeats, some before the first copy's neighbours, and 0 twice (tracked apart).
    std::mt19937_64 rng(n);
    for (uint64_t i = 0; i < n / 4; ++i) v.push_back(v[rng() % n]);
    v.push_back(0);
    v.insert(v.begin() + static_cast<std::ptrdiff_t>(n / 3), 0);
    std::shuffle(v.begin() + static_cast<std::ptrdiff_t>(n / 2), v.end(), rng);
    const std::vector<uint64_t> want = expected_grouping(v);
    std::vector<uint64_t> scratch(v.size());
    const size_t kept = group_unique(v.data(), v.size(), scratch.data());
    REQUIRE(kept == want.size());
    v.resize(kept);
    CHECK(v == want);
  }
}

TEST_CASE("group_unique below 8,192 hashes sorts", "[sort]") {
  std::vector<uint64_t> v;
  for (uint64_t i = 0; i < 8191; ++i) v.push_back(mix64(i % 5000));
  std::vector<uint64_t> want = v;
  std::sort(want.begin(), want.end());
  want.erase(std::unique(want.begin(), want.end()), want.end());
  std::vector<uint64_t> scratch(v.size());
  const size_t kept = group_unique(v.data(), v.size(), scratch.data());
  REQUIRE(kept == 5000);
  v.resize(kept);
  CHECK(v == want);
  // Nothing, and a single hash.
  CHECK(group_unique(nullptr, 0, nullptr) == 0);
  uint64_t one = 7, spare = 0;
  CHECK(group_unique(&one, 1, &spare) == 1);
  CHECK(one == 7);
}

TEST_CASE("group_unique over several arrays equals it over their concatenation", "[sort]") {
  for (const uint64_t n : {5000u, 120000u, 400000u}) {  // sorted, one thread, several threads
    std::vector<uint64_t> v;
    for (uint64_t i = 0; i < n; ++i) v.push_back(mix64(i % (n - n / 5)));
    std::vector<uint64_t> whole = v, scratch(n);
    const size_t want = group_unique(whole.data(), n, scratch.data(), 2);
    for (const bool by_bits : {false, true}) {
      INFO("n " << n << " group_by_top_bits " << by_bits);
      // The first part lives at the front of the output array, as xor-build's first buffer does.
      std::vector<uint64_t> out(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(n / 7));
      out.resize(n);
      const std::vector<uint64_t> second(v.begin() + static_cast<std::ptrdiff_t>(n / 7),
                                         v.begin() + static_cast<std::ptrdiff_t>(n / 2));
      const std::vector<uint64_t> third(v.begin() + static_cast<std::ptrdiff_t>(n / 2), v.end());
      const std::span<const uint64_t> parts[] = {{out.data(), n / 7}, {}, second, third};
      if (by_bits) {
        std::vector<uint64_t> ref = v;
        group_by_top_bits(ref.data(), n, scratch.data(), 2);
        group_by_top_bits(parts, out.data(), scratch.data(), 2);
        CHECK(out == ref);
      } else {
        const size_t kept = group_unique(parts, out.data(), scratch.data(), 2);
        REQUIRE(kept == want);
        CHECK(std::equal(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(kept),
                         whole.begin()));
      }
    }
  }
}
