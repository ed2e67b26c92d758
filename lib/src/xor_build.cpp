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
// Memory per slot: a one-byte count (kept in the fingerprint array, which is cleared before
// assignment), the xor of hashes, and one slot number in an array holding both the queue of free
// slots (growing down from the end) and the stack of peeled slots (growing up from the start):
// stack and queue hold distinct slots, each pushed at most once, so they never meet. With 32-bit
// slot numbers that is 13 bytes per slot, about 23 bytes per key with the 8-byte hashes. Keys
// arrive sorted and the first slot of a fuse key follows the hash order, so the counting pass
// walks the array front to back; peeling and assignment read only the slot arrays.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <memory>

#include "bloomtool/error.h"
#include "bloomtool/hash.h"
#include "bloomtool/hash_sort.h"
#include "bloomtool/word_buffer.h"
#include "bloomtool/xor_filter.h"
#include "xor_mapping.h"

namespace bloomtool {

namespace {

using detail::Slots;

// The seeds tried, in order; not part of the format (the file records the one that worked).
uint64_t attempt_seed(uint32_t attempt) {
  return mix64(0x9E3779B97F4A7C15ull * (uint64_t{attempt} + 1));
}

// Working arrays in WordBuffers: zeroed, and backed by huge pages when large, which matters for
// arrays probed at random.
template <typename Index>
struct Workspace {
  explicit Workspace(uint64_t slots)
      : hash_xor_words(slots),
        order_words((slots * sizeof(Index) + 7) / 8),
        hash_xor(hash_xor_words.data()),
        order(reinterpret_cast<Index*>(order_words.data())),
        slots(slots) {}
  WordBuffer hash_xor_words;
  WordBuffer order_words;
  uint64_t* hash_xor;  // xor of the hashes of the keys touching each slot
  Index* order;        // [0, peeled): stack of slots; [top, slots): queue
  uint64_t slots;
};

inline void prefetch_slot(const uint8_t* count, const uint64_t* hash_xor, uint64_t p) {
  __builtin_prefetch(count + p, 1, 3);
  __builtin_prefetch(hash_xor + p, 1, 3);
}

// One attempt. On success the stack order[0, n) holds each key's free slot in peeling order and
// hash_xor[slot] is that key's hash.
//
// The slots of a key lie segments apart, so most touches miss the L2 cache. Both passes work a
// few keys ahead of themselves: the counting pass computes the slots of key i + kAhead and
// prefetches them; peeling pops a batch of free slots, prefetches the slots of their keys, and
// only then removes the keys (re-checking each, since removing one key can empty another slot
// of the batch).
template <typename Index, typename Mapping>
bool peel(const std::vector<uint64_t>& keys, const Mapping& map, uint8_t* count,
          Workspace<Index>& w) {
  constexpr size_t kAhead = 16;
  constexpr size_t kBatch = 16;
  const uint64_t slots = w.slots;
  uint64_t* hash_xor = w.hash_xor;
  Index* order = w.order;
  std::memset(count, 0, slots);
  std::fill(hash_xor, hash_xor + slots, uint64_t{0});
  const size_t n = keys.size();
  uint8_t saturated = 0;
  Slots ring[kAhead];
  for (size_t i = 0; i < std::min(n, kAhead); ++i) ring[i] = map.slots(keys[i]);
  for (size_t i = 0; i < n; ++i) {
    const Slots s = ring[i % kAhead];
    if (i + kAhead < n) {
      const Slots& next = ring[i % kAhead] = map.slots(keys[i + kAhead]);
      prefetch_slot(count, hash_xor, next.p1);
      prefetch_slot(count, hash_xor, next.p2);
    }
    const uint64_t h = keys[i];
    for (const uint64_t p : {s.p0, s.p1, s.p2}) {
      saturated |= static_cast<uint8_t>(count[p] == 0xFF);
      ++count[p];
      hash_xor[p] ^= h;
    }
  }
  if (saturated) return false;  // a slot shared by 255 keys: the counts wrapped

  uint64_t top = slots;
  for (uint64_t p = 0; p < slots; ++p) {
    if (count[p] == 1) order[--top] = static_cast<Index>(p);
  }
  uint64_t peeled = 0;
  uint64_t batch[kBatch];
  Slots batch_slots[kBatch];
  while (top < slots) {
    // A popped batch is neither queue nor stack, so the two still cannot meet. A slot's count
    // only falls, so a slot free when popped either still holds the same key when its turn
    // comes, with the slots computed here, or none.
    const size_t taken = static_cast<size_t>(std::min<uint64_t>(kBatch, slots - top));
    for (size_t j = 0; j < taken; ++j) {
      const uint64_t p = batch[j] = order[top++];
      if (count[p] != 1) continue;
      const Slots s = batch_slots[j] = map.slots(hash_xor[p]);
      for (const uint64_t q : {s.p0, s.p1, s.p2}) {
        if (q != p) prefetch_slot(count, hash_xor, q);
      }
    }
    for (size_t j = 0; j < taken; ++j) {
      const uint64_t p = batch[j];
      if (count[p] == 0) continue;  // its key left through another slot
      const uint64_t h = hash_xor[p];
      const Slots& s = batch_slots[j];
      order[peeled++] = static_cast<Index>(p);
      count[p] = 0;
      for (const uint64_t q : {s.p0, s.p1, s.p2}) {
        if (q == p) continue;
        hash_xor[q] ^= h;
        if (--count[q] == 1) order[--top] = static_cast<Index>(q);
      }
    }
  }
  return peeled == n;
}

template <typename Fp, typename Index, typename Mapping>
void assign(uint64_t n, const Mapping& map, uint8_t* f, const Workspace<Index>& w) {
  constexpr uint64_t kAhead = 16;
  for (uint64_t k = n; k-- > 0;) {
    if (k >= kAhead) __builtin_prefetch(&w.hash_xor[w.order[k - kAhead]], 0, 3);
    const uint64_t p = w.order[k];
    const uint64_t h = w.hash_xor[p];
    const Slots s = map.slots(h);
    // Slot p is still zero, so xoring all three slots in is the same as xoring the other two.
    const Fp v =
        static_cast<Fp>(detail::fingerprint<Fp>(h, map.seed) ^ detail::load_fp<Fp>(f, s.p0) ^
                        detail::load_fp<Fp>(f, s.p1) ^ detail::load_fp<Fp>(f, s.p2));
    detail::store_fp<Fp>(f, p, v);
  }
}

template <typename Index>
bool try_seeds(const std::vector<uint64_t>& keys, XorParams& p, WordBuffer& words,
               uint32_t max_attempts, uint32_t& attempts) {
  Workspace<Index> w(p.slots);
  auto* f = reinterpret_cast<uint8_t*>(words.data());
  const uint64_t length = p.segment_length, count = p.segment_count;
  for (uint32_t a = 0; a < max_attempts; ++a) {
    p.seed = attempt_seed(a);
    attempts = a + 1;
    if (p.layout == XorLayout::kFuse && length >= 8) {
      // Every second attempt halves the segment length over the same array (2c + 2 segments).
      // Just after the paper's formula doubles the length, few segments carry a high load and
      // its layout peels for as few as 0-25% of seeds (n = 11,400-11,521 and 12,372 among
      // others), while the halved layout peels for about 97%. Scanning the largest n of every
      // array length up to 560,000, a pair of attempts succeeded for 88% or more of key sets.
      const bool halve = a % 2 == 1;
      p.segment_length = halve ? length / 2 : length;
      p.segment_count = halve ? 2 * count + 2 : count;
    }
    bool ok = false;
    if (p.layout == XorLayout::kFuse) {
      const detail::FuseMapping map{p.seed, p.segment_length, p.segment_count * p.segment_length};
      ok = peel(keys, map, f, w);
      if (ok) {
        std::memset(f, 0, words.size() * 8);
        if (p.fingerprint_bits == 8)
          assign<uint8_t>(keys.size(), map, f, w);
        else
          assign<uint16_t>(keys.size(), map, f, w);
      }
    } else {
      const detail::XorMapping map{p.seed, p.segment_length};
      ok = peel(keys, map, f, w);
      if (ok) {
        std::memset(f, 0, words.size() * 8);
        if (p.fingerprint_bits == 8)
          assign<uint8_t>(keys.size(), map, f, w);
        else
          assign<uint16_t>(keys.size(), map, f, w);
      }
    }
    if (ok) return true;
  }
  std::memset(f, 0, words.size() * 8);
  return false;
}

}  // namespace

XorBuildResult build_xor_filter(std::vector<uint64_t>& hashes, const XorBuildOptions& options) {
  if (options.max_attempts == 0)
    throw Error(ErrorCode::kInvalidArgument, "construction needs at least one attempt");
  XorBuildResult r;
  const uint64_t input = hashes.size();
  sort_unique(hashes);
  r.duplicates = input - hashes.size();
  r.distinct = hashes.size();
  XorParams p = xor_params_for(options.layout, options.fingerprint_bits, r.distinct);
  WordBuffer words(xor_payload_words(p));
  const bool small = p.slots <= UINT32_MAX;
  const bool ok = small ? try_seeds<uint32_t>(hashes, p, words, options.max_attempts, r.attempts)
                        : try_seeds<uint64_t>(hashes, p, words, options.max_attempts, r.attempts);
  if (!ok) {
    throw Error(ErrorCode::kLimitExceeded,
                fmt::format("{} filter construction failed after {} attempt{} ({} distinct keys)",
                            options.layout == XorLayout::kFuse ? "binary fuse" : "xor", r.attempts,
                            r.attempts == 1 ? "" : "s", r.distinct));
  }
  r.filter = std::make_unique<XorFilter>(p, std::move(words));
  return r;
}

}  // namespace bloomtool
