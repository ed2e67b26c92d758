#include <catch2/catch.hpp>

#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>

#include "filters/bloom.h"
#include "bloomtool/error.h"
#include "format/filter_file.h"
#include "keys/hash.h"
#include "api/merge.h"
#include "test_util.h"

using namespace bloomtool;

namespace {

// A temporary directory removed with its contents at the end of the test.
struct ScratchDir {
  std::string path;
  ScratchDir() {
    char tmpl[] = "/tmp/bloomtool-merge-test-XXXXXX";
    path = mkdtemp(tmpl);
  }
  ~ScratchDir() { std::filesystem::remove_all(path); }
  std::string file(const std::string& name) const { return path + "/" + name; }
};

FilterHeader bloom_header(uint64_t m, uint32_t k, BloomVariant v) {
  FilterHeader h;
  h.kind = FilterKind::kBloom;
  h.variant = static_cast<uint32_t>(v);
  h.hash_id = kHashXxh3_64;
  h.seed = kDefaultSeed;
  h.m = m;
  h.k = k;
  h.input_options = "lines";
  return h;
}

// Writes a filter holding `keys` and returns its path.
std::string write_bloom(const ScratchDir& dir, const std::string& name,
                        const std::vector<std::string>& keys, uint64_t m, uint32_t k,
                        BloomVariant v = BloomVariant::kStandard) {
  BloomFilter f(m, k, v);
  for (const auto& key : keys) f.add(hash_key(key, kDefaultSeed));
  FilterHeader h = bloom_header(f.bits(), k, v);
  h.keys_added = keys.size();
  h.lines_read = keys.size() + 1;
  h.empty_lines = 1;
  h.distinct_estimate = keys.size();
  const std::string path = dir.file(name);
  write_filter_file(path, h, f.words(), f.words().size() * 8);
  return path;
}

std::string merge_error(const FilterHeader& a, const FilterHeader& b) {
  try {
    check_mergeable(a, "a.bf", b, "b.bf");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kInvalidArgument);
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("check_mergeable names the first differing field, both values and both files") {
  const FilterHeader a = bloom_header(8192, 7, BloomVariant::kStandard);
  CHECK(merge_error(a, a).empty());
  FilterHeader b = a;
  b.variant = 1;
  CHECK(merge_error(a, b) == "b.bf: cannot merge: variant is blocked here but standard in a.bf");
  b = a;
  b.m = 16384;
  CHECK(merge_error(a, b) == "b.bf: cannot merge: m is 16384 bits here but 8192 bits in a.bf");
  b = a;
  b.k = 10;
  CHECK(merge_error(a, b) == "b.bf: cannot merge: k is 10 here but 7 in a.bf");
  b = a;
  b.hash_id = 2;
  CHECK(merge_error(a, b) == "b.bf: cannot merge: hash id is 2 here but 1 in a.bf");
  b = a;
  b.seed = 1;
  CHECK(merge_error(a, b) ==
        "b.bf: cannot merge: seed is 0x0000000000000001 here but 0x9e3779b97f4a7c15 in a.bf");
  b = a;
  b.normalisation = "lowercase";
  CHECK(merge_error(a, b) ==
        "b.bf: cannot merge: normalisation is 'lowercase' here but (none) in a.bf");
  b = a;
  b.input_options = "ndjson:/url";
  CHECK(merge_error(a, b) ==
        "b.bf: cannot merge: input options is 'ndjson:/url' here but 'lines' in a.bf");
  b = a;
  b.kind_params = {1, 2};
  CHECK(merge_error(a, b) ==
        "b.bf: cannot merge: kind parameters is [1, 2] here but (none) in a.bf");
  // The first differing field in the documented order is the one reported.
  b = a;
  b.k = 3;
  b.seed = 5;
  CHECK(merge_error(a, b) == "b.bf: cannot merge: k is 3 here but 7 in a.bf");
}

TEST_CASE("xor and binary fuse filters are refused, whichever file they are") {
  const FilterHeader a = bloom_header(8192, 7, BloomVariant::kStandard);
  for (FilterKind kind : {FilterKind::kXor, FilterKind::kBinaryFuse}) {
    FilterHeader x = a;
    x.kind = kind;
    CHECK(merge_error(a, x) ==
          "b.bf: cannot merge xor/binary fuse filters; rebuild from the keys with build-static");
    CHECK_THROWS_WITH(
        check_mergeable(x, "a.bf", a, "b.bf"),
        "a.bf: cannot merge xor/binary fuse filters; rebuild from the keys with build-static");
  }
}

TEST_CASE("for_each_payload_chunk yields the payload read_filter_file reads, in 2 MiB windows") {
  ScratchDir dir;
  // 40 Mbit = 4.8 MiB of payload: two full windows and a partial one; m not a multiple of 64.
  const uint64_t m = 40'000'003;
  const std::string path = write_bloom(dir, "a.bf", test::make_keys("k", 0, 300'000), m, 5);
  const FilterFileContents whole = read_filter_file(path);
  const FilterHeader h = read_filter_header(path);
  std::vector<uint64_t> streamed;
  std::vector<size_t> sizes;
  for_each_payload_chunk(path, h, [&](uint64_t first, std::span<const uint64_t> words) {
    CHECK(first == streamed.size());
    sizes.push_back(words.size());
    streamed.insert(streamed.end(), words.begin(), words.end());
  });
  REQUIRE(streamed.size() == whole.payload.size());
  CHECK(std::equal(streamed.begin(), streamed.end(), whole.payload.data()));
  CHECK(sizes == std::vector<size_t>{262144, 262144, streamed.size() - 2 * 262144});
}

TEST_CASE("for_each_payload_chunk checks the payload checksum before handing out any word") {
  ScratchDir dir;
  const std::string path = write_bloom(dir, "a.bf", test::make_keys("k", 0, 1000), 1 << 16, 7);
  const FilterHeader h = read_filter_header(path);
  {
    // Flip the last stored byte: the header stays valid, the payload checksum does not.
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(-1, std::ios::end);
    const char c = static_cast<char>(f.get() ^ 0x40);
    f.seekp(-1, std::ios::end);
    f.put(c);
  }
  bool called = false;
  CHECK_THROWS_WITH(
      for_each_payload_chunk(path, h, [&](uint64_t, std::span<const uint64_t>) { called = true; }),
      path + ": corrupt: payload checksum mismatch");
  CHECK_FALSE(called);
  CHECK_THROWS_WITH(merge_filter_files({path, path}, MergeOp::kUnion),
                    path + ": corrupt: payload checksum mismatch");
}

TEST_CASE("for_each_payload_chunk refuses a file replaced since its header was read") {
  ScratchDir dir;
  const std::string a = write_bloom(dir, "a.bf", test::make_keys("a", 0, 100), 1 << 16, 7);
  const FilterHeader h = read_filter_header(a);
  write_bloom(dir, "a.bf", test::make_keys("b", 0, 100), 1 << 16, 7);
  CHECK_THROWS_WITH(for_each_payload_chunk(a, h, [](uint64_t, std::span<const uint64_t>) {}),
                    a + ": the file changed while it was being read");
}

TEST_CASE("a union of filters over random parts has the bits of one filter over all keys") {
  std::mt19937_64 rng(20240131);
  for (int trial = 0; trial < 24; ++trial) {
    ScratchDir dir;
    const BloomVariant v = trial % 2 ? BloomVariant::kBlocked512 : BloomVariant::kStandard;
    const uint64_t m = 512 * (1 + rng() % 64) + (v == BloomVariant::kStandard ? rng() % 512 : 0);
    const uint32_t k = static_cast<uint32_t>(1 + rng() % 12);
    const size_t parts = 2 + rng() % 7;
    std::vector<std::vector<std::string>> keys(parts);
    std::vector<std::string> all;
    const size_t n = rng() % 3000;
    for (size_t i = 0; i < n; ++i) {
      std::string key = "key" + std::to_string(rng() % 2000);  // duplicates within and across
      keys[rng() % parts].push_back(key);
      all.push_back(key);
    }
    std::vector<std::string> paths;
    for (size_t p = 0; p < parts; ++p)
      paths.push_back(write_bloom(dir, "p" + std::to_string(p), keys[p], m, k, v));
    const MergedFilter u = merge_filter_files(paths, MergeOp::kUnion);
    BloomFilter single(m, k, v);
    for (const auto& key : all) single.add(hash_key(key, kDefaultSeed));
    INFO("trial " << trial << " m=" << m << " k=" << k << " parts=" << parts);
    REQUIRE(u.words.size() == single.words().size());
    CHECK(std::equal(single.words().begin(), single.words().end(), u.words.data()));
    CHECK(u.header.m == single.bits());
    CHECK(u.header.k == k);
    CHECK(u.header.keys_added == all.size());
    CHECK(u.header.lines_read == all.size() + parts);
    CHECK(u.header.empty_lines == parts);
    CHECK(u.set_bits == single.set_bit_count());
    CHECK(u.header.distinct_estimate <= all.size());
  }
}

TEST_CASE("an intersection holds the common keys and only bits every input has") {
  ScratchDir dir;
  const auto a_keys = test::make_keys("k", 0, 6000);     // k0 .. k5999
  const auto b_keys = test::make_keys("k", 4000, 6000);  // k4000 .. k9999
  const auto common = test::make_keys("k", 4000, 2000);
  const uint64_t m = 1 << 17;
  for (BloomVariant v : {BloomVariant::kStandard, BloomVariant::kBlocked512}) {
    const std::string a = write_bloom(dir, "a.bf", a_keys, m, 6, v);
    const std::string b = write_bloom(dir, "b.bf", b_keys, m, 6, v);
    MergedFilter x = merge_filter_files({a, b}, MergeOp::kIntersect);
    const BloomFilter both(m, 6, v, std::move(x.words));
    for (const auto& key : common) REQUIRE(both.contains_hash(hash_key(key, kDefaultSeed)));
    BloomFilter fa(m, 6, v), fb(m, 6, v), fc(m, 6, v);
    for (const auto& key : a_keys) fa.add(hash_key(key, kDefaultSeed));
    for (const auto& key : b_keys) fb.add(hash_key(key, kDefaultSeed));
    for (const auto& key : common) fc.add(hash_key(key, kDefaultSeed));
    for (size_t i = 0; i < both.words().size(); ++i) {
      REQUIRE(both.words()[i] == (fa.words()[i] & fb.words()[i]));
      REQUIRE((fc.words()[i] & ~both.words()[i]) == 0);
    }
    CHECK(x.header.keys_added == 6000);
    // The fill overcounts (bits shared by chance), but never past the smaller input.
    CHECK(x.header.distinct_estimate >= 2000);
    CHECK(x.header.distinct_estimate <= 6000);
  }
}

TEST_CASE("merge refuses inputs with bits set beyond m") {
  ScratchDir dir;
  const std::string a = write_bloom(dir, "a.bf", test::make_keys("k", 0, 10), 100, 3);
  FilterFileContents c = read_filter_file(a);
  c.payload.data()[1] |= uint64_t{1} << 40;  // bit 104 of a 100-bit filter
  const std::string bad = dir.file("bad.bf");
  write_filter_file(bad, c.header, c.payload.span(), c.header.payload_raw_bytes);
  CHECK_THROWS_WITH(merge_filter_files({a, bad}, MergeOp::kUnion),
                    bad + ": corrupt: bits set beyond m");
  CHECK_THROWS_WITH(merge_filter_files({bad, a}, MergeOp::kIntersect),
                    bad + ": corrupt: bits set beyond m");
}
