// Inserting into one Bloom filter from several threads with plain stores: no atomic read-modify-
// writes (a locked `or` per bit made two threads slower than one) and no cache line written by
// two threads at once. Two threads split the filter: each owns half of the bit array (whole
// cache lines), sets the bits of its keys that fall in its half at once and hands the others to
// the other thread in buffers, so neither needs a copy of the array and each core's stores stay
// in half of it. More threads: a filter small enough gets a private copy per extra thread, or-ed
// in at the end; a larger one is cut into regions of whole cache lines, each thread buffers the
// bits of each region (standard: positions; blocked: hashes, whose block fixes the region) and
// sets a full buffer itself while it holds that region's lock, moving on to another buffer when
// the region is busy. Measurements behind the choice: docs/PERFORMANCE.md, "Two threads: what
// was tried". The bits are the same as one thread's, whatever the interleaving.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include "filters/bloom.h"

namespace bloomtool {

class ParallelInserter {
 public:
  enum class Mode { kDirect, kHalves, kCopies, kRegions };

  // For `threads` threads numbered 0 to threads - 1: two split the filter (kHalves); more get
  // private copies taking at most `max_copy_bytes` together, or regions.
  ParallelInserter(BloomFilter& filter, unsigned threads, uint64_t max_copy_bytes);
  // The same in a given mode (tests and benchmarks): kDirect is taken for one thread only,
  // kHalves for two only (the others get kCopies); kCopies whatever the copies take.
  ParallelInserter(BloomFilter& filter, unsigned threads, Mode mode);
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

  Mode mode() const noexcept { return mode_; }

 private:
  void choose_mode(unsigned threads, uint64_t max_copy_bytes);
  void set_mode(Mode mode);
  void split(std::span<const uint64_t> hashes, unsigned thread);
  void publish(unsigned thread);
  void set_half(unsigned half, const uint32_t* offsets, const uint64_t* hashes, size_t n);
  void take_inbox(unsigned half);
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
  // kHalves: thread t owns words [half_lo_[t], half_lo_[t + 1]). What the other thread sends
  // arrives in a ring of buffers (standard: bit offsets into the half; blocked: hashes); the
  // ring's slots are set, and `head` moved, only under the half's lock, held by its owner while
  // it sets its own keys' bits and the ring's, or by the sender when the ring is full.
  struct Half {
    std::mutex lock;
    std::unique_ptr<uint32_t[]> offsets;  // slot s: [s * kSlotItems, (s + 1) * kSlotItems)
    std::unique_ptr<uint64_t[]> hashes;
    std::vector<size_t> fill;                   // [slot]
    alignas(64) std::atomic<uint64_t> head{0};  // slots set
    alignas(64) std::atomic<uint64_t> tail{0};  // slots sent
    // The owner's scratch: its own keys' bits of one batch, and what it is filling for the other.
    std::vector<uint32_t> own_offsets;
    std::vector<uint64_t> own_hashes;
    size_t out_fill = 0;
  };
  uint64_t half_lo_[3] = {0, 0, 0};
  std::unique_ptr<Half[]> halves_;
};

}  // namespace bloomtool
