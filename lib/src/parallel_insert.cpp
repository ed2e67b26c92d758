// Several threads filling one Bloom filter with plain stores (parallel_insert.h).
#include "parallel_insert.h"

#include <algorithm>
#include <atomic>

#include "bloom_positions.h"
#include "popcnt_clones.h"
#include "run_threads.h"

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

void ParallelInserter::choose_mode(unsigned threads, uint64_t max_copy_bytes) {
  threads = std::max(threads, 1u);
  threads_ = threads;
  const uint64_t words = words_.size();
  if (threads == 1) {
    mode_ = Mode::kDirect;
  } else if (uint64_t{threads - 1} * words * 8 <= max_copy_bytes) {
    mode_ = Mode::kCopies;
    if (filter_ != nullptr) {
      copies_.resize(threads);
    } else {
      word_copies_.resize(threads);
    }
  } else {
    mode_ = Mode::kRegions;
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

namespace {

// Sets bit positions in w, the words a few positions ahead fetched first.
void set_positions(uint64_t* w, std::span<const uint64_t> positions) {
  const size_t n = positions.size();
  const uint64_t* p = positions.data();
  for (size_t i = 0; i < n; ++i) {
    if (i + kPositionsAhead < n) __builtin_prefetch(&w[p[i + kPositionsAhead] >> 6], 1, 3);
    w[p[i] >> 6] |= uint64_t{1} << (p[i] & 63);
  }
}

}  // namespace

void ParallelInserter::add(std::span<const uint64_t> hashes, unsigned thread) {
  if (mode_ == Mode::kDirect || (mode_ == Mode::kCopies && thread == 0)) {
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
    set_positions(words_.data(), items);
  }
}

uint64_t ParallelInserter::finish() {
  const unsigned threads = threads_;  // 1 in kDirect mode
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
