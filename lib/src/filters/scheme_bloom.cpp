// The peers' key-to-position rules (docs/FORMAT.md, "Hash schemes (1.1)"):
//
//   Guava MURMUR128_MITZ_64 (BloomFilterStrategies.java): (h1, h2) = murmur3_x64_128(key, 0);
//     combined = h1; k times: position (combined & 2^63-1) % m, combined += h2.
//   Guava MURMUR128_MITZ_32: hash1 = low 32 bits of h1, hash2 = high 32 bits; for i = 1..k:
//     c = hash1 + i * hash2 (32-bit wrapping), c = ~c if negative, position c % m.
//   DCSO bloom v1 (bloom.go, Fingerprint): h = fnv1_64(key) % P; k times: h = (h * G mod 2^64)
//     % P, position h % m.
//
// Remainders by m use the multiply-only remainder of fast_mod.h. Batched calls compute a few
// hundred keys' positions at a time and fetch the filter words a few keys ahead of their use.
#include "filters/scheme_bloom.h"

#include <algorithm>
#include <bit>

#include "interop/dcso_bloom.h"
#include "bloomtool/error.h"
#include "keys/hash.h"
#include "filters/interop_hash.h"
#include "model/model.h"
#include "base/fast_mod.h"
#include "base/popcnt_clones.h"

namespace bloomtool {

namespace {

// x % P for P = 2^64 - 59: x < 2P, so one conditional subtraction.
inline uint64_t mod_dcso_prime(uint64_t x) noexcept {
  return x >= dcso::kPrime ? x - dcso::kPrime : x;
}

constexpr size_t kChunkPositions = 2048;  // positions computed ahead of their use (16 KiB)
constexpr size_t kAheadPositions = 64;    // adding: positions between a prefetch and its store
constexpr size_t kAheadKeys = 8;          // querying: keys between a prefetch and the probe

inline void prefetch_read(const void* p) noexcept {
  __builtin_prefetch(p, 0, 3);
}
inline void prefetch_write(const void* p) noexcept {
  __builtin_prefetch(p, 1, 3);
}

}  // namespace

bool is_key_scheme(uint32_t hash_id) noexcept {
  return hash_id == kHashGuavaMitz64 || hash_id == kHashGuavaMitz32 || hash_id == kHashDcsoFnv1;
}

uint64_t scheme_reachable_bits(uint32_t hash_id, uint64_t m) noexcept {
  return hash_id == kHashGuavaMitz32 ? std::min(m, kGuavaMitz32ReachBits) : m;
}

bool scheme_breaks_model(uint32_t hash_id, uint64_t m) noexcept {
  return hash_id == kHashDcsoFnv1 && dcso::m_degrades_sequence(m);
}

std::string scheme_geometry_problem(uint32_t hash_id, uint64_t m, uint64_t k) {
  if (!is_key_scheme(hash_id)) return "hash id " + std::to_string(hash_id) + " is not a key scheme";
  if (k == 0 || k > kMaxSchemeK) return "k=" + std::to_string(k) + " is out of range (1 to 255)";
  if (m == 0 || m > model::kMaxBits) {
    return "m=" + std::to_string(m) + " is out of range (1 bit to 2^40 bits)";
  }
  if (hash_id != kHashDcsoFnv1 && m % 64 != 0) {
    return "m=" + std::to_string(m) + " is not a whole number of 64-bit words (Guava)";
  }
  return "";
}

SchemeBloom::SchemeBloom(uint32_t hash_id, uint64_t m_bits, uint32_t k)
    : SchemeBloom(hash_id, m_bits, k, WordBuffer()) {}

SchemeBloom::SchemeBloom(uint32_t hash_id, uint64_t m_bits, uint32_t k, WordBuffer words)
    : hash_id_(hash_id), m_(m_bits), k_(k), m_inverse_(0), words_(std::move(words)) {
  const std::string why = scheme_geometry_problem(hash_id, m_bits, k);
  if (!why.empty()) throw Error(ErrorCode::kInvalidArgument, "Bloom filter: " + why);
  m_inverse_ = fast_mod_inverse(m_);
  const uint64_t want = (m_ + 63) / 64;
  if (words_.size() == 0) {
    check_memory_available(want * 8, "a filter");
    words_ = WordBuffer(static_cast<size_t>(want));
  } else if (words_.size() != want) {
    throw Error(ErrorCode::kInvalidArgument, "Bloom filter: word count does not match m");
  }
}

template <typename Fn>
void SchemeBloom::walk(uint64_t a, uint64_t b, Fn&& fn) const noexcept {
  switch (hash_id_) {
    case kHashGuavaMitz64: {
      uint64_t combined = a;
      for (uint32_t i = 0; i < k_; ++i) {
        if (!fn(fast_mod(combined & 0x7fffffffffffffffull, m_inverse_, m_))) return;
        combined += b;
      }
      return;
    }
    case kHashGuavaMitz32: {
      const auto hash1 = static_cast<uint32_t>(a);
      const auto hash2 = static_cast<uint32_t>(a >> 32);
      for (uint32_t i = 1; i <= k_; ++i) {
        uint32_t c = hash1 + i * hash2;
        if (c & 0x80000000u) c = ~c;
        if (!fn(fast_mod(c, m_inverse_, m_))) return;
      }
      return;
    }
    default: {  // kHashDcsoFnv1 (the constructor admits nothing else); a = fnv1_64(key)
      uint64_t h = mod_dcso_prime(a);
      for (uint32_t i = 0; i < k_; ++i) {
        h = mod_dcso_prime(h * dcso::kMultiplier);  // the product wraps modulo 2^64, as in Go
        if (!fn(fast_mod(h, m_inverse_, m_))) return;
      }
      return;
    }
  }
}

template <typename Fn>
void SchemeBloom::for_each_position(std::string_view key, Fn&& fn) const noexcept {
  if (hash_id_ == kHashDcsoFnv1) {
    walk(fnv1_64(key), 0, fn);
  } else {
    const Hash128 h = murmur3_x64_128(key, 0);
    walk(h.h1, h.h2, fn);
  }
}

void SchemeBloom::positions(std::string_view key, uint64_t* out) const noexcept {
  size_t i = 0;
  for_each_position(key, [&](uint64_t pos) {
    out[i++] = pos;
    return true;
  });
}

template <typename Pos>
void SchemeBloom::write_positions(std::span<const std::string_view> keys, Pos* out) const noexcept {
  const auto write = [&](uint64_t a, uint64_t b) {
    walk(a, b, [&](uint64_t pos) {
      *out++ = static_cast<Pos>(pos);
      return true;
    });
  };
  if (hash_id_ == kHashDcsoFnv1) {
    uint64_t h[kFnvLanes];
    const size_t k = k_;
    for (size_t at = 0; at < keys.size(); at += kFnvLanes) {
      const size_t n = std::min(kFnvLanes, keys.size() - at);
      fnv1_64_batch(keys.subspan(at, n), h);
      if (n < kFnvLanes) {
        for (size_t l = 0; l < n; ++l) write(h[l], 0);
        continue;
      }
      // walk()'s DCSO sequence for kFnvLanes keys at once: each step's multiplication waits on
      // the one before, so a key alone leaves the multiplier idle most of the time.
#pragma GCC unroll 8
      for (size_t l = 0; l < kFnvLanes; ++l) h[l] = mod_dcso_prime(h[l]);
      for (size_t i = 0; i < k; ++i) {
#pragma GCC unroll 8
        for (size_t l = 0; l < kFnvLanes; ++l) {
          h[l] = mod_dcso_prime(h[l] * dcso::kMultiplier);
          out[l * k + i] = static_cast<Pos>(fast_mod(h[l], m_inverse_, m_));
        }
      }
      out += kFnvLanes * k;
    }
  } else {
    for (std::string_view key : keys) {
      const Hash128 h = murmur3_x64_128(key, 0);
      write(h.h1, h.h2);
    }
  }
}

void SchemeBloom::positions_batch(std::span<const std::string_view> keys,
                                  uint64_t* out) const noexcept {
  write_positions(keys, out);
}

void SchemeBloom::positions_batch(std::span<const std::string_view> keys,
                                  uint32_t* out) const noexcept {
  write_positions(keys, out);
}

template <typename Fn>
void SchemeBloom::for_each_chunk(std::span<const std::string_view> keys, Fn&& fn) const noexcept {
  uint64_t pos[kChunkPositions];
  const size_t per = kChunkPositions / k_;  // at least 8: k is at most 255
  for (size_t at = 0; at < keys.size(); at += per) {
    const size_t n = std::min(per, keys.size() - at);
    positions_batch(keys.subspan(at, n), pos);
    fn(at, n, pos);
  }
}

void SchemeBloom::add(std::string_view key) noexcept {
  uint64_t* w = words_.data();
  for_each_position(key, [&](uint64_t pos) {
    w[pos >> 6] |= uint64_t{1} << (pos & 63);
    return true;
  });
}

bool SchemeBloom::add_counting(std::string_view key) noexcept {
  uint64_t pos[kMaxSchemeK];
  positions(key, pos);
  return add_counting_positions(std::span<const uint64_t>(pos, k_)) != 0;
}

template <typename Pos>
uint64_t SchemeBloom::add_counting_in_order(std::span<const Pos> positions) noexcept {
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

uint64_t SchemeBloom::add_counting_positions(std::span<const uint64_t> positions) noexcept {
  return add_counting_in_order(positions);
}

uint64_t SchemeBloom::add_counting_positions(std::span<const uint32_t> positions) noexcept {
  return add_counting_in_order(positions);
}

template <bool kAtomic>
void SchemeBloom::add_keys(std::span<const std::string_view> keys) noexcept {
  uint64_t* w = words_.data();
  for_each_chunk(keys, [&](size_t, size_t n, const uint64_t* pos) {
    const size_t count = n * k_;
    for (size_t t = 0; t < std::min(count, kAheadPositions); ++t) prefetch_write(&w[pos[t] >> 6]);
    for (size_t t = 0; t < count; ++t) {
      if (t + kAheadPositions < count) prefetch_write(&w[pos[t + kAheadPositions] >> 6]);
      uint64_t* word = &w[pos[t] >> 6];
      const uint64_t mask = uint64_t{1} << (pos[t] & 63);
      if constexpr (kAtomic) {
        // The locked instruction only where the bit is still clear.
        if ((__atomic_load_n(word, __ATOMIC_RELAXED) & mask) == 0)
          __atomic_fetch_or(word, mask, __ATOMIC_RELAXED);
      } else {
        *word |= mask;
      }
    }
  });
}

void SchemeBloom::add_batch(std::span<const std::string_view> keys) noexcept {
  add_keys<false>(keys);
}

void SchemeBloom::add_concurrent(std::span<const std::string_view> keys) noexcept {
  add_keys<true>(keys);
}

bool SchemeBloom::contains(std::string_view key) const noexcept {
  const uint64_t* w = words_.data();
  bool all = true;
  for_each_position(key, [&](uint64_t pos) {
    all = ((w[pos >> 6] >> (pos & 63)) & 1) != 0;
    return all;
  });
  return all;
}

void SchemeBloom::contains_keys(std::span<const std::string_view> keys,
                                uint8_t* out) const noexcept {
  const uint64_t* w = words_.data();
  const size_t k = k_;
  for_each_chunk(keys, [&](size_t at, size_t n, const uint64_t* pos) {
    const auto fetch = [&](size_t j) {
      for (size_t i = 0; i < k; ++i) prefetch_read(&w[pos[j * k + i] >> 6]);
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

bool SchemeBloom::contains_hash(uint64_t) const noexcept {
  return true;
}

void SchemeBloom::visit_probed_words(std::span<const uint64_t>, WordVisitor visit,
                                     void* ctx) const noexcept {
  for (uint64_t w = 0; w < words_.size(); ++w) visit(ctx, w);
}

uint64_t SchemeBloom::set_bit_count() const noexcept {
  return count_set_bits(words_.data(), words_.size());
}

}  // namespace bloomtool
