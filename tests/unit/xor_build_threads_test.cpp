// build_xor_filter gives the same bytes for any thread count, with or without assume_distinct,
// and the same bytes as before construction ran on several threads: the digests below were
// computed with the single-threaded code of commit 80ea933 (files must not change).
#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "base/word_buffer.h"
#include "filters/xor_construct.h"
#include "keys/hash.h"

using namespace bloomtool;

namespace {

// n distinct hashes followed by n / 10 repeats of some of them.
std::vector<uint64_t> keys_with_repeats(uint64_t n) {
  std::vector<uint64_t> h;
  for (uint64_t i = 0; i < n; ++i) h.push_back(mix64(i * 0x9E3779B97F4A7C15ull + 12345));
  for (uint64_t i = 0; i < n / 10; ++i) h.push_back(h[i * 7 % n]);
  return h;
}

XorBuildOptions build_options(XorLayout layout, uint32_t bits, unsigned threads,
                              bool assume_distinct = false) {
  XorBuildOptions o;
  o.layout = layout;
  o.fingerprint_bits = bits;
  o.threads = threads;
  o.assume_distinct = assume_distinct;
  return o;
}

uint64_t digest(const XorFilter& f) {
  uint64_t d = 0;
  for (const uint64_t w : f.words()) d = mix64(d ^ w);
  return d;
}

struct Case {
  uint64_t n;
  XorLayout layout;
  uint32_t bits;
  uint64_t digest;
};

// 600,000 keys take the threaded paths (grouping from 2^18 hashes, fuse counting from 2^18 keys
// and 8 segments per thread); the smaller sets check the single-threaded fallbacks.
constexpr Case kCases[] = {
    {600000, XorLayout::kXor, 8, 0x0c1febaefdd4cad8ull},
    {600000, XorLayout::kXor, 16, 0x2de81f059c248697ull},
    {600000, XorLayout::kFuse, 8, 0x6003d9989da57bb4ull},
    {600000, XorLayout::kFuse, 16, 0xa170c15a12cf75ccull},
    {20000, XorLayout::kFuse, 8, 0x4979ab6c2fac958eull},
    {20000, XorLayout::kXor, 16, 0x55fe78fd3c078da4ull},
    {9000, XorLayout::kFuse, 16, 0xdf2943a8d9f83219ull},
};

}  // namespace

TEST_CASE("xor construction: same bytes as before, for 1, 2 and 3 threads", "[xor]") {
  for (const Case& c : kCases) {
    const std::vector<uint64_t> input = keys_with_repeats(c.n);
    for (const unsigned threads : {1u, 2u, 3u}) {
      INFO("n " << c.n << " layout " << xor_layout_name(c.layout) << c.bits << " threads "
                << threads);
      std::vector<uint64_t> h = input;
      const XorBuildResult r = build_xor_filter(h, build_options(c.layout, c.bits, threads));
      CHECK(r.distinct == c.n);
      CHECK(r.duplicates == c.n / 10);
      CHECK(r.filter->params().seed == 16294208416658607535ull);
      CHECK(digest(*r.filter) == c.digest);
    }
  }
}

TEST_CASE("xor construction: assume_distinct builds the same filter from distinct keys", "[xor]") {
  for (const Case& c : kCases) {
    if (c.n != 600000) continue;
    std::vector<uint64_t> distinct = keys_with_repeats(c.n);
    distinct.resize(c.n);
    for (const unsigned threads : {1u, 2u}) {
      INFO("layout " << xor_layout_name(c.layout) << c.bits << " threads " << threads);
      std::vector<uint64_t> h = distinct;
      const XorBuildResult r = build_xor_filter(h, build_options(c.layout, c.bits, threads, true));
      CHECK(r.distinct == c.n);
      CHECK(r.duplicates == 0);
      CHECK(digest(*r.filter) == c.digest);
    }
  }
}

TEST_CASE("xor construction: phase times are filled in", "[xor]") {
  std::vector<uint64_t> h = keys_with_repeats(300000);
  XorBuildOptions o;
  o.threads = 2;
  const XorBuildResult r = build_xor_filter(h, o);
  CHECK(r.wall.group > 0);
  CHECK(r.wall.count > 0);
  CHECK(r.wall.peel > 0);
  CHECK(r.wall.assign > 0);
  CHECK(r.cpu.peel > 0);
}

TEST_CASE("xor construction: hashes in several buffers give the same bytes", "[xor]") {
  // Cut at uneven places, an empty buffer among them; with and without assume_distinct, on one
  // thread and two; the first buffer ends up with the distinct hashes, the others are freed.
  for (const Case& c : kCases) {
    if (c.layout != XorLayout::kFuse) continue;
    for (const bool distinct : {false, true}) {
      std::vector<uint64_t> input = keys_with_repeats(c.n);
      if (distinct) input.resize(c.n);
      const size_t cuts[] = {0, input.size() / 3, input.size() / 3, input.size() * 5 / 6,
                             input.size()};
      for (const unsigned threads : {1u, 2u}) {
        INFO("n " << c.n << " fuse" << c.bits << " distinct " << distinct << " threads "
                  << threads);
        std::vector<WordBuffer> parts;
        std::vector<size_t> counts;
        for (size_t i = 0; i + 1 < std::size(cuts); ++i) {
          const size_t len = cuts[i + 1] - cuts[i];
          parts.emplace_back(len + 3);  // spare room, as a growing buffer has
          std::copy(input.begin() + static_cast<std::ptrdiff_t>(cuts[i]),
                    input.begin() + static_cast<std::ptrdiff_t>(cuts[i + 1]), parts.back().data());
          counts.push_back(len);
        }
        const XorBuildResult r =
            build_xor_filter(parts, counts, build_options(c.layout, c.bits, threads, distinct));
        CHECK(r.distinct == c.n);
        CHECK(r.duplicates == (distinct ? 0 : c.n / 10));
        CHECK(digest(*r.filter) == c.digest);
        for (size_t i = 1; i < parts.size(); ++i) CHECK(parts[i].size() == 0);
        // The distinct hashes, at the front of the first buffer.
        std::vector<uint64_t> got(parts[0].data(), parts[0].data() + r.distinct);
        std::vector<uint64_t> want(input);
        std::sort(got.begin(), got.end());
        std::sort(want.begin(), want.end());
        want.erase(std::unique(want.begin(), want.end()), want.end());
        CHECK(got == want);
      }
    }
  }
}

TEST_CASE("xor construction: the initial queue scanned on several threads", "[xor]") {
  // From 2^20 slots the queue of free slots is filled by all threads. With 2 threads each
  // range's finds are copied straight to their place; with 8 the last ranges' finds lie where
  // the queue goes, so they are copied through a buffer. Both must give one thread's bytes.
  for (const XorLayout layout : {XorLayout::kFuse, XorLayout::kXor}) {
    const std::vector<uint64_t> input = keys_with_repeats(1000000);
    uint64_t want = 0;
    for (const unsigned threads : {1u, 2u, 8u}) {
      INFO("layout " << xor_layout_name(layout) << " threads " << threads);
      std::vector<uint64_t> h = input;
      XorBuildOptions o;
      o.layout = layout;
      o.threads = threads;
      const XorBuildResult r = build_xor_filter(h, o);
      REQUIRE(r.filter->params().slots >= (uint64_t{1} << 20));
      if (threads == 1) want = digest(*r.filter);
      CHECK(digest(*r.filter) == want);
    }
  }
}

TEST_CASE("xor construction: a slot crowded by crafted hashes gives the same bytes", "[xor]") {
  // 100 hashes in a row share their first slot under every seed, more than a narrow (one-byte)
  // count word holds: construction counts that seed again with wide records. The digests were
  // computed with wide records throughout (the code before narrow records, commit 4157653).
  struct Crowded {
    XorLayout layout;
    uint32_t bits;
    uint64_t digest;
  };
  constexpr Crowded kCrowded[] = {
      {XorLayout::kFuse, 8, 0xfa25a7ced9f23d12ull},
      {XorLayout::kFuse, 16, 0x54a9d42a1a39b15bull},
      {XorLayout::kXor, 8, 0xfe02eb51528e48eaull},
  };
  for (const Crowded& c : kCrowded) {
    std::vector<uint64_t> input = keys_with_repeats(300000);
    input.resize(300000);
    for (uint64_t i = 0; i < 100; ++i) input.push_back(0x5555555555555555ull + i);
    for (const unsigned threads : {1u, 2u}) {
      INFO("layout " << xor_layout_name(c.layout) << c.bits << " threads " << threads);
      std::vector<uint64_t> h = input;
      const XorBuildResult r = build_xor_filter(h, build_options(c.layout, c.bits, threads));
      CHECK(r.distinct == 300100);
      CHECK(r.attempts == 1);
      CHECK(digest(*r.filter) == c.digest);
      for (const uint64_t k : input) REQUIRE(r.filter->contains_hash(k));
    }
  }
}
