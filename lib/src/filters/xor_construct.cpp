// Construction of xor and binary fuse filters by hypergraph peeling (Graf & Lemire 2020, 2022).
//
// Every key is an edge joining its three slots. Counting pass: each slot records how many keys
// touch it and the xor of their hashes, so a slot touched once holds its key's hash. Peeling: a
// slot touched by one key is a free choice for that key; the key is pushed on a stack and removed
// from its other two slots, which may then become free. The keys peel when the stack takes all of
// them; otherwise the mapping seed changes and the attempt starts over. Assignment walks the stack
// backwards and gives each key's free slot the value that makes the xor of its three slots equal
// its fingerprint; later keys never touch the slots of keys assigned before them.
//
// Memory per slot: a 9-byte record (the xor of hashes, then a one-byte count word; see Workspace)
// and one slot number in an array holding both the queue of free slots (growing down from the
// end) and the stack of peeled slots (growing up from the start): stack and queue hold distinct
// slots, each pushed at most once, so they never meet. With 32-bit slot numbers that is 13 bytes
// per slot, about 24 bytes per key with the 8-byte hashes and the fingerprints. Records are packed
// rather than split into a count array and a hash array so that touching a slot usually misses
// the cache once, not twice (a record straddles two cache lines one time in eight).
// Keys arrive grouped by their top bits, and the first slot of a fuse key follows the hash order,
// so the counting pass walks the array front to back; peeling and assignment read only the slot
// arrays. The measurements behind these choices are in bench/xor_build_bench.sh's notes.
//
// Threads: grouping and de-duplication (hash_sort.cpp), the binary fuse counting pass and the scan
// for the first free slots run on options.threads; peeling and assignment run on the calling
// thread. The peeling order decides
// the fingerprints, so it must not depend on the thread count (files are byte-identical for any
// count); counts and xors do not depend on the order keys are added in.
#include "filters/xor_construct.h"

#include <fmt/format.h>
#include <sys/mman.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <memory>
#include <span>
#include <type_traits>
#include <vector>

#include "base/run_threads.h"
#include "base/word_buffer.h"
#include "bloomtool/error.h"
#include "filters/xor_mapping.h"
#include "keys/hash.h"
#include "keys/hash_sort.h"

namespace bloomtool {

namespace {

using detail::Slots;

// The key hashes of an attempt: one array, or several taken together (in no particular order).
using KeyParts = std::span<const std::span<const uint64_t>>;

// The seeds tried, in order; not part of the format (the file records the one that worked).
uint64_t attempt_seed(uint32_t attempt) {
  return mix64(0x9E3779B97F4A7C15ull * (uint64_t{attempt} + 1));
}

// Adds the CPU time of the calling thread and the wall-clock time since the previous lap to one
// phase of the result.
class PhaseClock {
 public:
  explicit PhaseClock(XorBuildResult& r) : r_(r) { read(cpu_, wall_); }
  void lap(double XorPhaseTimes::*phase) {
    double cpu, wall;
    read(cpu, wall);
    r_.cpu.*phase += cpu - cpu_;
    r_.wall.*phase += wall - wall_;
    cpu_ = cpu;
    wall_ = wall;
  }

 private:
  static void read(double& cpu, double& wall) {
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    cpu = static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    wall = static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
  }
  XorBuildResult& r_;
  double cpu_, wall_;
};

// What every attempt shares: threads, how the keys are grouped (hash_sort.h; 0: not grouped,
// in one or more arrays as given), the phase clock.
struct Run {
  unsigned threads;
  int group_bits;
  PhaseClock& clock;
};

// Words of working memory for `slots` slots, records of `record_bytes`: the slot records, then
// the queue/stack array.
template <typename Index>
uint64_t workspace_words(uint64_t slots, uint64_t record_bytes) {
  return (slots * record_bytes + 7) / 8 + ((slots + 1) * sizeof(Index) + 7) / 8;
}

// The working arrays, carved from one WordBuffer (64-byte aligned, huge pages when large) that
// first served as the scratch array of de-duplication, so its pages are already mapped.
//
// A slot record holds the xor of the hashes of the keys touching the slot (8 bytes), then their
// count word: four times their number plus the xor of their slot numbers j. Narrow records (9
// bytes) have a one-byte count word, which would wrap at 64 keys in one slot; random keys never
// put a tenth of that in one slot, but crafted hashes can, and an attempt whose counts reach 63
// is run again with wide records (12 bytes, a 32-bit count word), so the outcome is the same as
// with wide records throughout. Either way the address is a shift and an add away.
template <typename IndexT, bool kWide>
struct Workspace {
  using Index = IndexT;
  using Count = std::conditional_t<kWide, uint32_t, uint8_t>;
  static constexpr uint64_t kRecordBytes = 8 + sizeof(Count);
  // A count word this high could wrap with one more key.
  static constexpr uint32_t kCountFull = kWide ? 0xFFFFFFFC : 0xFC;

  Workspace(uint64_t* arena, uint64_t slots)
      : records(reinterpret_cast<uint8_t*>(arena)),
        order(reinterpret_cast<Index*>(arena + (slots * kRecordBytes + 7) / 8)),
        slots(slots) {}
  uint8_t* records;  // slot p: bytes [rp, rp + 8) hash xor, then the count word (r: kRecordBytes)
  Index* order;      // [0, peeled): stack of slots; [top, slots): queue; [slots]: spare
  uint64_t slots;

  uint64_t hash_xor(uint64_t p) const noexcept {
    uint64_t h;
    std::memcpy(&h, records + kRecordBytes * p, 8);
    return h;
  }
  void set_hash_xor(uint64_t p, uint64_t h) noexcept {
    std::memcpy(records + kRecordBytes * p, &h, 8);
  }
  uint32_t count(uint64_t p) const noexcept {
    Count c;
    std::memcpy(&c, records + kRecordBytes * p + 8, sizeof c);
    return c;
  }
  void set_count(uint64_t p, uint32_t c) noexcept {
    const auto v = static_cast<Count>(c);
    std::memcpy(records + kRecordBytes * p + 8, &v, sizeof v);
  }
  void prefetch(uint64_t p) const noexcept {
    __builtin_prefetch(records + kRecordBytes * p, 1, 3);
    __builtin_prefetch(records + kRecordBytes * p + kRecordBytes - 1, 1, 3);
  }
  void clear() noexcept { std::memset(records, 0, slots * kRecordBytes); }
};

// Adds (delta 4) or removes (delta -4) a key with hash h at slot p, the key's slot number j (0, 1
// or 2). The count word holds four times the number of keys touching the slot plus the xor of
// their slot numbers j, so when one key is left, the low two bits say which of its slots this is.
// Returns the new count word (as stored: truncated to the record's width).
template <typename W>
inline uint32_t touch(W& w, uint64_t p, uint32_t j, uint64_t h, uint32_t delta) noexcept {
  w.set_hash_xor(p, w.hash_xor(p) ^ h);
  const auto c = static_cast<typename W::Count>((w.count(p) + delta) ^ j);
  w.set_count(p, c);
  return c;
}

// The counting pass over the keys whose first slot lies in [p0_lo, p0_hi) (the others are
// skipped); true if some slot's count could wrap (63 keys in one slot).
//
// The slots of a key lie up to two segments apart, more than the L2 cache holds, so both passes
// work a few keys ahead of themselves: the counting pass computes the slots of key i + kAhead and
// prefetches them; peeling pops a batch of free slots, prefetches the slots of their keys, and
// only then removes the keys (re-checking each, since removing one key can empty another slot
// of the batch). Removal does not branch on which slot is free or on whether a slot becomes
// free: the count word names the free slot, and a slot is always written above the queue and
// counted in only when it became free.
template <typename W, typename Mapping>
bool count_keys(std::span<const uint64_t> keys, const Mapping map, W w, bool grouped,
                uint64_t p0_lo = 0, uint64_t p0_hi = UINT64_MAX) {
  constexpr size_t kAhead = 16;
  const size_t n = keys.size();
  const uint64_t width = p0_hi - p0_lo;
  uint8_t saturated = 0;
  Slots ring[kAhead];
  for (size_t i = 0; i < std::min(n, kAhead); ++i) ring[i] = map.slots(keys[i]);
  for (size_t i = 0; i < n; ++i) {
    const Slots s = ring[i % kAhead];
    if (i + kAhead < n) {
      const Slots& next = ring[i % kAhead] = map.slots(keys[i + kAhead]);
      w.prefetch(next.p1);
      w.prefetch(next.p2);
      if (!grouped) w.prefetch(next.p0);  // else the first slots follow the hash order
    }
    if (s.p0 - p0_lo >= width) continue;
    const uint64_t h = keys[i];
    uint8_t j = 0;
    for (const uint64_t p : {s.p0, s.p1, s.p2}) {
      saturated |= static_cast<uint8_t>(w.count(p) >= W::kCountFull);
      touch(w, p, j++, h, 4);
    }
  }
  return saturated != 0;
}

// Clears the slot records and runs the counting pass. Binary fuse keys on several threads: the
// first slots' segments [0, c) are cut into one zone per thread, the last two segments of every
// zone but the last set aside. A key whose first slot is in zone t (not set aside) touches only
// the segments of zone t, so the threads never touch the same slot; the keys set aside follow on
// the calling thread. Counts and xors do not depend on the order keys are added in, so the result
// is the same as on one thread. Keys are grouped by their top `group_bits` bits (hash_sort.h), so
// the keys of a zone are found by binary search.
template <typename W, typename Mapping>
bool count_all(KeyParts parts, const Mapping& map, W& w, unsigned threads, int group_bits) {
  constexpr bool kFuse = std::is_same_v<Mapping, detail::FuseMapping>;
  uint64_t segments = 0;
  if constexpr (kFuse) segments = map.span / map.segment_length;
  if (!kFuse || threads <= 1 || group_bits == 0 || parts.size() != 1 ||
      parts[0].size() < (size_t{1} << 18) || segments < 8 * threads) {
    w.clear();
    bool saturated = false;
    for (const std::span<const uint64_t> keys : parts)
      saturated |= count_keys(keys, map, w, group_bits != 0);
    return saturated;
  }
  const std::span<const uint64_t> keys = parts[0];
  if constexpr (kFuse) {
    const uint64_t length = map.segment_length;
    const int shift = 64 - group_bits;
    // The keys whose first slot lies in segments [s_lo, s_hi), counted.
    auto count_segments = [&](uint64_t s_lo, uint64_t s_hi) {
      // First slot p0 = (a * span) >> 64 with a = h + seed, so p0 >= s * length exactly when
      // a >= ceil(s * length * 2^64 / span).
      __extension__ using U128 = unsigned __int128;
      auto a_of = [&](uint64_t s) {
        return ((static_cast<U128>(s * length) << 64) + map.span - 1) / map.span;
      };
      const U128 a_lo = a_of(s_lo), a_hi = a_of(s_hi);
      if (a_lo >= a_hi) return false;
      const uint64_t h_first = static_cast<uint64_t>(a_lo) - map.seed;
      const uint64_t h_last = static_cast<uint64_t>(a_hi - 1) - map.seed;
      auto index_of_group = [&](uint64_t g, bool after) {
        return static_cast<size_t>(std::partition_point(keys.begin(), keys.end(),
                                                        [&](uint64_t h) {
                                                          return after ? h >> shift <= g
                                                                       : h >> shift < g;
                                                        }) -
                                   keys.begin());
      };
      const size_t first = index_of_group(h_first >> shift, false);
      const size_t last = index_of_group(h_last >> shift, true);
      const uint64_t p0_lo = s_lo * length, p0_hi = s_hi * length;
      if (h_first <= h_last)
        return count_keys(keys.subspan(first, last - first), map, w, true, p0_lo, p0_hi);
      const bool a = count_keys(keys.subspan(first), map, w, true, p0_lo, p0_hi);
      return count_keys(keys.first(last), map, w, true, p0_lo, p0_hi) || a;
    };
    std::vector<uint8_t> saturated(threads, 0);
    auto zone = [&](unsigned t) { return segments * t / threads; };
    detail::run_threads(threads, [&](unsigned t) {
      const uint64_t lo = zone(t), hi = zone(t + 1);
      const uint64_t clear_end = (t + 1 == threads ? segments + 2 : hi) * length;
      std::memset(w.records + W::kRecordBytes * lo * length, 0,
                  W::kRecordBytes * (clear_end - lo * length));
      saturated[t] = count_segments(lo, t + 1 == threads ? hi : hi - 2);
    });
    bool any = false;
    for (unsigned t = 0; t + 1 < threads; ++t) any |= count_segments(zone(t + 1) - 2, zone(t + 1));
    for (const uint8_t s : saturated) any |= s != 0;
    return any;
  }
  return false;
}

// Fills the queue with the slots touched by one key, in ascending order from order[slots - 1]
// down (the queue pops the highest first), and returns where it starts. A large array is scanned
// on all threads, each over one range of slots: a thread writes what it finds to the front of its
// own range of the order array (nothing is there yet, and a range holds at least as many entries
// as it has free slots), then copies its finds to their place in the queue, which is the same
// as one thread's scan would give (the order decides the file's bytes).
template <typename W>
uint64_t initial_queue(const W w, unsigned threads) {
  using Index = typename W::Index;
  const uint64_t slots = w.slots;
  Index* order = w.order;
  if (threads <= 1 || slots < (uint64_t{1} << 20)) {
    // Without a branch (about a fifth of the slots are free, at random): every slot is written
    // just below the queue and kept there only if it is free. Below the queue nothing is held
    // yet, and top >= slots - p > 0.
    uint64_t top = slots;
    for (uint64_t p = 0; p < slots; ++p) {
      order[top - 1] = static_cast<Index>(p);
      top -= w.count(p) >> 2 == 1;
    }
    return top;
  }
  auto begin = [&](unsigned t) { return slots * t / threads; };
  std::vector<uint64_t> found(threads, 0);
  detail::run_threads(threads, [&](unsigned t) {
    Index* out = order + begin(t);
    uint64_t c = 0;
    for (uint64_t p = begin(t); p < begin(t + 1); ++p) {
      out[c] = static_cast<Index>(p);  // at or below order[p]: never ahead of the scan
      c += w.count(p) >> 2 == 1;
    }
    found[t] = c;
  });
  std::vector<uint64_t> before(threads + 1, 0);
  for (unsigned t = 0; t < threads; ++t) before[t + 1] = before[t] + found[t];
  const uint64_t top = slots - before[threads];
  // The j-th find of range t goes to order[slots - 1 - (before[t] + j)]. If that part of the
  // array meets what some range found (the last ranges' finds, from about 5 threads on at the
  // usual fifth of slots free), the copies would overwrite finds not yet copied: they go through
  // a buffer instead (a second scan would cost more than the buffer).
  bool meets = false;
  for (unsigned t = 0; t < threads; ++t) meets |= begin(t) + found[t] > top;
  if (meets) {
    std::vector<Index> all;
    all.reserve(before[threads]);
    for (unsigned t = 0; t < threads; ++t)
      all.insert(all.end(), order + begin(t), order + begin(t) + found[t]);
    for (uint64_t k = 0; k < all.size(); ++k) order[slots - 1 - k] = all[k];
    return top;
  }
  detail::run_threads(threads, [&](unsigned t) {
    const Index* from = order + begin(t);
    Index* to = order + (slots - 1 - before[t]);
    for (uint64_t j = 0; j < found[t]; ++j) *(to - j) = from[j];
  });
  return top;
}

enum class Peel {
  kDone,   // every key peeled
  kStuck,  // some keys could not be peeled with this seed
  kFull,   // some slot's count word could wrap: not tried
};

// One attempt. On success the stack order[0, n) holds each key's free slot in peeling order and
// hash_xor(slot) is that key's hash.
template <typename W, typename Mapping>
Peel peel(KeyParts keys, size_t n, const Mapping map, W w, Run& run) {
  using Index = typename W::Index;
  constexpr size_t kBatch = 16;
  const uint64_t slots = w.slots;
  Index* order = w.order;
  const bool saturated = count_all(keys, map, w, run.threads, run.group_bits);
  run.clock.lap(&XorPhaseTimes::count);
  if (saturated) return Peel::kFull;

  uint64_t top = initial_queue(w, run.threads);
  uint64_t peeled = 0;
  uint64_t batch[kBatch];
  // The batch's slots, field by field: a Slots array would be filled through a spill and a
  // 16-byte reload that waits for the two 8-byte stores it overlaps (a fifth of the peel's time).
  uint64_t batch_p0[kBatch], batch_p1[kBatch], batch_p2[kBatch];
  while (top < slots) {
    // A popped batch is neither queue nor stack, so the two still cannot meet. A slot's count
    // only falls, so a slot free when popped either still holds the same key when its turn
    // comes, with the slots computed here, or none.
    const size_t taken = static_cast<size_t>(std::min<uint64_t>(kBatch, slots - top));
    for (size_t j = 0; j < taken; ++j) {
      const uint64_t p = batch[j] = order[top++];
      const Slots s = map.slots(w.hash_xor(p));
      batch_p0[j] = s.p0;
      batch_p1[j] = s.p1;
      batch_p2[j] = s.p2;
      w.prefetch(s.p0);
      w.prefetch(s.p1);
      w.prefetch(s.p2);
    }
    for (uint64_t q = top + kBatch; q < std::min(slots, top + 2 * kBatch); ++q)
      w.prefetch(order[q]);
    for (size_t j = 0; j < taken; ++j) {
      const uint64_t p = batch[j];
      const uint32_t cp = w.count(p);
      if (cp >> 2 != 1) continue;  // its key left through another slot
      const uint64_t h = w.hash_xor(p);
      const uint8_t found = cp & 3;
      w.set_count(p, 0);
      order[peeled++] = static_cast<Index>(p);
      // The other two slots in ascending order, with their slot numbers, written out (a loop
      // over two-element arrays kept them on the stack).
      const uint64_t q0 = found == 0 ? batch_p1[j] : batch_p0[j];
      const uint64_t q1 = found == 2 ? batch_p1[j] : batch_p2[j];
      const uint32_t c0 = touch(w, q0, found == 0 ? 1u : 0u, h, static_cast<uint32_t>(-4));
      const uint32_t c1 = touch(w, q1, found == 2 ? 1u : 2u, h, static_cast<uint32_t>(-4));
      // Each is written just above the queue and kept there only if it became free. While the
      // queue and stack fill every slot, the write goes to the spare entry at order[slots].
      order[top > peeled ? top - 1 : slots] = static_cast<Index>(q0);
      top -= c0 >> 2 == 1;
      order[top > peeled ? top - 1 : slots] = static_cast<Index>(q1);
      top -= c1 >> 2 == 1;
    }
  }
  run.clock.lap(&XorPhaseTimes::peel);
  return peeled == n ? Peel::kDone : Peel::kStuck;
}

// Assignment walks the stack backwards. The slot record of key k - kFar is prefetched, and the
// fingerprint slots of key k - kNear are computed and prefetched, before key k is assigned.
template <typename Fp, typename W, typename Mapping>
void assign(uint64_t n, const Mapping map, uint8_t* f, const W w) {
  constexpr uint64_t kFar = 32;
  constexpr uint64_t kNear = 8;
  struct Pending {
    uint64_t h;
    Slots s;
  };
  Pending ring[kNear];
  auto prepare = [&](uint64_t k) {
    const uint64_t h = w.hash_xor(w.order[k]);
    const Slots s = map.slots(h);
    __builtin_prefetch(f + s.p0 * sizeof(Fp), 1, 3);
    __builtin_prefetch(f + s.p1 * sizeof(Fp), 1, 3);
    __builtin_prefetch(f + s.p2 * sizeof(Fp), 1, 3);
    ring[k % kNear] = {h, s};
  };
  for (uint64_t k = n; k-- > n - std::min(n, kNear);) prepare(k);
  for (uint64_t k = n; k-- > 0;) {
    if (k >= kFar) w.prefetch(w.order[k - kFar]);
    const Pending cur = ring[k % kNear];
    if (k >= kNear) prepare(k - kNear);
    // The key's own slot is still zero, so xoring all three slots in is the same as xoring the
    // other two.
    const Fp v = static_cast<Fp>(
        detail::fingerprint<Fp>(cur.h, map.seed) ^ detail::load_fp<Fp>(f, cur.s.p0) ^
        detail::load_fp<Fp>(f, cur.s.p1) ^ detail::load_fp<Fp>(f, cur.s.p2));
    detail::store_fp<Fp>(f, w.order[k], v);
  }
}

// Peels with one mapping and, if that works, assigns the fingerprints.
template <typename W, typename Mapping>
Peel attempt(KeyParts keys, size_t n, const Mapping& map, uint32_t fingerprint_bits,
             WordBuffer& words, W& w, Run& run) {
  const Peel r = peel(keys, n, map, w, run);
  if (r != Peel::kDone) return r;
  auto* f = reinterpret_cast<uint8_t*>(words.data());
  std::memset(f, 0, words.size() * 8);
  if (fingerprint_bits == 8)
    assign<uint8_t>(n, map, f, w);
  else
    assign<uint16_t>(n, map, f, w);
  run.clock.lap(&XorPhaseTimes::assign);
  return r;
}

// Attempts [first, end) of the seed sequence over the n keys of `keys`; true once one peels (its
// fingerprints then in words).
template <typename Index>
bool try_seeds(KeyParts keys, size_t n, XorParams& p, WordBuffer& words, WordBuffer& arena,
               uint32_t first, uint32_t end, uint32_t& attempts, Run& run) {
  Workspace<Index, false> narrow(arena.data(), p.slots);
  Workspace<Index, true> wide(arena.data(), p.slots);
  // Narrow records first; the same seed again with wide ones if a count could wrap.
  auto peel_and_assign = [&](const auto& map) {
    Peel r = attempt(keys, n, map, p.fingerprint_bits, words, narrow, run);
    if (r == Peel::kFull) r = attempt(keys, n, map, p.fingerprint_bits, words, wide, run);
    return r == Peel::kDone;
  };
  const uint64_t length = p.segment_length, count = p.segment_count;
  for (uint32_t a = first; a < end; ++a) {
    p.seed = attempt_seed(a);
    attempts = a + 1;
    bool ok;
    if (p.layout == XorLayout::kFuse) {
      if (length >= 8) {
        // Every second attempt halves the segment length over the same array (2c + 2
        // segments). Just after the paper's formula doubles the length, few segments carry a
        // high load and its layout peels for as few as 0-25% of seeds (n = 11,400-11,521 and
        // 12,372 among others), while the halved layout peels for about 97%. Scanning the
        // largest n of every array length up to 560,000, a pair of attempts succeeded for 88%
        // or more of key sets.
        const bool halve = a % 2 == 1;
        p.segment_length = halve ? length / 2 : length;
        p.segment_count = halve ? 2 * count + 2 : count;
      }
      ok = peel_and_assign(
          detail::FuseMapping{p.seed, p.segment_length, p.segment_count * p.segment_length});
    } else {
      ok = peel_and_assign(detail::XorMapping{p.seed, p.segment_length});
    }
    if (ok) return true;
  }
  std::memset(words.data(), 0, words.size() * 8);
  return false;
}

// Faults in the pages of the given byte ranges on all threads with MADV_POPULATE_WRITE (contents
// unchanged; on a kernel without it the pages fault in when first used, as before). A phase that
// writes memory no thread has touched yet faults it in on whichever thread writes it first: the
// counting pass's zones fall mostly on one thread, the stack and the fingerprints on the peeling
// thread. Faulting in costs a kernel page clear per page, and much more on a virtual machine whose
// host takes back guest memory left free, so it is shared out beforehand: the ranges are cut into
// 4 MiB pieces on 2 MiB boundaries (no huge page faulted in by two threads), which the threads take
// in turn, since some pieces come cheap (pages the kernel has just had back) and others do not.
void fault_in(std::initializer_list<std::span<uint8_t>> ranges, unsigned threads) {
  constexpr uintptr_t kPage = 4096, kPiece = uintptr_t{4} << 20;
  std::vector<std::pair<uintptr_t, uintptr_t>> pieces;  // [begin, end), page-aligned, non-empty
  for (const std::span<uint8_t> r : ranges) {
    uintptr_t b = (reinterpret_cast<uintptr_t>(r.data()) + kPage - 1) & ~(kPage - 1);
    const uintptr_t e = (reinterpret_cast<uintptr_t>(r.data()) + r.size()) & ~(kPage - 1);
    while (b < e) {
      const uintptr_t next = std::min(e, (b & ~(kPiece - 1)) + kPiece);
      pieces.emplace_back(b, next);
      b = next;
    }
  }
  if (pieces.empty()) return;
  std::atomic<size_t> taken{0};
  detail::run_threads(std::min<size_t>(threads, pieces.size()), [&](unsigned) {
    for (size_t i; (i = taken.fetch_add(1, std::memory_order_relaxed)) < pieces.size();) {
      madvise(reinterpret_cast<void*>(pieces[i].first), pieces[i].second - pieces[i].first,
              MADV_POPULATE_WRITE);
    }
  });
}

// XorBuildOptions::speculate applies from this many hashes (grouping sorts fewer). Grouping and
// removing repeats were about a fifth of a partition's construction.
constexpr uint64_t kSpeculateMin = uint64_t{1} << 13;

// Builds the filter of the hashes in `parts`, grouped (and de-duplicated) into out[0, input);
// `grouped` runs once the parts have been read for the last time.
XorBuildResult build_from_parts(std::span<const std::span<const uint64_t>> parts, uint64_t* out,
                                uint64_t input, const XorBuildOptions& options,
                                const std::function<void()>& grouped) {
  if (options.max_attempts == 0)
    throw Error(ErrorCode::kInvalidArgument, "construction needs at least one attempt");
  XorBuildResult r;
  PhaseClock clock(r);
  // One arena serves de-duplication (n words of scratch) and then construction; sized for the
  // input count, an upper bound of the distinct count.
  const uint64_t most_slots = xor_params_for(options.layout, options.fingerprint_bits, input).slots;
  // Sized for wide records (pages a build does not touch cost nothing).
  const uint64_t arena_words = std::max<uint64_t>(input, workspace_words<uint64_t>(most_slots, 12));
  WordBuffer own_arena;
  WordBuffer& arena = options.arena != nullptr ? *options.arena : own_arena;
  if (arena.size() < arena_words) {
    arena = WordBuffer();  // the old one goes first: never two at once
    arena = WordBuffer(arena_words);
  }
  Run run{std::max(options.threads, 1u), group_top_bits(input), clock};
  const std::span<const uint64_t> all(out, input);
  // Speculation (options.speculate, one thread): where a sample shows no repeats, the first
  // attempt counts the keys where they are, neither grouped nor freed of repeats (see below).
  const bool speculate =
      options.speculate && !options.assume_distinct && run.threads == 1 && input >= kSpeculateMin &&
      !sample_has_repeats(parts.first(std::min(parts.size(), options.sample_parts)));
  // Grouping writes the second half of `out` on the second thread; past the first array's hashes
  // that memory is fresh.
  if (run.threads > 1 && parts.size() > 1 && parts[0].size() < input) {
    fault_in({std::span(reinterpret_cast<uint8_t*>(out + parts[0].size()),
                        (input - parts[0].size()) * 8)},
             run.threads);
  }
  std::span<const uint64_t> hashes = all;
  if (options.assume_distinct) {
    group_by_top_bits(parts, out, arena.data(), run.threads);
    grouped();
  } else if (!speculate) {
    hashes = all.first(group_unique(parts, out, arena.data(), run.threads));
    grouped();
  }
  clock.lap(&XorPhaseTimes::group);
  r.duplicates = input - hashes.size();
  r.distinct = hashes.size();
  XorParams p = xor_params_for(options.layout, options.fingerprint_bits, r.distinct);
  WordBuffer words(xor_payload_words(p));
  const bool small = p.slots <= UINT32_MAX;
  // De-duplication touched the arena's first `input` words; the rest of the working arrays, and
  // the fingerprints, are fresh.
  const uint64_t workspace =
      small ? workspace_words<uint32_t>(p.slots, 9) : workspace_words<uint64_t>(p.slots, 9);
  if (run.threads > 1) {
    fault_in({std::span(reinterpret_cast<uint8_t*>(arena.data() + std::min(input, workspace)),
                        (workspace - std::min(input, workspace)) * 8),
              std::span(reinterpret_cast<uint8_t*>(words.data()), words.size() * 8)},
             run.threads);
  }
  auto seeds = [&](KeyParts keys, size_t n, uint32_t first, uint32_t end) {
    return small ? try_seeds<uint32_t>(keys, n, p, words, arena, first, end, r.attempts, run)
                 : try_seeds<uint64_t>(keys, n, p, words, arena, first, end, r.attempts, run);
  };
  // The speculative attempt is the first attempt as if the hashes were distinct. If it peels them
  // all, they were (two copies of a hash share their three slots and keep each other's counts at
  // 2 or more, so neither is ever peeled): the set, its size and so the parameters are those of
  // the distinct hashes, and this was their first attempt, with the same bytes (counts and xors do
  // not depend on the order keys come in, nor does the peel). Otherwise the hashes are grouped
  // and freed of repeats as usual; without any, the first attempt would fail again and the next
  // one follows, else the distinct hashes start over from the first.
  uint32_t first = 0;
  if (speculate) {
    run.group_bits = 0;
    const bool peeled = seeds(parts, input, 0, 1);
    run.group_bits = group_top_bits(input);
    if (peeled) {
      grouped();
      r.filter = std::make_unique<XorFilter>(p, std::move(words), options.hash_seed);
      return r;
    }
    hashes = all.first(group_unique(parts, out, arena.data(), run.threads));
    grouped();
    clock.lap(&XorPhaseTimes::group);
    if (hashes.size() == input) {
      first = 1;
    } else {
      r.duplicates = input - hashes.size();
      r.distinct = hashes.size();
      p = xor_params_for(options.layout, options.fingerprint_bits, r.distinct);
      words = WordBuffer();
      words = WordBuffer(xor_payload_words(p));
      r.attempts = 0;
    }
  }
  const std::span<const uint64_t> grouped_hashes[] = {hashes};
  const bool ok = seeds(grouped_hashes, hashes.size(), first, options.max_attempts);
  if (!ok) {
    throw XorConstructionError(
        fmt::format("{} filter construction failed after {} attempt{} ({} distinct keys)",
                    options.layout == XorLayout::kFuse ? "binary fuse" : "xor", r.attempts,
                    r.attempts == 1 ? "" : "s", r.distinct));
  }
  r.filter = std::make_unique<XorFilter>(p, std::move(words), options.hash_seed);
  return r;
}

}  // namespace

XorBuildResult build_xor_filter(std::span<uint64_t> all, const XorBuildOptions& options) {
  const std::span<const uint64_t> whole(all);
  return build_from_parts(std::span(&whole, 1), all.data(), all.size(), options, [] {});
}

XorBuildResult build_xor_filter(std::vector<WordBuffer>& parts, std::span<const size_t> counts,
                                const XorBuildOptions& options) {
  if (parts.empty() || counts.size() != parts.size())
    throw Error(ErrorCode::kInvalidArgument, "build_xor_filter: one count per buffer");
  uint64_t input = 0;
  for (const size_t c : counts) input += c;
  // The first buffer grows to hold every hash (in place or by moving pages: nothing is copied);
  // grouping reads the others where they are and frees them as soon as it is done.
  if (parts[0].size() < input) parts[0].resize(input);
  std::vector<std::span<const uint64_t>> spans;
  for (size_t i = 0; i < parts.size(); ++i) spans.emplace_back(parts[i].data(), counts[i]);
  return build_from_parts(spans, parts[0].data(), input, options, [&] {
    for (size_t i = 1; i < parts.size(); ++i) parts[i] = WordBuffer();
  });
}

XorBuildResult build_xor_filter(std::span<const std::span<const uint64_t>> pieces,
                                WordBuffer& scratch, const XorBuildOptions& options) {
  uint64_t input = 0;
  for (const std::span<const uint64_t> p : pieces) input += p.size();
  if (scratch.size() < input) {
    scratch = WordBuffer();  // the old one goes first: never two at once
    scratch = WordBuffer(input);
  }
  return build_from_parts(pieces, scratch.data(), input, options, [] {});
}

XorBuildResult build_xor_filter(std::vector<uint64_t>& hashes, const XorBuildOptions& options) {
  XorBuildResult r = build_xor_filter(std::span<uint64_t>(hashes), options);
  hashes.resize(r.distinct);
  return r;
}

}  // namespace bloomtool
