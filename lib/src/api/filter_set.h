// Several filters asked about the same keys at once: "was this key in any (or all) of these
// seven daily filters?" without merging them first. The filters may differ in kind, seed and key
// normalisation, so each key is normalised once per distinct normalisation and hashed once per
// distinct (normalisation, seed) pair; a stream read with the set's own normalisation and seed
// (stream_normaliser, stream_seed) hands over the most common pair's hashes for free.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "keys/key_stream.h"
#include "api/load_filter.h"
#include "keys/normalise.h"

namespace bloomtool {

// One thread's answers for one batch, and the buffers that produced them (reused batch after
// batch, so a lookup costs no allocation once they have grown).
struct FilterSetAnswers {
  size_t keys = 0;               // keys in the batch
  std::vector<uint8_t> hits;     // hits[f * keys + i] = 1: filter f may contain key i
  std::vector<uint8_t> skipped;  // skipped[i] = 1: key i is empty for every filter (see lookup)
  bool any_skipped = false;      // some skipped[i] is 1
  std::vector<uint8_t> empty;    // per distinct normalisation: the key normalised to nothing
  std::vector<uint8_t> matched;  // FilterSet::matches' answer, with several filters
  std::vector<std::vector<uint64_t>> hashes;  // per (normalisation, seed) pair not the stream's
  // Per normalisation a filter of a peer's scheme (Guava, DCSO) is asked with, when there are
  // several: the keys as that normalisation leaves them (such a scheme probes with the key bytes).
  std::vector<std::vector<std::string>> norm_keys;
  std::vector<std::string_view> key_views;
  NormScratch scratch;

  uint8_t hit(size_t filter, size_t key) const noexcept { return hits[filter * keys + key]; }
};

class FilterSet {
 public:
  // Takes the filters in the order given; paths[i] names filters[i] in messages. Throws
  // kUnsupported naming the file whose normalisation this version does not know, and
  // kInvalidArgument when the set is empty or the two lists differ in length.
  FilterSet(std::vector<LoadedFilter> filters, const std::vector<std::string>& paths);

  size_t size() const noexcept { return filters_.size(); }
  const LoadedFilter& filter(size_t i) const noexcept { return filters_[i]; }

  // What the key stream feeding lookup() must normalise and hash with: the one normalisation
  // every filter shares (so the stream skips the keys it empties, as a one-filter query does),
  // else none; and the seed of the first filter that hashes keys with XXH3.
  const Normaliser& stream_normaliser() const noexcept { return stream_norm_; }
  uint64_t stream_seed() const noexcept { return stream_seed_; }
  // Whether lookup() reads the batch's own hashes; when no filter does (every filter probes key
  // bytes, or hashes keys another way), the stream need not hash (KeyStream::set_hash_keys).
  bool uses_stream_hashes() const noexcept;

  // Looks every key of `batch` (read with stream_normaliser() and stream_seed()) up in every
  // filter (a filter of a peer's scheme with the key bytes, as filter_contains_keys does). A key
  // that a filter's normalisation empties is absent from that filter (no filter
  // holds an empty key); a key that every filter's normalisation empties is marked skipped, as a
  // one-filter query skips it. Throws kCorrupt, as filter_contains_hashes does, when a lazily
  // verified (raw) filter's chunk that a probe reads fails its checksum.
  void lookup(const HashedBatch& batch, FilterSetAnswers& out) const;

  // What lookup found, key by key, for the whole set: 1 when any filter (with `all`, every
  // filter) may contain the key, 0 when not, kSkippedKey when the key is skipped. With one
  // filter this is that filter's row of hits, without a copy.
  static constexpr uint8_t kSkippedKey = 2;
  const uint8_t* matches(FilterSetAnswers& answers, bool all) const;

 private:
  struct Pair {  // a distinct (normalisation, seed)
    size_t norm;
    uint64_t seed;
    bool from_stream;  // the stream's own keys and hashes
  };
  std::vector<LoadedFilter> filters_;
  std::vector<Normaliser> norms_;    // distinct normalisations, in order of first use
  std::vector<Pair> pairs_;          // distinct pairs, in order of first use
  std::vector<size_t> filter_pair_;  // filters_[f] is asked with pairs_[filter_pair_[f]]
  std::vector<size_t> filter_norm_;  // filters_[f] normalises keys with norms_[filter_norm_[f]]
  // filters_[f] uses a peer's scheme: probed with the normalised key bytes, not a hash.
  std::vector<uint8_t> key_scheme_;
  std::vector<uint8_t> norm_keys_needed_;  // per normalisation: some key-scheme filter uses it
  Normaliser stream_norm_;
  uint64_t stream_seed_ = 0;
};

}  // namespace bloomtool
