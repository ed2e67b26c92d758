// The geometry and rate model of Ribbon filters (filters/ribbon.h): the rows, column counts and
// payload words for n keys at rate p, and the rate a geometry gives. Here rather than beside the
// filter so that `size` (size_calc.h) answers from the same figures `build-static` builds with.
//
// A filter is one or more layers (docs/FORMAT.md, "Ribbon"). Variant 0 (standard Ribbon) has one
// layer. Variant 1 (bumped Ribbon, after Walzer, Dillinger et al.'s BuRR) has up to 8: every
// layer but the last is overloaded and stores, for each block of 64 starts, a 2-bit code saying
// which keys starting there it leaves ("bumps") to the next layer; the last layer is a standard
// Ribbon with room to spare.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace bloomtool {

inline constexpr uint32_t kRibbonBlockRows = 64;   // rows per solution block (one word a column)
inline constexpr uint32_t kRibbonWidth = 128;      // coefficient bits of a key
inline constexpr uint32_t kRibbonMaxColumns = 31;  // r + 1 at p = 2^-30
inline constexpr double kRibbonMinRate = 0x1p-30;  // the rates a Ribbon filter is built for
inline constexpr double kRibbonMaxRate = 0.5;
inline constexpr uint32_t kRibbonMaxLayers = 8;  // layers of a bumped Ribbon filter
// A bumping layer's 2-bit code c for a block: keys whose start lies in the block at an offset
// (start mod 64) of kRibbonKeepBelow[c] or more go to the next layer.
inline constexpr std::array<uint32_t, 4> kRibbonKeepBelow = {64, 40, 24, 0};

// Whether code c bumps the key at offset o of its block.
inline bool ribbon_code_bumps(unsigned c, uint64_t o) noexcept {
  return o >= kRibbonKeepBelow[c & 3];
}
// Starts code c bumps in a block of `starts` starts.
inline uint64_t ribbon_code_bumped(unsigned c, uint64_t starts) noexcept {
  return starts > kRibbonKeepBelow[c & 3] ? starts - kRibbonKeepBelow[c & 3] : 0;
}

// One layer: everything a query of it needs besides its words.
struct RibbonLayer {
  uint64_t slots = 0;         // m: solution rows, a multiple of 64, at least 192; 0: no key
  uint32_t columns = 1;       // r: columns of a lower block, 1 to 30
  uint64_t upper_blocks = 0;  // blocks [0, upper_blocks) hold r + 1 columns
  uint64_t seed = 0;          // the layer's hashing seed, settled on by construction
  bool bumping = false;       // has a code per block (every layer of variant 1 but the last)
  uint64_t bumped_upper = 0;  // starts in blocks [0, upper_blocks) whose keys go on
  uint64_t bumped = 0;        // starts whose keys go on, in all blocks

  uint64_t blocks() const noexcept { return slots / kRibbonBlockRows; }
  // Starts a key may have: [0, slots - 127] (none without rows).
  uint64_t starts() const noexcept { return slots == 0 ? 0 : slots - kRibbonWidth + 1; }
  // Words of block codes (32 a word) before the solution; 0 unless bumping.
  uint64_t code_words() const noexcept { return bumping ? (blocks() + 31) / 32 : 0; }
};

// A whole filter: its variant, column count and layers.
struct RibbonParams {
  uint32_t variant = 1;  // 0: standard (one layer); 1: bumped
  uint32_t columns = 1;  // r (the file's k)
  uint64_t slots = 0;    // rows of all layers (the file's m)
  std::vector<RibbonLayer> layers;

  // Payload bits: 64 * ribbon_payload_words.
  uint64_t solution_bits() const noexcept;
  // Whether some layer checks some keys in r + 1 columns.
  bool mixed() const noexcept;
  // The file header's kind_params (docs/FORMAT.md): variant 0: upper_blocks, seed; variant 1:
  // the layer count, then per layer slots, upper_blocks, seed, bumped_upper, bumped.
  std::vector<uint64_t> kind_params() const;
};

// The columns and rows for n distinct keys at rate p (seed 0; for variant 1, the layers a build
// is expected to give: construction settles the layers' rows and upper blocks from the keys
// bumped). Throws kInvalidArgument when p is outside [2^-30, 1/2] or the solution would exceed
// 2^40 bits.
RibbonParams ribbon_params_for(uint64_t n, double p, uint32_t variant = 1);
// The same without the 2^40-bit limit (for the size calculator), for n up to 2^59.
RibbonParams ribbon_geometry(uint64_t n, double p, uint32_t variant = 1);

// Column count r for rate p (p in [2^-30, 1/2]).
uint32_t ribbon_columns_for(double p);
// Rows of a standard Ribbon layer (variant 0, and the last layer of variant 1) for n keys.
uint64_t ribbon_plain_slots(uint64_t n);
// Rows of a bumping layer that n keys reach.
uint64_t ribbon_bumping_slots(uint64_t n);
// Keys below which the next layer is the last (a standard Ribbon).
inline constexpr uint64_t kRibbonLastLayerKeys = 1024;

// The false-positive rate of a key that is not in the set. One layer: the mean over its starts
// of 2^-(columns the start's block is checked in); a bumping layer's bumped starts count with the
// rate of the layers after it (`next`).
double ribbon_layer_rate(const RibbonLayer& l, double next) noexcept;
double ribbon_model_rate(const RibbonParams& p) noexcept;

// Reads parameters back from a header's fields (variant, k, m, kind_params); returns an empty
// string when they are consistent, else the reason they are not (for a "corrupt" message). A
// variant other than 0 or 1 is the caller's to refuse.
std::string ribbon_params_from_file(uint32_t variant, uint32_t columns, uint64_t m,
                                    const std::vector<uint64_t>& kind_params, RibbonParams& out);

// 64-bit payload words of one layer: its codes, then r words a block and one more in each
// block that stores column r (the upper blocks and the two after them); a layer without rows has
// one zero word.
uint64_t ribbon_layer_words(const RibbonLayer& l) noexcept;
// Of the whole filter: its layers one after the other.
uint64_t ribbon_payload_words(const RibbonParams& p) noexcept;

namespace detail {

// Blocks that store column r: the upper blocks and the two after them, which the 128 rows of a
// key starting in the last upper block reach into.
inline uint64_t ribbon_stored_upper(const RibbonLayer& p) noexcept {
  const uint64_t blocks = p.slots / kRibbonBlockRows;
  return p.upper_blocks == 0 ? 0 : (p.upper_blocks + 2 < blocks ? p.upper_blocks + 2 : blocks);
}

// Starts in block b of a layer with `starts` starts.
inline uint64_t ribbon_block_starts(uint64_t starts, uint64_t b) noexcept {
  const uint64_t first = b * kRibbonBlockRows;
  return first >= starts ? 0
                         : (starts - first < kRibbonBlockRows ? starts - first : kRibbonBlockRows);
}

// The upper block count that brings a layer's rate (bumped starts counting `next`) to at most
// p, the fewest that do: `bumped_before[b]` is the number of bumped starts in blocks [0, b), for
// b up to the block count. Sets upper_blocks and bumped_upper.
void ribbon_choose_upper(RibbonLayer& l, double next, double p,
                         const std::vector<uint64_t>& bumped_before);

}  // namespace detail

}  // namespace bloomtool
