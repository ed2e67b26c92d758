// Construction of Ribbon filters: banding by on-the-fly Gaussian elimination, then
// back-substitution (Dillinger & Walzer 2021, sections 2-4), layer by layer for bumped Ribbon
// (Walzer, Dillinger et al. 2022, "BuRR").
//
// Why standard and not homogeneous banding: a homogeneous Ribbon asks every key's equation for
// zero, so banding never fails, but a non-member whose row is a sum of key rows is then always a
// false positive. Measured with bench/ribbon_bench at 10^6 keys and p = 2^-7: with 3% more rows
// than keys no key was redundant, yet the rate was 1.5 times the model, from a few crowded
// stretches of starts where whole runs of rows hold pivots; it took 4% (4.5% at 10^7 keys) to
// bring the rate back, as many rows as standard banding needs to succeed, and the excess weighs
// more the smaller the rate. Standard banding asks for a fingerprint instead: its rate is exactly
// the model's for any key set, and a crowded stretch makes the attempt fail, so the next seed,
// which places every start afresh, is tried.
//
// Banding: each key's row (start s, 128 coefficient bits from s on, the first one set, and its
// fingerprint) goes to the first free pivot row at or after s: if row s already holds a pivot,
// the key's row and fingerprint are xored with it (clearing the first bit) and shifted to the next
// set bit; it ends up stored as a pivot, or reduced to zero, which is fine if its fingerprint
// also reduced to zero and fails the attempt otherwise. Rows never move left, and a row at s
// never reaches past s + 127, so the band stays inside the solution. Keys are grouped by the top
// bits of their seeded hash, which the starts follow, so the pivot array is walked front to back.
//
// Back-substitution runs from the last row to the first, for all columns at once, each column
// keeping the 128 solution bits below the current row in two words: a pivot row's bit is the
// parity of its coefficients with those bits xor its fingerprint bit; a row without a pivot
// keeps 0. The solution is then the one with zeros in all free rows, which depends only on the
// key set, not on the order keys were banded in.
//
// Bumping (variant 1): a bumping layer has fewer rows than the keys that reach it (about 1/1.05
// as many). Its keys are sorted by start and banded in that order, block of 64 starts by block.
// When a key's equation fails (inconsistent, its pivot would land past the end of the section
// being banded, or kReach rows or more past the end of its block), the block's code becomes the one
// with the largest threshold at or below the key's offset: the keys at or above it that were
// already inserted are taken out again (insertion only ever fills empty pivot rows, so clearing the
// rows they filled restores the band exactly), and every key of the block from the threshold on
// goes on to the next layer. So each layer ends up with almost every row a pivot; the last layer,
// for the few hundred or thousand keys left, is a standard Ribbon with rows to spare, and only it
// is retried with new seeds. The upper blocks of every layer are chosen last, from the last layer
// to the first, so that the whole rate (each bumped start counting with the next layer's rate) just
// meets the rate asked for: every row is solved in r + 1 columns, so any choice is consistent with
// the keys.
//
// Threads: seeding and grouping run on all threads; standard banding cuts the rows into one
// section per thread (the few equations a section pushes past its end are inserted afterwards,
// in order); bumping layers are banded in sections of a fixed 4,096 blocks, whatever the thread
// count, each banded on its own (an equation that would reach past its section fails and is
// bumped, as at the end of the layer); back-substitution gives each thread a range of columns.
//
// Determinism: the seeds are fixed; a standard layer depends only on the set of its keys and the
// first seed that works (not on the order equations are banded in); a bumping layer bands each
// fixed section in the order of the sorted keys. So the filter depends only on the set of
// distinct hashes and is the same for any thread count.
#include <fmt/format.h>
#include <time.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <functional>
#include <span>
#include <utility>
#include <vector>

#include "base/run_threads.h"
#include "base/word_buffer.h"
#include "bloomtool/error.h"
#include "filters/ribbon_construct.h"
#include "filters/ribbon_mapping.h"
#include "keys/hash.h"
#include "keys/hash_sort.h"
#include "model/model.h"
#include "model/ribbon_model.h"

namespace bloomtool {

namespace {

using detail::RibbonRow;

// The seeds tried, in order; not part of the format (the file records the one that worked).
uint64_t attempt_seed(uint32_t attempt) {
  return mix64(0xA0761D6478BD642Full * (uint64_t{attempt} + 1));
}

// The seed of layer `layer` of a bumped filter at attempt `attempt` (only the last layer is
// retried).
uint64_t layer_seed(size_t layer, uint32_t attempt) {
  return mix64(0xA0761D6478BD642Full * (uint64_t{attempt} + 1) +
               0x9E3779B97F4A7C15ull * (uint64_t{layer} + 1));
}

// Blocks of a bumping layer banded as one section (whatever the thread count).
constexpr uint64_t kSectionBlocks = 4096;

// A key of a bumping layer whose pivot would land this many rows past the end of its block or
// further is bumped: at one row in a thousand free, an equation walks far to find one, and
// bumping those (to a layer where it walks little) cuts the rows banding walks by half for 0.3 %
// more bits (bench/ribbon_bench at 2M keys, 1 %: 26 rows a key and 1.0215 times the bound with
// this limit and 1.05 keys a row, 43 rows and 1.017 times without it).
constexpr uint64_t kReach = 40;

double wall_now() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// A key's equation on its way through the band: the rows from `s` on selected by (lo, hi), bit
// 0 of lo set, asking for `fp`.
struct Pending {
  uint64_t s, lo, hi;
  uint32_t fp;
};

enum class Insert { kStored, kRedundant, kInconsistent, kOverflow };

// Inserts one equation into `pivots` (two words a row: coefficient bits 0-63, 64-127; an empty
// row has a zero first word, a pivot never has) and `results` (the fingerprint bits the row's
// equation asks for): at the first empty row it reaches, or reduced to zero (redundant if its
// fingerprint reduced to zero too, else no solution satisfies every key under this seed). An
// equation that reaches row `end` or beyond is handed back in `e` (kOverflow) untouched there.
inline Insert insert(Pending& e, uint64_t* pivots, uint32_t* results, uint64_t end) noexcept {
  for (;;) {
    if (e.s >= end) return Insert::kOverflow;
    uint64_t* row = pivots + 2 * e.s;
    if (row[0] == 0) {
      row[0] = e.lo;
      row[1] = e.hi;
      results[e.s] = e.fp;
      return Insert::kStored;
    }
    e.lo ^= row[0];
    e.hi ^= row[1];
    e.fp ^= results[e.s];
    if (e.lo != 0) {
      // Bit 0 was set in both: the shift is 1 to 63.
      const int t = std::countr_zero(e.lo);
      e.s += static_cast<uint64_t>(t);
      e.lo = (e.lo >> t) | (e.hi << (64 - t));
      e.hi >>= t;
    } else if (e.hi != 0) {
      const int t = std::countr_zero(e.hi);
      e.s += 64 + static_cast<uint64_t>(t);
      e.lo = e.hi >> t;
      e.hi = 0;
    } else {
      return e.fp == 0 ? Insert::kRedundant : Insert::kInconsistent;
    }
  }
}

// Bands the keys (seeded hashes) whose start lies in [lo, hi) into rows [lo, hi); equations
// pushed to row hi or beyond go to `overflow`. False when the keys have no common solution.
bool band_section(std::span<const uint64_t> keys, const RibbonLayer& p, uint64_t* pivots,
                  uint32_t* results, uint64_t lo, uint64_t hi, std::vector<Pending>& overflow,
                  uint64_t& redundant) {
  constexpr size_t kAhead = 8;
  const uint64_t starts = p.starts();
  const uint32_t fp_mask = (2u << p.columns) - 1;  // r + 1 columns (r <= 30)
  const bool all = lo == 0 && hi >= p.slots;
  // Keys are grouped by the top bits of the seeded hash, which the starts follow: a ring of the
  // next keys of the section, their rows prefetched.
  RibbonRow ring[kAhead];
  size_t ahead = 0, filled = 0, next = 0;
  auto fetch = [&]() {
    while (next < keys.size()) {
      const uint64_t a = keys[next++];
      // Another section's key costs one multiplication (its start), not the whole row.
      if (!all && (reduce64(a, starts) < lo || reduce64(a, starts) >= hi)) continue;
      const RibbonRow r = detail::ribbon_row_seeded(a, starts);
      __builtin_prefetch(pivots + 2 * r.start, 1, 3);
      __builtin_prefetch(results + r.start, 1, 3);
      ring[(ahead + filled) % kAhead] = r;
      ++filled;
      return;
    }
  };
  for (size_t i = 0; i < kAhead; ++i) fetch();
  while (filled > 0) {
    const RibbonRow r = ring[ahead];
    ahead = (ahead + 1) % kAhead;
    --filled;
    fetch();
    Pending e{r.start, r.lo, r.hi, r.fp & fp_mask};
    switch (insert(e, pivots, results, hi)) {
      case Insert::kStored:
        break;
      case Insert::kRedundant:
        ++redundant;
        break;
      case Insert::kInconsistent:
        return false;
      case Insert::kOverflow:
        overflow.push_back(e);
        break;
    }
  }
  return true;
}

// Bands every key. Large sets are cut into one section of rows per thread, banded at once; the
// equations a section pushes past its end are then inserted, on the calling thread, into the
// sections after it. Whether the keys have a common solution, and the solution back-substitution
// finds, depend only on the set of equations, not on the order they are inserted in, so the
// filter is the same for any number of sections. `redundant` counts the keys implied by others.
bool band(std::span<const uint64_t> keys, const RibbonLayer& p, uint64_t* pivots, uint32_t* results,
          unsigned threads, uint64_t& redundant) {
  if (keys.size() < (size_t{1} << 18)) threads = 1;
  std::vector<std::vector<Pending>> overflow(threads);
  std::vector<uint64_t> redundant_of(threads, 0);
  std::vector<uint8_t> ok(threads, 1);
  auto bound = [&](unsigned t) { return t == threads ? p.slots : p.slots * t / threads; };
  detail::run_threads(threads, [&](unsigned t) {
    ok[t] = band_section(keys, p, pivots, results, bound(t), bound(t + 1), overflow[t],
                         redundant_of[t]);
  });
  redundant = 0;
  for (unsigned t = 0; t < threads; ++t) {
    if (!ok[t]) return false;
    redundant += redundant_of[t];
  }
  for (unsigned t = 0; t + 1 < threads; ++t) {
    for (Pending e : overflow[t]) {
      switch (insert(e, pivots, results, p.slots)) {
        case Insert::kRedundant:
          ++redundant;
          break;
        case Insert::kInconsistent:
          return false;
        default:
          break;
      }
    }
  }
  return true;
}

// Columns [first, first + kCols) of the solution. kCols known at compile time: the loops unroll
// and the column states stay in registers. Columns do not depend on each other, so threads may
// solve different ones at once.
template <uint32_t kCols>
void solve_columns(const RibbonLayer& p, const uint64_t* pivots, const uint32_t* results,
                   uint64_t* words, uint32_t first) {
  uint64_t lo[kCols] = {}, hi[kCols] = {};
  for (uint64_t i = p.slots; i-- > 0;) {
    const uint64_t c_lo = pivots[2 * i], c_hi = pivots[2 * i + 1];
    // A row without a pivot is free: it keeps 0, as any value satisfies the keys (its result
    // entry was never written: it holds whatever the arena held, which must not reach the file).
    const uint32_t fp = c_lo == 0 ? 0 : results[i] >> first;
    for (uint32_t j = 0; j < kCols; ++j) {
      hi[j] = (hi[j] << 1) | (lo[j] >> 63);
      lo[j] <<= 1;
      // Bit 0 of lo[j] is still clear: the pivot's own coefficient reads nothing.
      lo[j] |= static_cast<uint64_t>(
          (__builtin_parityll((lo[j] & c_lo) ^ (hi[j] & c_hi)) ^ (fp >> j)) & 1);
    }
    if (i % kRibbonBlockRows == 0) {
      const uint64_t b = i / kRibbonBlockRows;
      uint64_t* w = words + detail::ribbon_block_offset(p, b) + first;
      const uint32_t bc = detail::ribbon_stored_columns(p, b);
      for (uint32_t j = 0; j < kCols && first + j < bc; ++j) w[j] = lo[j];
    }
  }
}

template <uint32_t... kCols>
void solve_dispatch(uint32_t cols, const RibbonLayer& p, const uint64_t* pivots,
                    const uint32_t* results, uint64_t* words, uint32_t first,
                    std::integer_sequence<uint32_t, kCols...>) {
  ((cols == kCols + 1 ? solve_columns<kCols + 1>(p, pivots, results, words, first) : void()), ...);
}

// Back-substitution into `words` (the payload layout of ribbon_mapping.h): every row gets r + 1
// columns (r without upper blocks), a block stores those ribbon_stored_columns gives it. The
// columns are shared out between up to `threads` threads.
void solve(const RibbonLayer& p, const uint64_t* pivots, const uint32_t* results, uint64_t* words,
           unsigned threads) {
  const uint32_t cols = p.columns + (p.upper_blocks > 0 ? 1 : 0);
  if (p.slots < (uint64_t{1} << 16)) threads = 1;
  threads = std::min<unsigned>(threads, cols);
  detail::run_threads(threads, [&](unsigned t) {
    const uint32_t first = cols * t / threads, last = cols * (t + 1) / threads;
    solve_dispatch(last - first, p, pivots, results, words, first,
                   std::make_integer_sequence<uint32_t, kRibbonMaxColumns>());
  });
}

// Replaces every hash of `keys` by f(hash), on `threads` threads.
template <typename F>
void map_in_place(std::span<uint64_t> keys, unsigned threads, F f) {
  if (keys.size() < (size_t{1} << 16)) threads = 1;
  detail::run_threads(threads, [&](unsigned t) {
    const size_t lo = keys.size() * t / threads, hi = keys.size() * (t + 1) / threads;
    for (size_t i = lo; i < hi; ++i) keys[i] = f(keys[i]);
  });
}

// Orders keys that group_unique or group_by_top_bits has grouped by their top bits by their start
// in a layer of `starts` starts: each group on its own, by counting (a group's keys have starts
// in a range about as long as the group; below 8,192 keys, by sorting them). Keys with
// the same start stay in an order that depends only on the set: the band a bumping layer
// builds depends only on the set of equations inserted before each one.
void sort_by_start(std::span<uint64_t> keys, uint64_t starts, unsigned threads) {
  const size_t n = keys.size();
  if (n < 8192) {
    // Sorted already when grouping saw fewer than 8,192 hashes; not when repeats brought more
    // down to these.
    std::sort(keys.begin(), keys.end());
    return;
  }
  const int shift = 64 - group_top_bits(n);
  const uint64_t groups = uint64_t{1} << (64 - shift);
  if (n < (size_t{1} << 18)) threads = 1;
  detail::run_threads(threads, [&](unsigned t) {
    auto first_of = [&](uint64_t g) {
      if (g >= groups) return n;
      return static_cast<size_t>(
          std::partition_point(keys.begin(), keys.end(),
                               [&](uint64_t k) { return (k >> shift) < g; }) -
          keys.begin());
    };
    std::vector<uint32_t> count;
    std::vector<uint64_t> out;
    size_t i = first_of(groups * t / threads);
    const size_t end = first_of(groups * (t + 1) / threads);
    while (i < end) {
      const uint64_t g = keys[i] >> shift;
      size_t j = i + 1;
      while (j < end && (keys[j] >> shift) == g) ++j;
      const uint64_t lo = reduce64(g << shift, starts);
      const uint64_t hi = reduce64(((g + 1) << shift) - 1, starts);
      count.assign(hi - lo + 2, 0);
      for (size_t x = i; x < j; ++x) ++count[reduce64(keys[x], starts) - lo + 1];
      for (size_t c = 1; c < count.size(); ++c) count[c] += count[c - 1];
      out.resize(j - i);
      for (size_t x = i; x < j; ++x) out[count[reduce64(keys[x], starts) - lo]++] = keys[x];
      std::copy(out.begin(), out.end(), keys.begin() + static_cast<ptrdiff_t>(i));
      i = j;
    }
  });
}

// Bands the sorted keys of one section of a bumping layer, whose rows end at `end`, block by
// block (see the top of this file); writes each block's code to codes[b]. Moves the bumped keys
// to the front of `keys` (the others after them, in no particular order) and returns how many
// there are.
uint64_t band_bumping_section(std::span<uint64_t> keys, const RibbonLayer& l, uint64_t* pivots,
                              uint32_t* results, uint8_t* codes, uint64_t end,
                              uint64_t& redundant) {
  constexpr uint64_t kNotStored = ~uint64_t{0};
  const uint64_t starts = l.starts();
  const uint32_t fp_mask = (2u << l.columns) - 1;  // r + 1 columns (r <= 30)
  std::vector<uint64_t> stored;                    // the row each key of the block filled
  uint64_t bumped = 0;
  size_t i = 0;
  auto offset_of = [&](size_t x) { return reduce64(keys[x], starts) % kRibbonBlockRows; };
  while (i < keys.size()) {
    const uint64_t b = reduce64(keys[i], starts) / kRibbonBlockRows;
    size_t j = i + 1;
    while (j < keys.size() && reduce64(keys[j], starts) / kRibbonBlockRows == b) ++j;
    stored.assign(j - i, kNotStored);
    unsigned code = 0;
    uint64_t block_redundant = 0;
    size_t keep = j;  // keys [i, keep) stay in this layer
    for (size_t x = i; x < j; ++x) {
      const RibbonRow r = detail::ribbon_row_seeded(keys[x], starts);
      Pending e{r.start, r.lo, r.hi, r.fp & fp_mask};
      const Insert result =
          insert(e, pivots, results, std::min(end, (b + 1) * kRibbonBlockRows + kReach));
      if (result == Insert::kStored) {
        stored[x - i] = e.s;
        continue;
      }
      if (result == Insert::kRedundant) {
        ++block_redundant;
        continue;
      }
      // The largest threshold at or below this key's offset; the keys inserted before it (lower
      // starts) at or above the threshold are taken out again, last first.
      const uint64_t offset = r.start % kRibbonBlockRows;
      code = 1;
      while (kRibbonKeepBelow[code] > offset) ++code;
      keep = x;
      while (keep > i && offset_of(keep - 1) >= kRibbonKeepBelow[code]) {
        --keep;
        if (stored[keep - i] == kNotStored)
          --block_redundant;
        else
          pivots[2 * stored[keep - i]] = pivots[2 * stored[keep - i] + 1] = 0;
      }
      break;
    }
    redundant += block_redundant;
    codes[b] = static_cast<uint8_t>(code);
    // The bumped keys are the last of the block (sorted by start): [keep, j).
    for (size_t y = keep; y < j; ++y) std::swap(keys[bumped++], keys[y]);
    i = j;
  }
  return bumped;
}

// Bands a bumping layer from its sorted keys in fixed sections of kSectionBlocks blocks, up to
// `threads` at once; codes gets one code a block. Moves the bumped keys to the front of `keys`
// (the others after them) and returns how many there are.
uint64_t band_bumping(std::span<uint64_t> keys, const RibbonLayer& l, uint64_t* pivots,
                      uint32_t* results, std::vector<uint8_t>& codes, unsigned threads,
                      uint64_t& redundant) {
  const uint64_t blocks = l.blocks(), starts = l.starts();
  codes.assign(blocks, 0);
  const uint64_t sections = (blocks + kSectionBlocks - 1) / kSectionBlocks;
  std::vector<size_t> first(sections + 1, keys.size());
  for (uint64_t s = 0; s < sections; ++s) {
    const uint64_t row = s * kSectionBlocks * kRibbonBlockRows;
    first[s] = static_cast<size_t>(
        std::partition_point(keys.begin(), keys.end(),
                             [&](uint64_t k) { return reduce64(k, starts) < row; }) -
        keys.begin());
  }
  std::vector<uint64_t> bumped_of(sections, 0), redundant_of(sections, 0);
  threads = static_cast<unsigned>(std::min<uint64_t>(std::max(threads, 1u), sections));
  if (keys.size() < (size_t{1} << 16)) threads = 1;
  detail::run_threads(threads, [&](unsigned t) {
    for (uint64_t s = sections * t / threads; s < sections * (t + 1) / threads; ++s) {
      const uint64_t end = std::min(blocks, (s + 1) * kSectionBlocks) * kRibbonBlockRows;
      bumped_of[s] = band_bumping_section(keys.subspan(first[s], first[s + 1] - first[s]), l,
                                          pivots, results, codes.data(), end, redundant_of[s]);
    }
  });
  // The sections' bumped keys, one after the other at the front (swapped, so that every key
  // stays somewhere in `keys`).
  uint64_t total = 0;
  for (uint64_t s = 0; s < sections; ++s) {
    redundant += redundant_of[s];
    const auto at = keys.begin();
    const auto to = static_cast<ptrdiff_t>(total), from = static_cast<ptrdiff_t>(first[s]);
    const auto count = static_cast<ptrdiff_t>(bumped_of[s]);
    if (from >= to + count)
      std::swap_ranges(at + from, at + from + count, at + to);
    else if (from != to)
      std::rotate(at + to, at + from, at + from + count);
    total += bumped_of[s];
  }
  return total;
}

// Packs a bumping layer's codes, 32 to a word, into `out`.
void pack_codes(const std::vector<uint8_t>& codes, uint64_t* out, uint64_t words) {
  std::fill(out, out + words, 0);
  for (size_t b = 0; b < codes.size(); ++b) out[b / 32] |= uint64_t{codes[b]} << (2 * (b % 32));
}

// Re-seeds keys from seed `from` to seed `to`.
void reseed(std::span<uint64_t> keys, unsigned threads, uint64_t from, uint64_t to) {
  map_in_place(keys, threads, [from, to](uint64_t k) {
    return detail::ribbon_seeded(detail::ribbon_unseeded(k, from), to);
  });
}

// A layer's pivot rows (2 words a row) and their results (half a word a row), in `arena` if it is
// large enough, else in a buffer of their own.
struct Band {
  WordBuffer own;
  uint64_t* pivots = nullptr;
  uint32_t* results = nullptr;

  Band(uint64_t slots, WordBuffer* arena) {
    const uint64_t words = 2 * slots + (slots + 1) / 2;
    uint64_t* base;
    if (arena != nullptr && arena->size() >= words) {
      base = arena->data();
    } else {
      own = WordBuffer(std::max<uint64_t>(words, 1));
      base = own.data();
    }
    pivots = base;
    results = reinterpret_cast<uint32_t*>(base + 2 * slots);
    std::memset(pivots, 0, 2 * slots * sizeof(uint64_t));
  }
};

[[noreturn]] void construction_failed(const RibbonBuildResult& r) {
  throw RibbonConstructionError(
      fmt::format("Ribbon filter construction failed after {} attempt{} ({} distinct keys)",
                  r.attempts, r.attempts == 1 ? "" : "s", r.distinct));
}

// Variant 0: one standard layer, retried with new seeds. `keys` are seeded with `seed` and
// grouped; on return they are seeded with the seed that worked (`seed` too).
RibbonParams build_standard(std::span<uint64_t> keys, uint64_t& seed, WordBuffer& arena,
                            const RibbonBuildOptions& options, unsigned threads,
                            RibbonBuildResult& r, WordBuffer& words, bool& ok) {
  RibbonParams params = ribbon_params_for(keys.size(), options.rate, 0);
  RibbonLayer& p = params.layers[0];
  words = WordBuffer(ribbon_payload_words(params));
  r.layer_keys = {keys.size()};
  ok = true;
  if (p.slots == 0) {
    r.attempts = 1;
    p.seed = seed;
    return params;
  }
  Band band_rows(p.slots, &arena);
  ok = false;
  for (uint32_t a = 0; !ok && a < options.max_attempts; ++a) {
    const double t0 = wall_now();
    if (a > 0) {
      const uint64_t next = attempt_seed(a);
      reseed(keys, threads, seed, next);
      seed = next;
      group_by_top_bits(keys.data(), keys.size(), arena.data(), threads);
      std::memset(band_rows.pivots, 0, 2 * p.slots * sizeof(uint64_t));
    }
    p.seed = seed;
    r.attempts = a + 1;
    ok = band(keys, p, band_rows.pivots, band_rows.results, threads, r.redundant);
    r.band_seconds += wall_now() - t0;
  }
  if (!ok) return params;
  const double t0 = wall_now();
  solve(p, band_rows.pivots, band_rows.results, words.data(), threads);
  r.solve_seconds = wall_now() - t0;
  return params;
}

// Variant 1: bumping layers while many keys remain, then a standard layer retried with new
// seeds. `keys` are seeded with seeds[0] and grouped; on return, the keys that stopped in layer
// i are seeded with seeds[i] and lie in [keys reaching layer i + 1, keys reaching layer i).
RibbonParams build_bumped(std::span<uint64_t> keys, std::vector<uint64_t>& seeds, WordBuffer& arena,
                          const RibbonBuildOptions& options, unsigned threads, RibbonBuildResult& r,
                          WordBuffer& words, bool& ok) {
  RibbonParams params;
  params.variant = 1;
  params.columns = ribbon_columns_for(options.rate);
  std::vector<Band> bands;
  std::vector<std::vector<uint8_t>> codes;
  std::span<uint64_t> left = keys;
  WordBuffer scratch;
  ok = true;
  for (size_t i = 0;; ++i) {
    const double t0 = wall_now();
    RibbonLayer l;
    l.columns = params.columns;
    l.seed = seeds[i];
    r.layer_keys.push_back(left.size());
    if (i > 0) {
      scratch = WordBuffer(std::max<size_t>(left.size(), 1));
      group_by_top_bits(left.data(), left.size(), scratch.data(), threads);
      scratch = WordBuffer();
    }
    if (left.size() > kRibbonLastLayerKeys && i + 1 < kRibbonMaxLayers) {
      l.bumping = true;
      l.slots = ribbon_bumping_slots(left.size());
      sort_by_start(left, l.starts(), threads);
      bands.emplace_back(l.slots, i == 0 ? &arena : nullptr);
      codes.emplace_back();
      const uint64_t bumped = band_bumping(left, l, bands.back().pivots, bands.back().results,
                                           codes.back(), threads, r.redundant);
      for (uint64_t b = 0; b < l.blocks(); ++b)
        l.bumped += ribbon_code_bumped(codes.back()[b], detail::ribbon_block_starts(l.starts(), b));
      params.layers.push_back(l);
      left = left.first(bumped);
      seeds.push_back(layer_seed(i + 1, 0));
      reseed(left, threads, seeds[i], seeds[i + 1]);
      r.band_seconds += wall_now() - t0;
      continue;
    }
    // The last layer: a standard Ribbon, retried with new seeds.
    l.slots = ribbon_plain_slots(left.size());
    bands.emplace_back(l.slots, i == 0 ? &arena : nullptr);
    codes.emplace_back();
    ok = l.slots == 0;
    if (ok) r.attempts = 1;
    for (uint32_t a = 0; !ok && a < options.max_attempts; ++a) {
      if (a > 0) {
        const uint64_t next = layer_seed(i, a);
        reseed(left, threads, seeds[i], next);
        seeds[i] = next;
        scratch = WordBuffer(std::max<size_t>(left.size(), 1));
        group_by_top_bits(left.data(), left.size(), scratch.data(), threads);
        scratch = WordBuffer();
        std::memset(bands.back().pivots, 0, 2 * l.slots * sizeof(uint64_t));
      }
      r.attempts = a + 1;
      ok = band(left, l, bands.back().pivots, bands.back().results, threads, r.redundant);
    }
    l.seed = seeds[i];
    params.layers.push_back(l);
    r.band_seconds += wall_now() - t0;
    break;
  }
  if (!ok) return params;
  // Upper blocks, from the last layer to the first: each layer's rate, its bumped starts
  // counting with the rate of the layers after it, just meets the rate asked for.
  double next = 0.0;
  for (size_t i = params.layers.size(); i-- > 0;) {
    RibbonLayer& l = params.layers[i];
    std::vector<uint64_t> before(l.blocks() + 1, 0);
    for (uint64_t b = 0; b < l.blocks(); ++b) {
      before[b + 1] =
          before[b] +
          (l.bumping ? ribbon_code_bumped(codes[i][b], detail::ribbon_block_starts(l.starts(), b))
                     : 0);
    }
    detail::ribbon_choose_upper(l, next, options.rate, before);
    next = ribbon_layer_rate(l, next);
    params.slots += l.slots;
  }
  if (params.solution_bits() > model::kMaxBits) {
    throw Error(ErrorCode::kInvalidArgument,
                std::to_string(keys.size()) + " keys need more than 2^40 bits of solution");
  }
  const double t0 = wall_now();
  words = WordBuffer(ribbon_payload_words(params));
  uint64_t* w = words.data();
  for (size_t i = 0; i < params.layers.size(); ++i) {
    const RibbonLayer& l = params.layers[i];
    if (l.bumping) pack_codes(codes[i], w, l.code_words());
    if (l.slots != 0)
      solve(l, bands[i].pivots, bands[i].results, w + l.code_words(), threads);
    else
      w[0] = 0;
    w += ribbon_layer_words(l);
  }
  r.solve_seconds = wall_now() - t0;
  return params;
}

// Builds the filter of the hashes in `parts`, grouped (and de-duplicated) into out[0, input);
// `grouped` runs once the parts have been read for the last time. The hashes are replaced by
// their seeded hashes first (a bijection, so de-duplicating those de-duplicates the hashes); with
// `restore` the distinct hashes are given back in out[0, distinct) at the end.
RibbonBuildResult build_from_parts(std::span<const std::span<uint64_t>> parts, uint64_t* out,
                                   uint64_t input, const RibbonBuildOptions& options, bool restore,
                                   const std::function<void()>& grouped) {
  if (options.max_attempts == 0)
    throw Error(ErrorCode::kInvalidArgument, "construction needs at least one attempt");
  if (options.variant > 1)
    throw Error(ErrorCode::kInvalidArgument, "Ribbon variant " + std::to_string(options.variant));
  // Checks the rate and the size before any work.
  const RibbonParams planned = ribbon_params_for(input, options.rate, options.variant);
  RibbonBuildResult r;
  const unsigned threads = std::max(options.threads, 1u);
  // One arena serves grouping (input words of scratch) and then the first layer's pivots (2
  // words a row) and their results (half a word a row).
  const uint64_t rows = planned.layers[0].slots;
  WordBuffer arena(std::max<uint64_t>({input, 2 * rows + (rows + 1) / 2, 1}));
  std::vector<uint64_t> seeds{options.variant == 0 ? attempt_seed(0) : layer_seed(0, 0)};
  for (const std::span<uint64_t> part : parts) {
    const uint64_t seed = seeds[0];
    map_in_place(part, threads, [seed](uint64_t h) { return detail::ribbon_seeded(h, seed); });
  }
  std::vector<std::span<const uint64_t>> readonly(parts.begin(), parts.end());
  if (options.assume_distinct) group_by_top_bits(readonly, out, arena.data(), threads);
  const uint64_t distinct =
      options.assume_distinct ? input : group_unique(readonly, out, arena.data(), threads);
  grouped();
  const std::span<uint64_t> keys(out, distinct);
  r.duplicates = input - distinct;
  r.distinct = distinct;
  WordBuffer words;
  RibbonParams params;
  bool ok = true;
  if (options.variant == 0) {
    params = build_standard(keys, seeds[0], arena, options, threads, r, words, ok);
    if (restore) {
      const uint64_t seed = seeds[0];
      map_in_place(keys, threads, [seed](uint64_t k) { return detail::ribbon_unseeded(k, seed); });
    }
  } else {
    params = build_bumped(keys, seeds, arena, options, threads, r, words, ok);
    if (restore) {
      // Layer i's keys lie in [keys reaching layer i + 1, keys reaching layer i).
      for (size_t i = 0; i < r.layer_keys.size(); ++i) {
        const uint64_t lo = i + 1 < r.layer_keys.size() ? r.layer_keys[i + 1] : 0;
        const uint64_t seed = seeds[i];
        map_in_place(keys.subspan(lo, r.layer_keys[i] - lo), threads,
                     [seed](uint64_t k) { return detail::ribbon_unseeded(k, seed); });
      }
    }
  }
  if (!ok) construction_failed(r);
  r.filter = std::make_unique<RibbonFilter>(params, std::move(words), options.hash_seed);
  return r;
}

}  // namespace

RibbonBuildResult build_ribbon_filter(std::span<uint64_t> all, const RibbonBuildOptions& options) {
  return build_from_parts(std::span(&all, 1), all.data(), all.size(), options, true, [] {});
}

RibbonBuildResult build_ribbon_filter(std::vector<WordBuffer>& parts,
                                      std::span<const size_t> counts,
                                      const RibbonBuildOptions& options) {
  if (parts.empty() || counts.size() != parts.size())
    throw Error(ErrorCode::kInvalidArgument, "build_ribbon_filter: one count per buffer");
  uint64_t input = 0;
  for (const size_t c : counts) input += c;
  if (parts[0].size() < input) parts[0].resize(input);
  std::vector<std::span<uint64_t>> spans;
  for (size_t i = 0; i < parts.size(); ++i) spans.emplace_back(parts[i].data(), counts[i]);
  return build_from_parts(spans, parts[0].data(), input, options, false, [&] {
    for (size_t i = 1; i < parts.size(); ++i) parts[i] = WordBuffer();
  });
}

RibbonBuildResult build_ribbon_filter(std::vector<uint64_t>& hashes,
                                      const RibbonBuildOptions& options) {
  RibbonBuildResult r = build_ribbon_filter(std::span<uint64_t>(hashes), options);
  hashes.resize(r.distinct);
  return r;
}

}  // namespace bloomtool
