// Bloom filter construction from a key stream. Streaming plans size the filter first and insert
// every batch as it is hashed; exact plans keep one 64-bit hash per key, sort away the repeats,
// and size the filter for the distinct count. Either way the bits do not depend on the thread
// count or the order batches arrive in.
#include "filters/bloom_build.h"

#include "model/index_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "filters/parallel_insert.h"
#include "keys/hash_sort.h"

namespace bloomtool {

model::BloomSize bloom_size_for(const BloomPlan& plan, uint64_t n) {
  const uint64_t nn = std::max<uint64_t>(n, 1);
  if (plan.bits) {
    const uint64_t m = BloomFilter::effective_bits(*plan.bits, plan.variant);
    if (plan.hashes) return {m, *plan.hashes};
    const uint32_t k =
        plan.variant == BloomVariant::kStandard
            ? model::bloom_optimal_k(static_cast<double>(m), static_cast<double>(nn))
            : model::blocked_optimal_k(static_cast<double>(m), static_cast<double>(nn));
    return {m, k};
  }
  const double p = plan.fpr.value_or(0.01);
  model::BloomSize s;
  if (plan.variant == BloomVariant::kBlocked512) {
    s = model::blocked_size(nn, p, plan.hashes.value_or(0));
  } else if (plan.hashes) {
    s = {model::standard_bits_for_k(nn, p, *plan.hashes), *plan.hashes};
  } else {
    s = model::standard_size(nn, p);
  }
  if (s.m_bits > model::kMaxBits) {
    throw Error(ErrorCode::kInvalidArgument,
                fmt::format("{} keys at p={} need more than 2^40 bits", nn, p));
  }
  return s;
}

double bloom_model_fpr(BloomVariant variant, double m, double n, double k) {
  // The standard layout's rate by its real index scheme: small filters repeat positions.
  return variant == BloomVariant::kStandard
             ? model::standard_scheme_fpr(static_cast<uint64_t>(m), n, static_cast<uint32_t>(k))
             : model::blocked_fpr(m, n, k);
}

namespace {

// An empty filter of size `s`, once this machine is known to hold it: a size it cannot give
// fails here instead of getting the process OOM-killed when the pages are touched.
std::unique_ptr<BloomFilter> new_filter(const model::BloomSize& s, BloomVariant variant,
                                        uint64_t seed) {
  check_memory_available(
      BloomFilter::word_count(BloomFilter::effective_bits(s.m_bits, variant)) * 8, "a filter");
  return std::make_unique<BloomFilter>(KeyRule{kHashXxh3_64, seed}, s.m_bits, s.k, variant);
}

}  // namespace

OverfillError::OverfillError(uint64_t distinct, uint64_t capacity)
    : Error(ErrorCode::kLimitExceeded,
            fmt::format("about {} distinct keys, more than 20% over the capacity of {}", distinct,
                        capacity)),
      distinct_(distinct),
      capacity_(capacity) {}

uint64_t BloomBuild::write(const std::string& path, const WriteOptions& options) {
  WriteOptions o = options;
  o.threads = std::max(o.threads, threads);
  return write_filter_file(path, header, filter->words(), filter->words().size() * 8, o);
}

BloomBuild build_bloom(KeyStream& keys, const BloomPlan& plan, const BuildProvenance& provenance) {
  return build_bloom(hashed_keys(keys), plan, provenance);
}

BloomBuild build_bloom(const HashedKeys& keys, const BloomPlan& plan,
                       const BuildProvenance& provenance) {
  BloomBuild r;
  const unsigned threads = keys.threads;
  r.threads = threads;
  const bool streaming = plan.capacity.has_value() || (plan.bits && plan.hashes);
  if (streaming) {
    const model::BloomSize s = bloom_size_for(plan, plan.capacity.value_or(1));
    r.filter = new_filter(s, plan.variant, keys.seed);
    ParallelInserter inserter(*r.filter, keys.consumers(), kMaxPrivateCopyBytes);
    r.input = keys.for_each([&](const HashedBatch& b) { inserter.add(b.hashes, b.thread); });
    const double x = static_cast<double>(inserter.finish());
    const double m = static_cast<double>(r.filter->bits());
    const double k = r.filter->k();
    const double est = plan.variant == BloomVariant::kStandard
                           ? model::bloom_fill_distinct(x, m, k)
                           : model::blocked_fill_distinct(x, m, k);
    r.distinct = std::isfinite(est) ? static_cast<uint64_t>(std::llround(est)) : r.input.keys;
    r.distinct = std::min<uint64_t>(r.distinct, r.input.keys);
  } else {
    // Each thread keeps its keys' hashes: together the same set in another order.
    std::vector<std::vector<uint64_t>> parts(threads);
    r.input = keys.for_each([&](const HashedBatch& b) {
      std::vector<uint64_t>& h = parts[b.thread];
      h.insert(h.end(), b.hashes.begin(), b.hashes.end());
    });
    std::vector<uint64_t> hashes = std::move(parts[0]);
    for (size_t t = 1; t < parts.size(); ++t) {
      hashes.insert(hashes.end(), parts[t].begin(), parts[t].end());
      std::vector<uint64_t>().swap(parts[t]);
    }
    sort_unique(hashes);
    r.distinct = hashes.size();
    r.distinct_exact = true;
    const model::BloomSize s = bloom_size_for(plan, r.distinct);
    r.filter = new_filter(s, plan.variant, keys.seed);
    r.filter->add_batch(hashes);
  }
  if (plan.capacity && !plan.allow_overfill &&
      static_cast<double>(r.distinct) > 1.2 * static_cast<double>(*plan.capacity)) {
    throw OverfillError(r.distinct, *plan.capacity);
  }
  BuildFacts facts;
  facts.kind = FilterKind::kBloom;
  facts.variant = static_cast<uint32_t>(plan.variant);
  facts.seed = keys.seed;
  facts.m = r.filter->bits();
  facts.k = r.filter->k();
  facts.distinct = r.distinct;
  r.header = make_filter_header(facts, r.input, *keys.input, provenance);
  return r;
}

}  // namespace bloomtool
