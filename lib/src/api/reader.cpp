// The public Reader (bloomtool/filter.h): open_filter reads any file bloomtool reads into a
// LoadedFilter, and queries normalise keys as the file says, then test them with
// filter_contains_keys in chunks that need no allocation per key and no state shared between
// calls.
//
// Refresh: the filter serving is a Served held by a shared_ptr that each query call copies once
// (under a mutex held for that copy only) and uses to its end; refresh() opens and verifies the
// new file outside that mutex, then swaps the pointer, so calls in flight finish on the old filter
// and it is freed when the last of them returns.
#include <sys/stat.h>
#include <time.h>
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <ctime>
#include <deque>
#include <memory>
#include <mutex>
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

// Named, not anonymous: Reader::Impl (external linkage) holds these, which GCC's
// -Wsubobject-linkage refuses for types of an anonymous namespace in the unity builds.
namespace reader_impl {

// What names a file at a path: another file is in place when any of these differ.
struct FileId {
  bool known = false;
  uint64_t dev = 0, ino = 0, size = 0;
  int64_t mtime_sec = 0, mtime_nsec = 0;
  bool operator==(const FileId&) const = default;
};

// One filter being served, immutable once built.
struct Served {
  LoadedFilter loaded;
  Normaliser normaliser;
  const FilterInfo* info = nullptr;  // in Reader::Impl::infos
  FileId id;

  template <typename KeyAt>
  void query(size_t count, const KeyAt& key_at, uint8_t* out) const;
};

}  // namespace reader_impl

using reader_impl::FileId;
using reader_impl::Served;

namespace {

int64_t coarse_now_ns() noexcept {
  struct timespec ts;
#ifdef CLOCK_MONOTONIC_COARSE
  ::clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
#else
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
#endif
  return int64_t{ts.tv_sec} * 1000000000 + ts.tv_nsec;
}

}  // namespace

struct Reader::Impl {
  std::string path;
  OpenOptions options;
  bool from_bytes = false;

  mutable std::mutex current_mutex;  // held only to copy or swap `current`, or the error text
  std::shared_ptr<const Served> current;
  std::string refresh_error;  // of the last automatic refresh

  mutable std::mutex refresh_mutex;  // one refresh at a time; guards `infos`
  std::deque<FilterInfo> infos;      // every filter served (info() references stay valid)
  std::atomic<int64_t> next_check_ns{0};

  std::shared_ptr<const Served> acquire();
  bool refresh_locked();
  void adopt(std::unique_ptr<Served> served, FilterInfo info);
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

FileId file_id_at(const std::string& path) {
  FileId id;
  struct stat st;
  if (path == "-" || ::stat(path.c_str(), &st) != 0) return id;
  id.known = true;
  id.dev = st.st_dev;
  id.ino = st.st_ino;
  id.size = static_cast<uint64_t>(st.st_size);
  id.mtime_sec = st.st_mtim.tv_sec;
  id.mtime_nsec = st.st_mtim.tv_nsec;
  return id;
}

// Completes `served` from its loaded filter; returns its facts (checked against max_age_seconds).
FilterInfo finish_served(Served& served, const std::string& name, FilterFormat format,
                         const OpenOptions& options) {
  served.normaliser = Normaliser::parse(served.loaded.header.normalisation, name);
  FilterInfo info = filter_info_of(served.loaded.header, served.loaded.file_bytes, format);
  info.signature_verified = !options.trusted_key.empty();
  if (options.max_age_seconds > 0) {
    const int64_t now = static_cast<int64_t>(std::time(nullptr));
    if (info.created_unix < now - options.max_age_seconds) {
      throw Error(ErrorCode::kUntrusted, name + ": too old: created " +
                                             std::to_string(now - info.created_unix) +
                                             " s ago, the maximum age is " +
                                             std::to_string(options.max_age_seconds) + " s");
    }
  }
  return info;
}

// Opens, verifies and instantiates the filter at `path`; the file's identity is read first, so
// that a file replaced meanwhile is seen as new by the next refresh.
std::unique_ptr<Served> open_served(const std::string& path, const OpenOptions& options,
                                    FilterInfo& info) {
  auto served = std::make_unique<Served>();
  served->id = file_id_at(path);
  const FilterFormat format = resolve_format(path, options.format);
  if (format == FilterFormat::kBloomtool) {
    served->loaded = load_bloomtool(path, options);
  } else {
    if (!options.trusted_key.empty()) no_signature(path, format);
    served->loaded = load_filter_as(path, internal_format(format), /*keep_source=*/false);
  }
  info = finish_served(*served, path, format, options);
  return served;
}

}  // namespace

void Reader::Impl::adopt(std::unique_ptr<Served> served, FilterInfo info) {
  infos.push_back(std::move(info));
  served->info = &infos.back();
  std::shared_ptr<const Served> next(std::move(served));
  std::lock_guard<std::mutex> lock(current_mutex);
  current.swap(next);
  // `next` (the old filter) is released here; calls in flight still hold their own references.
}

bool Reader::Impl::refresh_locked() {
  if (from_bytes || path == "-") return false;
  const FileId now = file_id_at(path);
  std::shared_ptr<const Served> serving;
  {
    std::lock_guard<std::mutex> lock(current_mutex);
    serving = current;
  }
  if (!now.known) {
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) throw_io_error(path, errno);
  }
  if (now == serving->id) return false;
  FilterInfo info;
  std::unique_ptr<Served> served = open_served(path, options, info);
  adopt(std::move(served), std::move(info));
  return true;
}

std::shared_ptr<const Served> Reader::Impl::acquire() {
  if (options.refresh_seconds > 0) {
    const int64_t now = coarse_now_ns();
    if (now >= next_check_ns.load(std::memory_order_relaxed)) {
      std::unique_lock<std::mutex> refreshing(refresh_mutex, std::try_to_lock);
      if (refreshing.owns_lock() && now >= next_check_ns.load(std::memory_order_relaxed)) {
        next_check_ns.store(now + int64_t{options.refresh_seconds} * 1000000000,
                            std::memory_order_relaxed);
        std::string message;
        try {
          refresh_locked();
        } catch (const std::exception& e) {
          message = e.what();
        }
        std::lock_guard<std::mutex> lock(current_mutex);
        refresh_error = std::move(message);
      }
    }
  }
  std::lock_guard<std::mutex> lock(current_mutex);
  return current;
}

template <typename KeyAt>
void Served::query(size_t count, const KeyAt& key_at, uint8_t* out) const {
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
  impl->options = options;
  FilterInfo info;
  std::unique_ptr<Served> served = open_served(path, options, info);
  impl->adopt(std::move(served), std::move(info));
  if (options.refresh_seconds > 0)
    impl->next_check_ns.store(coarse_now_ns() + int64_t{options.refresh_seconds} * 1000000000,
                              std::memory_order_relaxed);
  return Reader(std::move(impl));
}

Reader open_filter(std::span<const uint8_t> bytes, const OpenOptions& options) {
  auto impl = std::make_unique<Reader::Impl>();
  impl->path = "<memory>";
  impl->options = options;
  impl->options.refresh_seconds = 0;  // nothing to follow
  impl->from_bytes = true;
  const std::string& name = impl->path;
  auto served = std::make_unique<Served>();
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
    served->loaded = make_filter(parse_filter_file(bytes, name), name);
  } else {
    if (!options.trusted_key.empty()) no_signature(name, format);
    served->loaded = parse_foreign(bytes, internal_format(format), name, available_memory_bytes());
    served->loaded.header.source_format.clear();  // what converting back would need, not queries
  }
  FilterInfo info = finish_served(*served, name, format, options);
  impl->adopt(std::move(served), std::move(info));
  return Reader(std::move(impl));
}

bool Reader::contains(std::string_view key) const {
  const std::shared_ptr<const Served> served = impl_->acquire();
  NormScratch scratch;
  if (!served->normaliser.empty()) key = served->normaliser.apply(key, scratch);
  if (key.empty()) return false;  // never added, never reported by `query`
  uint8_t answer = 0;
  filter_contains_keys(served->loaded, std::span<const std::string_view>(&key, 1), &answer);
  return answer != 0;
}

void Reader::contains_many(std::span<const std::string_view> keys, uint8_t* out) const {
  impl_->acquire()->query(
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
  impl_->acquire()->query(
      offsets.size() - 1,
      [data, o](size_t i) { return std::string_view(data + o[i], o[i + 1] - o[i]); }, out);
}

const FilterInfo& Reader::info() const noexcept {
  std::lock_guard<std::mutex> lock(impl_->current_mutex);
  return *impl_->current->info;
}

const std::string& Reader::path() const noexcept {
  return impl_->path;
}

bool Reader::refresh() const {
  std::lock_guard<std::mutex> refreshing(impl_->refresh_mutex);
  return impl_->refresh_locked();
}

std::string Reader::last_refresh_error() const {
  std::lock_guard<std::mutex> lock(impl_->current_mutex);
  return impl_->refresh_error;
}

}  // namespace bloomtool
