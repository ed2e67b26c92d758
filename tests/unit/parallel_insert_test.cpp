// ParallelInserter: halves, private copies and region-by-region inserts from real concurrent
// threads give exactly the bits of one thread's add_batch, for both layouts, any thread count,
// and filters of one line or region as well as many.
#include <catch2/catch.hpp>

#include <bit>
#include <thread>
#include <vector>

#include "filters/bloom.h"
#include "keys/hash.h"
#include "filters/parallel_insert.h"

using namespace bloomtool;

namespace {

std::vector<uint64_t> hashes_for(uint64_t n, uint64_t salt) {
  std::vector<uint64_t> h(n);
  for (uint64_t i = 0; i < n; ++i) h[i] = mix64(i * 0x9E3779B97F4A7C15ull + salt);
  return h;
}

// Inserts `h` through `inserter` with `threads` threads in batches of `batch`, thread t taking
// every threads-th batch; returns the inserter's mode, and sets `set_bits` to what finish()
// counted.
ParallelInserter::Mode insert_with(ParallelInserter& inserter, const std::vector<uint64_t>& h,
                                   unsigned threads, size_t batch, uint64_t& set_bits) {
  std::vector<std::thread> pool;
  auto work = [&](unsigned t) {
    for (size_t i = t * batch; i < h.size(); i += threads * batch)
      inserter.add(std::span<const uint64_t>(h).subspan(i, std::min(batch, h.size() - i)), t);
  };
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work, t);
  work(0);
  for (auto& p : pool) p.join();
  set_bits = inserter.finish();
  return inserter.mode();
}

// Inserts `h` with `threads` threads in batches of `batch`, thread t taking every threads-th
// batch, through an inserter allowed `copy_bytes` of copies; returns the inserter's mode, and
// sets `set_bits` to what finish() counted.
ParallelInserter::Mode insert_parallel(BloomFilter& f, const std::vector<uint64_t>& h,
                                       unsigned threads, uint64_t copy_bytes, size_t batch,
                                       uint64_t& set_bits) {
  ParallelInserter inserter(f, threads, copy_bytes);
  return insert_with(inserter, h, threads, batch, set_bits);
}

}  // namespace

TEST_CASE("parallel inserts set exactly the bits of one thread", "[bloom][threads]") {
  struct Case {
    uint64_t m_bits;
    uint32_t k;
    uint64_t keys;
  };
  // One region (tiny), a few, and many regions with buffers flushed mid-way.
  const Case cases[] = {
      {512, 3, 50}, {64 * 1024, 7, 5000}, {8 << 20, 7, 300000}, {8 << 20, 64, 40000}};
  for (const BloomVariant variant : {BloomVariant::kStandard, BloomVariant::kBlocked512}) {
    for (const Case& c : cases) {
      const std::vector<uint64_t> h = hashes_for(c.keys, c.m_bits + c.k);
      BloomFilter reference(c.m_bits, c.k, variant);
      reference.add_batch(h);
      for (const unsigned threads : {1u, 2u, 3u, 5u}) {
        for (const uint64_t copy_bytes : {uint64_t{0}, uint64_t{1} << 30}) {
          CAPTURE(bloom_variant_name(variant), c.m_bits, c.k, threads, copy_bytes);
          BloomFilter f(c.m_bits, c.k, variant);
          uint64_t set_bits = 0;
          const ParallelInserter::Mode mode =
              insert_parallel(f, h, threads, copy_bytes, 1000, set_bits);
          CHECK(mode == (threads == 1      ? ParallelInserter::Mode::kDirect
                         : threads == 2    ? ParallelInserter::Mode::kHalves
                         : copy_bytes == 0 ? ParallelInserter::Mode::kRegions
                                           : ParallelInserter::Mode::kCopies));
          REQUIRE(std::equal(f.words().begin(), f.words().end(), reference.words().begin(),
                             reference.words().end()));
          CHECK(set_bits == reference.set_bit_count());
        }
      }
    }
  }
}

TEST_CASE("every mode on any thread count sets exactly the bits of one thread",
          "[bloom][threads]") {
  using Mode = ParallelInserter::Mode;
  const std::vector<uint64_t> h = hashes_for(200000, 7);
  for (const BloomVariant variant : {BloomVariant::kStandard, BloomVariant::kBlocked512}) {
    // A line, a line and a bit (parts of unequal size, one empty with five threads), and more.
    for (const uint64_t m_bits : {uint64_t{512}, uint64_t{700}, uint64_t{3} << 20}) {
      BloomFilter reference(m_bits, 5, variant);
      reference.add_batch(h);
      for (const Mode mode : {Mode::kHalves, Mode::kCopies, Mode::kRegions}) {
        for (const unsigned threads : {2u, 3u, 5u}) {
          // Batches below and above the 4096 keys a shared batch holds.
          for (const size_t batch : {size_t{700}, size_t{10000}}) {
            CAPTURE(bloom_variant_name(variant), m_bits, static_cast<int>(mode), threads, batch);
            BloomFilter f(m_bits, 5, variant);
            ParallelInserter inserter(f, threads, mode);
            uint64_t set_bits = 0;
            // Only two threads split a filter; more get copies instead.
            const Mode expected = mode == Mode::kHalves && threads != 2 ? Mode::kCopies : mode;
            CHECK(insert_with(inserter, h, threads, batch, set_bits) == expected);
            REQUIRE(std::equal(f.words().begin(), f.words().end(), reference.words().begin(),
                               reference.words().end()));
            CHECK(set_bits == reference.set_bit_count());
          }
        }
      }
    }
  }
}

TEST_CASE("a split filter needs no thread to come round", "[bloom][threads]") {
  // Far more bits for the other half than its ring holds, added by one thread while the other
  // adds nothing, or only after the first is done (a pipeline whose second thread did not start
  // runs its share on the first afterwards): neither call may wait for the absent thread.
  const std::vector<uint64_t> h = hashes_for(600000, 11);
  for (const BloomVariant variant : {BloomVariant::kStandard, BloomVariant::kBlocked512}) {
    BloomFilter reference(1 << 22, 7, variant);
    reference.add_batch(h);
    for (const bool second_adds : {false, true}) {
      CAPTURE(bloom_variant_name(variant), second_adds);
      BloomFilter f(1 << 22, 7, variant);
      ParallelInserter inserter(f, 2, ParallelInserter::Mode::kHalves);
      const std::span<const uint64_t> all(h);
      const size_t half = second_adds ? h.size() / 2 : h.size();
      for (size_t i = 0; i < half; i += 1000)
        inserter.add(all.subspan(i, std::min<size_t>(1000, half - i)), 0);
      for (size_t i = half; i < h.size(); i += 1000)
        inserter.add(all.subspan(i, std::min<size_t>(1000, h.size() - i)), 1);
      const uint64_t set_bits = inserter.finish();
      REQUIRE(std::equal(f.words().begin(), f.words().end(), reference.words().begin(),
                         reference.words().end()));
      CHECK(set_bits == reference.set_bit_count());
    }
  }
}

TEST_CASE("copies only while they fit the budget", "[bloom][threads]") {
  BloomFilter f(8 << 20, 7);  // 1 MiB
  // Two threads split a filter whatever its size; a bare bit array cannot be split.
  CHECK(ParallelInserter(f, 2, 1 << 20).mode() == ParallelInserter::Mode::kHalves);
  CHECK(ParallelInserter(f, 2, 0).mode() == ParallelInserter::Mode::kHalves);
  std::vector<uint64_t> bare(1 << 17);
  CHECK(ParallelInserter(bare, 2, 1 << 20).mode() == ParallelInserter::Mode::kCopies);
  CHECK(ParallelInserter(bare, 2, 0).mode() == ParallelInserter::Mode::kRegions);
  CHECK(ParallelInserter(f, 3, 1 << 20).mode() == ParallelInserter::Mode::kRegions);
  CHECK(ParallelInserter(f, 3, 2 << 20).mode() == ParallelInserter::Mode::kCopies);
  CHECK(ParallelInserter(f, 1, 0).mode() == ParallelInserter::Mode::kDirect);
}

TEST_CASE("bit positions from several threads set exactly the bits of one thread",
          "[bloom][threads]") {
  for (const uint64_t m : {uint64_t{640}, uint64_t{1} << 23}) {
    std::vector<uint64_t> positions(200000);
    for (size_t i = 0; i < positions.size(); ++i) positions[i] = mix64(i + m) % m;
    std::vector<uint64_t> reference(m / 64, 0);
    for (const uint64_t p : positions) reference[p >> 6] |= uint64_t{1} << (p & 63);
    for (const unsigned threads : {1u, 2u, 3u}) {
      for (const uint64_t copy_bytes : {uint64_t{0}, uint64_t{1} << 30}) {
        CAPTURE(m, threads, copy_bytes);
        std::vector<uint64_t> words(m / 64, 0);
        ParallelInserter inserter(words, threads, copy_bytes);
        std::vector<std::thread> pool;
        auto work = [&](unsigned t) {
          const std::span<const uint64_t> all(positions);
          for (size_t i = t * 777; i < all.size(); i += threads * 777)
            inserter.add_positions(all.subspan(i, std::min<size_t>(777, all.size() - i)), t);
        };
        for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work, t);
        work(0);
        for (auto& p : pool) p.join();
        uint64_t expected_set = 0;
        for (const uint64_t w : reference) expected_set += static_cast<uint64_t>(std::popcount(w));
        CHECK(inserter.finish() == expected_set);
        CHECK(inserter.mode() == (threads == 1      ? ParallelInserter::Mode::kDirect
                                  : copy_bytes == 0 ? ParallelInserter::Mode::kRegions
                                                    : ParallelInserter::Mode::kCopies));
        REQUIRE(words == reference);
      }
    }
  }
}
