#include <catch2/catch.hpp>

#include <xxhash.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <string>

#include "api/load_filter.h"
#include "bloomtool/error.h"
#include "filters/xor_construct.h"
#include "format/filter_file.h"
#include "keys/hash.h"
#include "model/model.h"
#include "test_util.h"

using namespace bloomtool;
using bloomtool::test::count_present;
using bloomtool::test::key_hashes;
using bloomtool::test::kSanitized;

namespace {

XorBuildResult build(std::vector<uint64_t> hashes, XorLayout layout, uint32_t bits,
                     uint32_t max_attempts = kXorDefaultMaxAttempts) {
  XorBuildOptions o;
  o.layout = layout;
  o.fingerprint_bits = bits;
  o.max_attempts = max_attempts;
  return build_xor_filter(hashes, o);
}

// Byte i of the little-endian payload.
uint8_t payload_byte(std::span<const uint64_t> words, uint64_t i) {
  return static_cast<uint8_t>(words[i / 8] >> (8 * (i % 8)));
}

uint64_t payload_checksum(const XorFilter& f) {
  std::vector<uint8_t> bytes(f.words().size() * 8);
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = payload_byte(f.words(), i);
  return XXH3_64bits(bytes.data(), bytes.size());
}

// The lookup exactly as docs/FORMAT.md states it, independent of the library's code.
bool documented_lookup(const XorFilter& f, uint64_t h) {
  const XorParams& p = f.params();
  const auto reduce = [](uint64_t x, uint64_t n) {
    __extension__ using U128 = unsigned __int128;
    return static_cast<uint64_t>((static_cast<U128>(x) * n) >> 64);
  };
  const auto mix = [](uint64_t x) {
    x ^= x >> 30;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 27;
    x *= 0x94D049BB133111EBull;
    x ^= x >> 31;
    return x;
  };
  const uint64_t a = h + p.seed;
  const uint64_t g = mix(a);
  uint64_t slot[3];
  if (p.layout == XorLayout::kFuse) {
    const uint64_t len = p.segment_length;
    slot[0] = reduce(a, p.segment_count * len);
    const uint64_t base = slot[0] - slot[0] % len;
    slot[1] = base + len + g % len;
    slot[2] = base + 2 * len + (g >> 32) % len;
  } else {
    const uint64_t b = p.segment_length;
    slot[0] = reduce(a, b);
    slot[1] = b + reduce(g, b);
    slot[2] = 2 * b + reduce((g << 32) | (g >> 32), b);
  }
  const uint32_t bytes = p.fingerprint_bits / 8;
  uint32_t x = 0;
  for (uint64_t s : slot) {
    uint32_t v = 0;
    for (uint32_t j = 0; j < bytes; ++j)
      v |= uint32_t{payload_byte(f.words(), s * bytes + j)} << (8 * j);
    x ^= v;
  }
  return x == (a & ((uint64_t{1} << p.fingerprint_bits) - 1));
}

struct DesignConfig {
  XorLayout layout;
  uint32_t bits;
  double design_bits_per_key;
};

}  // namespace

TEST_CASE("xor and fuse filters: 1M keys with 10% duplicates", "[xor][slow]") {
  const uint64_t n = 1000000;
  std::vector<uint64_t> members = key_hashes("member:", n);
  std::vector<uint64_t> input = members;
  for (uint64_t i = 0; i < n; i += 10) input.push_back(members[i]);  // 100,000 repeats
  // 4M non-members give 61 expected false positives at 2^-16; sanitizer builds settle for 1M (15).
  const std::vector<uint64_t> others = key_hashes("other:", kSanitized ? 1000000 : 4000000);
  const std::vector<uint64_t> others_1m(others.begin(), others.begin() + 1000000);

  for (const DesignConfig c :
       {DesignConfig{XorLayout::kFuse, 8, 9.0}, DesignConfig{XorLayout::kFuse, 16, 18.0},
        DesignConfig{XorLayout::kXor, 8, 9.84}, DesignConfig{XorLayout::kXor, 16, 19.7}}) {
    CAPTURE(xor_layout_name(c.layout), c.bits);
    const XorBuildResult r = build(input, c.layout, c.bits);
    CHECK(r.distinct == n);
    CHECK(r.duplicates == n / 10);
    CHECK(r.attempts >= 1);
    const XorFilter& f = *r.filter;
    CHECK(count_present(f, members) == n);  // no false negatives
    const double bits_per_key =
        static_cast<double>(f.params().slots) * c.bits / static_cast<double>(n);
    CHECK(bits_per_key == Approx(c.design_bits_per_key).epsilon(0.01));
    const std::vector<uint64_t>& negatives = c.bits == 8 ? others_1m : others;
    const uint64_t fp = count_present(f, negatives);
    const double p = model::xor_fpr(c.bits);
    CAPTURE(fp, negatives.size(), p);
    CHECK(test::inside_999_interval(fp, negatives.size(), p));
  }
}

TEST_CASE("every n from 0 to 2000 and around 11,500 builds, no false negatives", "[xor][sweep]") {
  const std::vector<uint64_t> keys = key_hashes("k:", 12000);
  for (const XorLayout layout : {XorLayout::kFuse, XorLayout::kXor}) {
    CAPTURE(xor_layout_name(layout));
    uint32_t worst_attempts = 0;
    uint64_t failures = 0, missing = 0;
    const auto try_n = [&](uint64_t n, uint32_t bits) {
      const std::vector<uint64_t> set(keys.begin(), keys.begin() + static_cast<ptrdiff_t>(n));
      try {
        const XorBuildResult r = build(set, layout, bits);
        worst_attempts = std::max(worst_attempts, r.attempts);
        missing += n - count_present(*r.filter, set);
      } catch (const Error&) {
        ++failures;
      }
    };
    // The window matters for fuse filters, whose segment length doubles near n = 11,200; xor
    // filters have no such step, so a narrower window keeps the test quick. Sanitizer builds,
    // ten times slower, take every fourth size (and the tiny ones, and 11,521).
    const auto wanted = [](uint64_t n) {
      return !kSanitized || n % 4 == 0 || n < 16 || n == 11521;
    };
    const uint64_t lo = layout == XorLayout::kFuse ? 11000 : 11400;
    const uint64_t hi = layout == XorLayout::kFuse ? 12000 : 11600;
    for (uint64_t n = 0; n <= 2000; ++n) {
      if (wanted(n)) try_n(n, 8);
    }
    for (uint64_t n = lo; n <= hi; ++n) {
      if (wanted(n)) try_n(n, 8);
    }
    for (uint64_t n = 0; n <= 200; ++n) try_n(n, 16);
    CHECK(failures == 0);
    CHECK(missing == 0);
    // Fixed keys and seeds make this deterministic: construction never struggles here, not even
    // at n = 11,521, where the formula's layout alone peels for fewer than one seed in twenty.
    CHECK(worst_attempts <= 4);
  }
}

TEST_CASE("empty and tiny sets", "[xor]") {
  for (const XorLayout layout : {XorLayout::kFuse, XorLayout::kXor}) {
    CAPTURE(xor_layout_name(layout));
    const XorBuildResult empty = build({}, layout, 8);
    CHECK(empty.distinct == 0);
    CHECK(empty.attempts == 1);
    CHECK(empty.filter->params().slots > 0);
    const uint64_t h = hash_key("only", kDefaultSeed);
    const XorBuildResult one = build({h, h, h}, layout, 16);
    CHECK(one.distinct == 1);
    CHECK(one.duplicates == 2);
    CHECK(one.filter->contains_hash(h));
    const uint64_t h2 = hash_key("second", kDefaultSeed);
    const XorBuildResult two = build({h2, h}, layout, 8);
    CHECK(two.distinct == 2);
    CHECK(two.filter->contains_hash(h));
    CHECK(two.filter->contains_hash(h2));
  }
  // 12 one-byte slots in two words: a set bit in the last four bytes is corrupt padding.
  const XorBuildResult tiny = build({1, 2}, XorLayout::kFuse, 8);
  REQUIRE(tiny.filter->params().slots == 12);
  WordBuffer words(2);
  words.data()[1] = uint64_t{1} << 40;
  CHECK_THROWS_AS(XorFilter(tiny.filter->params(), std::move(words)), Error);
}

TEST_CASE("construction gives up after max_attempts with a clear error", "[xor]") {
  // n = 11,521 sits just after the segment length doubles: the first seed does not peel.
  const std::vector<uint64_t> keys = key_hashes("k:", 11521);
  const XorBuildResult ok = build(keys, XorLayout::kFuse, 8);
  REQUIRE(ok.attempts >= 2);
  try {
    build(keys, XorLayout::kFuse, 8, ok.attempts - 1);
    FAIL("construction should have failed");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kLimitExceeded);
    CHECK(std::string(e.what()) ==
          "binary fuse filter construction failed after " + std::to_string(ok.attempts - 1) +
              std::string(ok.attempts == 2 ? " attempt" : " attempts") + " (11521 distinct keys)");
  }
  CHECK_THROWS_AS(build(keys, XorLayout::kFuse, 8, 0), Error);
  CHECK_THROWS_AS(build(keys, XorLayout::kFuse, 12), Error);
  CHECK_THROWS_AS(parse_xor_layout("bloom"), Error);
}

TEST_CASE("construction is deterministic and independent of input order", "[xor]") {
  std::vector<uint64_t> keys = key_hashes("d:", 5000);
  const XorBuildResult a = build(keys, XorLayout::kFuse, 16);
  std::reverse(keys.begin(), keys.end());
  keys.push_back(keys[7]);
  const XorBuildResult b = build(keys, XorLayout::kFuse, 16);
  CHECK(a.filter->params().seed == b.filter->params().seed);
  CHECK(std::equal(a.filter->words().begin(), a.filter->words().end(), b.filter->words().begin(),
                   b.filter->words().end()));
}

TEST_CASE("the lookup documented in FORMAT.md is the one the library uses", "[xor]") {
  const std::vector<uint64_t> members = key_hashes("doc:", 3000);
  const std::vector<uint64_t> others = key_hashes("nodoc:", 20000);
  for (const XorLayout layout : {XorLayout::kFuse, XorLayout::kXor}) {
    for (uint32_t bits : {8u, 16u}) {
      CAPTURE(xor_layout_name(layout), bits);
      const XorBuildResult r = build(members, layout, bits);
      const XorFilter& f = *r.filter;
      uint64_t disagree = 0, members_found = 0;
      for (uint64_t h : members) members_found += documented_lookup(f, h);
      for (uint64_t h : others) disagree += documented_lookup(f, h) != f.contains_hash(h);
      CHECK(members_found == members.size());
      CHECK(disagree == 0);
    }
  }
}

// Pins the bytes construction produces for fixed keys: a change to the mapping would make old files
// unreadable, and a change to construction would make rebuilds differ from earlier releases. Either
// must be deliberate (update the constants, and for the mapping bump the format).
TEST_CASE("the payload of a fixed key set never changes (format stability)", "[xor]") {
  const std::vector<uint64_t> keys = key_hashes("golden:", 10000);
  const XorBuildResult fuse = build(keys, XorLayout::kFuse, 8);
  CHECK(fuse.filter->params().slots == 12800);
  CHECK(fuse.filter->params().seed == 0xe220a8397b1dcdafull);
  CHECK(payload_checksum(*fuse.filter) == 0x5c3f6fabe2544daeull);
  const XorBuildResult x = build(keys, XorLayout::kXor, 16);
  CHECK(x.filter->params().slots == 12333);
  CHECK(x.filter->params().seed == 0xe220a8397b1dcdafull);
  CHECK(payload_checksum(*x.filter) == 0xa66733f7a62079ccull);
}

TEST_CASE("single and batched queries agree", "[xor]") {
  const std::vector<uint64_t> keys = key_hashes("b:", 20000);
  const std::vector<uint64_t> probe = key_hashes("pb:", 5000);
  for (const XorLayout layout : {XorLayout::kFuse, XorLayout::kXor}) {
    const XorBuildResult r = build(keys, layout, 8);
    std::vector<uint8_t> found(probe.size());
    r.filter->contains_batch(probe, found.data());
    uint64_t differ = 0;
    for (size_t i = 0; i < probe.size(); ++i)
      differ += (found[i] != 0) != r.filter->contains_hash(probe[i]);
    CHECK(differ == 0);
  }
}

namespace {

FilterHeader header_for(const XorFilter& f) {
  FilterHeader h;
  h.kind = xor_filter_kind(f.params().layout);
  h.hash_id = kHashXxh3_64;
  h.seed = kDefaultSeed;
  h.m = f.params().slots;
  h.k = f.params().fingerprint_bits;
  h.kind_params = f.params().kind_params();
  return h;
}

// Encodes a file with the given header and payload, reads it back and instantiates the filter.
LoadedFilter round_trip(FilterHeader h, std::span<const uint64_t> words) {
  const std::vector<uint8_t> image = encode_filter_file(h, words, words.size() * 8);
  return make_filter(parse_filter_file(image, "t.bf"), "t.bf");
}

ErrorCode load_error(FilterHeader h, std::span<const uint64_t> words) {
  try {
    round_trip(std::move(h), words);
  } catch (const Error& e) {
    return e.code();
  }
  FAIL("loading should have failed");
  return ErrorCode::kInvalidArgument;
}

}  // namespace

TEST_CASE("files round-trip, and corrupt headers are refused before any read", "[xor][format]") {
  const std::vector<uint64_t> keys = key_hashes("f:", 1000);
  for (const XorLayout layout : {XorLayout::kFuse, XorLayout::kXor}) {
    for (uint32_t bits : {8u, 16u}) {
      CAPTURE(xor_layout_name(layout), bits);
      const XorBuildResult r = build(keys, layout, bits);
      const XorFilter& f = *r.filter;
      const LoadedFilter back = round_trip(header_for(f), f.words());
      CHECK(count_present(*back.filter, keys) == keys.size());
      const std::vector<uint64_t> probe = key_hashes("g:", 3000);
      CHECK(count_present(*back.filter, probe) == count_present(f, probe));

      FilterHeader h = header_for(f);
      h.k = 12;
      CHECK(load_error(h, f.words()) == ErrorCode::kUnsupported);
      h = header_for(f);
      h.variant = 1;
      CHECK(load_error(h, f.words()) == ErrorCode::kUnsupported);
      h = header_for(f);
      h.m += 3;
      CHECK(load_error(h, f.words()) == ErrorCode::kCorrupt);
      h = header_for(f);
      h.kind_params.pop_back();
      CHECK(load_error(h, f.words()) == ErrorCode::kCorrupt);
      h = header_for(f);
      h.kind_params.clear();
      CHECK(load_error(h, f.words()) == ErrorCode::kCorrupt);
      h = header_for(f);
      h.kind_params[0] = 3;  // segment / block length
      CHECK(load_error(h, f.words()) == ErrorCode::kCorrupt);
      h = header_for(f);
      h.kind_params[0] = uint64_t{1} << 62;
      CHECK(load_error(h, f.words()) == ErrorCode::kCorrupt);
      if (layout == XorLayout::kFuse) {
        h = header_for(f);
        h.kind_params[1] += 1;  // segment count disagrees with the array length
        CHECK(load_error(h, f.words()) == ErrorCode::kCorrupt);
        h = header_for(f);
        h.kind_params[1] = ~uint64_t{0} / 2;  // (count + 2) * length would overflow
        CHECK(load_error(h, f.words()) == ErrorCode::kCorrupt);
        h = header_for(f);
        h.kind_params[0] *= 2;  // consistent geometry, but more slots than the payload holds
        h.kind_params[1] = (h.kind_params[2] * 2) / h.kind_params[0] - 2;
        h.kind_params[2] = (h.kind_params[1] + 2) * h.kind_params[0];
        h.m = h.kind_params[2];
        CHECK(load_error(h, f.words()) == ErrorCode::kCorrupt);
      }
      // A payload one word short or long.
      std::vector<uint64_t> words(f.words().begin(), f.words().end());
      words.pop_back();
      CHECK(load_error(header_for(f), words) == ErrorCode::kCorrupt);
      words.assign(f.words().begin(), f.words().end());
      words.push_back(0);
      CHECK(load_error(header_for(f), words) == ErrorCode::kCorrupt);
      // A nonzero padding byte after the last fingerprint.
      words.assign(f.words().begin(), f.words().end());
      if (f.params().slots * bits % 64 != 0) {
        words.back() |= uint64_t{1} << 63;
        CHECK(load_error(header_for(f), words) == ErrorCode::kCorrupt);
      }
    }
  }
}
