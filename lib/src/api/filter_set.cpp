// Several filters answered together. The set groups its filters by normalisation and by
// (normalisation, seed) once, up front; per batch it then normalises each key once per group,
// hashes it once per pair, and lets every filter probe a whole batch of hashes (contains_batch
// prefetches), so asking seven filters costs one read of the keys and seven rounds of probes.
#include "api/filter_set.h"

#include <algorithm>

#include "bloomtool/error.h"
#include "keys/hash.h"
#include "filters/scheme_bloom.h"

namespace bloomtool {

FilterSet::FilterSet(std::vector<LoadedFilter> filters, const std::vector<std::string>& paths)
    : filters_(std::move(filters)) {
  if (filters_.empty()) throw Error(ErrorCode::kInvalidArgument, "filter set: no filters");
  if (paths.size() != filters_.size()) {
    throw Error(ErrorCode::kInvalidArgument, "filter set: one path per filter");
  }
  for (size_t f = 0; f < filters_.size(); ++f) {
    Normaliser n = Normaliser::parse(filters_[f].header.normalisation, paths[f]);
    const auto same = [&](const Normaliser& o) { return o.steps() == n.steps(); };
    const auto it = std::find_if(norms_.begin(), norms_.end(), same);
    const size_t norm = static_cast<size_t>(it - norms_.begin());
    if (it == norms_.end()) {
      norms_.push_back(std::move(n));
      norm_keys_needed_.push_back(0);
    }
    filter_norm_.push_back(norm);
    const bool key_scheme = is_key_scheme(filters_[f].header.hash_id);
    key_scheme_.push_back(key_scheme ? 1 : 0);
    if (key_scheme) {  // probed with the key bytes: no hash pair
      norm_keys_needed_[norm] = 1;
      filter_pair_.push_back(SIZE_MAX);
      continue;
    }
    const uint64_t seed = filters_[f].header.seed;
    const auto pit = std::find_if(pairs_.begin(), pairs_.end(),
                                  [&](const Pair& p) { return p.norm == norm && p.seed == seed; });
    filter_pair_.push_back(static_cast<size_t>(pit - pairs_.begin()));
    if (pit == pairs_.end()) pairs_.push_back(Pair{norm, seed, false});
  }
  // One shared normalisation: the stream applies it (and skips the keys it empties). Several:
  // the stream reads keys as they are and lookup() applies each.
  if (norms_.size() == 1) stream_norm_ = norms_.front();
  stream_seed_ = pairs_.empty() ? filters_.front().header.seed : pairs_.front().seed;
  for (Pair& p : pairs_) {
    p.from_stream = norms_[p.norm].steps() == stream_norm_.steps() && p.seed == stream_seed_;
  }
}

bool FilterSet::uses_stream_hashes() const noexcept {
  return std::any_of(pairs_.begin(), pairs_.end(), [](const Pair& p) { return p.from_stream; });
}

void FilterSet::lookup(const HashedBatch& batch, FilterSetAnswers& out) const {
  const size_t n = batch.keys.size();
  out.keys = n;
  out.hits.resize(filters_.size() * n);
  out.hashes.resize(pairs_.size());
  out.any_skipped = false;
  const bool each_norm = norms_.size() > 1;
  if (each_norm) {
    out.empty.assign(norms_.size() * n, 0);
    out.skipped.assign(n, 0);
    out.norm_keys.resize(norms_.size());
    for (size_t g = 0; g < norms_.size(); ++g) {
      if (norm_keys_needed_[g] != 0) out.norm_keys[g].resize(n);
    }
  }
  for (const Pair& p : pairs_) {
    if (!p.from_stream) out.hashes[&p - pairs_.data()].resize(n);
  }

  // Normalise each key once per normalisation; hash the result once per seed it is asked with.
  if (each_norm || pairs_.size() > 1 || (!pairs_.empty() && !pairs_.front().from_stream)) {
    for (size_t i = 0; i < n; ++i) {
      for (size_t g = 0; g < norms_.size(); ++g) {
        const std::string_view key =
            each_norm ? norms_[g].apply(batch.keys[i], out.scratch) : batch.keys[i];
        if (each_norm && key.empty()) out.empty[g * n + i] = 1;
        if (each_norm && norm_keys_needed_[g] != 0) out.norm_keys[g][i].assign(key);
        for (size_t p = 0; p < pairs_.size(); ++p) {
          if (pairs_[p].norm != g || pairs_[p].from_stream) continue;
          out.hashes[p][i] = key.empty() ? 0 : hash_key(key, pairs_[p].seed);
        }
      }
    }
  }

  for (size_t f = 0; f < filters_.size(); ++f) {
    uint8_t* row = out.hits.data() + f * n;
    const size_t norm = filter_norm_[f];
    if (key_scheme_[f] != 0) {
      if (!each_norm) {
        filter_contains_keys(filters_[f], batch.keys, row);
      } else {
        out.key_views.assign(out.norm_keys[norm].begin(), out.norm_keys[norm].end());
        filter_contains_keys(filters_[f], out.key_views, row);
      }
    } else {
      const Pair& p = pairs_[filter_pair_[f]];
      const std::span<const uint64_t> hashes =
          p.from_stream ? batch.hashes : std::span<const uint64_t>(out.hashes[filter_pair_[f]]);
      filter_contains_hashes(filters_[f], hashes, row);  // verifies a raw file's chunks first
    }
    if (!each_norm) continue;
    const uint8_t* empty = out.empty.data() + norm * n;
    for (size_t i = 0; i < n; ++i) row[i] &= static_cast<uint8_t>(empty[i] ^ 1);
  }

  if (!each_norm) return;
  for (size_t i = 0; i < n; ++i) {
    bool all_empty = true;
    for (size_t g = 0; g < norms_.size() && all_empty; ++g) all_empty = out.empty[g * n + i] != 0;
    out.skipped[i] = all_empty ? 1 : 0;
    out.any_skipped |= all_empty;
  }
}

const uint8_t* FilterSet::matches(FilterSetAnswers& a, bool all) const {
  if (filters_.size() == 1) return a.hits.data();
  const size_t n = a.keys;
  a.matched.assign(a.hits.begin(), a.hits.begin() + static_cast<std::ptrdiff_t>(n));  // filter 0
  uint8_t* m = a.matched.data();
  for (size_t f = 1; f < filters_.size(); ++f) {
    const uint8_t* row = a.hits.data() + f * n;
    if (all) {
      for (size_t i = 0; i < n; ++i) m[i] &= row[i];
    } else {
      for (size_t i = 0; i < n; ++i) m[i] |= row[i];
    }
  }
  if (a.any_skipped) {
    for (size_t i = 0; i < n; ++i) {
      if (a.skipped[i] != 0) m[i] = kSkippedKey;
    }
  }
  return m;
}

}  // namespace bloomtool
