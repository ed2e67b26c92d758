// Sort-and-unique for 64-bit hashes. Comparison sorting 10^7 hashes costs about as much as
// building a filter from them, so large inputs use a two-level most-significant-digit radix sort
// arranged for the cache: the first pass scatters the hashes into about n/4096 buckets by their
// top bits (the only pass that streams through main memory); each bucket, small enough for the
// L2 cache, is then scattered again by the next 11 bits into runs of a few hashes, which
// insertion sort finishes. Small inputs, and runs that are not small (only crafted keys make
// them), use std::sort.
#include "keys/hash_sort.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <vector>

#include "base/run_threads.h"
#include "base/word_buffer.h"

namespace bloomtool {

namespace {

constexpr size_t kRadixMin = 8192;
constexpr size_t kBucketTarget = 4096;  // hashes per first-level bucket
constexpr int kSecondBits = 11;
constexpr size_t kInsertionMax = 24;

void small_sort(uint64_t* a, size_t n) {
  if (n > kInsertionMax) {
    std::sort(a, a + n);
    return;
  }
  for (size_t i = 1; i < n; ++i) {
    const uint64_t x = a[i];
    size_t j = i;
    for (; j > 0 && a[j - 1] > x; --j) a[j] = a[j - 1];
    a[j] = x;
  }
}

// Sorts data[0, n) and removes repeats; returns the number of distinct hashes, now at the front.
// Repeats share their top bits, so each bucket is de-duplicated on its own.
size_t radix_sort_unique(uint64_t* data, size_t n) {
  const int top_bits = std::clamp(static_cast<int>(std::bit_width(n / kBucketTarget)), 1, 16);
  const int shift = 64 - top_bits;
  const size_t buckets = size_t{1} << top_bits;
  WordBuffer scratch(n);
  uint64_t* tmp = scratch.data();
  std::vector<size_t> start(buckets + 1, 0);
  for (size_t i = 0; i < n; ++i) ++start[(data[i] >> shift) + 1];
  for (size_t b = 0; b < buckets; ++b) start[b + 1] += start[b];
  std::vector<size_t> next(start.begin(), start.end() - 1);
  for (size_t i = 0; i < n; ++i) tmp[next[data[i] >> shift]++] = data[i];
  // Every hash is in tmp now, so data is free to receive the buckets packed one after another.
  size_t out = 0;
  for (size_t b = 0; b < buckets; ++b) {
    const size_t len = start[b + 1] - start[b];
    sort_radix_bucket(tmp + start[b], data + out, len, shift);
    out = static_cast<size_t>(std::unique(data + out, data + out + len) - data);
  }
  return out;
}

// sample_has_repeats: the top bits a hash of the sample has all zero (one hash in 64); the first
// hashes, which join the sample whatever their top bits.
constexpr int kSampleBits = kRepeatSampleBits;
constexpr size_t kSampleHead = 4096;

// group_unique: hashes per first-level group and the size limit of the per-group table.
constexpr size_t kGroupTarget = 2048;
constexpr size_t kTableMaxGroup = 16384;
constexpr size_t kMaxProbe = 64;

// Copies the distinct hashes of src[0, n) to dst in order of first appearance, using `table`
// (a power of two >= 2n entries, all zero) as an open-addressing set; leaves the table zeroed.
// Returns the count, or SIZE_MAX if some probe ran longer than kMaxProbe (only crafted hashes
// do that), in which case dst holds garbage and the caller sorts instead.
size_t table_unique(const uint64_t* src, size_t n, uint64_t* dst, uint64_t* table, size_t size) {
  const size_t mask = size - 1;
  size_t out = 0;
  bool zero_seen = false;  // 0 marks a free entry, so the hash 0 is tracked apart
  bool overflow = false;
  for (size_t i = 0; i < n && !overflow; ++i) {
    const uint64_t h = src[i];
    if (h == 0) {
      if (!zero_seen) dst[out++] = 0;
      zero_seen = true;
      continue;
    }
    // The low bits index the table: the group shares its top bits.
    size_t slot = static_cast<size_t>(h) & mask;
    for (size_t probe = 0;; ++probe, slot = (slot + 1) & mask) {
      if (table[slot] == h) break;
      if (table[slot] == 0) {
        table[slot] = h;
        dst[out++] = h;
        break;
      }
      if (probe == kMaxProbe) {
        overflow = true;
        break;
      }
    }
  }
  std::memset(table, 0, size * sizeof(uint64_t));
  return overflow ? SIZE_MAX : out;
}

// Inputs below this size are grouped on one thread.
constexpr size_t kParallelMin = size_t{1} << 18;

unsigned useful_threads(size_t n, unsigned threads) {
  return n < kParallelMin ? 1 : std::clamp<unsigned>(threads, 1, 64);
}

// The hashes of several arrays seen as one: index i of the whole is in the first array that
// reaches past it.
class Concat {
 public:
  explicit Concat(std::span<const std::span<const uint64_t>> parts) : parts_(parts) {
    for (const auto& p : parts) size_ += p.size();
  }
  size_t size() const noexcept { return size_; }
  // Calls fn(pointer, count) for the pieces of [begin, end), in order.
  template <typename Fn>
  void for_range(size_t begin, size_t end, Fn&& fn) const {
    size_t at = 0;
    for (const auto& p : parts_) {
      const size_t lo = std::max(begin, at), hi = std::min(end, at + p.size());
      if (lo < hi) fn(p.data() + (lo - at), hi - lo);
      at += p.size();
    }
  }

 private:
  std::span<const std::span<const uint64_t>> parts_;
  size_t size_ = 0;
};

// Scatters the hashes of `in` into scratch by the top `top_bits` bits, keeping the input order
// within a group (thread t scatters the t-th slice of the input after the slices before it);
// returns the start of each group in scratch (groups + 1 entries).
std::vector<size_t> partition(const Concat& in, uint64_t* scratch, int top_bits, unsigned threads) {
  const size_t n = in.size();
  const int shift = 64 - top_bits;
  const size_t groups = size_t{1} << top_bits;
  std::vector<std::vector<size_t>> next(threads, std::vector<size_t>(groups, 0));
  auto slice = [&](unsigned t) {
    return std::pair{n / threads * t, t + 1 == threads ? n : n / threads * (t + 1)};
  };
  detail::run_threads(threads, [&](unsigned t) {
    const auto [begin, end] = slice(t);
    size_t* c = next[t].data();
    in.for_range(begin, end, [&](const uint64_t* data, size_t len) {
      for (size_t i = 0; i < len; ++i) ++c[data[i] >> shift];
    });
  });
  std::vector<size_t> start(groups + 1, 0);
  size_t at = 0;
  for (size_t g = 0; g < groups; ++g) {
    start[g] = at;
    for (unsigned t = 0; t < threads; ++t) {
      const size_t c = next[t][g];
      next[t][g] = at;
      at += c;
    }
  }
  start[groups] = at;
  detail::run_threads(threads, [&](unsigned t) {
    const auto [begin, end] = slice(t);
    size_t* to = next[t].data();
    in.for_range(begin, end, [&](const uint64_t* data, size_t len) {
      for (size_t i = 0; i < len; ++i) scratch[to[data[i] >> shift]++] = data[i];
    });
  });
  return start;
}

// Copies the hashes of `in` to out[0, in.size()) (out may be the first array itself).
void gather(const Concat& in, uint64_t* out) {
  size_t at = 0;
  in.for_range(0, in.size(), [&](const uint64_t* data, size_t len) {
    if (data != out + at) std::memmove(out + at, data, len * sizeof(uint64_t));
    at += len;
  });
}

// Splits groups [0, G) into `threads` runs of about equal hash counts: run t is
// [cut[t], cut[t + 1]).
std::vector<size_t> split_groups(const std::vector<size_t>& start, unsigned threads) {
  const size_t groups = start.size() - 1;
  std::vector<size_t> cut(threads + 1, groups);
  cut[0] = 0;
  for (unsigned t = 1; t < threads; ++t) {
    const size_t want = start[groups] / threads * t;
    cut[t] =
        static_cast<size_t>(std::lower_bound(start.begin(), start.end() - 1, want) - start.begin());
    cut[t] = std::max(cut[t], cut[t - 1]);
  }
  return cut;
}

int group_bits(size_t n) {
  return std::clamp(static_cast<int>(std::bit_width(n / kGroupTarget)), 1, 16);
}

}  // namespace

void sort_radix_bucket(const uint64_t* src, uint64_t* dst, size_t n, int shift) {
  if (n <= kInsertionMax || shift < kSecondBits) {
    std::memcpy(dst, src, n * sizeof(uint64_t));
    small_sort(dst, n);
    return;
  }
  constexpr size_t kRuns = size_t{1} << kSecondBits;
  const int s = shift - kSecondBits;
  size_t start[kRuns + 1] = {};
  for (size_t i = 0; i < n; ++i) ++start[((src[i] >> s) & (kRuns - 1)) + 1];
  for (size_t r = 0; r < kRuns; ++r) start[r + 1] += start[r];
  size_t next[kRuns];
  std::memcpy(next, start, sizeof next);
  for (size_t i = 0; i < n; ++i) dst[next[(src[i] >> s) & (kRuns - 1)]++] = src[i];
  for (size_t r = 0; r < kRuns; ++r) small_sort(dst + start[r], start[r + 1] - start[r]);
}

size_t group_unique(uint64_t* data, size_t n, uint64_t* scratch, unsigned threads) {
  const std::span<const uint64_t> whole(data, n);
  return group_unique(std::span(&whole, 1), data, scratch, threads);
}

size_t group_unique(std::span<const std::span<const uint64_t>> parts, uint64_t* data,
                    uint64_t* scratch, unsigned threads) {
  const Concat in(parts);
  const size_t n = in.size();
  if (n < kRadixMin) {
    gather(in, data);
    std::sort(data, data + n);
    return static_cast<size_t>(std::unique(data, data + n) - data);
  }
  threads = useful_threads(n, threads);
  // Every hash is in scratch once this returns, so data may be the first array itself.
  const std::vector<size_t> start = partition(in, scratch, group_bits(n), threads);
  size_t largest = 0;
  for (size_t g = 0; g + 1 < start.size(); ++g)
    largest = std::max(largest, start[g + 1] - start[g]);
  const size_t table_size = std::bit_ceil(2 * std::min(largest, kTableMaxGroup));
  // Run t writes its distinct hashes from data + start[cut[t]] on (it can only shrink), then the
  // runs are moved together.
  const std::vector<size_t> cut = split_groups(start, threads);
  std::vector<size_t> kept_by_run(threads, 0);
  detail::run_threads(threads, [&](unsigned t) {
    std::vector<uint64_t> table(table_size, 0);
    size_t out = start[cut[t]];
    for (size_t g = cut[t]; g < cut[t + 1]; ++g) {
      const uint64_t* src = scratch + start[g];
      const size_t len = start[g + 1] - start[g];
      size_t kept = SIZE_MAX;
      if (len <= kTableMaxGroup) {
        kept = table_unique(src, len, data + out, table.data(),
                            std::min(table_size, std::bit_ceil(2 * len)));
      }
      if (kept == SIZE_MAX) {
        std::memcpy(data + out, src, len * sizeof(uint64_t));
        std::sort(data + out, data + out + len);
        kept = static_cast<size_t>(std::unique(data + out, data + out + len) - (data + out));
      }
      out += kept;
    }
    kept_by_run[t] = out - start[cut[t]];
  });
  size_t out = kept_by_run[0];
  for (unsigned t = 1; t < threads; ++t) {
    if (out != start[cut[t]])
      std::memmove(data + out, data + start[cut[t]], kept_by_run[t] * sizeof(uint64_t));
    out += kept_by_run[t];
  }
  return out;
}

int group_top_bits(size_t n) {
  return group_bits(n);
}

bool sample_has_repeats(std::span<const std::span<const uint64_t>> parts) {
  size_t n = 0;
  for (const std::span<const uint64_t> p : parts) n += p.size();
  std::vector<uint64_t> sample;
  sample.reserve((n >> kSampleBits) + (n >> (kSampleBits + 2)) + kSampleHead + 64);
  // Each occurrence of a hash goes in at most once: in the sample, or among the first hashes.
  size_t i = 0;
  for (const std::span<const uint64_t> p : parts)
    for (const uint64_t h : p)
      if (h >> (64 - kSampleBits) == 0 || i++ < kSampleHead) sample.push_back(h);
  if (sample.size() < 2) return false;
  const size_t size = std::bit_ceil(2 * sample.size());
  std::vector<uint64_t> table(size, 0), kept(sample.size());
  // A table overflow (crafted hashes) counts as a repeat: the caller removes them anyway.
  return table_unique(sample.data(), sample.size(), kept.data(), table.data(), size) !=
         sample.size();
}

void group_by_top_bits(uint64_t* data, size_t n, uint64_t* scratch, unsigned threads) {
  const std::span<const uint64_t> whole(data, n);
  group_by_top_bits(std::span(&whole, 1), data, scratch, threads);
}

void group_by_top_bits(std::span<const std::span<const uint64_t>> parts, uint64_t* data,
                       uint64_t* scratch, unsigned threads) {
  const Concat in(parts);
  const size_t n = in.size();
  if (n < kRadixMin) {
    gather(in, data);
    std::sort(data, data + n);
    return;
  }
  threads = useful_threads(n, threads);
  partition(in, scratch, group_bits(n), threads);
  detail::run_threads(threads, [&](unsigned t) {
    const size_t begin = n / threads * t, end = t + 1 == threads ? n : n / threads * (t + 1);
    std::memcpy(data + begin, scratch + begin, (end - begin) * sizeof(uint64_t));
  });
}

void sort_unique(std::vector<uint64_t>& hashes) {
  size_t distinct;
  if (hashes.size() < kRadixMin) {
    std::sort(hashes.begin(), hashes.end());
    distinct = static_cast<size_t>(std::unique(hashes.begin(), hashes.end()) - hashes.begin());
  } else {
    distinct = radix_sort_unique(hashes.data(), hashes.size());
  }
  hashes.resize(distinct);
}

}  // namespace bloomtool
