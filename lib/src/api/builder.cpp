// The public builders (bloomtool/build.h): a Plan checked and translated into the library's
// BloomPlan or XorBuildOptions, keys read from a KeyStream (build_filter) or held in memory
// (Builder), both built by build_bloom / build_static as `bloomtool build` and `xor-build` build
// (a static filter of more than 2^21 keys partitioned as theirs), and written by the same writer.
#include <atomic>
#include <cstdlib>
#include <ctime>
#include <limits>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "api/facts.h"
#include "api/live_bloom.h"
#include "base/run_threads.h"
#include "base/word_buffer.h"
#include "bloomtool/build.h"
#include "bloomtool/error.h"
#include "filters/bloom_build.h"
#include "filters/hashed_keys.h"
#include "filters/partitioned_build.h"
#include "filters/xor_build.h"
#include "format/output_target.h"
#include "format/signature.h"
#include "keys/batch_pipeline.h"
#include "keys/hash.h"
#include "keys/key_stream.h"
#include "model/model.h"

namespace bloomtool {

// A plan as the library's builders take it (outside the anonymous namespace: Builder::Impl
// holds one).
struct PreparedPlan {
  bool bloom = true;
  BloomPlan bloom_plan;
  XorBuildOptions xor_options;
  uint64_t seed = kDefaultSeed;
  unsigned threads = 1;
  Normaliser normaliser;
  BuildProvenance provenance;
};

namespace {

PreparedPlan prepare_plan(const Plan& plan) {
  PreparedPlan p;
  if (is_bloom(plan.kind)) {
    BloomPlan& b = p.bloom_plan;
    b.variant = plan.kind == Kind::kBloom ? BloomVariant::kStandard : BloomVariant::kBlocked512;
    b.allow_overfill = plan.allow_overfill;
    if (plan.n) {
      if (*plan.n == 0) throw FieldError("n", "must be at least 1");
      b.capacity = plan.n;
    }
    if (plan.p) {
      if (!(*plan.p > 0.0 && *plan.p < 1.0)) throw FieldError("p", "must be between 0 and 1");
      b.fpr = plan.p;
    }
    if (plan.m) {
      if (*plan.m == 0 || *plan.m > model::kMaxBits)
        throw FieldError("m", "out of range (1 bit to 2^40 bits = 128GiB)");
      b.bits = plan.m;
    }
    if (plan.k) {
      if (*plan.k == 0 || *plan.k > model::kMaxK) throw FieldError("k", "must be between 1 and 64");
      b.hashes = plan.k;
    }
    if (b.fpr && b.bits) throw FieldError("p", "give p or m, not both");
    if (!b.fpr && !b.bits) b.fpr = 0.01;
  } else {
    const char* bloom_only = plan.n ? "n" : plan.p ? "p" : plan.m ? "m" : plan.k ? "k" : nullptr;
    if (bloom_only != nullptr) {
      throw FieldError(bloom_only,
                       "sizes Bloom filters only (xor and binary fuse filters hold exactly their "
                       "keys; fingerprint_bits sets the rate)");
    }
    XorBuildOptions& x = p.xor_options;
    x.layout = plan.kind == Kind::kXor ? XorLayout::kXor : XorLayout::kFuse;
    if (plan.fingerprint_bits != 8 && plan.fingerprint_bits != 16)
      throw FieldError("fingerprint_bits", "must be 8 or 16");
    x.fingerprint_bits = plan.fingerprint_bits;
    if (plan.max_attempts == 0 || plan.max_attempts > 10000)
      throw FieldError("max_attempts", "must be between 1 and 10000");
    x.max_attempts = plan.max_attempts;
  }
  p.bloom = is_bloom(plan.kind);
  if (plan.seed && plan.random_seed) throw FieldError("seed", "give seed or random_seed, not both");
  p.seed = plan.random_seed ? random_seed() : plan.seed.value_or(kDefaultSeed);
  p.threads = plan.threads != 0 ? plan.threads : default_thread_count();
  try {
    p.normaliser = Normaliser::parse(plan.normalisation, "normalisation");
  } catch (const Error&) {
    throw FieldError("normalisation", "'" + plan.normalisation +
                                          "' is not a list of the steps trim, lowercase, "
                                          "strip-prefix=TEXT, email, phone, url");
  }
  p.provenance.label = plan.label;
  p.provenance.created_unix = creation_time(plan.created);
  return p;
}

InputOptions input_options_of(const KeySource& s, const Normaliser& normaliser) {
  InputOptions o;
  if (s.max_key_bytes == 0 || s.max_key_bytes > kMaxMaxKeyBytes)
    throw FieldError("max_key_bytes", "must be between 1 and 1GiB");
  o.max_key_bytes = s.max_key_bytes;
  const bool delimited = s.format == KeyFormat::kDelimited || s.format == KeyFormat::kCsv;
  switch (s.format) {
    case KeyFormat::kLines:
      o.format = InputFormat::kLines;
      break;
    case KeyFormat::kNdjson:
      o.format = InputFormat::kNdjson;
      break;
    case KeyFormat::kDelimited:
      o.format = InputFormat::kDelimited;
      break;
    case KeyFormat::kCsv:
      o.format = InputFormat::kCsv;
      o.delimiter = ',';
      break;
  }
  if (!s.field.empty() && s.format != KeyFormat::kNdjson)
    throw FieldError("field", "only for the ndjson format");
  o.field = s.field;
  if (!delimited && (s.delimiter || s.column != 1 || !s.column_name.empty() || s.header)) {
    throw FieldError(s.delimiter ? "delimiter"
                     : s.header  ? "header"
                                 : "column",
                     "only for the delimited and csv formats");
  }
  if (s.delimiter) o.delimiter = *s.delimiter;
  if (s.column == 0) throw FieldError("column", "must be at least 1");
  o.column = s.column;
  o.column_name = s.column_name;
  o.header = s.header || !s.column_name.empty();
  o.skip_bad_lines = s.skip_bad_lines || s.max_bad_lines.has_value();
  o.max_bad_lines = s.max_bad_lines.value_or(std::numeric_limits<uint64_t>::max());
  o.normaliser = normaliser;
  return o;
}

std::unique_ptr<SigningKey> read_output_key(const OutputOptions& output) {
  if (output.signing_key.empty()) return nullptr;
  return read_signing_key(output.signing_key);
}

// A built filter of either family, with what the writer and the result need of it.
struct Built {
  std::variant<BloomBuild, StaticBuild> build;
  FilterHeader& header() {
    return build.index() == 0 ? std::get<0>(build).header : std::get<1>(build).header;
  }
  const InputStats& input() const {
    return build.index() == 0 ? std::get<0>(build).input : std::get<1>(build).input;
  }
  bool distinct_exact() const {
    return build.index() == 0 ? std::get<0>(build).distinct_exact : true;
  }
};

// Runs the plan's builder over `keys`; the errors that mean "nothing is written" name `out`.
Built run_plan(const HashedKeys& keys, const PreparedPlan& p, const std::string& out) {
  try {
    if (p.bloom) return Built{build_bloom(keys, p.bloom_plan, p.provenance)};
    // As xor-build builds: the automatic partitions, the hashes held in memory.
    StaticBuildOptions o;
    o.kind = xor_filter_kind(p.xor_options.layout);
    o.xor_options = p.xor_options;
    return Built{build_static(keys, o, p.provenance)};
  } catch (const OverfillError& e) {
    throw Error(e.code(),
                out + ": " + e.what() + "; nothing written (raise n, or set allow_overfill)");
  } catch (const XorConstructionError& e) {
    throw Error(e.code(), out + ": " + e.what() + "; nothing written");
  } catch (const MemoryLimitError& e) {
    throw Error(e.code(), out + ": " + e.what() + "; nothing written");
  }
}

WriteOptions built_write_options(const OutputOptions& output, const SigningKey* key,
                                 unsigned threads) {
  WriteOptions w;
  w.codec = internal_codec(output.codec);
  w.signing_key = key;
  w.threads = threads;
  return w;
}

std::span<const uint64_t> built_words(const Built& b) {
  if (b.build.index() == 0) return std::get<0>(b.build).filter->words();
  return std::get<1>(b.build).words();
}

BuildResult build_result_of(Built& b, uint64_t file_bytes) {
  BuildResult r;
  r.info = filter_info_of(b.header(), file_bytes, FilterFormat::kBloomtool);
  r.distinct_exact = b.distinct_exact();
  r.empty_keys = b.input().empty_keys;
  r.bad_lines = b.input().bad_lines;
  r.first_bad_line = b.input().first_bad_line;
  return r;
}

BuildResult write_built(Built& b, const std::string& path, const OutputOptions& output,
                        const SigningKey* key, unsigned threads) {
  const auto words = built_words(b);
  const uint64_t bytes = write_filter_file(path, b.header(), words, words.size() * 8,
                                           built_write_options(output, key, threads));
  return build_result_of(b, bytes);
}

std::vector<uint8_t> encode_built(Built& b, const OutputOptions& output, const SigningKey* key,
                                  unsigned threads) {
  const auto words = built_words(b);
  return encode_filter_file(b.header(), words, words.size() * 8,
                            built_write_options(output, key, threads));
}

template <typename Finish>
auto build_from_source(const KeySource& source, const Plan& plan, const OutputOptions& output,
                       const std::string& out, Finish&& finish) {
  const PreparedPlan p = prepare_plan(plan);
  const InputOptions in = input_options_of(source, p.normaliser);
  const std::unique_ptr<SigningKey> key = read_output_key(output);  // before any key is read
  KeyStreamOptions so;
  so.threads = p.threads;
  so.seed = p.seed;
  KeyStream keys(source.paths, in, so);
  Built b = run_plan(hashed_keys(keys), p, out);
  return finish(b, key.get(), keys.threads());
}

// Keys a builder holds in memory, as a source of hashed batches.
constexpr size_t kBatchKeys = 4096;

}  // namespace

BuildResult build_filter(const KeySource& keys, const Plan& plan, const std::string& path,
                         const OutputOptions& output) {
  return build_from_source(keys, plan, output, output_name(path),
                           [&](Built& b, const SigningKey* key, unsigned threads) {
                             return write_built(b, path, output, key, threads);
                           });
}

std::vector<uint8_t> build_filter_bytes(const KeySource& keys, const Plan& plan,
                                        const OutputOptions& output) {
  return build_from_source(keys, plan, output, "<memory>",
                           [&](Built& b, const SigningKey* key, unsigned threads) {
                             return encode_built(b, output, key, threads);
                           });
}

void check_plan(const Plan& plan) {
  (void)prepare_plan(plan);
}

struct Builder::Impl {
  // A Bloom plan sized up front (n, or m and k): the keys go into the filter as they arrive
  // (LiveBloom, as the C API's builder), so memory is the filter's; `sized` is the plan with its
  // seed and creation time fixed, for the next filter after a finish.
  std::unique_ptr<LiveBloom> live;
  Plan sized;
  // Other plans keep their keys (normalised) until finish.
  PreparedPlan plan;
  InputOptions input;          // lines, with the plan's normalisation: what the header records
  std::string arena;           // the normalised keys, back to back
  std::vector<uint64_t> ends;  // where each key ends in the arena
  InputStats stats;
  NormScratch scratch;

  void add(std::string_view key) {
    ++stats.lines;
    stats.bytes += key.size();
    if (key.empty()) {
      ++stats.empty_lines;
      return;
    }
    if (!plan.normaliser.empty()) key = plan.normaliser.apply(key, scratch);
    if (key.empty()) {
      ++stats.empty_keys;
      return;
    }
    ++stats.keys;
    arena.append(key);
    ends.push_back(arena.size());
  }

  // Every key in batches, hashed with the plan's seed on up to plan.threads threads.
  HashedKeys hashed() {
    const size_t batches = (ends.size() + kBatchKeys - 1) / kBatchKeys;
    const unsigned threads =
        static_cast<unsigned>(std::max<size_t>(1, std::min<size_t>(plan.threads, batches)));
    return {threads, plan.seed, &input,
            [this, batches, threads](const std::function<void(const HashedBatch&)>& consume) {
              std::atomic<size_t> next{0};
              detail::run_threads(threads, [&](unsigned t) {
                std::vector<std::string_view> views;
                std::vector<uint64_t> hashes;
                for (size_t b; (b = next.fetch_add(1)) < batches;) {
                  const size_t first = b * kBatchKeys;
                  const size_t last = std::min(ends.size(), first + kBatchKeys);
                  views.clear();
                  hashes.clear();
                  for (size_t i = first; i < last; ++i) {
                    const uint64_t begin = i == 0 ? 0 : ends[i - 1];
                    views.push_back(std::string_view(arena).substr(begin, ends[i] - begin));
                    hashes.push_back(hash_key(views.back(), plan.seed));
                  }
                  consume(HashedBatch{views, views, hashes, t});
                }
              });
              return stats;
            }};
  }

  void clear() {
    std::string().swap(arena);
    std::vector<uint64_t>().swap(ends);
    stats = InputStats{};
  }
};

Builder::Builder(const Plan& plan) : impl_(std::make_unique<Impl>()) {
  impl_->plan = prepare_plan(plan);
  impl_->input.normaliser = impl_->plan.normaliser;
  if (LiveBloom::fits(plan)) {
    Plan& sized = impl_->sized;
    sized = plan;
    sized.random_seed = false;
    sized.seed = impl_->plan.seed;
    sized.created = impl_->plan.provenance.created_unix;
    impl_->live = std::make_unique<LiveBloom>(sized);
  }
}
Builder::Builder(Builder&&) noexcept = default;
Builder& Builder::operator=(Builder&&) noexcept = default;
Builder::~Builder() = default;

void Builder::add(std::string_view key) {
  if (impl_->live)
    impl_->live->add(key);
  else
    impl_->add(key);
}

void Builder::add_many(std::span<const std::string_view> keys) {
  for (const std::string_view key : keys) add(key);
}

void Builder::add_many(const char* data, std::span<const uint64_t> offsets) {
  for (size_t i = 1; i < offsets.size(); ++i) {
    if (offsets[i] < offsets[i - 1]) {
      throw Error(ErrorCode::kInvalidArgument,
                  "offsets: entry " + std::to_string(i) + " (" + std::to_string(offsets[i]) +
                      ") is less than the one before it (" + std::to_string(offsets[i - 1]) + ")");
    }
  }
  if (offsets.empty()) return;
  if (impl_->live) {
    impl_->live->add_many(data, offsets);
    return;
  }
  for (size_t i = 0; i + 1 < offsets.size(); ++i)
    impl_->add(std::string_view(data + offsets[i], offsets[i + 1] - offsets[i]));
}

uint64_t Builder::size() const noexcept {
  return impl_->live ? impl_->live->lines() : impl_->stats.lines;
}

BuildResult Builder::finish(const std::string& path, const OutputOptions& output) {
  if (impl_->live) {
    FilterHeader header;
    const uint64_t bytes = impl_->live->write(path, output, &header);
    BuildResult r;
    r.info = filter_info_of(header, bytes, FilterFormat::kBloomtool);
    r.empty_keys = impl_->live->empty_keys();
    impl_->live = std::make_unique<LiveBloom>(impl_->sized);
    return r;
  }
  const std::unique_ptr<SigningKey> key = read_output_key(output);
  Built b = run_plan(impl_->hashed(), impl_->plan, output_name(path));
  BuildResult r = write_built(b, path, output, key.get(), impl_->plan.threads);
  impl_->clear();
  return r;
}

std::vector<uint8_t> Builder::finish_bytes(const OutputOptions& output) {
  if (impl_->live) {
    std::vector<uint8_t> bytes = impl_->live->encode(output);
    impl_->live = std::make_unique<LiveBloom>(impl_->sized);
    return bytes;
  }
  const std::unique_ptr<SigningKey> key = read_output_key(output);
  Built b = run_plan(impl_->hashed(), impl_->plan, "<memory>");
  std::vector<uint8_t> bytes = encode_built(b, output, key.get(), impl_->plan.threads);
  impl_->clear();
  return bytes;
}

}  // namespace bloomtool
