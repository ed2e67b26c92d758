// Filter statistics and false-positive measurement against the models of model.h. Bloom bits
// are evidence in their own right: the rate a random non-member passes is known exactly from the
// fill, and the fill inverts to a distinct-key count. Measurement probes with generated keys no
// input key can equal, and the verdict compares the model with a Wilson interval, which stays
// honest at the tiny rates (a handful of hits in a million probes) where the normal
// approximation fails.
#include "analysis/stats.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "base/popcnt_clones.h"
#include "bloomtool/error.h"
#include "filters/bloom.h"
#include "filters/filter_kinds.h"
#include "filters/key_rule.h"
#include "filters/partitioned_filter.h"
#include "keys/hash.h"
#include "model/index_model.h"
#include "model/model.h"
#include "model/ribbon_model.h"

namespace bloomtool {

namespace {

constexpr size_t kProbeBatch = 4096;
constexpr uint64_t kGolden = 0x9E3779B97F4A7C15ull;
// Up to this many hits the interval is exact (Poisson); Wilson's covers too little there.
constexpr uint64_t kExactIntervalMaxHits = 100;

void fill_probe_key(uint64_t base, uint64_t i, char* out) {
  out[0] = '\n';
  out[1] = static_cast<char>(0xFF);
  const uint64_t a = mix64(base + (2 * i + 1) * kGolden);
  const uint64_t b = mix64(base + (2 * i + 2) * kGolden);
  for (int j = 0; j < 8; ++j) {
    out[2 + j] = static_cast<char>(a >> (8 * j));
    out[10 + j] = static_cast<char>(b >> (8 * j));
  }
}

bool is_xor_kind(FilterKind kind) {
  return kind == FilterKind::kXor || kind == FilterKind::kBinaryFuse;
}

// A Ribbon header's parameters; kCorrupt when they are inconsistent (a loaded filter has passed
// the same check).
RibbonParams ribbon_header_params(const FilterHeader& header) {
  RibbonParams p;
  const std::string why =
      ribbon_params_from_file(header.variant, header.k, header.m, header.kind_params, p);
  if (!why.empty()) throw Error(ErrorCode::kCorrupt, "corrupt: " + why);
  return p;
}

// Mean and standard deviation of the set bits of n keys with k independent uniform positions each
// (the peers' schemes): a bit stays clear with a = (1 - 1/m)^(kn), two bits with b = (1 -
// 2/m)^(kn).
model::FillSpread textbook_fill_spread(uint64_t m, double n, uint32_t k) {
  const double md = static_cast<double>(m);
  const double a = std::exp(k * n * std::log1p(-1.0 / md));
  const double b = m > 1 ? std::exp(k * n * std::log1p(-2.0 / md)) : 0.0;
  const double var = md * a + md * (md - 1) * b - md * md * a * a;
  return {md * (1.0 - a), std::sqrt(std::max(0.0, var))};
}

}  // namespace

Interval wilson_interval(uint64_t hits, uint64_t trials, double z) {
  const double n = static_cast<double>(trials);
  const double phat = static_cast<double>(hits) / n;
  const double z2 = z * z;
  const double denom = 1.0 + z2 / n;
  const double center = (phat + z2 / (2.0 * n)) / denom;
  const double half = z * std::sqrt(phat * (1.0 - phat) / n + z2 / (4.0 * n * n)) / denom;
  Interval iv{std::max(0.0, center - half), std::min(1.0, center + half)};
  if (hits == 0) iv.low = 0.0;
  if (hits == trials) iv.high = 1.0;
  return iv;
}

// P(X <= x) for X ~ Poisson(lambda).
static double poisson_cdf(uint64_t x, double lambda) {
  double term = std::exp(-lambda), sum = term;
  for (uint64_t i = 1; i <= x; ++i) {
    term *= lambda / static_cast<double>(i);
    sum += term;
  }
  return sum;
}

// The lambda at which cdf(lambda) = target, for a cdf falling in lambda, by bisection.
template <typename Cdf>
static double solve_lambda(Cdf cdf, double target, double hi) {
  double lo = 0;
  while (cdf(hi) > target) hi *= 2;
  for (int it = 0; it < 200 && hi - lo > 1e-12 * hi; ++it) {
    const double mid = 0.5 * (lo + hi);
    (cdf(mid) > target ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

Interval rate_interval(uint64_t hits, uint64_t trials, double z) {
  if (hits > kExactIntervalMaxHits) return wilson_interval(hits, trials, z);
  // Garwood's exact Poisson interval, with the two-sided tail of the normal quantile z.
  const double alpha = std::erfc(z / std::sqrt(2.0));
  const double n = static_cast<double>(trials);
  const double up = solve_lambda([hits](double l) { return poisson_cdf(hits, l); }, alpha / 2,
                                 static_cast<double>(hits) + 10);
  double low = 0;
  if (hits > 0) {
    low = solve_lambda([hits](double l) { return poisson_cdf(hits - 1, l); }, 1 - alpha / 2,
                       static_cast<double>(hits) + 10);
  }
  return {std::min(1.0, low / n), std::min(1.0, up / n)};
}

FprMeasurement judge_fpr(uint64_t false_positives, uint64_t probes, double expected_fpr) {
  FprMeasurement m;
  m.probes = probes;
  m.false_positives = false_positives;
  m.rate = static_cast<double>(false_positives) / static_cast<double>(probes);
  m.ci95 = rate_interval(false_positives, probes, kZ95);
  m.ci999 = rate_interval(false_positives, probes, kZ999);
  m.expected_fpr = expected_fpr;
  m.consistent = m.ci999.contains(expected_fpr);
  return m;
}

std::string probe_key(uint64_t probe_seed, uint64_t i) {
  std::string key(kProbeKeyBytes, '\0');
  fill_probe_key(mix64(probe_seed), i, key.data());
  return key;
}

uint64_t count_present(const Filter& filter, std::span<const uint64_t> hashes) {
  std::array<uint8_t, kProbeBatch> found;
  uint64_t present = 0;
  for (size_t at = 0; at < hashes.size(); at += kProbeBatch) {
    const auto chunk = hashes.subspan(at, std::min(kProbeBatch, hashes.size() - at));
    filter.contains_batch(chunk, found.data());
    for (size_t i = 0; i < chunk.size(); ++i) present += found[i];
  }
  return present;
}

FprMeasurement measure_fpr(const Filter& filter, uint64_t hash_seed, uint64_t probes,
                           uint64_t probe_seed, double expected_fpr) {
  if (probes == 0) throw Error(ErrorCode::kInvalidArgument, "at least one probe is needed");
  const uint64_t base = mix64(probe_seed);
  uint64_t hits = 0;
  if (!filter.rule().takes_key_hash()) {
    // The peers' rules take positions from the key bytes: probe with the keys themselves.
    std::vector<char> text(kProbeBatch * kProbeKeyBytes);
    std::vector<std::string_view> keys(kProbeBatch);
    std::vector<uint8_t> found(kProbeBatch);
    for (uint64_t done = 0; done < probes;) {
      const size_t n = static_cast<size_t>(std::min<uint64_t>(kProbeBatch, probes - done));
      for (size_t j = 0; j < n; ++j) {
        fill_probe_key(base, done + j, &text[j * kProbeKeyBytes]);
        keys[j] = std::string_view(&text[j * kProbeKeyBytes], kProbeKeyBytes);
      }
      filter.contains_keys(std::span<const std::string_view>(keys.data(), n), found.data());
      for (size_t j = 0; j < n; ++j) hits += found[j];
      done += n;
    }
    return judge_fpr(hits, probes, expected_fpr);
  }
  std::vector<uint64_t> hashes(kProbeBatch);
  char key[kProbeKeyBytes];
  for (uint64_t done = 0; done < probes;) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(kProbeBatch, probes - done));
    for (size_t j = 0; j < n; ++j) {
      fill_probe_key(base, done + j, key);
      hashes[j] = hash_key(std::string_view(key, kProbeKeyBytes), hash_seed);
    }
    hits += count_present(filter, std::span<const uint64_t>(hashes.data(), n));
    done += n;
  }
  return judge_fpr(hits, probes, expected_fpr);
}

// A popcnt clone is picked at load time (popcnt_clones.h).
BLOOMTOOL_POPCNT_CLONES uint64_t count_set_bits(const uint64_t* w, size_t n) noexcept {
  uint64_t count = 0;
  for (size_t i = 0; i < n; ++i) count += static_cast<uint64_t>(__builtin_popcountll(w[i]));
  return count;
}

BloomFillCounter::BloomFillCounter(uint64_t m_bits, uint32_t k, BloomVariant variant,
                                   uint32_t hash_id)
    : m_(m_bits),
      k_(k),
      model_(bloom_model(hash_id, variant)),
      reach_(is_key_scheme(hash_id) ? scheme_reachable_bits(hash_id, m_bits) : m_bits) {
  if (model_ == BloomModel::kBlocked) {
    pass_.resize(model::kBlockBits + 1);
    for (size_t c = 0; c <= model::kBlockBits; ++c)
      pass_[c] = std::pow(static_cast<double>(c) / model::kBlockBits, static_cast<double>(k));
  } else if (model_ == BloomModel::kIndexScheme) {
    // In small filters the keys' own position patterns make random positions a poor guess (18%
    // low for 11 keys in 1024 bits, k = 3): integrate exactly where that is cheap.
    keep_words_ = model::exact_fill_affordable(m_bits, k);
  }
}

std::span<const uint64_t> BloomFillCounter::add(std::span<const uint64_t> words) {
  const uint64_t reach_words = (reach_ + 63) / 64;
  const uint64_t first = next_word_;
  next_word_ += words.size();
  const auto inside = static_cast<size_t>(
      first >= reach_words ? 0 : std::min<uint64_t>(words.size(), reach_words - first));
  const auto counted = words.first(inside);
  if (inside < words.size()) {
    outside_ += count_set_bits(words.data() + inside, words.size() - inside);
  }
  if (model_ == BloomModel::kBlocked) {
    constexpr uint64_t kWordsPerBlock = model::kBlockBits / 64;
    for (size_t b = 0; b + kWordsPerBlock <= counted.size(); b += kWordsPerBlock) {
      unsigned c = 0;
      for (size_t w = 0; w < kWordsPerBlock; ++w) c += std::popcount(counted[b + w]);
      set_bits_ += c;
      block_sum_ += pass_[c];
    }
    return counted;
  }
  set_bits_ += count_set_bits(counted.data(), counted.size());
  if (keep_words_) words_.insert(words_.end(), counted.begin(), counted.end());
  return counted;
}

BloomFill BloomFillCounter::finish() const {
  BloomFill out;
  out.set_bits = set_bits_;
  const double m = static_cast<double>(reach_);
  const double k = k_;
  const double x = static_cast<double>(out.set_bits);
  switch (model_) {
    case BloomModel::kBlocked:
      out.fpr = block_sum_ / (m / model::kBlockBits);
      out.distinct = model::blocked_fill_distinct(x, m, k);
      return out;
    case BloomModel::kTextbook:  // positions at random: (X/m)^k and -(m/k) ln(1 - X/m)
      out.fpr = model::bloom_fill_fpr(x, m, k_);
      out.distinct = model::bloom_fill_distinct(x, m, k_);
      return out;
    case BloomModel::kIndexScheme:
      break;
  }
  out.fpr = keep_words_ ? model::standard_exact_fill_fpr(words_, m_, k_)
                        : model::standard_scheme_fill_fpr(m_, k_, out.set_bits);
  if (out.set_bits == 0 || out.set_bits == m_) out.fpr = out.set_bits == 0 ? 0.0 : 1.0;
  out.distinct = model::bloom_fill_distinct(x, m, k);
  return out;
}

BloomFill bloom_fill(const BloomFilter& filter) {
  BloomFillCounter counter(filter.bits(), filter.k(), filter.variant(), filter.rule().hash_id);
  counter.add(filter.words());
  return counter.finish();
}

double model_fpr_for(const FilterHeader& header, double n) {
  // A partitioned file: the partitions' key-weighted mean, recorded in field 10 and checked
  // against the partition table when the file is loaded.
  if (header.partitions) return header.partitions->model_rate;
  for (const FilterKindEntry& kind : filter_kinds())
    if (kind.kind == header.kind) return kind.model_fpr(header, n);
  throw Error(ErrorCode::kUnsupported,
              fmt::format("unsupported: filter kind {}", static_cast<uint32_t>(header.kind)));
}

namespace {
FilterStats header_stats(const FilterHeader& header);
void add_bloom_fill(FilterStats& s, const FilterHeader& header, const BloomFill& fill);
void finish_stats(FilterStats& s, const FilterHeader& header);

constexpr size_t kFillWindowWords = size_t{1} << 14;  // 128 KiB: both counters read it in cache

// The regions' test, its spread taken at the distinct keys the fill implies.
void add_regions(FilterStats& s, const RegionFillCounter& regions) {
  s.regions = regions.finish(s.distinct_from_fill.value_or(0.0));
}
}  // namespace

namespace {

// The fill and the regions of a Bloom filter's words, fed by feed(add) calling add(words) a
// window at a time in order from the first word.
template <typename Feed>
void add_bloom_words(FilterStats& s, const FilterHeader& header, Feed&& feed) {
  const auto variant = static_cast<BloomVariant>(header.variant);
  BloomFillCounter counter(header.m, header.k, variant, header.hash_id);
  // The regions cover the bits the rule can reach, as the fill does.
  RegionFillCounter regions(counter.reachable_bits(), header.k,
                            bloom_model(header.hash_id, variant) == BloomModel::kBlocked);
  feed([&](std::span<const uint64_t> words) { regions.add(counter.add(words)); });
  s.unreachable_set_bits = counter.unreachable_set_bits();
  add_bloom_fill(s, header, counter.finish());
  add_regions(s, regions);
}

}  // namespace

namespace {

// The partition table at the start of a partitioned payload, summarised (the table was checked
// when the file was loaded; a stream is checked here).
PartitionFacts partition_facts(const FilterHeader& h, std::span<const uint64_t> table,
                               const std::string& path) {
  const std::vector<PartitionEntry> entries = read_partition_table(h, table, path);
  PartitionFacts f;
  f.count = entries.size();
  f.first = h.partitions->first;
  f.total = h.partitions->partitions();
  f.bits = h.partitions->bits;
  f.min_keys = f.min_bytes = UINT64_MAX;
  for (const PartitionEntry& e : entries) {
    f.min_keys = std::min(f.min_keys, e.keys);
    f.max_keys = std::max(f.max_keys, e.keys);
    f.min_bytes = std::min(f.min_bytes, e.word_count * 8);
    f.max_bytes = std::max(f.max_bytes, e.word_count * 8);
  }
  const double n = static_cast<double>(h.distinct_estimate);
  const double q = 1.0 / static_cast<double>(f.count);
  f.expected_keys = n * q;
  f.sd = std::sqrt(n * q * (1.0 - q));
  const double half = kZ1e6 * f.sd + 2.0;
  f.balanced = static_cast<double>(f.min_keys) >= f.expected_keys - half &&
               static_cast<double>(f.max_keys) <= f.expected_keys + half;
  return f;
}

uint64_t partition_table_words(const FilterHeader& h) {
  return uint64_t{h.partitions->count} * h.partitions->entry_words;
}

}  // namespace

FilterStats compute_stats(const FilterHeader& header, const Filter& filter) {
  FilterStats s = header_stats(header);
  if (header.partitions) {
    const std::span<const uint64_t> w = filter.words();
    s.partitions = partition_facts(
        header, w.first(std::min<uint64_t>(w.size(), partition_table_words(header))), "<filter>");
  }
  if (header.kind == FilterKind::kBloom) {
    const BloomFilter* bloom = filter.bloom();
    if (bloom == nullptr) {
      throw Error(ErrorCode::kInvalidArgument, "compute_stats: the filter is not a Bloom filter");
    }
    // One pass over the bits, a window at a time, for the fill and the regions alike.
    add_bloom_words(s, header, [&](auto&& add) {
      const auto words = bloom->words();
      for (size_t at = 0; at < words.size(); at += kFillWindowWords)
        add(words.subspan(at, std::min(kFillWindowWords, words.size() - at)));
    });
  }
  finish_stats(s, header);
  return s;
}

FilterStats compute_stats_streamed(const FilterHeader& header, const std::string& path) {
  FilterStats s = header_stats(header);
  if (header.kind == FilterKind::kBloom) {
    add_bloom_words(s, header, [&](auto&& add) {
      for_each_payload_chunk(path, header,
                             [&](uint64_t, std::span<const uint64_t> words) { add(words); });
    });
  } else {
    // A partitioned payload starts with its table: kept as it streams by.
    std::vector<uint64_t> table;
    const uint64_t table_words = header.partitions ? partition_table_words(header) : 0;
    for_each_payload_chunk(path, header, [&](uint64_t, std::span<const uint64_t> words) {
      const uint64_t take = std::min<uint64_t>(words.size(), table_words - table.size());
      table.insert(table.end(), words.begin(), words.begin() + static_cast<std::ptrdiff_t>(take));
    });
    if (header.partitions) s.partitions = partition_facts(header, table, path);
  }
  finish_stats(s, header);
  return s;
}

FilterStats compute_part_stats(const FilterHeader& header, std::span<const uint64_t> payload,
                               const std::string& path) {
  if (!header.partitions) {
    throw Error(ErrorCode::kInvalidArgument, path + ": not a part file (no partition table)");
  }
  if (payload.size() != header.payload_raw_bytes / 8) {
    throw Error(ErrorCode::kCorrupt, path + ": corrupt: a payload of " +
                                         std::to_string(payload.size() * 8) + " bytes, not " +
                                         std::to_string(header.payload_raw_bytes));
  }
  FilterStats s = header_stats(header);
  const auto table =
      payload.first(std::min<uint64_t>(partition_table_words(header), payload.size()));
  s.partitions = partition_facts(header, table, path);
  const std::vector<PartitionEntry> entries = read_partition_table(header, table, path);
  for (size_t i = 0; i < entries.size(); ++i) {
    // read_partition_table has checked that every partition lies within the payload.
    const PartitionEntry& e = entries[i];
    if (partition_checksum(payload.subspan(e.word_offset, e.word_count)) != e.checksum) {
      throw Error(ErrorCode::kCorrupt, path + ": corrupt: partition " +
                                           std::to_string(header.partitions->first + i) +
                                           " does not match its checksum");
    }
  }
  finish_stats(s, header);
  return s;
}

namespace {

FilterStats header_stats(const FilterHeader& header) {
  FilterStats s;
  s.distinct_keys = header.distinct_estimate;
  s.model_fpr = model_fpr_for(header, static_cast<double>(s.distinct_keys));
  return s;
}

void add_bloom_fill(FilterStats& s, const FilterHeader& header, const BloomFill& fill) {
  s.filter_bits = header.m;
  s.set_bits = fill.set_bits;
  const uint64_t reach =
      is_key_scheme(header.hash_id) ? scheme_reachable_bits(header.hash_id, header.m) : header.m;
  if (reach != header.m) s.reachable_bits = reach;
  if (is_key_scheme(header.hash_id) && scheme_breaks_model(header.hash_id, header.m)) {
    s.model_breaks = fmt::format(
        "dcso-fnv1 with a power-of-two m ({} bits) takes its positions from the low bits of "
        "wrapped products only, and passes far more non-members than the model and the fill say",
        header.m);
  }
  s.fill = static_cast<double>(fill.set_bits) / static_cast<double>(reach);
  if (std::isfinite(fill.distinct)) s.distinct_from_fill = fill.distinct;
  s.fill_fpr = fill.fpr;
  s.fill_check = check_fill(header, fill.set_bits, static_cast<double>(s.distinct_keys));
  s.below_min_size = header.variant == static_cast<uint32_t>(BloomVariant::kStandard) &&
                     !is_key_scheme(header.hash_id) &&
                     header.m < model::min_standard_bits(header.k);
}

void finish_stats(FilterStats& s, const FilterHeader& header) {
  const double n = static_cast<double>(s.distinct_keys);
  if (header.kind != FilterKind::kBloom) s.filter_bits = header_filter_bits(header);
  if (s.distinct_keys > 0) {
    s.bits_per_key = static_cast<double>(s.filter_bits) / n;
    if (s.model_fpr > 0.0) {
      s.lower_bound_bits = model::lower_bound_bits(n, s.model_fpr);
      if (*s.lower_bound_bits > 0.0)
        s.lower_bound_ratio = static_cast<double>(s.filter_bits) / *s.lower_bound_bits;
    }
  }
}

}  // namespace

uint64_t header_filter_bits(const FilterHeader& header) {
  if (header.partitions) return header.partitions->filter_bits;
  if (is_xor_kind(header.kind)) return header.m * header.k;
  if (header.kind == FilterKind::kRibbon) return ribbon_header_params(header).solution_bits();
  return header.m;
}

FillCheck check_fill(const FilterHeader& header, uint64_t set_bits, double n, double z) {
  const BloomModel bm = bloom_model(header.hash_id, static_cast<BloomVariant>(header.variant));
  const uint64_t m =
      bm == BloomModel::kTextbook ? scheme_reachable_bits(header.hash_id, header.m) : header.m;
  const model::FillSpread spread =
      bm == BloomModel::kTextbook  ? textbook_fill_spread(m, n, header.k)
      : bm == BloomModel::kBlocked ? model::blocked_fill_spread(header.m, n, header.k)
                                   : model::standard_fill_spread(header.m, n, header.k);
  FillCheck c;
  c.expected_set_bits = spread.mean;
  c.sd = spread.sd;
  // Two bits of slack: the count is a whole number and, for a handful of keys (where a lost bit
  // or two is a rare but not a 0.1% event), far from normal.
  const double half = z * spread.sd + 2.0;
  c.interval = {std::max(0.0, spread.mean - half),
                std::min(static_cast<double>(m), spread.mean + half)};
  c.consistent = c.interval.contains(static_cast<double>(set_bits));
  return c;
}

std::vector<std::string> header_count_problems(const FilterHeader& h, const FilterStats& s) {
  std::vector<std::string> problems;
  // DCSO's N, kept as keys added, counts only the adds that set a new bit: fewer than the
  // distinct keys whenever a key's bits were all set already.
  if (h.distinct_estimate > h.keys_added && h.hash_id != kHashDcsoFnv1) {
    problems.push_back(fmt::format("{} distinct keys recorded but only {} keys added",
                                   h.distinct_estimate, h.keys_added));
  }
  if (s.unreachable_set_bits != 0 && s.reachable_bits) {
    problems.push_back(fmt::format("{} bits set at or above bit {}, where {} never sets one",
                                   s.unreachable_set_bits, *s.reachable_bits,
                                   hash_scheme_name(h.hash_id)));
  }
  if (!s.set_bits) return problems;
  const uint64_t x = *s.set_bits;
  if ((x == 0) != (h.keys_added == 0)) {
    problems.push_back(fmt::format("{} keys added but {} bits set", h.keys_added, x));
  } else if (h.hash_id != kHashGuavaMitz64 && h.hash_id != kHashGuavaMitz32 &&
             h.keys_added <= UINT64_MAX / h.k && x > h.keys_added * h.k) {
    // (Guava records no count: its keys added is the fill's own estimate, nothing to check.)
    problems.push_back(
        fmt::format("{} bits set, more than k={} per key for {} keys", x, h.k, h.keys_added));
  }
  if (s.distinct_from_fill) {
    // Linear counting: the estimate's standard deviation is about sqrt(m (e^t - t - 1)) / k with
    // t = kn/m. The blocked layout's extra variance is covered by the 3% floor.
    const double n = static_cast<double>(h.distinct_estimate);
    const double m = static_cast<double>(s.reachable_bits.value_or(h.m));
    const double t = h.k * n / m;
    const double sd = std::sqrt(m * std::max(0.0, std::expm1(t) - t)) / h.k;
    const double tolerance = std::max({10.0 * sd, 0.03 * n, 10.0});
    if (std::fabs(*s.distinct_from_fill - n) > tolerance) {
      problems.push_back(fmt::format("{} distinct keys recorded but the fill implies {:.0f}",
                                     h.distinct_estimate, *s.distinct_from_fill));
    }
  }
  if (h.kind == FilterKind::kBloom) {
    const FillCheck c = check_fill(h, x, static_cast<double>(h.distinct_estimate), kZ1e6);
    if (!c.consistent) {
      problems.push_back(fmt::format(
          "{} bits set, outside {:.0f} to {:.0f}, where {} distinct keys would put the count", x,
          std::ceil(c.interval.low), std::floor(c.interval.high), h.distinct_estimate));
    }
  }
  return problems;
}

std::string describe_measurement(const FprMeasurement& m, const char* what) {
  return fmt::format("{:.4g} ({} of {} probes; 95% CI {:.4g} to {:.4g}); {} {:.4g} {}", m.rate,
                     m.false_positives, m.probes, m.ci95.low, m.ci95.high, what, m.expected_fpr,
                     m.consistent
                         ? "is consistent (inside the 99.9% interval)"
                         : fmt::format("deviates (outside the 99.9% interval {:.4g} to {:.4g})",
                                       m.ci999.low, m.ci999.high));
}

}  // namespace bloomtool
