// Where a partitioned static build takes each partition's hashes from: a stand-in, kept in
// memory, for the hash spill module (the interface of format/hash_spill.h: collect hashes on
// several threads, then hand them out a partition at a time, sorted and de-duplicated), which
// writes hashes beyond a memory budget to temporary files. Only the interface is relied on
// (partitioned_build.cpp); this implementation never spills.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "keys/hash_sort.h"

namespace bloomtool {

struct SpillOptions {
  uint64_t memory_bytes = 0;  // 0: unlimited, never spill
  std::string tmpdir;
  uint64_t expected_hashes = 0;
};

// Collects hashes from `threads` threads, each into blocks of its own, one list of blocks per
// top-8-bit bucket, so that nothing is copied until a partition is read: a partition of up to 2^8
// is whole buckets, a finer one the matching hashes of one bucket.
class HashSpill {
 public:
  HashSpill(SpillOptions opts, unsigned threads)
      : opts_(std::move(opts)), threads_(std::max(1u, threads)), buckets_(threads_) {
    for (auto& b : buckets_) b.resize(kBuckets);
  }

  // Concurrent for distinct thread indices.
  void add(unsigned thread, std::span<const uint64_t> hashes) {
    std::vector<Bucket>& mine = buckets_[thread];
    for (const uint64_t h : hashes) {
      Bucket& b = mine[h >> 56];
      if (b.blocks.empty() || b.blocks.back().size() == kBlock) {
        b.blocks.emplace_back();
        b.blocks.back().reserve(kBlock);
      }
      b.blocks.back().push_back(h);
    }
    added_[thread % kCounters].fetch_add(hashes.size(), std::memory_order_relaxed);
  }

  void finish() {
    total_ = 0;
    for (const auto& a : added_) total_ += a.load(std::memory_order_relaxed);
  }

  uint64_t size() const { return total_; }
  bool spilled() const { return false; }
  uint64_t spill_bytes() const { return 0; }

  // Hashes (with duplicates) whose top `bits` bits are `part` (bits <= 16; 0: all of them).
  uint64_t count(unsigned bits, uint64_t part) const {
    uint64_t n = 0;
    visit(
        bits, part, [&n](std::span<const uint64_t> s) { n += s.size(); }, true);
    return n;
  }
  // Those hashes sorted ascending, duplicates removed. Thread-safe.
  void read(unsigned bits, uint64_t part, std::vector<uint64_t>& out) const {
    out.clear();
    visit(
        bits, part,
        [&out](std::span<const uint64_t> s) { out.insert(out.end(), s.begin(), s.end()); }, false);
    sort_unique(out);
  }

 private:
  static constexpr size_t kBuckets = 256;
  static constexpr size_t kBlock = 4096;
  static constexpr size_t kCounters = 64;
  struct Bucket {
    std::vector<std::vector<uint64_t>> blocks;
  };

  // Calls fn with runs of the hashes of partition `part` of 2^bits.
  template <typename Fn>
  void visit(unsigned bits, uint64_t part, Fn&& fn, bool count_only) const {
    const uint64_t lo = bits <= 8 ? part << (8 - bits) : part >> (bits - 8);
    const uint64_t hi = bits <= 8 ? (part + 1) << (8 - bits) : lo + 1;
    std::vector<uint64_t> kept;
    for (const std::vector<Bucket>& mine : buckets_) {
      for (uint64_t b = lo; b < hi; ++b) {
        for (const std::vector<uint64_t>& block : mine[b].blocks) {
          if (bits <= 8) {
            fn(std::span<const uint64_t>(block));
            continue;
          }
          kept.clear();
          for (const uint64_t h : block)
            if ((h >> (64 - bits)) == part) kept.push_back(h);
          fn(std::span<const uint64_t>(kept));
        }
      }
    }
    (void)count_only;
  }

  SpillOptions opts_;
  unsigned threads_;
  std::vector<std::vector<Bucket>> buckets_;  // [thread][top 8 bits]
  std::array<std::atomic<uint64_t>, kCounters> added_{};
  uint64_t total_ = 0;
};

}  // namespace bloomtool
