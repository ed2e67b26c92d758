// How a filter turns a key into what it tests: its key rule. Every filter owns one (filter.h).
//
//   xxh3-64 (hash id 1): hash_key(key, seed) (hash.h), then the kind's own use of the 64-bit hash
//     (a standard or blocked Bloom filter's positions, bloom_positions.h; an xor or binary fuse
//     filter's slots and fingerprint, xor_mapping.h).
//   The peers' rules (format 1.1 hash ids 2-4, standard Bloom only), bit for bit as the peers
//   compute them (docs/FORMAT.md, "Hash schemes (1.1)"):
//     Guava MURMUR128_MITZ_64 (BloomFilterStrategies.java): (h1, h2) = murmur3_x64_128(key, 0);
//       combined = h1; k times: position (combined & 2^63-1) % m, combined += h2.
//     Guava MURMUR128_MITZ_32: hash1 = low 32 bits of h1, hash2 = high 32 bits; for i = 1..k:
//       c = hash1 + i * hash2 (32-bit wrapping), c = ~c if negative, position c % m.
//     DCSO bloom v1 (bloom.go, Fingerprint): h = fnv1_64(key) % P; k times:
//       h = (h * G mod 2^64) % P, position h % m.
//
// Keys reach a filter normalised as its file's header says (normalise.h): normalisation belongs
// to the key pipeline, which normalises once for every filter that shares it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "base/fast_mod.h"
#include "filters/interop_hash.h"
#include "keys/hash.h"

namespace bloomtool {

struct KeyRule {
  uint32_t hash_id = kHashXxh3_64;
  uint64_t seed = 0;  // xxh3-64 only (the peers' rules take no seed)

  // True when the filter's answer depends on the key only through hash_key(key, seed): a caller
  // may then hash keys once (on its threads, for several filters of one seed) and query by hash.
  bool takes_key_hash() const noexcept { return hash_id == kHashXxh3_64; }
};

// fn(at, hashes) with the xxh3 hashes of keys [at, at + hashes.size()), a few hundred at a time
// (the xxh3 rule's key level: hash, then ask the hash level).
template <typename Fn>
void for_each_key_hash(std::span<const std::string_view> keys, uint64_t seed, Fn&& fn) {
  constexpr size_t kBatch = 256;
  uint64_t hashes[kBatch];
  for (size_t at = 0; at < keys.size(); at += kBatch) {
    const size_t n = std::min(kBatch, keys.size() - at);
    for (size_t i = 0; i < n; ++i) hashes[i] = hash_key(keys[at + i], seed);
    fn(at, std::span<const uint64_t>(hashes, n));
  }
}

inline constexpr uint32_t kMaxSchemeK = 255;  // hash ids 2-4: one unsigned byte, as in Guava

// DCSO's modulus P (the largest prime below 2^64) and multiplier G.
inline constexpr uint64_t kDcsoPrime = 18446744073709551557ull;
inline constexpr uint64_t kDcsoMultiplier = 18446744073709550147ull;

// True for hash ids 2-4.
bool is_key_scheme(uint32_t hash_id) noexcept;
// The bits a scheme's positions can fall on: the first min(m, 2^31) for guava-mitz32 (its
// positions come from a non-negative Java int), all m for every other rule.
inline constexpr uint64_t kGuavaMitz32ReachBits = uint64_t{1} << 31;
uint64_t scheme_reachable_bits(uint32_t hash_id, uint64_t m) noexcept;
// True when the rule is known to break the textbook model at this geometry: dcso-fnv1 with a
// power-of-two m (its position sequence then sees only the low bits of wrapped products and
// passes far more non-members than its fill implies).
bool scheme_breaks_model(uint32_t hash_id, uint64_t m) noexcept;
// Why m and k are not valid for the scheme ("" when they are): k 1..255; m 1..2^40, and for
// Guava a whole number of 64-bit words (the peer's bit size is 64 times its word count).
std::string scheme_geometry_problem(uint32_t hash_id, uint64_t m, uint64_t k);

// A peer's rule for a geometry: the k positions in [0, m) of a key. The one place the Guava and
// DCSO rules are written.
class PeerRule {
 public:
  // hash_id 2-4 and a geometry scheme_geometry_problem accepts.
  PeerRule(uint32_t hash_id, uint64_t m, uint32_t k) noexcept
      : hash_id_(hash_id), m_(m), k_(k), m_inverse_(fast_mod_inverse(m)) {}

  // fn(position) for each of the key's k positions, in the peer's order; fn returns false to
  // stop.
  template <typename Fn>
  void for_each_position(std::string_view key, Fn&& fn) const noexcept {
    if (hash_id_ == kHashDcsoFnv1) {
      walk(fnv1_64(key), 0, fn);
    } else {
      const Hash128 h = murmur3_x64_128(key, 0);
      walk(h.h1, h.h2, fn);
    }
  }
  // The k positions of a key; `out` must hold k() entries.
  void positions(std::string_view key, uint64_t* out) const noexcept;
  // The positions of every key, key after key (key i's at out[i * k()]): faster than
  // positions() key by key. The 32-bit form is for m <= 2^32 (half the memory traffic).
  void positions_batch(std::span<const std::string_view> keys, uint64_t* out) const noexcept;
  void positions_batch(std::span<const std::string_view> keys, uint32_t* out) const noexcept;

  uint32_t hash_id() const noexcept { return hash_id_; }
  uint64_t bits() const noexcept { return m_; }
  uint32_t k() const noexcept { return k_; }

 private:
  // DCSO's sequence: its start from fnv1_64(key) (h % P: h < 2P, so one conditional
  // subtraction) and its step (the product wraps modulo 2^64, as in Go, then % P).
  static uint64_t dcso_start(uint64_t h) noexcept { return h >= kDcsoPrime ? h - kDcsoPrime : h; }
  static uint64_t dcso_step(uint64_t h) noexcept { return dcso_start(h * kDcsoMultiplier); }
  // fn(position) for each position from the key's hash (a, b): Guava's murmur3 halves h1, h2, or
  // DCSO's fnv1_64 and 0.
  template <typename Fn>
  void walk(uint64_t a, uint64_t b, Fn&& fn) const noexcept {
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
          uint32_t c = hash1 + i * hash2;  // Java int arithmetic wraps the same way
          if (c & 0x80000000u) c = ~c;
          if (!fn(fast_mod(c, m_inverse_, m_))) return;
        }
        return;
      }
      default: {  // kHashDcsoFnv1; a = fnv1_64(key)
        uint64_t h = dcso_start(a);
        for (uint32_t i = 0; i < k_; ++i) {
          h = dcso_step(h);
          if (!fn(fast_mod(h, m_inverse_, m_))) return;
        }
        return;
      }
    }
  }
  template <typename Pos>
  void write_positions(std::span<const std::string_view> keys, Pos* out) const noexcept;

  uint32_t hash_id_;
  uint64_t m_;
  uint32_t k_;
  FastModInverse m_inverse_;  // x % m by multiplications (fast_mod.h)
};

}  // namespace bloomtool
