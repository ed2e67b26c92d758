// The standard layout's false-positive rate under its real index scheme (bloom.cpp): position i
// of a key is floor(u + i s) mod m, with u uniform in [0, 1) and s = m b / 2^64 uniform in
// [0, m) (the double-hashing step; the enhanced increments add less than 2^-50 and are ignored).
// For a fixed s the positions change only where u crosses 1 - frac(i s), and the pattern of
// changes only where s crosses a fraction j / d with d < k. Between two such fractions every
// quantity here is linear in s, so evaluating at the segment's midpoint and weighting by its
// length integrates exactly (the segments are those between the Farey fractions of order k - 1
// in each unit cell of s). Positions coincide only where d s lies within 1 of a multiple of m,
// so the distinct-count distribution needs only the segments there: about k^3 of them.
// A filter's exact rate splits s = t + phi and u's integer shift c off the fractional parts:
// position i is c + i t + r_i with r_i = floor(u + i phi), so it is the weight of each pattern r
// (from the Farey segments of phi alone) times the share of (c, t) with every c + i t + r_i set.
#include "model/index_model.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <numeric>

namespace bloomtool::model {

namespace {

__extension__ using U128 = unsigned __int128;
constexpr U128 kOne = U128{1} << 64;

// Farey fractions of order n in [0, 1], ascending, in 64.64 fixed point.
std::vector<U128> farey(uint32_t n) {
  std::vector<U128> out;
  uint64_t a = 0, b = 1, c = 1, d = n;
  out.push_back(0);
  while (c <= n) {
    const uint64_t q = (n + b) / d;
    const uint64_t e = q * c - a, f = q * d - b;
    a = c;
    b = d;
    c = e;
    d = f;
    out.push_back((U128{a} << 64) / b);
  }
  return out;
}

// The k positions of a key at step s (64.64), with the u at which each moves up by one.
struct Positions {
  uint64_t pos[64];
  U128 thresh[64];  // kOne: never within [0, 1)
  uint32_t order[64];
};

void place(U128 s, uint32_t k, uint64_t m, Positions& p) {
  for (uint32_t i = 0; i < k; ++i) {
    const U128 t = s * i;
    p.pos[i] = static_cast<uint64_t>((t >> 64) % m);
    const uint64_t frac = static_cast<uint64_t>(t);
    p.thresh[i] = frac == 0 ? kOne : kOne - frac;
    p.order[i] = i;
  }
  std::sort(p.order, p.order + k,
            [&p](uint32_t x, uint32_t y) { return p.thresh[x] < p.thresh[y]; });
}

double to_unit(U128 x) {
  return std::ldexp(static_cast<double>(x), -64);
}

// Occurrence counts of at most 128 distinct positions (a key's k before and after moving).
class SmallCounter {
 public:
  void clear() {
    for (uint32_t s : used_) full_[s] = false;
    used_.clear();
  }
  // Adds delta to the count of pos and returns the new count.
  int add(uint64_t pos, int delta) {
    uint32_t s = static_cast<uint32_t>((pos * 0x9E3779B97F4A7C15ull) >> 56);
    while (full_[s] && key_[s] != pos) s = (s + 1) & 255;
    if (!full_[s]) {
      full_[s] = true;
      key_[s] = pos;
      count_[s] = 0;
      used_.push_back(s);
    }
    count_[s] += delta;
    return count_[s];
  }

 private:
  bool full_[256] = {};
  uint64_t key_[256];
  int count_[256];
  std::vector<uint32_t> used_;
};

// Adds to dist[d] the measure of u in [0, 1) with d distinct positions at step s, times w.
void distinct_at(U128 s, uint32_t k, uint64_t m, double w, Positions& p, SmallCounter& c,
                 std::vector<double>& dist) {
  place(s, k, m, p);
  c.clear();
  int d = 0;
  for (uint32_t i = 0; i < k; ++i) d += c.add(p.pos[i], 1) == 1;
  U128 at = 0;
  for (uint32_t j = 0; j <= k; ++j) {
    const U128 next = j < k ? p.thresh[p.order[j]] : kOne;
    if (next > at) dist[d] += w * to_unit(next - at);
    at = next;
    if (j == k || next >= kOne) break;
    const uint32_t i = p.order[j];
    d -= c.add(p.pos[i], -1) == 0;
    p.pos[i] = p.pos[i] + 1 == m ? 0 : p.pos[i] + 1;
    d += c.add(p.pos[i], 1) == 1;
  }
}

// The set bits of an m-bit array as a bitset that can be read at any rotation.
class Rotations {
 public:
  Rotations(std::span<const uint64_t> words, uint64_t m) : m_(m), nw_((m + 63) / 64) {
    // Bits 0 .. 2m + 63 of the array repeated, so a 64-bit window starting below m never wraps.
    bits_.assign((2 * m + 128) / 64 + 2, 0);
    for (uint64_t b = 0; b < 2 * m + 64; ++b) {
      const uint64_t src = b % m;
      if ((words[src >> 6] >> (src & 63)) & 1) bits_[b >> 6] |= uint64_t{1} << (b & 63);
    }
  }
  uint64_t words() const noexcept { return nw_; }
  // Bits c .. c + 63 of the array rotated left by a (bit c is array bit (c + a) mod m); word j
  // covers c = 64 j.
  uint64_t window(uint64_t a, uint64_t j) const noexcept {
    const uint64_t at = a + 64 * j;
    const uint64_t w = at >> 6, sh = at & 63;
    return sh == 0 ? bits_[w] : (bits_[w] >> sh) | (bits_[w + 1] << (64 - sh));
  }
  uint64_t last_mask() const noexcept {
    return m_ % 64 == 0 ? ~uint64_t{0} : (uint64_t{1} << (m_ % 64)) - 1;
  }

 private:
  uint64_t m_, nw_;
  std::vector<uint64_t> bits_;
};

// Distinct patterns r (r_i = floor(u + i phi)) with their probability over (u, phi).
std::vector<std::pair<std::vector<uint32_t>, double>> patterns(uint32_t k) {
  const std::vector<U128> f = farey(std::max<uint32_t>(1, k - 1));
  std::vector<std::pair<std::vector<uint32_t>, double>> out;
  Positions p;
  const uint64_t big = uint64_t{1} << 62;  // m large enough that no position wraps
  for (size_t i = 0; i + 1 < f.size(); ++i) {
    const double w = to_unit(f[i + 1] - f[i]);
    place(f[i] + (f[i + 1] - f[i]) / 2, k, big, p);
    U128 at = 0;
    for (uint32_t j = 0; j <= k; ++j) {
      const U128 next = j < k ? p.thresh[p.order[j]] : kOne;
      if (next > at)
        out.emplace_back(std::vector<uint32_t>(p.pos, p.pos + k), w * to_unit(next - at));
      at = next;
      if (j == k || next >= kOne) break;
      ++p.pos[p.order[j]];
    }
  }
  std::sort(out.begin(), out.end());
  std::vector<std::pair<std::vector<uint32_t>, double>> merged;
  for (auto& e : out) {
    if (!merged.empty() && merged.back().first == e.first)
      merged.back().second += e.second;
    else
      merged.push_back(std::move(e));
  }
  return merged;
}

}  // namespace

bool exact_fill_affordable(uint64_t m, uint32_t k) noexcept {
  // About k^3 / 10 patterns, each m^2 / 64 word operations (a few when bits are dense).
  const double md = static_cast<double>(m);
  return (0.1 * k * k * k + 2) * md * md / 64 * 4 <= 5e7;  // about 0.1 s
}

double standard_exact_fill_fpr(std::span<const uint64_t> words, uint64_t m, uint32_t k) {
  const Rotations rot(words, m);
  const uint64_t nw = rot.words();
  std::vector<uint64_t> shift(k);
  double sum = 0;
  for (const auto& [r, weight] : patterns(k)) {
    uint64_t count = 0;
    for (uint64_t t = 0; t < m; ++t) {
      for (uint32_t i = 0; i < k; ++i) shift[i] = (i * t + r[i]) % m;
      for (uint64_t j = 0; j < nw; ++j) {
        uint64_t acc = j + 1 == nw ? rot.last_mask() : ~uint64_t{0};
        for (uint32_t i = 0; i < k && acc != 0; ++i) acc &= rot.window(shift[i], j);
        count += static_cast<uint64_t>(std::popcount(acc));
      }
    }
    sum += weight * static_cast<double>(count);
  }
  const double md = static_cast<double>(m);
  return sum / (md * md);
}

std::vector<double> standard_distinct_distribution(uint64_t m, uint32_t k) {
  std::vector<double> dist(k + 1, 0.0);
  if (k <= 1 || m == 0) {
    dist[std::min<uint32_t>(k, 1)] = 1.0;
    return dist;
  }
  const std::vector<U128> f = farey(k - 1);
  const uint64_t segs = f.size() - 1;
  // The (cell, segment) pairs where some d s is within 1 of a multiple of m.
  std::vector<std::pair<uint64_t, uint64_t>> todo;
  const U128 top = U128{m} << 64;
  for (uint64_t d = 1; d < k; ++d) {
    const U128 half = kOne / d + 1;
    for (uint64_t j = 0; j <= d; ++j) {
      const U128 centre = (U128{j * m} << 64) / d;
      const U128 lo = centre > half ? centre - half : 0;
      const U128 hi = std::min(top, centre + half);
      if (lo >= hi) continue;
      for (uint64_t t = static_cast<uint64_t>(lo >> 64); t < m && (U128{t} << 64) < hi; ++t) {
        const U128 base = U128{t} << 64;
        const U128 a = lo > base ? lo - base : 0;
        const U128 b = std::min(kOne, hi - base);
        // Segments [f[i], f[i+1]] that overlap [a, b].
        uint64_t first = static_cast<uint64_t>(std::upper_bound(f.begin(), f.end(), a) - f.begin());
        first = first == 0 ? 0 : first - 1;
        for (uint64_t i = first; i < segs && f[i] < b; ++i) todo.emplace_back(t, i);
      }
    }
  }
  std::sort(todo.begin(), todo.end());
  todo.erase(std::unique(todo.begin(), todo.end()), todo.end());
  Positions p;
  SmallCounter c;
  double covered = 0;
  for (const auto& [t, i] : todo) {
    const double w = to_unit(f[i + 1] - f[i]);
    covered += w;
    const U128 s = (U128{t} << 64) + f[i] + (f[i + 1] - f[i]) / 2;
    distinct_at(s, k, m, w, p, c, dist);
  }
  const double total = static_cast<double>(m);
  for (double& x : dist) x /= total;
  // Everywhere else all k positions differ.
  dist[k] += (total - covered) / total;
  return dist;
}

double standard_scheme_fpr(uint64_t m, double n, uint32_t k) {
  if (n <= 0) return 0.0;
  const std::vector<double> dist = standard_distinct_distribution(m, k);
  double mean_d = 0;
  for (uint32_t d = 0; d <= k; ++d) mean_d += d * dist[d];
  const double q = -std::expm1(-n * mean_d / static_cast<double>(m));
  if (q <= 0) return 0.0;
  double p = 0;
  for (uint32_t d = 1; d <= k; ++d)
    if (dist[d] > 0) p += dist[d] * std::exp(d * std::log(q));
  return p;
}

double standard_scheme_fill_fpr(uint64_t m, uint32_t k, uint64_t x) {
  const std::vector<double> dist = standard_distinct_distribution(m, k);
  double p = 0, prod = 1, total = 0;
  const double md = static_cast<double>(m), xd = static_cast<double>(x);
  for (const double w : dist) total += w;
  for (uint32_t d = 1; d <= k; ++d) {
    // prod_{j<d} (X - j)/(m - j): d distinct random positions all set.
    prod = d - 1 < x ? prod * (xd - (d - 1)) / (md - (d - 1)) : 0.0;
    p += dist[d] * prod;
  }
  return p / total;  // exactly 1 when every bit is set
}

FillSpread standard_fill_spread(uint64_t m, double n, uint32_t k) {
  const std::vector<double> dist = standard_distinct_distribution(m, k);
  const double md = static_cast<double>(m);
  // One key leaves a given bit clear with a1, two given bits clear with b1 (its d bits a random
  // d-subset).
  double a1 = 0, b1 = 0;
  for (uint32_t d = 0; d <= k; ++d) {
    a1 += dist[d] * (1.0 - d / md);
    if (m > 1) b1 += dist[d] * std::max(0.0, (md - d) * (md - d - 1) / (md * (md - 1)));
  }
  const double a = std::pow(a1, n), b = std::pow(b1, n);
  const double var = md * a + md * (md - 1) * b - md * md * a * a;
  return {md * (1.0 - a), std::sqrt(std::max(0.0, var))};
}

FillSpread blocked_fill_spread(uint64_t m, double n, uint32_t k) {
  constexpr double kB = 512;
  const double blocks = std::max(1.0, std::floor(static_cast<double>(m) / kB));
  const double q = std::pow(1.0 - 1.0 / kB, k);  // a given bit untouched by one key of its block
  const double r = std::pow(1.0 - 2.0 / kB, k);  // two given bits untouched
  // Mean and variance of a block's set bits given i keys in it.
  const auto given = [&](double i, double& mean, double& var) {
    const double a = std::pow(q, i), b = std::pow(r, i);
    mean = kB * (1.0 - a);
    var = std::max(0.0, kB * a + kB * (kB - 1) * b - kB * kB * a * a);
  };
  double mean_b = 0, var_b = 0;
  if (blocks == 1.0) {
    given(n, mean_b, var_b);
  } else {
    // Keys per block ~ Poisson(n / blocks); the blocks' small negative covariance is ignored,
    // which errs toward a wider interval.
    const double lambda = n / blocks;
    const double spread = 12.0 * std::sqrt(lambda) + 24.0;
    double e1 = 0, e2 = 0, ev = 0;
    for (double i = std::max(0.0, std::floor(lambda - spread)); i <= std::ceil(lambda + spread);
         i += 1.0) {
      const double w = lambda > 0 ? std::exp(i * std::log(lambda) - lambda - std::lgamma(i + 1.0))
                                  : (i == 0 ? 1.0 : 0.0);
      double mu, v;
      given(i, mu, v);
      e1 += w * mu;
      e2 += w * mu * mu;
      ev += w * v;
    }
    mean_b = e1;
    var_b = ev + std::max(0.0, e2 - e1 * e1);
  }
  return {blocks * mean_b, std::sqrt(blocks * var_b)};
}

}  // namespace bloomtool::model
