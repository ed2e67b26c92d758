#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "bloomtool/hash.h"
#include "bloomtool/hash_sort.h"

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
