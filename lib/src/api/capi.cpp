// The C API (bloomtool_c.h) over the public C++ API (bloomtool/filter.h): every entry point catches
// everything, turns it into a status and a per-thread message, and lets no exception out.
#define BLOOMTOOL_C_BUILDING 1
#include "bloomtool/bloomtool_c.h"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <new>
#include <string>

#include "bloomtool/error.h"
#include "bloomtool/filter.h"
#include "bloomtool/version.h"

// The handle. Every call on it is counted in `state` while it runs (InFlight below);
// bloomtool_shutdown sets kShut in the same word, waits until no call is in flight and frees the
// reader (the filter's memory and mapping). A call that starts after kShut is set fails with
// BLOOMTOOL_ERR_CLOSED, so shutting down while other threads query is safe; the handle itself
// (a few words and the facts' strings) lives until bloomtool_close, which no call may race.
struct bloomtool_filter {
  bloomtool_filter(const std::string& path_, const bloomtool::OpenOptions& options)
      : reader(std::make_unique<bloomtool::Reader>(bloomtool::open_filter(path_, options))),
        path(path_) {}
  static constexpr uint64_t kShut = uint64_t{1} << 63;

  std::unique_ptr<bloomtool::Reader> reader;  // null once shut down
  // Copies of the facts of every filter bloomtool_get_info has described (a refresh switches
  // filters): the strings it gave stay valid until close, whatever shutdown frees.
  mutable std::mutex info_mutex;
  mutable std::deque<bloomtool::FilterInfo> infos;
  mutable const bloomtool::FilterInfo* info_seen = nullptr;  // the reader's, for infos.back()
  const std::string path;
  mutable std::atomic<uint64_t> state{0};  // kShut | number of calls in flight
  mutable std::mutex mutex;                // held by bloomtool_shutdown while it frees the reader
  mutable std::condition_variable idle;    // the last call in flight left a handle being shut
};

namespace {

struct LastError {
  std::string text;
  const char* fixed = "";  // used instead of `text` when it could not be stored
};
thread_local LastError last_error;

bloomtool_status fail(bloomtool_status status, const char* message) noexcept {
  try {
    last_error.text = message;
    last_error.fixed = nullptr;
  } catch (...) {
    last_error.fixed = "out of memory";
  }
  return status;
}

bloomtool_status status_of(bloomtool::ErrorCode code) noexcept {
  switch (code) {
    case bloomtool::ErrorCode::kInvalidArgument:
      return BLOOMTOOL_ERR_INVALID_ARGUMENT;
    case bloomtool::ErrorCode::kBadInput:
      return BLOOMTOOL_ERR_BAD_INPUT;
    case bloomtool::ErrorCode::kCorrupt:
      return BLOOMTOOL_ERR_CORRUPT;
    case bloomtool::ErrorCode::kUnsupported:
      return BLOOMTOOL_ERR_UNSUPPORTED;
    case bloomtool::ErrorCode::kIOError:
      return BLOOMTOOL_ERR_IO;
    case bloomtool::ErrorCode::kLimitExceeded:
      return BLOOMTOOL_ERR_LIMIT_EXCEEDED;
    case bloomtool::ErrorCode::kUntrusted:
      return BLOOMTOOL_ERR_UNTRUSTED;
  }
  return BLOOMTOOL_ERR_INTERNAL;
}

// Runs `body`, which returns a status; exceptions become statuses with the CLI's message.
template <typename Body>
bloomtool_status guarded(const Body& body) noexcept {
  try {
    return body();
  } catch (const bloomtool::Error& e) {
    return fail(status_of(e.code()), e.what());
  } catch (const std::bad_alloc&) {
    return fail(BLOOMTOOL_ERR_NO_MEMORY, "out of memory");
  } catch (const std::exception& e) {
    return fail(BLOOMTOOL_ERR_INTERNAL, e.what());
  } catch (...) {
    return fail(BLOOMTOOL_ERR_INTERNAL, "unknown error");
  }
}

bloomtool_status no_filter() noexcept {
  return fail(BLOOMTOOL_ERR_INVALID_ARGUMENT, "no filter (the handle is NULL)");
}

// A call in flight on a handle: entered() is false (and the status BLOOMTOOL_ERR_CLOSED, with the
// message) when the handle is shut down or shutting down; else the reader stays alive until the
// destructor.
class InFlight {
 public:
  explicit InFlight(const bloomtool_filter* filter) noexcept : filter_(filter) {
    const uint64_t before = filter_->state.fetch_add(1, std::memory_order_acquire);
    entered_ = (before & bloomtool_filter::kShut) == 0;
  }
  InFlight(const InFlight&) = delete;
  InFlight& operator=(const InFlight&) = delete;
  ~InFlight() {
    const uint64_t before = filter_->state.fetch_sub(1, std::memory_order_acq_rel);
    if ((before & bloomtool_filter::kShut) != 0 && (before & ~bloomtool_filter::kShut) == 1) {
      // The last call to leave a handle being shut down wakes bloomtool_shutdown (taking the
      // mutex, so that the wake-up cannot fall between its check and its wait).
      std::lock_guard<std::mutex> lock(filter_->mutex);
      filter_->idle.notify_all();
    }
  }
  bool entered() const noexcept { return entered_; }
  const bloomtool::Reader& reader() const noexcept { return *filter_->reader; }
  bloomtool_status closed() const noexcept {
    try {
      return fail(BLOOMTOOL_ERR_CLOSED, (filter_->path + ": the filter is closed").c_str());
    } catch (...) {
      return fail(BLOOMTOOL_ERR_CLOSED, "the filter is closed");
    }
  }

 private:
  const bloomtool_filter* filter_;
  bool entered_ = false;
};

char empty_byte = 0;

bloomtool_status open_with(const char* path, const char* trusted_key, bloomtool_filter** out,
                           uint32_t refresh_seconds = 0, int64_t max_age_seconds = 0) noexcept {
  if (out == nullptr) return fail(BLOOMTOOL_ERR_INVALID_ARGUMENT, "no place to store the filter");
  *out = nullptr;
  if (path == nullptr) return fail(BLOOMTOOL_ERR_INVALID_ARGUMENT, "no path (NULL)");
  if (*path == '\0') return fail(BLOOMTOOL_ERR_INVALID_ARGUMENT, "no path (the path is empty)");
  return guarded([&] {
    bloomtool::OpenOptions options;
    options.format = bloomtool::FilterFormat::kBloomtool;  // the files bloomtool writes
    if (trusted_key != nullptr) options.trusted_key = trusted_key;
    options.refresh_seconds = refresh_seconds;
    options.max_age_seconds = max_age_seconds;
    *out = new bloomtool_filter(path, options);
    return BLOOMTOOL_OK;
  });
}

}  // namespace

extern "C" {

const char* bloomtool_version(void) {
  return bloomtool::kToolVersion;
}

bloomtool_status bloomtool_open(const char* path, bloomtool_filter** out) {
  return open_with(path, nullptr, out);
}

bloomtool_status bloomtool_open_trusted(const char* path, const char* public_key_path,
                                        bloomtool_filter** out) {
  if (public_key_path == nullptr || *public_key_path == '\0') {
    if (out != nullptr) *out = nullptr;
    return fail(BLOOMTOOL_ERR_INVALID_ARGUMENT, "no public key file (NULL or empty)");
  }
  return open_with(path, public_key_path, out);
}

void bloomtool_shutdown(bloomtool_filter* filter) {
  if (filter == nullptr) return;
  std::unique_lock<std::mutex> lock(filter->mutex);
  filter->state.fetch_or(bloomtool_filter::kShut, std::memory_order_acq_rel);
  filter->idle.wait(lock, [filter] {
    return (filter->state.load(std::memory_order_acquire) & ~bloomtool_filter::kShut) == 0;
  });
  filter->reader.reset();  // under the mutex: a second shutdown waits, then finds nothing to free
}

void bloomtool_close(bloomtool_filter* filter) {
  bloomtool_shutdown(filter);
  delete filter;
}

int bloomtool_contains(const bloomtool_filter* filter, const void* key, size_t len) {
  if (filter == nullptr) return -no_filter();
  const InFlight call(filter);
  if (!call.entered()) return -call.closed();
  if (key == nullptr && len != 0)
    return -fail(BLOOMTOOL_ERR_INVALID_ARGUMENT, "key: NULL with a non-zero length");
  int answer = 0;
  const bloomtool_status status = guarded([&] {
    const char* bytes = key != nullptr ? static_cast<const char*>(key) : &empty_byte;
    answer = call.reader().contains(std::string_view(bytes, len)) ? 1 : 0;
    return BLOOMTOOL_OK;
  });
  return status == BLOOMTOOL_OK ? answer : -static_cast<int>(status);
}

bloomtool_status bloomtool_contains_many(const bloomtool_filter* filter, const void* keys,
                                         const uint64_t* offsets, size_t count, uint8_t* results) {
  if (filter == nullptr) return no_filter();
  const InFlight call(filter);
  if (!call.entered()) return call.closed();
  if (count == 0) return BLOOMTOOL_OK;
  if (offsets == nullptr || results == nullptr)
    return fail(BLOOMTOOL_ERR_INVALID_ARGUMENT, "offsets and results must not be NULL");
  if (keys == nullptr && offsets[count] != offsets[0])
    return fail(BLOOMTOOL_ERR_INVALID_ARGUMENT, "keys: NULL with non-empty keys");
  return guarded([&] {
    const char* bytes = keys != nullptr ? static_cast<const char*>(keys) : &empty_byte;
    call.reader().contains_many(bytes, std::span<const uint64_t>(offsets, count + 1), results);
    return BLOOMTOOL_OK;
  });
}

bloomtool_status bloomtool_get_info(const bloomtool_filter* filter, bloomtool_info* info) {
  if (filter == nullptr) return no_filter();
  const InFlight call(filter);
  if (!call.entered()) return call.closed();
  if (info == nullptr || info->size < sizeof(size_t))
    return fail(BLOOMTOOL_ERR_INVALID_ARGUMENT, "info: NULL, or its size member is not set");
  const bloomtool::FilterInfo& serving = call.reader().info();
  std::lock_guard<std::mutex> lock(filter->info_mutex);
  if (&serving != filter->info_seen) {
    // The reader keeps every filter's facts until it is freed, so an address is never reused.
    const bloomtool_status copied = guarded([&] {
      filter->infos.push_back(serving);
      return BLOOMTOOL_OK;
    });
    if (copied != BLOOMTOOL_OK) return copied;
    filter->info_seen = &serving;
  }
  const bloomtool::FilterInfo& r = filter->infos.back();
  bloomtool_info full;
  full.size = info->size;
  full.kind = r.kind.c_str();
  full.variant = r.variant.c_str();
  full.format_version = r.format_version.c_str();
  full.m = r.m;
  full.k = r.k;
  full.hash_id = r.hash_id;
  full.distinct_keys = r.distinct_keys;
  full.keys_added = r.keys_added;
  full.model_fpr = r.model_fpr;
  full.label = r.label.c_str();
  full.created_unix = r.created_unix;
  full.normalisation = r.normalisation.c_str();
  full.hash = r.hash.c_str();
  full.seed = r.seed;
  full.file_bytes = r.file_bytes;
  full.signature_signed = r.signature_signed ? 1 : 0;
  full.signature_verified = r.signature_verified ? 1 : 0;
  full.signature_key_id = r.signature_key_id.c_str();
  // A caller built against an older (shorter) struct gets the members it knows.
  std::memcpy(info, &full, info->size < sizeof full ? info->size : sizeof full);
  return BLOOMTOOL_OK;
}

const char* bloomtool_last_error(void) {
  return last_error.fixed != nullptr ? last_error.fixed : last_error.text.c_str();
}

const char* bloomtool_status_name(int status) {
  if (status < 0) status = -status;
  switch (status) {
    case BLOOMTOOL_OK:
      return "ok";
    case BLOOMTOOL_ERR_INVALID_ARGUMENT:
      return "invalid argument";
    case BLOOMTOOL_ERR_BAD_INPUT:
      return "bad input";
    case BLOOMTOOL_ERR_CORRUPT:
      return "corrupt";
    case BLOOMTOOL_ERR_UNSUPPORTED:
      return "unsupported";
    case BLOOMTOOL_ERR_IO:
      return "i/o error";
    case BLOOMTOOL_ERR_LIMIT_EXCEEDED:
      return "limit exceeded";
    case BLOOMTOOL_ERR_NO_MEMORY:
      return "out of memory";
    case BLOOMTOOL_ERR_UNTRUSTED:
      return "untrusted";
    case BLOOMTOOL_ERR_CLOSED:
      return "closed";
    default:
      return "internal error";
  }
}

// ---- Following a replaced file (refresh) ----------------------------------------------------

bloomtool_status bloomtool_open_with(const char* path, const bloomtool_open_options* options,
                                     bloomtool_filter** out) {
  if (options == nullptr) return open_with(path, nullptr, out);
  if (out != nullptr) *out = nullptr;
  if (options->size < sizeof(size_t))
    return fail(BLOOMTOOL_ERR_INVALID_ARGUMENT, "options: its size member is not set");
  bloomtool_open_options o{};
  std::memcpy(&o, options, options->size < sizeof o ? options->size : sizeof o);
  if (o.trusted_key != nullptr && *o.trusted_key == '\0')
    return fail(BLOOMTOOL_ERR_INVALID_ARGUMENT, "trusted_key: empty (NULL for none)");
  if (o.max_age_seconds < 0)
    return fail(BLOOMTOOL_ERR_INVALID_ARGUMENT, "max_age_seconds: negative");
  return open_with(path, o.trusted_key, out, o.refresh_seconds, o.max_age_seconds);
}

bloomtool_status bloomtool_refresh(bloomtool_filter* filter, int* changed) {
  if (changed != nullptr) *changed = 0;
  if (filter == nullptr) return no_filter();
  const InFlight call(filter);
  if (!call.entered()) return call.closed();
  return guarded([&] {
    const bool switched = call.reader().refresh();
    if (changed != nullptr) *changed = switched ? 1 : 0;
    return BLOOMTOOL_OK;
  });
}

}  // extern "C"
