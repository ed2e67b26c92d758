// Bloom filters: one bit array under a key rule (bloom.h).
//
// The xxh3 rule, standard layout: position i of a key is reduce64(a_i, m) with a_0 = h,
// b_0 = mix64(h) | 1 and the enhanced double-hashing steps a_{i+1} = a_i + b_i, b_{i+1} = b_i + i
// (Dillinger & Manolios 2004; Kirsch & Mitzenmacher 2006). Blocked: the key picks one 512-bit
// block with reduce64(h, blocks) and sets k bits inside it, each taken as 9 bits of a splitmix64
// stream seeded by h. Batched calls prefetch the bits of keys a few places ahead while working on
// the current one, so memory latencies overlap instead of adding up. A peer's rule (key_rule.h)
// gives the positions of a few hundred keys at a time, and the words are fetched ahead of their
// use the same way.
#include "filters/bloom.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <string>

#include "base/popcnt_clones.h"
#include "bloomtool/error.h"
#include "filters/bloom_positions.h"
#include "keys/hash.h"
#include "model/model.h"

namespace bloomtool {

namespace {

constexpr size_t kAhead = 8;          // standard: keys between a key's prefetch and its use
constexpr size_t kAheadBlocked = 32;  // blocked: one line per key, so look further ahead

inline void prefetch(const void* p) {
  __builtin_prefetch(p, 0, 3);
}
inline void prefetch_write(const void* p) noexcept {
  __builtin_prefetch(p, 1, 3);
}

// A peer's rule (key level): positions computed ahead of their use (16 KiB of them), positions
// between a prefetch and its store when adding, keys between a prefetch and the probe when
// querying.
constexpr size_t kChunkPositions = 2048;
constexpr size_t kAheadPositions = 64;
constexpr size_t kAheadKeys = 8;

// Positions of the keys kAhead places ahead, computed and prefetched before they are needed.
// take(j) returns key j's k positions and starts on key j + kAhead in the freed slot.
class PositionRing {
 public:
  PositionRing(std::span<const uint64_t> hashes, uint32_t k, uint64_t m, const uint64_t* words)
      : hashes_(hashes), k_(k), m_(m), words_(words) {
    for (size_t j = 0; j < std::min(kAhead, hashes.size()); ++j) fill(j);
  }
  const uint64_t* take(size_t j) noexcept {
    const size_t slot = j % kAhead;
    std::copy_n(ring_[slot], k_, current_);
    if (j + kAhead < hashes_.size()) fill(j + kAhead);
    return current_;
  }

 private:
  void fill(size_t j) noexcept {
    uint64_t* out = ring_[j % kAhead];
    uint32_t i = 0;
    for_each_standard_position(hashes_[j], k_, m_, [&](uint64_t pos) {
      out[i++] = pos;
      prefetch(&words_[pos >> 6]);
    });
  }
  std::span<const uint64_t> hashes_;
  uint32_t k_;
  uint64_t m_;
  const uint64_t* words_;
  uint64_t ring_[kAhead][model::kMaxK];
  uint64_t current_[model::kMaxK];
};

}  // namespace

const char* bloom_variant_name(BloomVariant v) noexcept {
  return v == BloomVariant::kBlocked512 ? "blocked" : "standard";
}

BloomVariant parse_bloom_variant(const char* name) {
  const std::string s(name);
  if (s == "standard") return BloomVariant::kStandard;
  if (s == "blocked") return BloomVariant::kBlocked512;
  throw Error(ErrorCode::kInvalidArgument,
              "unknown variant '" + s + "' (expected standard or blocked)");
}

BloomModel bloom_model(uint32_t hash_id, BloomVariant variant) noexcept {
  if (is_key_scheme(hash_id)) return BloomModel::kTextbook;
  return variant == BloomVariant::kBlocked512 ? BloomModel::kBlocked : BloomModel::kIndexScheme;
}

uint64_t BloomFilter::effective_bits(uint64_t m_bits, BloomVariant variant) noexcept {
  if (variant == BloomVariant::kBlocked512)
    return (m_bits + kBlockBits - 1) / kBlockBits * kBlockBits;
  return m_bits;
}

static void check_params(uint64_t m_bits, uint32_t k) {
  if (m_bits == 0 || m_bits > model::kMaxBits) {
    throw Error(ErrorCode::kInvalidArgument,
                "filter size " + std::to_string(m_bits) + " bits is out of range (1 to 2^40)");
  }
  if (k == 0 || k > model::kMaxK) {
    throw Error(ErrorCode::kInvalidArgument,
                "hash count k=" + std::to_string(k) + " is out of range (1 to 64)");
  }
}

BloomFilter::BloomFilter(uint64_t m_bits, uint32_t k, BloomVariant variant)
    : m_(effective_bits(m_bits, variant)), k_(k), variant_(variant) {
  check_params(m_bits, k);
  words_ = WordBuffer(word_count(m_));
}

BloomFilter::BloomFilter(uint64_t m_bits, uint32_t k, BloomVariant variant, WordBuffer words)
    : m_(m_bits), k_(k), variant_(variant), words_(std::move(words)) {
  check_params(m_bits, k);
  if (effective_bits(m_bits, variant) != m_bits || words_.size() != word_count(m_bits)) {
    throw Error(ErrorCode::kCorrupt, "bit array size does not match m=" + std::to_string(m_bits));
  }
}

BloomFilter::BloomFilter(const KeyRule& rule, uint64_t m_bits, uint32_t k, BloomVariant variant,
                         WordBuffer words)
    : Filter(rule), m_(m_bits), k_(k), variant_(variant), words_(std::move(words)) {
  if (rule.takes_key_hash()) {
    check_params(m_bits, k);
    if (words_.size() == 0) {
      m_ = effective_bits(m_bits, variant);
      words_ = WordBuffer(word_count(m_));
    } else if (effective_bits(m_bits, variant) != m_bits || words_.size() != word_count(m_bits)) {
      throw Error(ErrorCode::kCorrupt, "bit array size does not match m=" + std::to_string(m_bits));
    }
    return;
  }
  std::string why = scheme_geometry_problem(rule.hash_id, m_bits, k);
  if (why.empty() && variant != BloomVariant::kStandard)
    why = std::string(hash_scheme_name(rule.hash_id)) + " takes the standard layout only";
  if (!why.empty()) throw Error(ErrorCode::kInvalidArgument, "Bloom filter: " + why);
  const uint64_t want = word_count(m_);
  if (words_.size() == 0) {
    check_memory_available(want * 8, "a filter");
    words_ = WordBuffer(static_cast<size_t>(want));
  } else if (words_.size() != want) {
    throw Error(ErrorCode::kInvalidArgument, "Bloom filter: word count does not match m");
  }
  peer_.emplace(rule.hash_id, m_, k_);
}

void BloomFilter::add(uint64_t h) noexcept {
  add_batch({&h, 1});
}

bool BloomFilter::contains_hash(uint64_t h) const noexcept {
  uint8_t out;
  contains_batch({&h, 1}, &out);
  return out != 0;
}

// Sets the bits of mask in *word; the atomic form skips the locked instruction when they are set.
template <bool kAtomic>
inline void set_bits(uint64_t* word, uint64_t mask) noexcept {
  if constexpr (kAtomic) {
    if ((__atomic_load_n(word, __ATOMIC_RELAXED) & mask) != mask) {
      __atomic_fetch_or(word, mask, __ATOMIC_RELAXED);
    }
  } else {
    *word |= mask;
  }
}

// The k bits of a key inside its 512-bit block, as eight word masks.
inline void block_masks(uint64_t h, uint32_t k, uint64_t (&mask)[8]) noexcept {
  for (auto& x : mask) x = 0;
  for_each_block_bit(h, k, [&](uint32_t bit) { mask[bit >> 6] |= uint64_t{1} << (bit & 63); });
}

template <bool kAtomic>
void BloomFilter::add_impl(std::span<const uint64_t> hashes) noexcept {
  uint64_t* w = words_.data();
  const uint64_t m = m_;
  const uint32_t k = k_;
  const size_t n = hashes.size();
  if (variant_ == BloomVariant::kStandard) {
    PositionRing ring(hashes, k, m, w);
    for (size_t j = 0; j < n; ++j) {
      const uint64_t* pos = ring.take(j);
      for (uint32_t i = 0; i < k; ++i) {
        set_bits<kAtomic>(&w[pos[i] >> 6], uint64_t{1} << (pos[i] & 63));
      }
    }
  } else {
    const uint64_t blocks = m / kBlockBits;
    for (size_t j = 0; j < n; ++j) {
      if (j + kAheadBlocked < n) prefetch(w + reduce64(hashes[j + kAheadBlocked], blocks) * 8);
      uint64_t* b = w + reduce64(hashes[j], blocks) * 8;
      if constexpr (!kAtomic) {
        // Each bit straight into its word: a mask built on the stack and or-ed in 16 bytes at a
        // time stalled on store forwarding (half the single-thread blocked build's samples).
        for_each_block_bit(hashes[j], k,
                           [&](uint32_t bit) { b[bit >> 6] |= uint64_t{1} << (bit & 63); });
      } else {
        uint64_t mask[8];
        block_masks(hashes[j], k, mask);
        // Only words missing some of the key's bits take a locked or; collecting them first
        // leaves one unpredictable branch per key (the loop's end) instead of one per word.
        uint32_t todo = 0;
        for (int q = 0; q < 8; ++q) {
          const uint64_t missing = mask[q] & ~__atomic_load_n(&b[q], __ATOMIC_RELAXED);
          todo |= static_cast<uint32_t>(missing != 0) << q;
        }
        for (; todo != 0; todo &= todo - 1) {
          const int q = std::countr_zero(todo);
          __atomic_fetch_or(&b[q], mask[q], __ATOMIC_RELAXED);
        }
      }
    }
  }
}

void BloomFilter::add_batch(std::span<const uint64_t> hashes) noexcept {
  add_impl<false>(hashes);
}

void BloomFilter::add_batch_concurrent(std::span<const uint64_t> hashes) noexcept {
  add_impl<true>(hashes);
}

void BloomFilter::contains_batch(std::span<const uint64_t> hashes, uint8_t* out) const noexcept {
  if (peer_) {  // a peer's rule has no 64-bit key hash: "maybe" (filter.h)
    std::fill_n(out, hashes.size(), uint8_t{1});
    return;
  }
  const uint64_t* w = words_.data();
  const uint64_t m = m_;
  const uint32_t k = k_;
  const size_t n = hashes.size();
  if (variant_ == BloomVariant::kStandard) {
    PositionRing ring(hashes, k, m, w);
    for (size_t j = 0; j < n; ++j) {
      // Most non-members fail on the first or second probe: stop at the first clear bit.
      const uint64_t* pos = ring.take(j);
      uint8_t all = 1;
      for (uint32_t i = 0; i < k; ++i) {
        if (((w[pos[i] >> 6] >> (pos[i] & 63)) & 1) == 0) {
          all = 0;
          break;
        }
      }
      out[j] = all;
    }
  } else {
    const uint64_t blocks = m / kBlockBits;
    for (size_t j = 0; j < n; ++j) {
      if (j + kAheadBlocked < n) prefetch(w + reduce64(hashes[j + kAheadBlocked], blocks) * 8);
      uint64_t mask[8];
      block_masks(hashes[j], k, mask);
      const uint64_t* b = w + reduce64(hashes[j], blocks) * 8;
      uint64_t missing = 0;
      for (int q = 0; q < 8; ++q) missing |= mask[q] & ~b[q];
      out[j] = missing == 0 ? 1 : 0;
    }
  }
}

void BloomFilter::visit_probed_words(std::span<const uint64_t> hashes, WordVisitor visit,
                                     void* ctx) const noexcept {
  if (peer_) {  // hashes cannot name the words a key's probes read: every word
    for (uint64_t w = 0; w < words_.size(); ++w) visit(ctx, w);
    return;
  }
  if (variant_ == BloomVariant::kStandard) {
    for (const uint64_t h : hashes)
      for_each_standard_position(h, k_, m_, [&](uint64_t pos) { visit(ctx, pos >> 6); });
  } else {
    const uint64_t blocks = m_ / kBlockBits;
    for (const uint64_t h : hashes) {
      const uint64_t first = reduce64(h, blocks) * 8;
      visit(ctx, first);
      visit(ctx, first + 7);
    }
  }
}

uint64_t BloomFilter::set_bit_count() const noexcept {
  return count_set_bits(words_.data(), words_.size());
}

uint64_t BloomFilter::reachable_bits() const noexcept {
  return peer_ ? scheme_reachable_bits(peer_->hash_id(), m_) : m_;
}

// The key level. The xxh3 rule hashes with the seed and goes the hash level's way; a peer's rule
// computes a few hundred keys' positions at a time (PeerRule::positions_batch) and fetches the
// words a few keys ahead of their use.

void BloomFilter::positions(std::string_view key, uint64_t* out) const noexcept {
  if (peer_) return peer_->positions(key, out);
  const uint64_t h = hash_key(key, rule().seed);
  uint32_t i = 0;
  if (variant_ == BloomVariant::kStandard) {
    for_each_standard_position(h, k_, m_, [&](uint64_t pos) { out[i++] = pos; });
  } else {
    const uint64_t first = reduce64(h, m_ / kBlockBits) * kBlockBits;
    for_each_block_bit(h, k_, [&](uint32_t bit) { out[i++] = first + bit; });
  }
}

void BloomFilter::positions_batch(std::span<const std::string_view> keys,
                                  uint64_t* out) const noexcept {
  if (peer_) return peer_->positions_batch(keys, out);
  for (size_t j = 0; j < keys.size(); ++j) positions(keys[j], out + j * k_);
}

void BloomFilter::positions_batch(std::span<const std::string_view> keys,
                                  uint32_t* out) const noexcept {
  if (peer_) return peer_->positions_batch(keys, out);
  uint64_t pos[model::kMaxK];
  for (size_t j = 0; j < keys.size(); ++j) {
    positions(keys[j], pos);
    for (uint32_t i = 0; i < k_; ++i) out[j * k_ + i] = static_cast<uint32_t>(pos[i]);
  }
}

template <typename Fn>
void BloomFilter::for_each_chunk(std::span<const std::string_view> keys, Fn&& fn) const noexcept {
  uint64_t pos[kChunkPositions];
  const size_t per = kChunkPositions / k_;  // at least 8: a peer's k is at most 255
  for (size_t at = 0; at < keys.size(); at += per) {
    const size_t n = std::min(per, keys.size() - at);
    peer_->positions_batch(keys.subspan(at, n), pos);
    fn(at, n, pos);
  }
}

void BloomFilter::add_key(std::string_view key) noexcept {
  if (!peer_) return add(hash_key(key, rule().seed));
  uint64_t* w = words_.data();
  peer_->for_each_position(key, [&](uint64_t pos) {
    w[pos >> 6] |= uint64_t{1} << (pos & 63);
    return true;
  });
}

bool BloomFilter::add_counting(std::string_view key) noexcept {
  uint64_t pos[kMaxSchemeK];
  positions(key, pos);
  return add_counting_positions(std::span<const uint64_t>(pos, k_)) != 0;
}

template <typename Pos>
uint64_t BloomFilter::add_counting_in_order(std::span<const Pos> positions) noexcept {
  uint64_t* w = words_.data();
  const Pos* pos = positions.data();
  const size_t count = positions.size() - positions.size() % k_;
  for (size_t t = 0; t < std::min(count, kAheadPositions); ++t) prefetch_write(&w[pos[t] >> 6]);
  uint64_t counted = 0;
  for (size_t at = 0; at < count; at += k_) {
    uint64_t fresh = 0;
    for (size_t t = at; t < at + k_; ++t) {
      if (t + kAheadPositions < count) prefetch_write(&w[pos[t + kAheadPositions] >> 6]);
      const uint64_t mask = uint64_t{1} << (pos[t] & 63);
      fresh |= ~w[pos[t] >> 6] & mask;
      w[pos[t] >> 6] |= mask;
    }
    counted += fresh != 0 ? 1 : 0;
  }
  return counted;
}

uint64_t BloomFilter::add_counting_positions(std::span<const uint64_t> positions) noexcept {
  return add_counting_in_order(positions);
}

uint64_t BloomFilter::add_counting_positions(std::span<const uint32_t> positions) noexcept {
  return add_counting_in_order(positions);
}

template <bool kAtomic>
void BloomFilter::add_peer_keys(std::span<const std::string_view> keys) noexcept {
  uint64_t* w = words_.data();
  for_each_chunk(keys, [&](size_t, size_t n, const uint64_t* pos) {
    const size_t count = n * k_;
    for (size_t t = 0; t < std::min(count, kAheadPositions); ++t) prefetch_write(&w[pos[t] >> 6]);
    for (size_t t = 0; t < count; ++t) {
      if (t + kAheadPositions < count) prefetch_write(&w[pos[t + kAheadPositions] >> 6]);
      set_bits<kAtomic>(&w[pos[t] >> 6], uint64_t{1} << (pos[t] & 63));
    }
  });
}

void BloomFilter::add_keys(std::span<const std::string_view> keys) noexcept {
  if (peer_) return add_peer_keys<false>(keys);
  for_each_key_hash(keys, rule().seed, [&](size_t, std::span<const uint64_t> h) { add_batch(h); });
}

void BloomFilter::add_keys_concurrent(std::span<const std::string_view> keys) noexcept {
  if (peer_) return add_peer_keys<true>(keys);
  for_each_key_hash(keys, rule().seed,
                    [&](size_t, std::span<const uint64_t> h) { add_batch_concurrent(h); });
}

bool BloomFilter::contains(std::string_view key) const noexcept {
  if (!peer_) return contains_hash(hash_key(key, rule().seed));
  const uint64_t* w = words_.data();
  bool all = true;
  peer_->for_each_position(key, [&](uint64_t pos) {
    all = ((w[pos >> 6] >> (pos & 63)) & 1) != 0;
    return all;
  });
  return all;
}

void BloomFilter::contains_keys(std::span<const std::string_view> keys,
                                uint8_t* out) const noexcept {
  if (!peer_) return Filter::contains_keys(keys, out);
  const uint64_t* w = words_.data();
  const size_t k = k_;
  for_each_chunk(keys, [&](size_t at, size_t n, const uint64_t* pos) {
    const auto fetch = [&](size_t j) {
      for (size_t i = 0; i < k; ++i) prefetch(&w[pos[j * k + i] >> 6]);
    };
    for (size_t j = 0; j < std::min(n, kAheadKeys); ++j) fetch(j);
    for (size_t j = 0; j < n; ++j) {
      if (j + kAheadKeys < n) fetch(j + kAheadKeys);
      // Most non-members fail on the first or second probe: stop at the first clear bit.
      const uint64_t* p = pos + j * k;
      uint8_t all = 1;
      for (size_t i = 0; i < k; ++i) {
        if (((w[p[i] >> 6] >> (p[i] & 63)) & 1) == 0) {
          all = 0;
          break;
        }
      }
      out[at + j] = all;
    }
  });
}

void BloomFilter::visit_key_words(std::span<const std::string_view> keys, WordVisitor visit,
                                  void* ctx) const noexcept {
  if (!peer_) return Filter::visit_key_words(keys, visit, ctx);
  uint64_t pos[kMaxSchemeK];
  for (const std::string_view key : keys) {
    peer_->positions(key, pos);
    for (uint32_t i = 0; i < k_; ++i) visit(ctx, pos[i] >> 6);
  }
}

}  // namespace bloomtool
