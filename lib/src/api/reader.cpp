// The public Reader (bloomtool/filter.h): open_filter reads any file bloomtool reads into a
// LoadedFilter, and queries normalise keys as the file says, then test them with
// filter_contains_keys in chunks that need no allocation per key and no state shared between
// calls.
//
// Refresh: the filter serving is a Served behind an atomic pointer. A query call takes no lock: it
// counts itself in one of two counters (one atomic add), loads the pointer and uses that filter to
// its end, then uncounts itself. refresh() opens and verifies the new file first, then swaps the
// pointer and retires the old filter, without waiting: calls in flight finish on it. A retired
// filter is freed once each counter has been seen at zero after its retirement (no call can hold
// it then); the checks are made by refresh() and by a query call leaving while a filter is retired
// (one relaxed load otherwise), and new calls are steered to the counter seen at zero (an epoch
// flip), so the other drains too under a steady stream of queries.
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
#include <vector>

#include "api/facts.h"
#include "api/load_filter.h"
#include "api/separated_keys.h"
#include "base/run_threads.h"
#include "base/word_buffer.h"
#include "bloomtool/error.h"
#include "bloomtool/filter.h"
#include "format/raw_payload.h"
#include "format/signature.h"
#include "interop/foreign_format.h"
#include "keys/batch_pipeline.h"
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

  // The filter serving (owned: freed by ~Impl, or once retired and no call can hold it).
  std::atomic<const Served*> current{nullptr};
  std::atomic<const FilterInfo*> current_info{nullptr};
  // Calls in flight, counted in the slot of the epoch they read (see the comment at the top).
  struct alignas(64) Slot {
    std::atomic<uint64_t> calls{0};
  };
  mutable Slot slots[2];
  mutable std::atomic<uint32_t> epoch{0};
  // Filters replaced but perhaps still in use, with the slots seen at zero since (bit per slot).
  struct Retired {
    const Served* served;
    unsigned drained;
  };
  mutable std::mutex retired_mutex;  // guards `retired`; queries only ever try it
  mutable std::vector<Retired> retired;
  mutable std::atomic<bool> any_retired{false};

  mutable std::mutex error_mutex;  // guards refresh_error
  std::string refresh_error;       // of the last automatic refresh

  mutable std::mutex refresh_mutex;  // one refresh at a time; guards `infos`
  std::deque<FilterInfo> infos;      // every filter served (info() references stay valid)
  std::atomic<int64_t> next_check_ns{0};

  Impl() = default;
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;
  ~Impl() {
    // No call is in flight (destroying a Reader that is in use is the caller's error).
    for (const Retired& r : retired) delete r.served;
    delete current.load(std::memory_order_acquire);
  }

  void maybe_refresh();
  bool refresh_locked();
  void adopt(std::unique_ptr<Served> served, FilterInfo info);
  // Frees the retired filters no call can hold; `retired_mutex` held.
  void reclaim_locked() const noexcept;
  void try_reclaim() const noexcept {
    std::unique_lock<std::mutex> lock(retired_mutex, std::try_to_lock);
    if (lock.owns_lock()) reclaim_locked();
  }
};

namespace reader_impl {

// One query call's hold on the filter serving: the filter stays alive until the destructor.
class Hold {
 public:
  explicit Hold(const Reader::Impl& impl) noexcept
      : impl_(impl), slot_(impl.slots[impl.epoch.load(std::memory_order_relaxed) & 1]) {
    // Counted before the load (both sequentially consistent): a refresh that swaps the pointer
    // and then sees this counter at zero knows this call will load the new filter.
    slot_.calls.fetch_add(1, std::memory_order_seq_cst);
    served_ = impl.current.load(std::memory_order_seq_cst);
  }
  Hold(const Hold&) = delete;
  Hold& operator=(const Hold&) = delete;
  ~Hold() {
    slot_.calls.fetch_sub(1, std::memory_order_release);
    if (impl_.any_retired.load(std::memory_order_relaxed)) impl_.try_reclaim();
  }
  const Served& operator*() const noexcept { return *served_; }
  const Served* operator->() const noexcept { return served_; }

 private:
  const Reader::Impl& impl_;
  Reader::Impl::Slot& slot_;
  const Served* served_;
};

}  // namespace reader_impl

using reader_impl::Hold;

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

void Reader::Impl::reclaim_locked() const noexcept {
  if (retired.empty()) return;
  const uint32_t e = epoch.load(std::memory_order_relaxed);
  unsigned zero = 0;
  for (unsigned s = 0; s < 2; ++s)
    if (slots[s].calls.load(std::memory_order_seq_cst) == 0) zero |= 1u << s;
  // New calls go to the slot just seen empty, so that the current one empties too.
  if ((zero & (1u << ((e + 1) & 1))) != 0) epoch.store(e + 1, std::memory_order_relaxed);
  size_t kept = 0;
  for (Retired& r : retired) {
    r.drained |= zero;
    if (r.drained == 3)
      delete r.served;
    else
      retired[kept++] = r;
  }
  retired.resize(kept);
  any_retired.store(kept != 0, std::memory_order_relaxed);
}

void Reader::Impl::adopt(std::unique_ptr<Served> served, FilterInfo info) {
  infos.push_back(std::move(info));
  served->info = &infos.back();
  const Served* old = current.exchange(served.release(), std::memory_order_seq_cst);
  current_info.store(&infos.back(), std::memory_order_release);
  if (old == nullptr) return;
  std::lock_guard<std::mutex> lock(retired_mutex);
  // Calls that loaded `old` are counted in a slot until they return: it is freed once each slot
  // has been seen at zero after this point (here, or when a later call leaves).
  retired.push_back(Retired{old, 0});
  any_retired.store(true, std::memory_order_relaxed);
  reclaim_locked();
}

bool Reader::Impl::refresh_locked() {
  if (from_bytes || path == "-") return false;
  const FileId now = file_id_at(path);
  if (!now.known) {
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) throw_io_error(path, errno);
  }
  // Only refresh_locked swaps the pointer, and its caller holds refresh_mutex: no hold needed.
  if (now == current.load(std::memory_order_acquire)->id) return false;
  FilterInfo info;
  std::unique_ptr<Served> served = open_served(path, options, info);
  adopt(std::move(served), std::move(info));
  return true;
}

void Reader::Impl::maybe_refresh() {
  if (options.refresh_seconds == 0) return;
  const int64_t now = coarse_now_ns();
  if (now < next_check_ns.load(std::memory_order_relaxed)) return;
  std::unique_lock<std::mutex> refreshing(refresh_mutex, std::try_to_lock);
  if (!refreshing.owns_lock() || now < next_check_ns.load(std::memory_order_relaxed)) return;
  next_check_ns.store(now + int64_t{options.refresh_seconds} * 1000000000,
                      std::memory_order_relaxed);
  std::string message;
  try {
    refresh_locked();
  } catch (const std::exception& e) {
    message = e.what();
  }
  std::lock_guard<std::mutex> lock(error_mutex);
  refresh_error = std::move(message);
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

namespace {

// served.query over `count` keys, on several threads when the batch is large (taking runs of
// kQueryRunKeys in turn, so a thread the system is slow to start holds up nothing): every run is on
// the same filter, so one call's answers all come from one filter.
constexpr size_t kQueryRunKeys = 8 * kChunk;

template <typename KeyAt>
void query_batch(const Served& served, size_t count, const KeyAt& key_at, uint8_t* out) {
  const unsigned threads = batch_threads(count);
  if (threads <= 1) {
    served.query(count, key_at, out);
    return;
  }
  std::atomic<size_t> next{0};
  detail::run_threads(threads, [&](unsigned) {
    for (size_t first;
         (first = next.fetch_add(kQueryRunKeys, std::memory_order_relaxed)) < count;) {
      const size_t n = std::min(count - first, kQueryRunKeys);
      served.query(
          n, [&key_at, first](size_t i) { return key_at(first + i); }, out + first);
    }
  });
}

}  // namespace

bool Reader::contains(std::string_view key) const {
  impl_->maybe_refresh();
  const Hold served(*impl_);
  NormScratch scratch;
  if (!served->normaliser.empty()) key = served->normaliser.apply(key, scratch);
  if (key.empty()) return false;  // never added, never reported by `query`
  uint8_t answer = 0;
  filter_contains_keys(served->loaded, std::span<const std::string_view>(&key, 1), &answer);
  return answer != 0;
}

void Reader::contains_many(std::span<const std::string_view> keys, uint8_t* out) const {
  impl_->maybe_refresh();
  const Hold served(*impl_);
  query_batch(
      *served, keys.size(), [keys](size_t i) { return keys[i]; }, out);
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
  impl_->maybe_refresh();
  const Hold served(*impl_);
  query_batch(
      *served, offsets.size() - 1,
      [data, o](size_t i) { return std::string_view(data + o[i], o[i + 1] - o[i]); }, out);
}

void Reader::contains_separated(std::string_view data, char separator, size_t count,
                                uint8_t* out) const {
  const std::vector<uint64_t> starts = separated_starts(data, separator, count);
  const uint64_t* s = starts.data();
  const char* bytes = data.data();
  impl_->maybe_refresh();
  const Hold served(*impl_);
  query_batch(
      *served, count,
      [bytes, s](size_t i) { return std::string_view(bytes + s[i], s[i + 1] - s[i] - 1); }, out);
}

const FilterInfo& Reader::info() const noexcept {
  return *impl_->current_info.load(std::memory_order_acquire);
}

const std::string& Reader::path() const noexcept {
  return impl_->path;
}

bool Reader::refresh() const {
  std::lock_guard<std::mutex> refreshing(impl_->refresh_mutex);
  return impl_->refresh_locked();
}

std::string Reader::last_refresh_error() const {
  std::lock_guard<std::mutex> lock(impl_->error_mutex);
  return impl_->refresh_error;
}

}  // namespace bloomtool
