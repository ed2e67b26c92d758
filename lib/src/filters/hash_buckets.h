// Key hashes of a partitioned xor or binary fuse build held in memory, put in buckets as they
// arrive, so that a partition's hashes are found without a pass over all of them afterwards.
//
// A hash h goes to the bucket of its top kPartBits bits (the partition of a file of up to
// 2^kPartBits partitions is a run of these) and the top kOrderBits bits of partition_hash(h),
// which is what the bucket holds: the hash a partition's filter is built from. A partition's
// pieces come out in order of those remapped top bits, so its counting pass, whose first slots
// follow the remapped hash, walks the slot records front to back in sixteen sweeps of a few
// hundred KiB instead of at random (a fifth of a partition's construction time with 10M keys).
// Bucketing as the hashes arrive replaces a split pass over all of them and the second array it
// wrote (fresh pages, which cost a page clear each and more on a virtual machine).
//
// Memory: each thread appends to a chunk of its own per bucket (512 hashes first, doubling to
// 8,192), cut from slabs shared by all threads (2 MiB, then growing with the total up to 64 MiB;
// pages are faulted in as chunks fill). Beyond the hashes: the unfilled tails of the chunks being
// filled (at most threads x 256 x 64 KiB, as address space; their untouched pages cost nothing),
// a slab's unused tail, and 20 KiB a thread of write positions and lines.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <span>
#include <vector>

#include "base/word_buffer.h"

namespace bloomtool {

class HashBuckets {
 public:
  static constexpr unsigned kPartBits = 4;   // of the key hash: partitions of 2 to 16
  static constexpr unsigned kOrderBits = 4;  // of the remapped hash: sweeps of a partition
  static constexpr size_t kBuckets = size_t{1} << (kPartBits + kOrderBits);

  // `threads` adders (distinct indices below it); `cap` the most hashes held (0: no limit).
  HashBuckets(unsigned threads, uint64_t cap);
  HashBuckets(const HashBuckets&) = delete;
  HashBuckets& operator=(const HashBuckets&) = delete;

  // Adds a prefix of `hashes` and returns its length: all of them, unless a chunk more would take
  // the store past its cap. The store is then full, and every call that starts later adds none
  // (until drain()). Calls with distinct `thread` may run at once. Throws kLimitExceeded when
  // memory cannot be had.
  size_t add(unsigned thread, std::span<const uint64_t> hashes);

  // Hashes held (not while an add() runs).
  uint64_t size() const;

  // The remapped hashes (partition_hash) of partition `part` of 2^bits (1 <= bits <= kPartBits),
  // in pieces, in order of their top kOrderBits bits; `first_sweep`, when given, gets the number
  // of pieces whose hashes have those bits zero (they come first). Valid until drain() or
  // destruction.
  std::vector<std::span<const uint64_t>> partition(unsigned bits, uint32_t part,
                                                   size_t* first_sweep = nullptr) const;

  // Turns every hash held back into the hash as it was added, in place, and returns them all in
  // pieces (valid until drain() or destruction); partition() is not to be used afterwards.
  std::vector<std::span<const uint64_t>> unmap_all();

  // Hands every hash held, as it was added (not remapped), to `fn` in pieces, and frees the
  // memory as it goes: the store is empty afterwards. What `fn` throws propagates; the store is
  // empty then too (the hashes not yet handed out are lost).
  void drain(const std::function<void(std::span<const uint64_t>)>& fn);

 private:
  struct Chunk {
    uint64_t* words;
    uint32_t capacity;
    uint32_t slab;
  };
  struct Cursor {  // where a thread writes its next hash of a bucket
    uint64_t* at = nullptr;
    uint64_t* end = nullptr;
  };
  struct Bucket {
    std::vector<Chunk> chunks;  // every one full but the last
  };
  // A cache line of hashes on its way to a bucket's chunk: whole lines are written past the cache
  // (a scatter to 256 places otherwise reads every line of the chunks before writing it).
  struct alignas(64) Line {
    uint64_t words[8];
  };
  struct alignas(64) Thread {
    std::vector<Cursor> cursors;  // kBuckets
    std::vector<Bucket> buckets;  // kBuckets
    std::vector<Line> lines;      // kBuckets: the hashes not yet in the chunk
    std::vector<uint8_t> filled;  // kBuckets: words of each line in use
  };

  bool refill(Thread& t, size_t bucket);
  uint64_t used(const Thread& t, size_t bucket, size_t chunk) const;

  std::vector<Thread> threads_;
  uint64_t cap_;
  std::mutex lock_;  // guards the slabs
  std::vector<WordBuffer> slabs_;
  size_t slab_used_ = 0;   // words of the last slab handed out
  uint64_t reserved_ = 0;  // words of every chunk handed out
  std::atomic<bool> full_{false};
};

}  // namespace bloomtool
