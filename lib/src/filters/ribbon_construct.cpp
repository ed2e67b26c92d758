// Construction of standard Ribbon filters: banding by on-the-fly Gaussian elimination, then
// back-substitution (Dillinger & Walzer 2021, sections 2-4).
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
// Threads: seeding and grouping run on all threads; banding cuts the rows into one section per
// thread (the few equations a section pushes past its end are inserted afterwards, in order);
// back-substitution gives each thread a range of columns.
//
// Determinism: the seeds are fixed, and the filter depends only on the set of distinct hashes and
// the first seed that works (not on the order equations are banded in), so it is the same for any
// thread count.
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

namespace bloomtool {

namespace {

using detail::RibbonRow;

// The seeds tried, in order; not part of the format (the file records the one that worked).
uint64_t attempt_seed(uint32_t attempt) {
  return mix64(0xA0761D6478BD642Full * (uint64_t{attempt} + 1));
}

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
bool band_section(std::span<const uint64_t> keys, const RibbonParams& p, uint64_t* pivots,
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
bool band(std::span<const uint64_t> keys, const RibbonParams& p, uint64_t* pivots,
          uint32_t* results, unsigned threads, uint64_t& redundant) {
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
void solve_columns(const RibbonParams& p, const uint64_t* pivots, const uint32_t* results,
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
void solve_dispatch(uint32_t cols, const RibbonParams& p, const uint64_t* pivots,
                    const uint32_t* results, uint64_t* words, uint32_t first,
                    std::integer_sequence<uint32_t, kCols...>) {
  ((cols == kCols + 1 ? solve_columns<kCols + 1>(p, pivots, results, words, first) : void()), ...);
}

// Back-substitution into `words` (the payload layout of ribbon_mapping.h): every row gets r + 1
// columns (r without upper blocks), a block stores those ribbon_stored_columns gives it. The
// columns are shared out between up to `threads` threads.
void solve(const RibbonParams& p, const uint64_t* pivots, const uint32_t* results, uint64_t* words,
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

// Builds the filter of the hashes in `parts`, grouped (and de-duplicated) into out[0, input);
// `grouped` runs once the parts have been read for the last time. The hashes are replaced by
// their seeded hashes first (a bijection, so de-duplicating those de-duplicates the hashes), and
// grouped again by the new seed's hashes on every further attempt; with `restore` the distinct
// hashes are given back in out[0, distinct) at the end.
RibbonBuildResult build_from_parts(std::span<const std::span<uint64_t>> parts, uint64_t* out,
                                   uint64_t input, const RibbonBuildOptions& options, bool restore,
                                   const std::function<void()>& grouped) {
  if (options.max_attempts == 0)
    throw Error(ErrorCode::kInvalidArgument, "construction needs at least one attempt");
  RibbonParams p = ribbon_params_for(input, options.rate);  // checks the rate before any work
  RibbonBuildResult r;
  const unsigned threads = std::max(options.threads, 1u);
  // One arena serves grouping (input words of scratch) and then the pivots (2 words a row) and
  // their results (half a word a row).
  WordBuffer arena(std::max<uint64_t>(input, 2 * p.slots + (p.slots + 1) / 2));
  uint64_t seed = attempt_seed(0);
  for (const std::span<uint64_t> part : parts)
    map_in_place(part, threads, [seed](uint64_t h) { return detail::ribbon_seeded(h, seed); });
  std::vector<std::span<const uint64_t>> readonly(parts.begin(), parts.end());
  if (options.assume_distinct) group_by_top_bits(readonly, out, arena.data(), threads);
  const uint64_t distinct =
      options.assume_distinct ? input : group_unique(readonly, out, arena.data(), threads);
  grouped();
  const std::span<uint64_t> keys(out, distinct);
  r.duplicates = input - distinct;
  r.distinct = distinct;
  p = ribbon_params_for(r.distinct, options.rate);
  WordBuffer words(ribbon_payload_words(p));
  uint64_t* pivots = arena.data();
  auto* results = reinterpret_cast<uint32_t*>(pivots + 2 * p.slots);
  bool ok = p.slots == 0;
  for (uint32_t a = 0; !ok && a < options.max_attempts; ++a) {
    const double t0 = wall_now();
    if (a > 0) {
      const uint64_t next = attempt_seed(a);
      map_in_place(keys, threads, [seed, next](uint64_t k) {
        return detail::ribbon_seeded(detail::ribbon_unseeded(k, seed), next);
      });
      seed = next;
      group_by_top_bits(keys.data(), keys.size(), arena.data(), threads);
    }
    p.seed = seed;
    r.attempts = a + 1;
    std::memset(pivots, 0, 2 * p.slots * sizeof(uint64_t));
    ok = band(keys, p, pivots, results, threads, r.redundant);
    r.band_seconds += wall_now() - t0;
  }
  if (restore)
    map_in_place(keys, threads, [seed](uint64_t k) { return detail::ribbon_unseeded(k, seed); });
  if (!ok) {
    throw RibbonConstructionError(
        fmt::format("Ribbon filter construction failed after {} attempt{} ({} distinct keys)",
                    r.attempts, r.attempts == 1 ? "" : "s", r.distinct));
  }
  if (p.slots == 0) {
    r.attempts = 1;
    p.seed = seed;
  }
  const double t0 = wall_now();
  if (p.slots != 0) solve(p, pivots, results, words.data(), threads);
  r.solve_seconds = wall_now() - t0;
  r.filter = std::make_unique<RibbonFilter>(p, std::move(words), options.hash_seed);
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
