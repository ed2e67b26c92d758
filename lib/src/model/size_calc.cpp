// The size calculator behind `bloomtool size`. Each row uses the model its filter is built with:
// the closed forms p = (1 - e^(-kn/m))^k, m = -n ln p / (ln 2)^2 and n log2(1/p), the blocked
// model searched numerically (it has no closed-form inverse), and the xor / binary fuse
// geometries of model.h. Sizes are checked in floating point against 2^64 bits before any
// conversion to an integer, so absurd requests are refused instead of wrapping.
#include "model/size_calc.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "bloomtool/error.h"
#include "model/index_model.h"
#include "model/model.h"
#include "model/ribbon_model.h"

namespace bloomtool {

namespace {

constexpr double kTwo64 = 18446744073709551616.0;
constexpr uint64_t kMaxBlocks = (UINT64_MAX / model::kBlockBits);

[[noreturn]] void invalid(const std::string& message) {
  throw Error(ErrorCode::kInvalidArgument, message);
}

[[noreturn]] void too_large(const std::string& what) {
  invalid(fmt::format("{} would need 2^64 bits or more; that is beyond any filter", what));
}

std::string n_at_p(uint64_t n, double p, const char* filter) {
  return fmt::format("{} keys at p={:.6g} in a {} filter", n, p, filter);
}

SizeRow make_row(const char* name, const char* title, uint64_t keys, uint64_t bits, double fpr) {
  SizeRow r;
  r.name = name;
  r.title = title;
  r.keys = keys;
  r.bits = bits;
  r.fpr = fpr;
  if (keys > 0) r.bits_per_key = static_cast<double>(bits) / static_cast<double>(keys);
  r.above_build_limit = bits > model::kMaxBits;
  return r;
}

struct XorKind {
  const char* name;
  const char* title;
  bool fuse;
  uint32_t f;
};
constexpr XorKind kXorKinds[] = {{"xor8", "xor 8-bit", false, 8},
                                 {"xor16", "xor 16-bit", false, 16},
                                 {"fuse8", "binary fuse 8-bit", true, 8},
                                 {"fuse16", "binary fuse 16-bit", true, 16}};

uint64_t xor_bits(const XorKind& x, uint64_t n) {
  const uint64_t slots = x.fuse ? model::fuse_geometry(n).array_length : model::xor_slots(n);
  return slots * x.f;
}

// Ribbon rows: the geometry build-static sizes with, for any p in [2^-30, 1/2] (a larger p is
// served by the filter for 1/2). Empty for smaller p, or when the solution would reach 2^63 bits.
std::optional<RibbonParams> ribbon_row_geometry(uint64_t n, double p) {
  p = std::min(p, kRibbonMaxRate);
  if (p < kRibbonMinRate) return std::nullopt;
  if (static_cast<double>(n) * (std::floor(-std::log2(p)) + 1) * 1.2 > 0x1p63) return std::nullopt;
  return ribbon_geometry(n, p);
}

void add_ribbon_row(std::vector<SizeRow>& rows, uint64_t n, const std::optional<RibbonParams>& g) {
  if (!g) {
    rows.push_back(make_row("ribbon", "Ribbon", n, 0, 0.0));
    rows.back().bits_per_key.reset();
    rows.back().unreachable = true;
    return;
  }
  rows.push_back(make_row("ribbon", "Ribbon", n, g->solution_bits(), ribbon_model_rate(*g)));
}

// Largest n in [0, hi] with ok(n), for a predicate that holds up to some n and fails after it.
uint64_t largest_ok(uint64_t hi, const std::function<bool(uint64_t)>& ok) {
  uint64_t lo = 0;  // ok(0) is assumed
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo + 1) / 2;
    if (ok(mid))
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

uint64_t round_up_to_blocks(uint64_t m) {
  if (m > kMaxBlocks * model::kBlockBits)
    too_large(fmt::format("m = {} rounded up to whole 512-bit blocks", m));
  return (m + model::kBlockBits - 1) / model::kBlockBits * model::kBlockBits;
}

uint32_t blocked_k(double m, double n, const SizeQuery& q) {
  return q.k ? *q.k : model::blocked_optimal_k(m, n);
}

std::vector<SizeRow> from_n_p(uint64_t n, double p, const SizeQuery& q) {
  const double nd = static_cast<double>(n);
  std::vector<SizeRow> rows;

  const double m_std = q.k ? -static_cast<double>(*q.k) * nd / std::log1p(-std::pow(p, 1.0 / *q.k))
                           : model::bloom_optimal_bits(nd, p);
  if (!(std::ceil(m_std) < kTwo64)) too_large(n_at_p(n, p, "standard Bloom"));
  const model::BloomSize s = q.k ? model::BloomSize{model::standard_bits_for_k(n, p, *q.k), *q.k}
                                 : model::standard_size(n, p);
  if (s.m_bits == UINT64_MAX) {
    // The index scheme's floor (keys whose positions coincide) is above p at any size.
    rows.push_back(make_row("standard", "standard Bloom", n, 0, 0.0));
    rows.back().bits_per_key.reset();
    rows.back().unreachable = true;
  } else {
    rows.push_back(make_row("standard", "standard Bloom", n, s.m_bits,
                            model::standard_scheme_fpr(s.m_bits, nd, s.k)));
    rows.back().k = s.k;
  }

  // The blocked model cannot reach every p (k bits in 512 have a floor): that row says so and the
  // others still stand.
  const BlockedSize b = blocked_size_unbounded(n, p, q.k.value_or(0));
  if (b.m_bits == 0) {
    rows.push_back(make_row("blocked", "blocked Bloom", n, 0, 0.0));
    rows.back().bits_per_key.reset();
    rows.back().unreachable = true;
  } else {
    rows.push_back(make_row("blocked", "blocked Bloom", n, b.m_bits,
                            model::blocked_fpr(static_cast<double>(b.m_bits), nd, b.k)));
    rows.back().k = b.k;
  }

  for (const XorKind& x : kXorKinds) {
    rows.push_back(make_row(x.name, x.title, n, xor_bits(x, n), model::xor_fpr(x.f)));
    rows.back().fingerprint_bits = x.f;
    rows.back().meets_p = model::xor_fpr(x.f) <= p;
  }

  add_ribbon_row(rows, n, ribbon_row_geometry(n, p));

  const double lb = std::ceil(model::lower_bound_bits(nd, p));
  if (!(lb < kTwo64)) too_large(n_at_p(n, p, "lower-bound"));
  rows.push_back(make_row("lower_bound", "lower bound", n, static_cast<uint64_t>(lb), p));
  rows.back().bits_per_key = -std::log2(p);
  return rows;
}

std::vector<SizeRow> from_n_m(uint64_t n, uint64_t m, const SizeQuery& q) {
  const double nd = static_cast<double>(n);
  const double md = static_cast<double>(m);
  std::vector<SizeRow> rows;

  const uint32_t k = q.k ? *q.k : model::bloom_optimal_k(md, nd);
  rows.push_back(
      make_row("standard", "standard Bloom", n, m, model::standard_scheme_fpr(m, nd, k)));
  rows.back().k = k;

  const uint64_t mb = round_up_to_blocks(m);
  const uint32_t kb = blocked_k(static_cast<double>(mb), nd, q);
  rows.push_back(make_row("blocked", "blocked Bloom", n, mb,
                          model::blocked_fpr(static_cast<double>(mb), nd, kb)));
  rows.back().k = kb;

  for (const XorKind& x : kXorKinds) {
    rows.push_back(make_row(x.name, x.title, n, xor_bits(x, n), model::xor_fpr(x.f)));
    rows.back().fingerprint_bits = x.f;
  }

  // Ribbon: the smallest rate (a whole 64th of a bit of log2(1/p) at a time) that fits in m.
  std::optional<RibbonParams> best;
  for (int step = 64; step <= 30 * 64; ++step) {
    const auto g = ribbon_row_geometry(n, std::exp2(-step / 64.0));
    if (!g || g->solution_bits() > m) break;
    best = g;
  }
  add_ribbon_row(rows, n, best);

  rows.push_back(make_row("lower_bound", "lower bound", n, m, std::exp2(-md / nd)));
  return rows;
}

std::vector<SizeRow> from_p_m(double p, uint64_t m, const SizeQuery& q) {
  const double md = static_cast<double>(m);
  std::vector<SizeRow> rows;
  const auto capacity = [](double n, const char* what) {
    if (!(n < static_cast<double>(kMaxSizeKeys)))
      invalid(fmt::format("{}: the capacity would exceed 2^59 keys", what));
    return static_cast<uint64_t>(std::floor(n));
  };

  const double log2_inv_p = -std::log2(p);
  const uint64_t n_lb = capacity(md / log2_inv_p, "lower bound");
  if (n_lb == 0) {
    throw FieldError("m", fmt::format("{} bits cannot hold a single key at p={} (that needs "
                                      "{:.6g} bits)",
                                      m, p, log2_inv_p));
  }

  const double ln2 = std::log(2.0);
  const uint64_t n_std = capacity(
      q.k ? -md * std::log1p(-std::pow(p, 1.0 / *q.k)) / *q.k : md * ln2 * ln2 / -std::log(p),
      "standard Bloom");
  const uint32_t k_std = q.k ? *q.k : model::bloom_optimal_k(md, static_cast<double>(n_std));
  rows.push_back(make_row("standard", "standard Bloom", n_std, m,
                          model::standard_scheme_fpr(m, static_cast<double>(n_std), k_std)));
  rows.back().k = k_std;

  const uint64_t mb = round_up_to_blocks(m);
  const double mbd = static_cast<double>(mb);
  const auto blocked_ok = [&](uint64_t n) {
    const double nd = static_cast<double>(n);
    return model::blocked_fpr(mbd, nd, blocked_k(mbd, nd, q)) <= p;
  };
  uint64_t hi = std::max<uint64_t>(n_std, 1);
  while (blocked_ok(hi) && hi < kMaxSizeKeys) hi = std::min(kMaxSizeKeys, hi * 2);
  const uint64_t n_blk = largest_ok(hi, blocked_ok);
  const uint32_t k_blk = n_blk ? blocked_k(mbd, static_cast<double>(n_blk), q) : q.k.value_or(1);
  rows.push_back(make_row("blocked", "blocked Bloom", n_blk, mb,
                          model::blocked_fpr(mbd, static_cast<double>(n_blk), k_blk)));
  rows.back().k = k_blk;

  for (const XorKind& x : kXorKinds) {
    // Below 2^59 keys the 16-bit geometries stay under 2^64 bits, so xor_bits cannot wrap.
    const uint64_t hi = std::min<uint64_t>(m / x.f, kMaxSizeKeys);
    const uint64_t n = largest_ok(hi, [&](uint64_t n) { return xor_bits(x, n) <= m; });
    rows.push_back(make_row(x.name, x.title, n, xor_bits(x, n), model::xor_fpr(x.f)));
    rows.back().fingerprint_bits = x.f;
    rows.back().meets_p = model::xor_fpr(x.f) <= p;
  }

  if (ribbon_row_geometry(1, p)) {
    const uint64_t n = largest_ok(std::min<uint64_t>(m, kMaxSizeKeys), [&](uint64_t n) {
      const auto g = ribbon_row_geometry(n, p);
      return g && g->solution_bits() <= m;
    });
    add_ribbon_row(rows, n, ribbon_row_geometry(n, p));
  } else {
    add_ribbon_row(rows, 0, std::nullopt);
  }

  rows.push_back(make_row("lower_bound", "lower bound", n_lb, m, p));
  rows.back().bits_per_key = log2_inv_p;
  return rows;
}

}  // namespace

BlockedSize blocked_size_unbounded(uint64_t n, double p, uint32_t k_fixed) {
  const double nd = static_cast<double>(n);
  const auto fpr = [&](uint64_t blocks, uint32_t k) {
    return model::blocked_fpr(static_cast<double>(blocks) * model::kBlockBits, nd, k);
  };
  BlockedSize best{0, 0};
  const uint32_t k_lo = k_fixed ? k_fixed : 1, k_hi = k_fixed ? k_fixed : 32;
  const double start = std::ceil(4.0 * model::bloom_optimal_bits(nd, p) / model::kBlockBits) + 2;
  for (uint32_t k = k_lo; k <= k_hi; ++k) {
    uint64_t hi = start < static_cast<double>(kMaxBlocks)
                      ? std::max<uint64_t>(2, static_cast<uint64_t>(start))
                      : kMaxBlocks;
    while (fpr(hi, k) > p && hi < kMaxBlocks) hi = hi > kMaxBlocks / 2 ? kMaxBlocks : hi * 2;
    if (fpr(hi, k) > p) continue;
    uint64_t lo = 1;
    while (lo < hi) {
      const uint64_t mid = lo + (hi - lo) / 2;
      if (fpr(mid, k) <= p)
        hi = mid;
      else
        lo = mid + 1;
    }
    const uint64_t bits = lo * model::kBlockBits;
    if (best.m_bits == 0 || bits < best.m_bits) best = {bits, k};
  }
  return best;
}

std::vector<SizeRow> size_table(const SizeQuery& q) {
  const int given = int{q.n.has_value()} + int{q.p.has_value()} + int{q.m_bits.has_value()};
  if (given != 2) invalid("give exactly two of n, p and m");
  if (q.n && *q.n == 0) throw FieldError("n", "must be at least 1");
  if (q.n && *q.n > kMaxSizeKeys)
    throw FieldError("n", fmt::format("{} is more than 2^59 keys, the calculator's limit", *q.n));
  if (q.p && !(*q.p > 0.0 && *q.p < 1.0)) throw FieldError("p", "must be strictly between 0 and 1");
  if (q.m_bits && *q.m_bits == 0) throw FieldError("m", "must be at least 1 bit");
  if (q.k && (*q.k == 0 || *q.k > model::kMaxK)) throw FieldError("k", "must be between 1 and 64");
  if (!q.m_bits) return from_n_p(*q.n, *q.p, q);
  if (!q.p) return from_n_m(*q.n, *q.m_bits, q);
  return from_p_m(*q.p, *q.m_bits, q);
}

}  // namespace bloomtool
