// The geometry and rate model of Ribbon filters (filters/ribbon.h): the rows, column counts and
// payload words for n keys at rate p, and the rate a geometry gives. Here rather than beside the
// filter so that `size` (size_calc.h) answers from the same figures `build-static` builds with.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace bloomtool {

inline constexpr uint32_t kRibbonBlockRows = 64;   // rows per solution block (one word a column)
inline constexpr uint32_t kRibbonWidth = 128;      // coefficient bits of a key
inline constexpr uint32_t kRibbonMaxColumns = 31;  // r + 1 at p = 2^-30
inline constexpr double kRibbonMinRate = 0x1p-30;  // the rates a Ribbon filter is built for
inline constexpr double kRibbonMaxRate = 0.5;

// Everything a query needs besides the solution.
struct RibbonParams {
  uint64_t slots = 0;         // m: solution rows, a multiple of 64, at least 192; 0: the empty set
  uint32_t columns = 1;       // r (the file's k): columns of a lower block, 1 to 30
  uint64_t upper_blocks = 0;  // blocks [0, upper_blocks) hold r + 1 columns
  uint64_t seed = 0;          // hashing seed settled on by construction

  uint64_t blocks() const noexcept { return slots / kRibbonBlockRows; }
  // Starts a key may have: [0, slots - 127] (none for the empty set).
  uint64_t starts() const noexcept { return slots == 0 ? 0 : slots - kRibbonWidth + 1; }
  // Solution bits: 64 * ribbon_payload_words.
  uint64_t solution_bits() const noexcept;
  // The file header's kind_params (docs/FORMAT.md): upper_blocks, seed.
  std::vector<uint64_t> kind_params() const;
};

// The columns, upper blocks and rows for n distinct keys at rate p (seed 0): the smallest
// solution whose modelled rate (ribbon_model_rate) is at most p. Throws kInvalidArgument when p is
// outside [2^-30, 1/2] or the solution would exceed 2^40 bits.
RibbonParams ribbon_params_for(uint64_t n, double p);
// The same without the 2^40-bit limit (for the size calculator), for n up to 2^59.
RibbonParams ribbon_geometry(uint64_t n, double p);

// The false-positive rate of a key that is not in the set: the mean over the starts of
// 2^-(columns the start's block is checked in).
double ribbon_model_rate(const RibbonParams& p) noexcept;

// Reads parameters back from a header's fields (k, m, kind_params); returns an empty string when
// they are consistent, else the reason they are not (for a "corrupt" message).
std::string ribbon_params_from_file(uint32_t columns, uint64_t m,
                                    const std::vector<uint64_t>& kind_params, RibbonParams& out);

// 64-bit payload words that hold the solution: r a block, one more in each block that stores
// column r (the upper blocks and the two after them); the empty set has one zero word.
uint64_t ribbon_payload_words(const RibbonParams& p) noexcept;

namespace detail {

// Blocks that store column r: the upper blocks and the two after them, which the 128 rows of a
// key starting in the last upper block reach into.
inline uint64_t ribbon_stored_upper(const RibbonParams& p) noexcept {
  const uint64_t blocks = p.slots / kRibbonBlockRows;
  return p.upper_blocks == 0 ? 0 : (p.upper_blocks + 2 < blocks ? p.upper_blocks + 2 : blocks);
}

}  // namespace detail

}  // namespace bloomtool
