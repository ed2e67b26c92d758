// The key rules (key_rule.h). Remainders by m use the multiply-only remainder of fast_mod.h; the
// batched DCSO positions step several keys' sequences together.
#include "filters/key_rule.h"

#include <bit>

#include "model/model.h"

namespace bloomtool {

bool is_key_scheme(uint32_t hash_id) noexcept {
  return hash_id == kHashGuavaMitz64 || hash_id == kHashGuavaMitz32 || hash_id == kHashDcsoFnv1;
}

uint64_t scheme_reachable_bits(uint32_t hash_id, uint64_t m) noexcept {
  return hash_id == kHashGuavaMitz32 ? std::min(m, kGuavaMitz32ReachBits) : m;
}

bool scheme_breaks_model(uint32_t hash_id, uint64_t m) noexcept {
  return hash_id == kHashDcsoFnv1 && std::has_single_bit(m);
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

void PeerRule::positions(std::string_view key, uint64_t* out) const noexcept {
  size_t i = 0;
  for_each_position(key, [&](uint64_t pos) {
    out[i++] = pos;
    return true;
  });
}

template <typename Pos>
void PeerRule::write_positions(std::span<const std::string_view> keys, Pos* out) const noexcept {
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
      for (size_t l = 0; l < kFnvLanes; ++l) h[l] = dcso_start(h[l]);
      for (size_t i = 0; i < k; ++i) {
#pragma GCC unroll 8
        for (size_t l = 0; l < kFnvLanes; ++l) {
          h[l] = dcso_step(h[l]);
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

void PeerRule::positions_batch(std::span<const std::string_view> keys,
                               uint64_t* out) const noexcept {
  write_positions(keys, out);
}

void PeerRule::positions_batch(std::span<const std::string_view> keys,
                               uint32_t* out) const noexcept {
  write_positions(keys, out);
}

}  // namespace bloomtool
