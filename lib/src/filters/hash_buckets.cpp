// Key hashes bucketed as they arrive (hash_buckets.h).
#include "filters/hash_buckets.h"

#include <algorithm>
#include <cstring>
#if defined(__x86_64__)
#include <emmintrin.h>
#endif

#include "bloomtool/error.h"
#include "filters/partitioned_filter.h"

namespace bloomtool {

namespace {

constexpr uint32_t kFirstChunkWords = 512;
constexpr uint32_t kMaxChunkWords = 8192;
constexpr size_t kFirstSlabWords = size_t{1} << 18;  // 2 MiB
constexpr size_t kMaxSlabWords = size_t{1} << 23;    // 64 MiB

// The inverse of kPartitionHashMultiplier modulo 2^64 (Newton's iteration doubles the correct
// low bits each step: 3, 6, 12, 24, 48, 96).
constexpr uint64_t inverse_multiplier() {
  uint64_t x = kPartitionHashMultiplier;
  for (int i = 0; i < 5; ++i) x *= 2 - kPartitionHashMultiplier * x;
  return x;
}
constexpr uint64_t kUnmapMultiplier = inverse_multiplier();
static_assert(kUnmapMultiplier * kPartitionHashMultiplier == 1);

// Writes 8 words to `to` (8-byte aligned) past the cache where the processor can.
inline void stream_line(uint64_t* to, const uint64_t* from) noexcept {
#if defined(__x86_64__)
  for (int i = 0; i < 8; ++i)
    _mm_stream_si64(reinterpret_cast<long long*>(to + i), static_cast<long long>(from[i]));
#else
  std::memcpy(to, from, 64);
#endif
}

}  // namespace

HashBuckets::HashBuckets(unsigned threads, uint64_t cap)
    : threads_(std::max(threads, 1u)), cap_(cap) {
  for (Thread& t : threads_) {
    t.cursors.resize(kBuckets);
    t.buckets.resize(kBuckets);
    t.lines.resize(kBuckets);
    t.filled.assign(kBuckets, 0);
  }
}

bool HashBuckets::refill(Thread& t, size_t bucket) {
  std::vector<Chunk>& chunks = t.buckets[bucket].chunks;
  const uint32_t words =
      chunks.empty() ? kFirstChunkWords : std::min(kMaxChunkWords, chunks.back().capacity * 2);
  const std::lock_guard<std::mutex> hold(lock_);
  if (full_.load(std::memory_order_relaxed) || (cap_ != 0 && reserved_ + words > cap_)) {
    full_.store(true, std::memory_order_relaxed);
    return false;
  }
  if (slabs_.empty() || slabs_.back().size() - slab_used_ < words) {
    const size_t size = std::clamp<size_t>(reserved_, kFirstSlabWords, kMaxSlabWords);
    chunks.reserve(chunks.size() + 1);  // nothing to undo if the slab's allocation throws
    slabs_.emplace_back(size);
    slab_used_ = 0;
  }
  uint64_t* at = slabs_.back().data() + slab_used_;
  slab_used_ += words;
  reserved_ += words;
  chunks.push_back({at, words, static_cast<uint32_t>(slabs_.size() - 1)});
  t.cursors[bucket] = {at, at + words};
  return true;
}

size_t HashBuckets::add(unsigned thread, std::span<const uint64_t> hashes) {
  Thread& t = threads_.at(thread);
  if (full_.load(std::memory_order_relaxed)) return 0;
  Cursor* cursors = t.cursors.data();
  Line* lines = t.lines.data();
  uint8_t* filled = t.filled.data();
  constexpr int kOrderShift = 64 - static_cast<int>(kOrderBits);
  constexpr int kPartShift = 64 - static_cast<int>(kPartBits);
  // A chunk holds whole lines, so a line has room in its chunk from its first word on.
  size_t i = 0;
  for (; i < hashes.size(); ++i) {
    const uint64_t h = hashes[i];
    const uint64_t r = partition_hash(h);
    const size_t b = static_cast<size_t>(((h >> kPartShift) << kOrderBits) | (r >> kOrderShift));
    uint8_t& f = filled[b];
    Cursor& c = cursors[b];
    if (f == 0 && c.at == c.end && !refill(t, b)) break;
    lines[b].words[f] = r;
    if (++f == 8) {
      stream_line(c.at, lines[b].words);
      c.at += 8;
      f = 0;
    }
  }
#if defined(__x86_64__)
  _mm_sfence();  // the lines written reach memory before another thread reads them
#endif
  return i;
}

uint64_t HashBuckets::used(const Thread& t, size_t bucket, size_t chunk) const {
  const std::vector<Chunk>& chunks = t.buckets[bucket].chunks;
  if (chunk + 1 < chunks.size()) return chunks[chunk].capacity;
  return static_cast<uint64_t>(t.cursors[bucket].at - chunks[chunk].words);
}

uint64_t HashBuckets::size() const {
  uint64_t n = 0;
  for (const Thread& t : threads_) {
    for (size_t b = 0; b < kBuckets; ++b) {
      const size_t chunks = t.buckets[b].chunks.size();
      for (size_t c = 0; c < chunks; ++c) n += used(t, b, c);
      n += t.filled[b];
    }
  }
  return n;
}

std::vector<std::span<const uint64_t>> HashBuckets::partition(unsigned bits, uint32_t part,
                                                              size_t* first_sweep) const {
  if (bits == 0 || bits > kPartBits || part >= (uint32_t{1} << bits))
    throw Error(ErrorCode::kInvalidArgument, "HashBuckets::partition: no such partition");
  const size_t lo = size_t{part} << (kPartBits - bits), hi = size_t{part + 1} << (kPartBits - bits);
  std::vector<std::span<const uint64_t>> pieces;
  for (size_t g = 0; g < (size_t{1} << kOrderBits); ++g) {
    for (size_t p = lo; p < hi; ++p) {
      const size_t b = (p << kOrderBits) | g;
      for (const Thread& t : threads_) {
        for (size_t c = 0; c < t.buckets[b].chunks.size(); ++c) {
          const uint64_t n = used(t, b, c);
          if (n != 0) pieces.emplace_back(t.buckets[b].chunks[c].words, n);
        }
        if (t.filled[b] != 0) pieces.emplace_back(t.lines[b].words, t.filled[b]);
      }
    }
    if (g == 0 && first_sweep != nullptr) *first_sweep = pieces.size();
  }
  return pieces;
}

std::vector<std::span<const uint64_t>> HashBuckets::unmap_all() {
  std::vector<std::span<const uint64_t>> pieces;
  auto unmap = [&](uint64_t* words, uint64_t n) {
    for (uint64_t j = 0; j < n; ++j) words[j] *= kUnmapMultiplier;
    if (n != 0) pieces.emplace_back(words, n);
  };
  for (Thread& t : threads_) {
    for (size_t b = 0; b < kBuckets; ++b) {
      for (size_t c = 0; c < t.buckets[b].chunks.size(); ++c)
        unmap(t.buckets[b].chunks[c].words, used(t, b, c));
      unmap(t.lines[b].words, t.filled[b]);
    }
  }
  return pieces;
}

void HashBuckets::drain(const std::function<void(std::span<const uint64_t>)>& fn) {
  struct Piece {
    const uint64_t* words;
    uint64_t count;
    uint32_t slab;
  };
  std::vector<Piece> pieces;
  std::vector<uint64_t> lines;  // the hashes still in lines, unmapped
  for (const Thread& t : threads_) {
    for (size_t b = 0; b < kBuckets; ++b) {
      for (size_t c = 0; c < t.buckets[b].chunks.size(); ++c) {
        const Chunk& k = t.buckets[b].chunks[c];
        pieces.push_back({k.words, used(t, b, c), k.slab});
      }
      for (uint8_t j = 0; j < t.filled[b]; ++j)
        lines.push_back(t.lines[b].words[j] * kUnmapMultiplier);
    }
  }
  // Slab by slab, so that each is freed once its pieces are handed out.
  std::sort(pieces.begin(), pieces.end(), [](const Piece& a, const Piece& b) {
    return a.slab != b.slab ? a.slab < b.slab : a.words < b.words;
  });
  // The store is empty from here on, whatever `fn` does; the slabs are freed as they are done.
  std::vector<WordBuffer> slabs = std::move(slabs_);
  slabs_.clear();
  slab_used_ = 0;
  reserved_ = 0;
  full_.store(false, std::memory_order_relaxed);
  for (Thread& t : threads_) {
    std::fill(t.cursors.begin(), t.cursors.end(), Cursor{});
    for (Bucket& b : t.buckets) b.chunks.clear();
    std::fill(t.filled.begin(), t.filled.end(), 0);
  }
  if (!lines.empty()) fn(lines);
  std::vector<uint64_t> plain(kMaxChunkWords);
  for (size_t i = 0; i < pieces.size(); ++i) {
    const Piece& p = pieces[i];
    for (uint64_t j = 0; j < p.count; ++j) plain[j] = p.words[j] * kUnmapMultiplier;
    fn(std::span<const uint64_t>(plain.data(), p.count));
    if (i + 1 == pieces.size() || pieces[i + 1].slab != p.slab) slabs[p.slab] = WordBuffer();
  }
}

}  // namespace bloomtool
