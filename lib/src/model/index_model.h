// The standard Bloom layout's false-positive rate under its real index scheme. A key's k
// positions come from two hash values by double hashing, floor(u + i s) mod m, so they are not
// independent: when s lies near a fraction j m / d (d < k) several of them coincide or form a
// run, and the key touches fewer than k distinct bits. For small m, or small p, that changes the
// rate from (fill)^k; these functions integrate over the scheme exactly instead of assuming
// independent positions.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace bloomtool::model {

// P(D = d) for d = 0..k, D the number of distinct bits among a key's k positions in an m-bit
// standard filter, exact for the index scheme (uniform 64-bit hashes assumed).
std::vector<double> standard_distinct_distribution(uint64_t m_bits, uint32_t k);

// The rate for n keys: sum_d P(D = d) q^d, q = 1 - exp(-n E[D] / m) the expected fill. Equals the
// classic (1 - e^(-kn/m))^k when positions never coincide.
double standard_scheme_fpr(uint64_t m_bits, double n, uint32_t k);

// The rate implied by X set bits spread at random: sum_d P(D = d) prod_{j<d} (X - j)/(m - j).
double standard_scheme_fill_fpr(uint64_t m_bits, uint32_t k, uint64_t set_bits);

// The exact probability that a uniformly random hash passes the filter whose bits are `words`,
// integrated over the index scheme (no assumption about how the set bits are spread). Its cost
// grows as m^2 k^3, so it is meant for small filters: exact_fill_affordable says when.
double standard_exact_fill_fpr(std::span<const uint64_t> words, uint64_t m_bits, uint32_t k);
bool exact_fill_affordable(uint64_t m_bits, uint32_t k) noexcept;

// Mean and standard deviation of the number of set bits after n distinct keys.
struct FillSpread {
  double mean = 0;
  double sd = 0;
};
FillSpread standard_fill_spread(uint64_t m_bits, double n, uint32_t k);
FillSpread blocked_fill_spread(uint64_t m_bits, double n, uint32_t k);

}  // namespace bloomtool::model
