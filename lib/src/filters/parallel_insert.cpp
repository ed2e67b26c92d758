// Several threads filling one Bloom filter with plain stores (parallel_insert.h).
#include "filters/parallel_insert.h"

#include <algorithm>
#include <atomic>

#include "filters/bloom_positions.h"
#include "base/popcnt_clones.h"
#include "base/run_threads.h"

namespace bloomtool {

namespace {

// Region buffers of all threads together stay within about this many bytes.
constexpr uint64_t kBufferBudget = uint64_t{24} << 20;
constexpr size_t kMaxFlushItems = 16384;
constexpr size_t kMinFlushItems = 256;
// Keys routed between checks for full buffers: a batch's positions never pile up unchecked.
constexpr size_t kRouteChunk = 256;
// Positions between a position's prefetch and its store (random_read_probe: 64 hides the
// latency on the reference machine, 16 does not).
constexpr size_t kPositionsAhead = 64;
// finish(): words per slice (128 KiB: the slice is counted while it is still in cache).
constexpr size_t kFinishSliceWords = size_t{1} << 14;
// kHalves: slots in a half's ring, the bits (standard: positions; blocked: keys) a slot holds,
// and the keys split at a time (the owner's scratch holds one such batch's bits).
constexpr uint64_t kHalfSlots = 8;
constexpr size_t kSlotItems = 32768;
constexpr size_t kSplitKeys = 4096;

// Whether two threads can split `filter` (standard: each half's bit offsets fit 32 bits).
bool can_split(const BloomFilter* filter, unsigned threads) {
  if (filter == nullptr || threads != 2) return false;
  return filter->variant() == BloomVariant::kBlocked512 || filter->bits() <= (uint64_t{1} << 32);
}

// kHalves: the items of slot `slot` (counted without end; the ring has kHalfSlots) of a ring.
template <typename T>
T* slot_items(const std::unique_ptr<T[]>& ring, uint64_t slot) {
  return ring.get() + slot % kHalfSlots * kSlotItems;
}

// Sets bit positions (64-bit, or kHalves' 32-bit offsets into a half) in w, the words a few
// positions ahead fetched first.
template <typename Position>
void set_positions(uint64_t* w, std::span<const Position> positions) {
  const size_t n = positions.size();
  const Position* p = positions.data();
  for (size_t i = 0; i < n; ++i) {
    if (i + kPositionsAhead < n) __builtin_prefetch(&w[p[i + kPositionsAhead] >> 6], 1, 3);
    w[p[i] >> 6] |= uint64_t{1} << (p[i] & 63);
  }
}

}  // namespace

ParallelInserter::ParallelInserter(BloomFilter& filter, unsigned threads, uint64_t max_copy_bytes)
    : filter_(&filter), words_(filter.mutable_words()) {
  choose_mode(threads, max_copy_bytes);
}

ParallelInserter::ParallelInserter(std::span<uint64_t> words, unsigned threads,
                                   uint64_t max_copy_bytes)
    : filter_(nullptr), words_(words) {
  choose_mode(threads, max_copy_bytes);
}

ParallelInserter::ParallelInserter(BloomFilter& filter, unsigned threads, Mode mode)
    : filter_(&filter), words_(filter.mutable_words()) {
  threads_ = std::max(threads, 1u);
  if (threads_ == 1) {
    mode = Mode::kDirect;
  } else if (mode == Mode::kDirect || (mode == Mode::kHalves && !can_split(filter_, threads_))) {
    mode = Mode::kCopies;
  }
  set_mode(mode);
}

void ParallelInserter::choose_mode(unsigned threads, uint64_t max_copy_bytes) {
  threads_ = std::max(threads, 1u);
  if (threads_ == 1) {
    set_mode(Mode::kDirect);
  } else if (can_split(filter_, threads_)) {
    set_mode(Mode::kHalves);
  } else if (uint64_t{threads_ - 1} * words_.size() * 8 <= max_copy_bytes) {
    set_mode(Mode::kCopies);
  } else {
    set_mode(Mode::kRegions);
  }
}

void ParallelInserter::set_mode(Mode mode) {
  mode_ = mode;
  const unsigned threads = threads_;
  const uint64_t words = words_.size();
  if (mode == Mode::kHalves) {
    // Whole cache lines per half (for the blocked layout, whole blocks).
    half_lo_[1] = std::min(words, (words + 7) / 8 / 2 * 8);
    half_lo_[2] = words;
    halves_ = std::make_unique<Half[]>(2);
    const bool standard = filter_->variant() == BloomVariant::kStandard;
    for (unsigned t = 0; t < 2; ++t) {
      Half& h = halves_[t];
      h.fill.assign(kHalfSlots, 0);
      // One block for the ring, left uninitialised: its pages are first touched by the sending
      // thread while both threads run, not all here before the input is read (fresh memory is
      // slow to fault in on some virtual machines: docs/PERFORMANCE.md).
      if (standard) {
        h.offsets = std::make_unique_for_overwrite<uint32_t[]>(kHalfSlots * kSlotItems);
        h.own_offsets.resize(kSplitKeys * filter_->k());
      } else {
        h.hashes = std::make_unique_for_overwrite<uint64_t[]>(kHalfSlots * kSlotItems);
        h.own_hashes.resize(kSplitKeys);
      }
    }
  } else if (mode == Mode::kCopies) {
    if (filter_ != nullptr) {
      copies_.resize(threads);
    } else {
      word_copies_.resize(threads);
    }
  } else if (mode == Mode::kRegions) {
    // About four regions per thread (fewer collisions on a lock), at most 64, of whole lines.
    const uint64_t target = std::min<uint64_t>(uint64_t{4} * threads, 64);
    shift_ = 3;
    while ((words >> shift_) >= target) ++shift_;
    regions_ = static_cast<size_t>((words + (uint64_t{1} << shift_) - 1) >> shift_);
    // A buffer holds up to twice the flush size plus one chunk of keys' positions.
    const uint64_t per_buffer = kBufferBudget / 8 / (uint64_t{threads} * regions_);
    flush_items_ =
        static_cast<size_t>(std::clamp<uint64_t>(per_buffer / 3, kMinFlushItems, kMaxFlushItems));
    locks_ = std::make_unique<std::mutex[]>(regions_);
    buffers_.resize(threads);
  }
}

ParallelInserter::~ParallelInserter() = default;

void ParallelInserter::add(std::span<const uint64_t> hashes, unsigned thread) {
  if (mode_ == Mode::kHalves) {
    for (size_t i = 0; i < hashes.size(); i += kSplitKeys)
      split(hashes.subspan(i, std::min(kSplitKeys, hashes.size() - i)), thread);
  } else if (mode_ == Mode::kDirect || (mode_ == Mode::kCopies && thread == 0)) {
    filter_->add_batch(hashes);
  } else if (mode_ == Mode::kCopies) {
    std::unique_ptr<BloomFilter>& copy = copies_[thread];
    if (!copy)
      copy = std::make_unique<BloomFilter>(filter_->bits(), filter_->k(), filter_->variant());
    copy->add_batch(hashes);
  } else {
    drain(hashes, thread, false);
  }
}

void ParallelInserter::add_positions(std::span<const uint64_t> positions, unsigned thread) {
  if (mode_ == Mode::kDirect || (mode_ == Mode::kCopies && thread == 0)) {
    set_positions(words_.data(), positions);
  } else if (mode_ == Mode::kCopies) {
    std::vector<uint64_t>& copy = word_copies_[thread];
    if (copy.empty()) copy.assign(words_.size(), 0);
    set_positions(copy.data(), positions);
  } else {
    drain(positions, thread, true);
  }
}

// kHalves: takes apart up to kSplitKeys keys of thread `thread`: the bits in its own half go to
// its scratch, the others to the slot it is filling in the other half's ring (each bit is written
// to both, and only the right count moves on: a branch here would go either way half the time).
// Then, holding its half, it sets its own bits and whatever the other thread has sent.
void ParallelInserter::split(std::span<const uint64_t> hashes, unsigned thread) {
  Half& mine = halves_[thread];
  Half& other = halves_[1 - thread];
  const uint64_t lo = half_lo_[thread], hi = half_lo_[thread + 1];
  const uint64_t other_lo = half_lo_[1 - thread];
  const uint64_t m = filter_->bits();
  size_t n = 0;
  size_t sent = mine.out_fill;
  const bool standard = filter_->variant() == BloomVariant::kStandard;
  if (standard) {
    const uint32_t k = filter_->k();
    const uint64_t lo_bit = lo * 64, bits = (hi - lo) * 64, other_bit = other_lo * 64;
    uint32_t* own = mine.own_offsets.data();
    uint32_t* out = slot_items(other.offsets, other.tail.load(std::memory_order_relaxed));
    for (const uint64_t h : hashes) {
      if (sent + k > kSlotItems) {
        mine.out_fill = sent;
        publish(thread);
        sent = 0;
        out = slot_items(other.offsets, other.tail.load(std::memory_order_relaxed));
      }
      for_each_standard_position(h, k, m, [&](uint64_t pos) {
        const uint64_t rel = pos - lo_bit;  // wraps below the half
        const bool in = rel < bits;
        own[n] = static_cast<uint32_t>(rel);
        out[sent] = static_cast<uint32_t>(pos - other_bit);
        n += in;
        sent += !in;
      });
    }
  } else {
    const uint64_t blocks = m / kBlockBits, lo_block = lo / 8, half_blocks = (hi - lo) / 8;
    uint64_t* own = mine.own_hashes.data();
    uint64_t* out = slot_items(other.hashes, other.tail.load(std::memory_order_relaxed));
    for (const uint64_t h : hashes) {
      if (sent == kSlotItems) {
        mine.out_fill = sent;
        publish(thread);
        sent = 0;
        out = slot_items(other.hashes, other.tail.load(std::memory_order_relaxed));
      }
      const bool in = reduce64(h, blocks) - lo_block < half_blocks;
      own[n] = h;
      out[sent] = h;
      n += in;
      sent += !in;
    }
  }
  mine.out_fill = sent;
  const std::lock_guard<std::mutex> hold(mine.lock);
  set_half(thread, standard ? mine.own_offsets.data() : nullptr,
           standard ? nullptr : mine.own_hashes.data(), n);
  take_inbox(thread);
}

// kHalves: sends the slot thread `thread` has been filling to the other half. The next slot is
// free once the other half has set the one sent kHalfSlots before; if it has not, this thread
// sets the waiting slots itself rather than wait for the other to come round (it may have no
// keys left, or not have started).
void ParallelInserter::publish(unsigned thread) {
  Half& mine = halves_[thread];
  Half& other = halves_[1 - thread];
  const uint64_t tail = other.tail.load(std::memory_order_relaxed);
  other.fill[tail % kHalfSlots] = mine.out_fill;
  other.tail.store(tail + 1, std::memory_order_release);
  mine.out_fill = 0;
  if (tail + 1 - other.head.load(std::memory_order_acquire) >= kHalfSlots) {
    const std::lock_guard<std::mutex> hold(other.lock);
    take_inbox(1 - thread);
  }
}

// kHalves: sets n bits in half `half` (standard: offsets from its first word; blocked: keys whose
// blocks lie in it); the caller holds the half.
void ParallelInserter::set_half(unsigned half, const uint32_t* offsets, const uint64_t* hashes,
                                size_t n) {
  if (offsets != nullptr) {
    set_positions(words_.data() + half_lo_[half], std::span<const uint32_t>(offsets, n));
  } else {
    filter_->add_batch({hashes, n});
  }
}

// kHalves: sets every slot sent to `half` and not set yet; the caller holds the half.
void ParallelInserter::take_inbox(unsigned half) {
  Half& h = halves_[half];
  const uint64_t tail = h.tail.load(std::memory_order_acquire);
  const bool standard = filter_->variant() == BloomVariant::kStandard;
  for (uint64_t slot = h.head.load(std::memory_order_relaxed); slot < tail; ++slot) {
    set_half(half, standard ? slot_items(h.offsets, slot) : nullptr,
             standard ? nullptr : slot_items(h.hashes, slot), h.fill[slot % kHalfSlots]);
    h.head.store(slot + 1, std::memory_order_release);
  }
}

// Routes items (hashes, or positions) into the thread's region buffers a chunk at a time, setting
// the full ones as it goes.
void ParallelInserter::drain(std::span<const uint64_t> items, unsigned thread, bool positions) {
  std::vector<std::vector<uint64_t>>& out = buffers_[thread];
  if (out.empty()) out.resize(regions_);
  for (size_t i = 0; i < items.size(); i += kRouteChunk) {
    const std::span<const uint64_t> chunk =
        items.subspan(i, std::min(kRouteChunk, items.size() - i));
    if (positions) {
      route_positions(chunk, out);
    } else {
      route(chunk, out);
    }
    flush(out, false);
  }
}

void ParallelInserter::route_positions(std::span<const uint64_t> positions,
                                       std::vector<std::vector<uint64_t>>& out) {
  for (const uint64_t pos : positions) out[(pos >> 6) >> shift_].push_back(pos);
}

void ParallelInserter::route(std::span<const uint64_t> hashes,
                             std::vector<std::vector<uint64_t>>& out) {
  const uint64_t m = filter_->bits();
  const unsigned shift = shift_;
  if (filter_->variant() == BloomVariant::kStandard) {
    const uint32_t k = filter_->k();
    for (const uint64_t h : hashes) {
      for_each_standard_position(h, k, m,
                                 [&](uint64_t pos) { out[(pos >> 6) >> shift].push_back(pos); });
    }
  } else {
    const uint64_t blocks = m / kBlockBits;
    for (const uint64_t h : hashes) out[(reduce64(h, blocks) * 8) >> shift].push_back(h);
  }
}

// Sets the buffers that are full (all: every non-empty one) under their region's lock. A busy
// region is left for later unless its buffer has grown to twice the flush size.
void ParallelInserter::flush(std::vector<std::vector<uint64_t>>& out, bool all) {
  for (size_t r = 0; r < regions_; ++r) {
    std::vector<uint64_t>& items = out[r];
    if (items.empty() || (!all && items.size() < flush_items_)) continue;
    std::unique_lock<std::mutex> lock(locks_[r], std::defer_lock);
    if (all || items.size() >= 2 * flush_items_) {
      lock.lock();
    } else if (!lock.try_lock()) {
      continue;
    }
    apply(items);
    lock.unlock();
    items.clear();
  }
}

// Sets the bits of one region's buffer; the caller holds the region.
void ParallelInserter::apply(const std::vector<uint64_t>& items) {
  if (filter_ != nullptr && filter_->variant() == BloomVariant::kBlocked512) {
    filter_->add_batch(items);  // every hash's block lies in the region
  } else {
    set_positions(words_.data(), std::span<const uint64_t>(items));
  }
}

uint64_t ParallelInserter::finish() {
  const unsigned threads = threads_;  // 1 in kDirect mode
  // What each thread was still filling for the other half; then each half's ring on its owner,
  // after which nothing more reaches that half and its bits are counted on the same thread.
  if (mode_ == Mode::kHalves) {
    for (unsigned t = 0; t < 2; ++t)
      if (halves_[t].out_fill > 0) publish(t);
    uint64_t counts[2] = {0, 0};
    detail::run_threads(2, [&](unsigned t) {
      const std::lock_guard<std::mutex> hold(halves_[t].lock);
      take_inbox(t);
      counts[t] = count_set_bits(words_.data() + half_lo_[t], half_lo_[t + 1] - half_lo_[t]);
    });
    return counts[0] + counts[1];
  }
  // What is still buffered, a region at a time on every thread (no two set the same region).
  if (mode_ == Mode::kRegions) {
    std::atomic<size_t> next{0};
    detail::run_threads(std::min<unsigned>(threads, static_cast<unsigned>(regions_)),
                        [&](unsigned) {
                          for (size_t r = next++; r < regions_; r = next++) {
                            for (auto& out : buffers_)
                              if (!out.empty() && !out[r].empty()) apply(out[r]);
                          }
                        });
  }
  buffers_.clear();
  // Then the array a slice at a time on every thread: the copies or-ed in, the bits counted while
  // the slice is in cache.
  std::vector<const uint64_t*> sources;
  for (const auto& c : copies_)
    if (c) sources.push_back(c->words().data());
  for (const auto& c : word_copies_)
    if (!c.empty()) sources.push_back(c.data());
  const size_t n = words_.size();
  const size_t slices = (n + kFinishSliceWords - 1) / kFinishSliceWords;
  std::vector<uint64_t> counts(threads, 0);
  std::atomic<size_t> next{0};
  detail::run_threads(
      static_cast<unsigned>(std::clamp<size_t>(slices, 1, threads)), [&](unsigned t) {
        uint64_t set = 0;
        for (size_t s = next++; s < slices; s = next++) {
          const size_t lo = s * kFinishSliceWords, hi = std::min(n, lo + kFinishSliceWords);
          uint64_t* w = words_.data();
          for (const uint64_t* src : sources)
            for (size_t i = lo; i < hi; ++i) w[i] |= src[i];
          set += count_set_bits(w + lo, hi - lo);
        }
        counts[t] = set;
      });
  copies_.clear();
  word_copies_.clear();
  uint64_t total = 0;
  for (const uint64_t c : counts) total += c;
  return total;
}

}  // namespace bloomtool
