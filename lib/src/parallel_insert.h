// Inserting into one Bloom filter from several threads with plain stores: no atomic read-modify-
// writes (a locked `or` per bit made two threads slower than one) and no cache line written by
// two threads at once. A filter small enough gets a private copy per extra thread, or-ed in at
// the end; a larger one is cut into regions of whole cache lines, each thread buffers the bits of
// each region (standard: positions; blocked: hashes, whose block fixes the region) and sets a
// full buffer itself while it holds that region's lock, moving on to another buffer when the
// region is busy. Measurements behind the choice: docs/PERFORMANCE.md, "Two threads: what was
// tried". The bits are the same as one thread's, whatever the interleaving.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include "bloomtool/bloom.h"

namespace bloomtool {

class ParallelInserter {
 public:
  // For `threads` threads numbered 0 to threads - 1; private copies take at most
  // `max_copy_bytes` together.
  ParallelInserter(BloomFilter& filter, unsigned threads, uint64_t max_copy_bytes);
  // For a bit array that keys reach as bit positions (the peers' schemes): add_positions only.
  ParallelInserter(std::span<uint64_t> words, unsigned threads, uint64_t max_copy_bytes);
  ~ParallelInserter();
  ParallelInserter(const ParallelInserter&) = delete;
  ParallelInserter& operator=(const ParallelInserter&) = delete;

  // Inserts hashes on thread `thread`: concurrent calls must come with different thread numbers.
  void add(std::span<const uint64_t> hashes, unsigned thread);
  // Sets bit positions (each below the bit array's size), with the same rule for `thread`.
  void add_positions(std::span<const uint64_t> positions, unsigned thread);
  // Sets what is still buffered and ors the copies in, on every thread; once, after every add()
  // has returned. Returns the number of set bits in the filter.
  uint64_t finish();

  enum class Mode { kDirect, kCopies, kRegions };
  Mode mode() const noexcept { return mode_; }

 private:
  void choose_mode(unsigned threads, uint64_t max_copy_bytes);
  void route(std::span<const uint64_t> hashes, std::vector<std::vector<uint64_t>>& out);
  void route_positions(std::span<const uint64_t> positions,
                       std::vector<std::vector<uint64_t>>& out);
  void drain(std::span<const uint64_t> items, unsigned thread, bool positions);
  void flush(std::vector<std::vector<uint64_t>>& out, bool all);
  void apply(const std::vector<uint64_t>& items);

  BloomFilter* filter_;  // null: a bare bit array, fed positions
  std::span<uint64_t> words_;
  Mode mode_;
  unsigned threads_ = 1;
  std::vector<std::unique_ptr<BloomFilter>> copies_;  // kCopies: one per thread but the first
  std::vector<std::vector<uint64_t>> word_copies_;    // the same for a bare bit array
  // kRegions: region r holds words [r << shift_, (r + 1) << shift_).
  unsigned shift_ = 0;
  size_t regions_ = 0;
  size_t flush_items_ = 0;
  std::unique_ptr<std::mutex[]> locks_;
  std::vector<std::vector<std::vector<uint64_t>>> buffers_;  // [thread][region]
};

}  // namespace bloomtool
