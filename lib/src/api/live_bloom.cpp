// LiveBloom (live_bloom.h): the bits set as keys arrive, exactly as build_bloom's streaming plans
// set them (the bits do not depend on the order), and the header made as build_bloom makes it.
#include "api/live_bloom.h"

#include <algorithm>
#include <atomic>
#include <cmath>

#include "api/facts.h"
#include "api/load_filter.h"
#include "api/separated_keys.h"
#include "base/run_threads.h"
#include "filters/bloom_build.h"
#include "format/build_header.h"
#include "format/output_target.h"
#include "format/signature.h"
#include "keys/batch_pipeline.h"
#include "keys/hash.h"
#include "model/model.h"

namespace bloomtool {

bool LiveBloom::fits(const Plan& plan) noexcept {
  return is_bloom(plan.kind) && (plan.n.has_value() || (plan.m.has_value() && plan.k.has_value()));
}

LiveBloom::LiveBloom(const Plan& plan) {
  check_plan(plan);  // the plan's checks, with Builder's messages
  BloomPlan b;
  b.variant = plan.kind == Kind::kBloom ? BloomVariant::kStandard : BloomVariant::kBlocked512;
  b.capacity = plan.n;
  b.fpr = plan.p;
  b.bits = plan.m;
  b.hashes = plan.k;
  if (!b.fpr && !b.bits) b.fpr = 0.01;
  b.allow_overfill = plan.allow_overfill;
  capacity_ = plan.n;
  allow_overfill_ = plan.allow_overfill;
  threads_ = plan.threads;
  write_threads_ = plan.threads != 0 ? plan.threads : default_thread_count();
  const uint64_t seed = plan.random_seed ? random_seed() : plan.seed.value_or(kDefaultSeed);
  const model::BloomSize s = bloom_size_for(b, plan.n.value_or(1));
  check_memory_available(
      BloomFilter::word_count(BloomFilter::effective_bits(s.m_bits, b.variant)) * 8, "a filter");
  filter_ = std::make_unique<BloomFilter>(KeyRule{kHashXxh3_64, seed}, s.m_bits, s.k, b.variant);
  normaliser_ = Normaliser::parse(plan.normalisation, "normalisation");
  InputOptions input;
  input.normaliser = normaliser_;
  BuildFacts facts;
  facts.kind = FilterKind::kBloom;
  facts.variant = static_cast<uint32_t>(b.variant);
  facts.seed = seed;
  facts.m = filter_->bits();
  facts.k = filter_->k();
  BuildProvenance provenance;
  provenance.label = plan.label;
  provenance.created_unix = creation_time(plan.created);
  template_ = make_filter_header(facts, InputStats{}, input, provenance);
}

LiveBloom::LiveBloom(std::span<const uint8_t> image, const std::string& name) {
  LoadedFilter loaded = make_filter(parse_filter_file(image, name), name);
  const FilterHeader& h = loaded.header;
  if (h.kind != FilterKind::kBloom || h.hash_id != kHashXxh3_64 ||
      loaded.filter->bloom() == nullptr)
    throw Error(ErrorCode::kUnsupported,
                name +
                    ": not a Bloom filter of bloomtool's hash scheme (xxh3-64); only those take "
                    "more keys");
  const BloomFilter& bits = *loaded.filter->bloom();
  filter_ = std::make_unique<BloomFilter>(KeyRule{kHashXxh3_64, h.seed}, h.m, h.k, bits.variant());
  const auto from = bits.words();
  const auto to = filter_->mutable_words();
  if (from.size() != to.size()) throw_corrupt(name, "payload size does not match m");
  std::copy(from.begin(), from.end(), to.begin());
  normaliser_ = Normaliser::parse(h.normalisation, name);
  template_ = h;
  template_.signature.reset();  // the writer sets the payload's fields and the signature anew
  template_.codec = PayloadCodec::kZstd;
  template_.raw_chunk_bytes = 0;
  template_.raw_payload_offset = 0;
  template_.header_bytes = 0;
  template_.minor = kFormatMinor;  // the writer raises it for what needs 1.1 (raw, signed)
  stats_.lines = h.lines_read;
  stats_.keys = h.keys_added;
  stats_.empty_lines = h.empty_lines;
}

void LiveBloom::add(std::string_view key) {
  ++stats_.lines;
  stats_.bytes += key.size();
  if (key.empty()) {
    ++stats_.empty_lines;
    return;
  }
  if (!normaliser_.empty()) key = normaliser_.apply(key, scratch_);
  if (key.empty()) {
    ++stats_.empty_keys;
    return;
  }
  ++stats_.keys;
  filter_->add(hash_key(key, filter_->rule().seed));
}

namespace {

// Keys hashed, then inserted or tested, together: the filter prefetches their words.
constexpr size_t kLiveRunKeys = 4096;

}  // namespace

template <typename KeyAt>
void LiveBloom::add_keys(size_t count, const KeyAt& key_at) {
  const unsigned threads = batch_threads(count, threads_);
  std::vector<InputStats> part(threads);
  std::atomic<size_t> next{0};  // the next run of kLiveRunKeys keys to take
  const uint64_t seed = filter_->rule().seed;
  detail::run_threads(threads, [&](unsigned t) {
    InputStats& st = part[t];
    NormScratch scratch;
    std::vector<uint64_t> hashes;
    hashes.reserve(kLiveRunKeys);
    for (size_t first; (first = next.fetch_add(kLiveRunKeys, std::memory_order_relaxed)) < count;) {
      hashes.clear();
      const size_t stop = std::min(count, first + kLiveRunKeys);
      for (size_t i = first; i < stop; ++i) {
        std::string_view key = key_at(i);
        ++st.lines;
        st.bytes += key.size();
        if (key.empty()) {
          ++st.empty_lines;
          continue;
        }
        if (!normaliser_.empty()) key = normaliser_.apply(key, scratch);
        if (key.empty()) {
          ++st.empty_keys;
          continue;
        }
        ++st.keys;
        hashes.push_back(hash_key(key, seed));
      }
      if (threads == 1)
        filter_->add_batch(hashes);
      else
        filter_->add_batch_concurrent(hashes);
    }
  });
  for (const InputStats& st : part) {
    stats_.lines += st.lines;
    stats_.bytes += st.bytes;
    stats_.empty_lines += st.empty_lines;
    stats_.empty_keys += st.empty_keys;
    stats_.keys += st.keys;
  }
}

template <typename KeyAt>
void LiveBloom::contains_keys(size_t count, const KeyAt& key_at, uint8_t* out) const {
  const unsigned threads = batch_threads(count, threads_);
  std::atomic<size_t> next{0};
  const uint64_t seed = filter_->rule().seed;
  detail::run_threads(threads, [&](unsigned) {
    NormScratch scratch;
    std::vector<uint64_t> hashes;
    std::vector<uint32_t> present;  // the run's keys that have a hash
    uint8_t answers[kLiveRunKeys];
    hashes.reserve(kLiveRunKeys);
    present.reserve(kLiveRunKeys);
    for (size_t first; (first = next.fetch_add(kLiveRunKeys, std::memory_order_relaxed)) < count;) {
      const size_t stop = std::min(count, first + kLiveRunKeys);
      hashes.clear();
      present.clear();
      for (size_t i = first; i < stop; ++i) {
        out[i] = 0;
        std::string_view key = key_at(i);
        if (key.empty()) continue;
        if (!normaliser_.empty()) key = normaliser_.apply(key, scratch);
        if (key.empty()) continue;
        hashes.push_back(hash_key(key, seed));
        present.push_back(static_cast<uint32_t>(i - first));
      }
      filter_->contains_batch(hashes, answers);
      for (size_t j = 0; j < present.size(); ++j) out[first + present[j]] = answers[j];
    }
  });
}

void LiveBloom::add_many(const char* data, std::span<const uint64_t> offsets) {
  const uint64_t* o = offsets.data();
  add_keys(offsets.size() - 1,
           [data, o](size_t i) { return std::string_view(data + o[i], o[i + 1] - o[i]); });
}

void LiveBloom::add_separated(std::string_view data, std::span<const uint64_t> starts) {
  const uint64_t* s = starts.data();
  const char* bytes = data.data();
  add_keys(starts.size() - 1,
           [bytes, s](size_t i) { return std::string_view(bytes + s[i], s[i + 1] - s[i] - 1); });
}

void LiveBloom::contains_many(const char* data, std::span<const uint64_t> offsets,
                              uint8_t* out) const {
  const uint64_t* o = offsets.data();
  contains_keys(
      offsets.size() - 1,
      [data, o](size_t i) { return std::string_view(data + o[i], o[i + 1] - o[i]); }, out);
}

void LiveBloom::contains_separated(std::string_view data, std::span<const uint64_t> starts,
                                   uint8_t* out) const {
  const uint64_t* s = starts.data();
  const char* bytes = data.data();
  contains_keys(
      starts.size() - 1,
      [bytes, s](size_t i) { return std::string_view(bytes + s[i], s[i + 1] - s[i] - 1); }, out);
}

bool LiveBloom::contains(std::string_view key) const {
  if (key.empty()) return false;
  if (!normaliser_.empty()) key = normaliser_.apply(key, scratch_);
  if (key.empty()) return false;
  return filter_->contains_hash(hash_key(key, filter_->rule().seed));
}

void LiveBloom::merge(const LiveBloom& other, bool intersect) {
  const auto differ = [](const char* field) {
    throw FieldError(field, "the filters differ (only filters of the same geometry combine)");
  };
  if (filter_->variant() != other.filter_->variant()) differ("variant");
  if (filter_->bits() != other.filter_->bits()) differ("m");
  if (filter_->k() != other.filter_->k()) differ("k");
  if (template_.seed != other.template_.seed) differ("seed");
  if (template_.normalisation != other.template_.normalisation) differ("normalisation");
  const auto to = filter_->mutable_words();
  const auto from = other.filter_->words();
  for (size_t i = 0; i < to.size(); ++i) to[i] = intersect ? (to[i] & from[i]) : (to[i] | from[i]);
  stats_.lines += other.stats_.lines;
  stats_.keys += other.stats_.keys;
  stats_.empty_lines += other.stats_.empty_lines;
  stats_.empty_keys += other.stats_.empty_keys;
  stats_.bytes += other.stats_.bytes;
}

uint64_t LiveBloom::distinct() const {
  const double x = static_cast<double>(filter_->set_bit_count());
  const double m = static_cast<double>(filter_->bits());
  const double k = filter_->k();
  const double est = filter_->variant() == BloomVariant::kStandard
                         ? model::bloom_fill_distinct(x, m, k)
                         : model::blocked_fill_distinct(x, m, k);
  const uint64_t d = std::isfinite(est) ? static_cast<uint64_t>(std::llround(est)) : stats_.keys;
  return std::min<uint64_t>(d, stats_.keys);
}

FilterHeader LiveBloom::header() const {
  FilterHeader h = template_;
  h.lines_read = stats_.lines;
  h.keys_added = stats_.keys;
  h.empty_lines = stats_.empty_lines;
  h.distinct_estimate = distinct();
  if (capacity_ && !allow_overfill_ &&
      static_cast<double>(h.distinct_estimate) > 1.2 * static_cast<double>(*capacity_)) {
    throw OverfillError(h.distinct_estimate, *capacity_);
  }
  return h;
}

namespace {
WriteOptions write_options(const OutputOptions& output, const SigningKey* key, unsigned threads) {
  WriteOptions w;
  w.codec = internal_codec(output.codec);
  w.signing_key = key;
  w.threads = threads;
  return w;
}
std::unique_ptr<SigningKey> key_of(const OutputOptions& output) {
  return output.signing_key.empty() ? nullptr : read_signing_key(output.signing_key);
}
}  // namespace

uint64_t LiveBloom::write(const std::string& path, const OutputOptions& output,
                          FilterHeader* written) const {
  const std::unique_ptr<SigningKey> key = key_of(output);
  FilterHeader h;
  try {
    h = header();
  } catch (const OverfillError& e) {
    throw Error(e.code(), output_name(path) + ": " + e.what() +
                              "; nothing written (raise n, or set allow_overfill)");
  }
  const auto words = filter_->words();
  const uint64_t bytes = write_filter_file(path, h, words, words.size() * 8,
                                           write_options(output, key.get(), write_threads_));
  if (written != nullptr) *written = std::move(h);
  return bytes;
}

std::vector<uint8_t> LiveBloom::encode(const OutputOptions& output) const {
  const std::unique_ptr<SigningKey> key = key_of(output);
  FilterHeader h;
  try {
    h = header();
  } catch (const OverfillError& e) {
    throw Error(e.code(), std::string("<memory>: ") + e.what() +
                              "; nothing written (raise n, or set allow_overfill)");
  }
  const auto words = filter_->words();
  return encode_filter_file(h, words, words.size() * 8,
                            write_options(output, key.get(), write_threads_));
}

}  // namespace bloomtool
