// Where a partitioned static build takes each partition's hashes from: a stand-in, kept in
// memory, for the hash spill module (the interface of format/hash_spill.h: collect hashes on
// several threads, then hand them out a partition at a time, sorted and de-duplicated), which
// writes hashes beyond a memory budget to temporary files. Only the interface is relied on
// (partitioned_build.cpp); this implementation never spills.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "base/run_threads.h"
#include "base/word_buffer.h"
#include "keys/hash_sort.h"

namespace bloomtool {

struct SpillOptions {
  uint64_t memory_bytes = 0;  // 0: unlimited, never spill
  std::string tmpdir;
  uint64_t expected_hashes = 0;
};

// Collects hashes from `threads` threads; finish() groups them by their top 16 bits (each thread
// scatters its own hashes), so that a partition of up to 2^16 is one contiguous range.
class HashSpill {
 public:
  HashSpill(SpillOptions opts, unsigned threads)
      : opts_(std::move(opts)), threads_(std::max(1u, threads)), added_(threads_) {}

  // Concurrent for distinct thread indices.
  void add(unsigned thread, std::span<const uint64_t> hashes) {
    added_[thread].insert(added_[thread].end(), hashes.begin(), hashes.end());
  }

  void finish() {
    constexpr size_t kBuckets = size_t{1} << 16;
    std::vector<std::vector<uint64_t>> counts(threads_, std::vector<uint64_t>(kBuckets + 1, 0));
    detail::run_threads(threads_, [&](unsigned t) {
      for (const uint64_t h : added_[t]) ++counts[t][(h >> 48) + 1];
    });
    // Bucket b of thread t starts after every thread's buckets below b and the lower threads' b.
    starts_.assign(kBuckets + 1, 0);
    uint64_t at = 0;
    for (size_t b = 0; b < kBuckets; ++b) {
      starts_[b] = at;
      for (unsigned t = 0; t < threads_; ++t) {
        const uint64_t n = counts[t][b + 1];
        counts[t][b + 1] = at;
        at += n;
      }
    }
    starts_[kBuckets] = at;
    all_ = WordBuffer(at);
    detail::run_threads(threads_, [&](unsigned t) {
      std::vector<uint64_t>& next = counts[t];
      for (const uint64_t h : added_[t]) all_.data()[next[(h >> 48) + 1]++] = h;
      std::vector<uint64_t>().swap(added_[t]);
    });
  }

  uint64_t size() const { return starts_.empty() ? 0 : starts_.back(); }
  bool spilled() const { return false; }
  uint64_t spill_bytes() const { return 0; }

  // Hashes (with duplicates) whose top `bits` bits are `part` (bits <= 16; 0: all of them).
  uint64_t count(unsigned bits, uint64_t part) const {
    const auto [b, e] = range(bits, part);
    return e - b;
  }
  // Those hashes sorted ascending, duplicates removed. Thread-safe.
  void read(unsigned bits, uint64_t part, std::vector<uint64_t>& out) const {
    const auto [b, e] = range(bits, part);
    out.assign(all_.data() + b, all_.data() + e);
    sort_unique(out);
  }

 private:
  std::pair<uint64_t, uint64_t> range(unsigned bits, uint64_t part) const {
    if (starts_.empty()) return {0, 0};
    const unsigned shift = 16 - bits;
    return {starts_[part << shift], starts_[(part + 1) << shift]};
  }

  SpillOptions opts_;
  unsigned threads_;
  std::vector<std::vector<uint64_t>> added_;
  std::vector<uint64_t> starts_;  // 2^16 + 1 bucket starts in all_
  WordBuffer all_;
};

}  // namespace bloomtool
