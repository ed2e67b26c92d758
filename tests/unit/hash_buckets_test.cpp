// HashBuckets: hashes added on several threads at once come out by partition, remapped, in order
// of their top remapped bits, or all of them turned back; a store that reaches its cap takes a
// prefix and then nothing; a drain hands back exactly what was added, as added.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <stdexcept>
#include <thread>
#include <vector>

#include "filters/hash_buckets.h"
#include "filters/partitioned_filter.h"

namespace bloomtool {

namespace {

std::vector<uint64_t> bucket_test_hashes(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<uint64_t> h(n);
  for (uint64_t& x : h) x = rng();
  return h;
}

}  // namespace

TEST_CASE("hash buckets: partitions hold their hashes remapped, by top remapped bits",
          "[buckets]") {
  // 100,000 hashes, a tenth of them twice, added in batches of 999 on three threads at once.
  std::vector<uint64_t> all = bucket_test_hashes(100000, 5);
  for (size_t i = 0; i < 100000; i += 10) all.push_back(all[i]);
  HashBuckets b(3, 0);
  std::vector<std::thread> adders;
  std::vector<size_t> short_adds(3, 0);  // checked once joined (Catch2 wants one thread)
  for (unsigned t = 0; t < 3; ++t) {
    adders.emplace_back([&, t] {
      for (size_t at = t * 999; at < all.size(); at += 3 * 999) {
        const std::span<const uint64_t> batch =
            std::span<const uint64_t>(all).subspan(at, std::min<size_t>(999, all.size() - at));
        if (b.add(t, batch) != batch.size()) ++short_adds[t];
      }
    });
  }
  for (std::thread& t : adders) t.join();
  CHECK(short_adds == std::vector<size_t>(3, 0));
  REQUIRE(b.size() == all.size());
  for (unsigned bits = 1; bits <= HashBuckets::kPartBits; ++bits) {
    CAPTURE(bits);
    size_t total = 0;
    for (uint32_t part = 0; part < (uint32_t{1} << bits); ++part) {
      std::vector<uint64_t> want, got;
      for (const uint64_t h : all)
        if (partition_of(h, bits) == part) want.push_back(partition_hash(h));
      uint64_t last_top = 0;
      size_t first_sweep = SIZE_MAX, piece_index = 0;
      for (const std::span<const uint64_t> piece : b.partition(bits, part, &first_sweep)) {
        for (const uint64_t r : piece) {
          const uint64_t top = r >> (64 - HashBuckets::kOrderBits);
          CHECK(top >= last_top);
          CHECK((top == 0) == (piece_index < first_sweep));
          last_top = top;
          got.push_back(r);
        }
        ++piece_index;
      }
      CHECK(first_sweep > 0);
      CHECK(first_sweep < piece_index);
      std::sort(want.begin(), want.end());
      std::sort(got.begin(), got.end());
      CHECK(got == want);
      total += got.size();
    }
    CHECK(total == all.size());
  }
  // Turned back in place: every hash as added.
  std::vector<uint64_t> back;
  for (const std::span<const uint64_t> piece : b.unmap_all())
    back.insert(back.end(), piece.begin(), piece.end());
  std::vector<uint64_t> sorted_all = all;
  std::sort(sorted_all.begin(), sorted_all.end());
  std::sort(back.begin(), back.end());
  CHECK(back == sorted_all);
  CHECK_THROWS_WITH(b.partition(0, 0), "HashBuckets::partition: no such partition");
  CHECK_THROWS_WITH(b.partition(5, 0), "HashBuckets::partition: no such partition");
  CHECK_THROWS_WITH(b.partition(2, 4), "HashBuckets::partition: no such partition");
}

TEST_CASE("hash buckets: a capped store takes a prefix, then nothing; a drain gives all back",
          "[buckets]") {
  const std::vector<uint64_t> all = bucket_test_hashes(300000, 9);
  // Chunks start at 512 hashes a bucket: 256 buckets fill 131,072 of the cap before any grows.
  HashBuckets b(1, 200000);
  size_t taken = 0;
  for (size_t at = 0; at < all.size(); at += 1000) {
    const size_t n = b.add(0, std::span<const uint64_t>(all).subspan(at, 1000));
    taken += n;
    if (n < 1000) break;
  }
  CHECK(taken < all.size());
  CHECK(taken > 100000);
  CHECK(b.size() == taken);
  CHECK(b.add(0, std::span<const uint64_t>(all).subspan(taken, 10)) == 0);  // full
  std::vector<uint64_t> back;
  b.drain([&](std::span<const uint64_t> piece) {
    back.insert(back.end(), piece.begin(), piece.end());
  });
  std::vector<uint64_t> want(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(taken));
  std::sort(want.begin(), want.end());
  std::sort(back.begin(), back.end());
  CHECK(back == want);
  CHECK(b.size() == 0);
  // Emptied, it takes hashes again.
  CHECK(b.add(0, std::span<const uint64_t>(all).first(5000)) == 5000);
  CHECK(b.size() == 5000);
  // A drain whose receiver throws (a full disk under the spill) leaves the store empty and usable.
  CHECK_THROWS_WITH(b.drain([](std::span<const uint64_t>) { throw std::runtime_error("full"); }),
                    "full");
  CHECK(b.size() == 0);
  CHECK(b.add(0, std::span<const uint64_t>(all).first(100000)) == 100000);
  CHECK(b.size() == 100000);
}

}  // namespace bloomtool
