// Closed-form models of false-positive rate and size (standard and blocked Bloom, xor, binary
// fuse, and the n log2(1/p) lower bound). Every figure that `build`, `stats` and `size` print
// comes from here, so the tool reports one model per variant.
#pragma once

#include <cstdint>

namespace bloomtool::model {

// Standard Bloom: p = (1 - e^(-k n / m))^k.
double bloom_fpr(double m_bits, double n, double k);
// Optimal bits for n keys at rate p: m = -n ln p / (ln 2)^2 (not rounded).
double bloom_optimal_bits(double n, double p);
// Optimal hash count for m bits and n keys: round((m/n) ln 2), at least 1 and at most kMaxK.
uint32_t bloom_optimal_k(double m_bits, double n);
// Rate implied by the fill: (X/m)^k.
double bloom_fill_fpr(double set_bits, double m_bits, double k);
// Distinct keys implied by the fill: -(m/k) ln(1 - X/m). Infinity when every bit is set.
double bloom_fill_distinct(double set_bits, double m_bits, double k);

// Information-theoretic lower bound for any filter: n log2(1/p) bits.
double lower_bound_bits(double n, double p);

inline constexpr uint32_t kMaxK = 64;
inline constexpr uint64_t kMaxBits = uint64_t{1} << 40;  // 128 GiB of bits: the sane limit

}  // namespace bloomtool::model

namespace bloomtool::model {

inline constexpr uint64_t kBlockBits = 512;

// Blocked Bloom with B = 512-bit blocks: p = sum_i Poisson(i; nB/m) (1 - (1 - 1/B)^(ik))^k.
double blocked_fpr(double m_bits, double n, double k);

struct BloomSize {
  uint64_t m_bits;
  uint32_t k;
};
// The smallest standard filter sizing produces for k hashes. Below it a key's k positions (double
// hashing) coincide so often that the rate of a few keys departs from the model; files smaller
// than this still read, and `stats` reports their exact rate and flags them.
uint64_t min_standard_bits(uint32_t k) noexcept;
// Smallest standard filter for n keys at rate p: m from -n ln p / (ln 2)^2, k = optimal, then m
// raised to min_standard_bits(k) and, where the index scheme's coinciding positions push the
// rate above p (tiny p), grown until standard_scheme_fpr (index_model.h) meets p.
BloomSize standard_size(uint64_t n, double p);
// The same with a fixed k, starting from m = -kn / ln(1 - p^(1/k)).
uint64_t standard_bits_for_k(uint64_t n, double p, uint32_t k);
// Smallest m >= m_start (and >= min_standard_bits(k)) whose scheme rate for n keys is at most
// 1.001 times p, or the classic rate at m_start if that is higher (k is rounded); 0 when none is
// below 2^64 bits.
uint64_t standard_scheme_bits(uint64_t n, double p, uint32_t k, double m_start);
// Smallest blocked filter (m a multiple of 512) and its best k for n keys at rate p, by the
// blocked model. k_fixed != 0 restricts the search to that k.
BloomSize blocked_size(uint64_t n, double p, uint32_t k_fixed = 0);
// The hash count that minimises the blocked model's p for m bits and n keys.
uint32_t blocked_optimal_k(double m_bits, double n);

}  // namespace bloomtool::model

namespace bloomtool::model {

// Geometry of a 3-wise binary fuse filter for n keys (Graf & Lemire 2022, section 4).
struct FuseGeometry {
  uint64_t segment_length;  // a power of two
  uint64_t segment_count;
  uint64_t array_length;  // (segment_count + 2) * segment_length fingerprint slots
};
FuseGeometry fuse_geometry(uint64_t n);
// Fingerprint slots of a classic 3-wise xor filter for n keys: 3 * ceil((1.23 n + 32) / 3).
uint64_t xor_slots(uint64_t n);
// p of an f-bit xor or fuse filter: 2^-f.
double xor_fpr(uint32_t fingerprint_bits);

}  // namespace bloomtool::model

namespace bloomtool::model {

// Distinct keys implied by the fill of a blocked filter. With i ~ Poisson(nB/m) keys per block,
// the expected set fraction is 1 - exp((nB/m)(q - 1)), q = (1 - 1/B)^k, which inverts to
// n = -(m/B) ln(1 - X/m) / (1 - q). Infinity when every bit is set.
double blocked_fill_distinct(double set_bits, double m_bits, double k);

}  // namespace bloomtool::model
