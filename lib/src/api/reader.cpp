// The public Reader (bloomtool/filter.h): open_filter reads any file bloomtool reads into a
// LoadedFilter, and queries normalise keys as the file says, then test them with
// filter_contains_keys in chunks that need no allocation per key and no state shared between
// calls.
#include <sys/stat.h>
#include <algorithm>
#include <memory>
#include <string>

#include "api/facts.h"
#include "api/load_filter.h"
#include "base/word_buffer.h"
#include "bloomtool/error.h"
#include "bloomtool/filter.h"
#include "format/raw_payload.h"
#include "format/signature.h"
#include "interop/foreign_format.h"
#include "keys/byte_source.h"
#include "keys/normalise.h"

namespace bloomtool {

struct Reader::Impl {
  std::string path;
  LoadedFilter loaded;
  Normaliser normaliser;
  FilterInfo info;

  template <typename KeyAt>
  void query(size_t count, const KeyAt& key_at, uint8_t* out) const;
};

namespace {

// Keys are normalised and tested this many at a time: the scratch stays in the L1 cache.
constexpr size_t kChunk = 512;

[[noreturn]] void no_signature(const std::string& name, FilterFormat format) {
  throw Error(ErrorCode::kUntrusted, name + ": not signed: a " + filter_format_name(format) +
                                         " file carries no signature to verify");
}

bool regular_file_at(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

LoadedFilter load_bloomtool(const std::string& path, const OpenOptions& options) {
  if (!options.trusted_key.empty())
    return load_verified_filter(path, read_public_key(options.trusted_key));
  if (options.raw_cache_bytes && path != "-" && regular_file_at(path) &&
      read_filter_header(path).codec == PayloadCodec::kRawChunked)
    return make_raw_filter(std::make_shared<const RawPayloadView>(path, *options.raw_cache_bytes),
                           path);
  return load_filter(path);
}

Reader::Impl* finish_impl(std::unique_ptr<Reader::Impl>& impl, FilterFormat format, bool verified) {
  impl->normaliser = Normaliser::parse(impl->loaded.header.normalisation, impl->path);
  impl->info = filter_info_of(impl->loaded.header, impl->loaded.file_bytes, format);
  impl->info.signature_verified = verified;
  return impl.get();
}

}  // namespace

template <typename KeyAt>
void Reader::Impl::query(size_t count, const KeyAt& key_at, uint8_t* out) const {
  std::string_view views[kChunk];
  if (normaliser.empty()) {
    // Keys as they are: tested in place, and the empty ones answered 0 afterwards.
    for (size_t at = 0; at < count; at += kChunk) {
      const size_t n = std::min(kChunk, count - at);
      bool any_empty = false;
      for (size_t i = 0; i < n; ++i) {
        views[i] = key_at(at + i);
        any_empty |= views[i].empty();
      }
      filter_contains_keys(loaded, std::span<const std::string_view>(views, n), out + at);
      if (any_empty) {
        for (size_t i = 0; i < n; ++i)
          if (views[i].empty()) out[at + i] = 0;  // never added, never reported by `query`
      }
    }
    return;
  }
  uint32_t positions[kChunk];
  uint32_t arena_starts[kChunk];
  uint8_t answers[kChunk];
  NormScratch scratch;
  std::string arena;
  for (size_t at = 0; at < count; at += kChunk) {
    const size_t n = std::min(kChunk, count - at);
    size_t kept = 0;
    arena.clear();
    for (size_t i = 0; i < n; ++i) {
      out[at + i] = 0;
      const std::string_view key = normaliser.apply(key_at(at + i), scratch);
      if (key.empty()) continue;  // never added, never reported by `query`
      // The scratch is reused by the next key: the chunk's keys are copied into one arena.
      arena_starts[kept] = static_cast<uint32_t>(arena.size());
      arena.append(key);
      views[kept] = key;
      positions[kept++] = static_cast<uint32_t>(i);
    }
    for (size_t j = 0; j < kept; ++j)
      views[j] = std::string_view(arena).substr(arena_starts[j], views[j].size());
    filter_contains_keys(loaded, std::span<const std::string_view>(views, kept), answers);
    for (size_t j = 0; j < kept; ++j) out[at + positions[j]] = answers[j];
  }
}

Reader::Reader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Reader::Reader(Reader&&) noexcept = default;
Reader& Reader::operator=(Reader&&) noexcept = default;
Reader::~Reader() = default;

Reader open_filter(const std::string& path, const OpenOptions& options) {
  auto impl = std::make_unique<Reader::Impl>();
  impl->path = path;
  const FilterFormat format = resolve_format(path, options.format);
  if (format == FilterFormat::kBloomtool) {
    impl->loaded = load_bloomtool(path, options);
  } else {
    if (!options.trusted_key.empty()) no_signature(path, format);
    impl->loaded = load_filter_as(path, internal_format(format), /*keep_source=*/false);
  }
  finish_impl(impl, format, !options.trusted_key.empty());
  return Reader(std::move(impl));
}

Reader open_filter(std::span<const uint8_t> bytes, const OpenOptions& options) {
  auto impl = std::make_unique<Reader::Impl>();
  impl->path = "<memory>";
  const std::string& name = impl->path;
  const FilterFormat format =
      options.format != FilterFormat::kAuto
          ? options.format
          : detect_format(bytes.first(std::min(bytes.size(), kSniffBytes)), bytes.size());
  if (format == FilterFormat::kBloomtool) {
    if (!options.trusted_key.empty()) {
      const PublicKey key = read_public_key(options.trusted_key);
      const FilterHeader header = parse_filter_header(
          bytes.first(std::min<size_t>(bytes.size(), kMaxHeaderBytes)), bytes.size(), name);
      verify_file_signature(bytes, header, key, name);
    }
    impl->loaded = make_filter(parse_filter_file(bytes, name), name);
  } else {
    if (!options.trusted_key.empty()) no_signature(name, format);
    impl->loaded = parse_foreign(bytes, internal_format(format), name, available_memory_bytes());
    impl->loaded.header.source_format.clear();  // what converting back would need, not queries
  }
  finish_impl(impl, format, !options.trusted_key.empty());
  return Reader(std::move(impl));
}

bool Reader::contains(std::string_view key) const {
  NormScratch scratch;
  if (!impl_->normaliser.empty()) key = impl_->normaliser.apply(key, scratch);
  if (key.empty()) return false;  // never added, never reported by `query`
  uint8_t answer = 0;
  filter_contains_keys(impl_->loaded, std::span<const std::string_view>(&key, 1), &answer);
  return answer != 0;
}

void Reader::contains_many(std::span<const std::string_view> keys, uint8_t* out) const {
  impl_->query(
      keys.size(), [keys](size_t i) { return keys[i]; }, out);
}

void Reader::contains_many(const char* data, std::span<const uint64_t> offsets,
                           uint8_t* out) const {
  if (offsets.empty()) return;
  for (size_t i = 1; i < offsets.size(); ++i) {
    if (offsets[i] < offsets[i - 1]) {
      throw Error(ErrorCode::kInvalidArgument,
                  "offsets: entry " + std::to_string(i) + " (" + std::to_string(offsets[i]) +
                      ") is less than the one before it (" + std::to_string(offsets[i - 1]) + ")");
    }
  }
  const uint64_t* o = offsets.data();
  impl_->query(
      offsets.size() - 1,
      [data, o](size_t i) { return std::string_view(data + o[i], o[i + 1] - o[i]); }, out);
}

const FilterInfo& Reader::info() const noexcept {
  return impl_->info;
}

const std::string& Reader::path() const noexcept {
  return impl_->path;
}

}  // namespace bloomtool
