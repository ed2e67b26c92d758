// Partitioned static filters in the library: the routing of batched lookups (one and two sorting
// passes), the words a lookup visits, the automatic partition count, thread-count independence,
// and assembly of part files.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <vector>

#include "analysis/stats.h"
#include "filters/partitioned_build.h"
#include "filters/partitioned_filter.h"
#include "keys/key_reader.h"
#include "temp_dir.h"

namespace bloomtool {

namespace {

// `n` random 64-bit hashes handed to a build in batches of 1000 on `threads` threads.
struct MemoryKeys {
  std::vector<uint64_t> hashes;
  InputOptions input;
  HashedKeys keys(unsigned threads) const {
    HashedKeys k;
    k.threads = threads;
    k.input = &input;
    k.for_each = [this, threads](const std::function<void(const HashedBatch&)>& consume) {
      InputStats s;
      for (size_t at = 0, b = 0; at < hashes.size(); at += 1000, ++b) {
        HashedBatch batch;
        batch.hashes = std::span<const uint64_t>(hashes).subspan(
            at, std::min<size_t>(1000, hashes.size() - at));
        batch.thread = static_cast<unsigned>(b % threads);
        consume(batch);
      }
      s.keys = s.lines = hashes.size();
      return s;
    };
    return k;
  }
};

MemoryKeys random_keys(size_t n, uint64_t seed) {
  MemoryKeys m;
  std::mt19937_64 rng(seed);
  for (size_t i = 0; i < n; ++i) m.hashes.push_back(rng());
  return m;
}

std::vector<uint64_t> whole_file_words(StaticBuild& b) {
  const auto w = b.words();
  return {w.begin(), w.end()};
}

}  // namespace

TEST_CASE("partitioned lookups: batches agree with single lookups, no false negatives",
          "[partitioned]") {
  const MemoryKeys m = random_keys(60000, 7);
  for (const unsigned bits : {1u, 3u, 10u}) {  // 10 bits: the two-pass grouping of a batch
    StaticBuildOptions o;
    o.kind = FilterKind::kBinaryFuse;
    o.partition_bits = bits;
    StaticBuild b = build_static(m.keys(2), o, {});
    REQUIRE(b.filter != nullptr);
    REQUIRE(b.header.partitions->partitions() == (uint64_t{1} << bits));
    CHECK(b.distinct == 60000);
    std::vector<uint8_t> out(m.hashes.size());
    b.filter->contains_batch(m.hashes, out.data());
    CHECK(std::count(out.begin(), out.end(), 1) == 60000);
    const MemoryKeys other = random_keys(30000, 99);
    b.filter->contains_batch(other.hashes, out.data());
    size_t fp = 0;
    for (size_t i = 0; i < other.hashes.size(); ++i) {
      CHECK(out[i] == (b.filter->contains_hash(other.hashes[i]) ? 1 : 0));
      fp += out[i];
    }
    // 2^-8 of 30,000: 117 expected; a 99.9999% interval.
    CHECK(fp >= 60);
    CHECK(fp <= 190);
    // Every word a lookup reads is one it visits: visited words lie inside the payload and past
    // the table.
    uint64_t low = UINT64_MAX, high = 0;
    struct Range {
      uint64_t* low;
      uint64_t* high;
    } r{&low, &high};
    b.filter->visit_probed_words(
        other.hashes,
        [](void* ctx, uint64_t w) noexcept {
          auto* rr = static_cast<Range*>(ctx);
          *rr->low = std::min(*rr->low, w);
          *rr->high = std::max(*rr->high, w);
        },
        &r);
    CHECK(low >= uint64_t{b.header.partitions->count} * b.header.partitions->entry_words);
    CHECK(high < b.filter->words().size());
  }
}

TEST_CASE("partitioned builds: the same words for any thread count; parts assemble to them",
          "[partitioned]") {
  const MemoryKeys m = random_keys(20000, 11);
  StaticBuildOptions o;
  o.kind = FilterKind::kXor;
  o.xor_options.fingerprint_bits = 16;
  o.partition_bits = 3;
  StaticBuild one = build_static(m.keys(1), o, {});
  StaticBuild three = build_static(m.keys(3), o, {});
  CHECK(whole_file_words(one) == whole_file_words(three));

  std::vector<PartFile> parts;
  for (const auto& [first, count] : {std::pair{5u, 3u}, {0u, 2u}, {2u, 3u}}) {
    StaticBuildOptions po = o;
    po.first = first;
    po.count = count;
    StaticBuild p = build_static(m.keys(2), po, {});
    CHECK(p.filter == nullptr);  // a part file is not queried
    PartFile pf{"part" + std::to_string(first), p.header, std::move(p.payload)};
    parts.push_back(std::move(pf));
  }
  AssembledFile a = assemble_partitions(parts, std::nullopt, std::nullopt);
  CHECK(std::vector<uint64_t>(a.payload.span().begin(), a.payload.span().end()) ==
        whole_file_words(one));
  CHECK(a.header.m == one.header.m);
  CHECK(a.header.partitions->model_rate == one.header.partitions->model_rate);

  parts.pop_back();
  CHECK_THROWS_WITH(assemble_partitions(parts, std::nullopt, std::nullopt),
                    "partition 2 is in none of the parts (part5 starts at 5)");
}

TEST_CASE(
    "partitioned builds: held in memory (bucketed or split, not sorted) or spilled, the "
    "same words",
    "[partitioned]") {
  // Random hashes, every fifth one repeated: a set held in memory is bucketed as it arrives (up
  // to 16 partitions) or split by partition afterwards, and each partition's construction
  // removes its repeats; a spilled one is read back sorted and distinct (with 2 bits, the
  // buckets fill up and move to the spill part way). 2^18 hashes and more are split on two
  // threads; 14 bits make many tiny partitions.
  for (const auto& [n, bits] :
       {std::pair{size_t{240000}, 2u}, {size_t{240000}, 6u}, {size_t{5000}, 14u}}) {
    MemoryKeys m = random_keys(n, 23);
    for (size_t i = 0; i < n; i += 5) m.hashes.push_back(m.hashes[i]);
    for (const FilterKind kind : {FilterKind::kBinaryFuse, FilterKind::kXor}) {
      if (bits == 14 && kind == FilterKind::kXor) continue;  // 16,384 partitions: one kind
      CAPTURE(n, bits, filter_kind_name(kind));
      StaticBuildOptions o;
      o.kind = kind;
      o.partition_bits = bits;
      StaticBuild held = build_static(m.keys(2), o, {});
      CHECK(held.spill_runs == 0);
      test::TempDir dir;
      o.spill = {n * 4, dir.path(), 0};  // half the hashes' bytes: several runs
      StaticBuild spilled = build_static(m.keys(1), o, {});
      CHECK(spilled.spill_runs > 1);
      CHECK(whole_file_words(held) == whole_file_words(spilled));
      for (const StaticBuild* b : {&held, &spilled}) {
        CHECK(b->distinct == n);
        CHECK(b->duplicates == n / 5);
      }
    }
  }
}

TEST_CASE("an automatic count of no partitions: bucketed hashes go back to one plain filter",
          "[partitioned]") {
  MemoryKeys m = random_keys(50000, 31);
  for (size_t i = 0; i < 50000; i += 7) m.hashes.push_back(m.hashes[i]);
  StaticBuildOptions o;
  o.kind = FilterKind::kBinaryFuse;
  StaticBuild automatic = build_static(m.keys(2), o, {});  // bucketed, then turned back
  o.partition_bits = 0;
  StaticBuild plain = build_static(m.keys(2), o, {});  // never bucketed
  REQUIRE(automatic.plain_xor);
  REQUIRE(plain.plain_xor);
  CHECK(whole_file_words(automatic) == whole_file_words(plain));
  CHECK(automatic.distinct == 50000);
  CHECK(automatic.duplicates == plain.duplicates);
}

TEST_CASE("the automatic partition count", "[partitioned]") {
  CHECK(default_partition_bits(0) == 0);
  CHECK(default_partition_bits(kAutoPartitionKeys) == 0);
  CHECK(default_partition_bits(kAutoPartitionKeys + 1) == 1);
  CHECK(default_partition_bits(10'000'000) == 3);  // 8 partitions of 1.25M keys
  CHECK(default_partition_bits(uint64_t{1} << 40) == 16);
}

TEST_CASE("a part file's stats come from its table; a damaged partition is corrupt",
          "[partitioned]") {
  const MemoryKeys m = random_keys(20000, 12);
  StaticBuildOptions o;
  o.kind = FilterKind::kBinaryFuse;
  o.xor_options.fingerprint_bits = 8;
  o.partition_bits = 3;
  o.first = 2;
  o.count = 3;
  StaticBuild p = build_static(m.keys(2), o, {});
  const FilterStats s = compute_part_stats(p.header, p.payload.span(), "part");
  REQUIRE(s.partitions);
  CHECK(s.partitions->first == 2);
  CHECK(s.partitions->count == 3);
  CHECK(s.partitions->total == 8);
  CHECK(s.distinct_keys == p.header.distinct_estimate);
  CHECK(s.distinct_keys > 20000 * 3 / 8 - 500);
  CHECK(s.distinct_keys < 20000 * 3 / 8 + 500);
  CHECK(s.model_fpr == Approx(1.0 / 256));

  p.payload.data()[p.payload.size() - 1] ^= 1;  // the last word: partition 4's
  CHECK_THROWS_WITH(compute_part_stats(p.header, p.payload.span(), "part"),
                    "part: corrupt: partition 4 does not match its checksum");
  CHECK_THROWS_WITH(
      compute_part_stats(p.header, p.payload.span().first(p.payload.size() - 1), "part"),
      Catch::Matchers::StartsWith("part: corrupt: a payload of"));
}

}  // namespace bloomtool
