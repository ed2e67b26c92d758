// The C API (bloomtool_c.h) over the public C++ API (bloomtool/filter.h): every entry point catches
// everything, turns it into a status and a per-thread message, and lets no exception out.
#define BLOOMTOOL_C_BUILDING 1
#include "bloomtool/bloomtool_c.h"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <new>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "api/live_bloom.h"
#include "api/separated_keys.h"
#include "bloomtool/build.h"
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
  bloomtool_filter(bloomtool::Reader opened, const std::string& path_)
      : reader(std::make_unique<bloomtool::Reader>(std::move(opened))), path(path_) {}
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

int64_t bloomtool_last_refresh_error(const bloomtool_filter* filter, char* buf, size_t len) {
  if (filter == nullptr) return -no_filter();
  if (buf == nullptr && len != 0)
    return -fail(BLOOMTOOL_ERR_INVALID_ARGUMENT, "buf: NULL with a non-zero length");
  const InFlight call(filter);
  if (!call.entered()) return -call.closed();
  int64_t full = 0;
  const bloomtool_status status = guarded([&] {
    const std::string message = call.reader().last_refresh_error();
    full = static_cast<int64_t>(message.size());
    if (len != 0) {
      const size_t n = message.size() < len - 1 ? message.size() : len - 1;
      std::memcpy(buf, message.data(), n);
      buf[n] = '\0';
    }
    return BLOOMTOOL_OK;
  });
  return status == BLOOMTOOL_OK ? full : -static_cast<int64_t>(status);
}

bloomtool_status bloomtool_contains_separated(const bloomtool_filter* filter, const void* data,
                                              size_t len, uint8_t separator, size_t count,
                                              uint8_t* results) {
  if (filter == nullptr) return no_filter();
  const InFlight call(filter);
  if (!call.entered()) return call.closed();
  if (data == nullptr && len != 0)
    return fail(BLOOMTOOL_ERR_INVALID_ARGUMENT, "data: NULL with a non-zero length");
  if (results == nullptr && count != 0)
    return fail(BLOOMTOOL_ERR_INVALID_ARGUMENT, "results must not be NULL");
  return guarded([&] {
    const char* bytes = data != nullptr ? static_cast<const char*>(data) : &empty_byte;
    call.reader().contains_separated(std::string_view(bytes, len), static_cast<char>(separator),
                                     count, results);
    return BLOOMTOOL_OK;
  });
}

}  // extern "C"

// ---- Building (keys in memory) and opening bytes ------------------------------------------------
// A builder: the C++ Builder behind a mutex (calls on one builder are serialised); `finished` once
// finish ran (the keys are released; later calls fail with BLOOMTOOL_ERR_CLOSED).
struct bloomtool_builder {
  explicit bloomtool_builder(const bloomtool::Plan& plan) {
    if (bloomtool::LiveBloom::fits(plan))
      live = std::make_unique<bloomtool::LiveBloom>(plan);
    else
      builder = std::make_unique<bloomtool::Builder>(plan);
  }
  explicit bloomtool_builder(std::unique_ptr<bloomtool::LiveBloom> from) : live(std::move(from)) {}
  // One of the two: a Bloom filter sized up front is built as keys arrive (and answers queries);
  // other plans keep their keys until finish.
  std::unique_ptr<bloomtool::Builder> builder;
  std::unique_ptr<bloomtool::LiveBloom> live;
  bool finished = false;
  mutable std::mutex mutex;
};

namespace {

// The longest key a builder takes: `bloomtool build`'s default longest line.
constexpr uint64_t kMaxBuilderKey = uint64_t{1} << 20;

// BLOOMTOOL_FINISH_KEEP: only a builder that holds its filter (not its keys) stays open.
bool keep_open(const bloomtool_builder* builder, uint32_t flags) noexcept {
  return (flags & BLOOMTOOL_FINISH_KEEP) == 0 || builder->live != nullptr;
}

bloomtool_status cannot_keep() noexcept {
  return fail(BLOOMTOOL_ERR_UNSUPPORTED,
              "only a Bloom filter sized up front (n, or m and k) stays open after finish");
}

bloomtool_status no_filter_yet() noexcept {
  return fail(BLOOMTOOL_ERR_UNSUPPORTED,
              "only a Bloom filter sized up front (n, or m and k) answers before finish");
}

bloomtool_status no_builder() noexcept {
  return fail(BLOOMTOOL_ERR_INVALID_ARGUMENT, "no builder (the handle is NULL)");
}

bloomtool_status finished_builder() noexcept {
  return fail(BLOOMTOOL_ERR_CLOSED, "the builder is finished (it takes no more keys)");
}

bloomtool_status key_too_long(uint64_t index, uint64_t len) noexcept {
  try {
    std::string what =
        index == UINT64_MAX ? std::string("key") : "keys[" + std::to_string(index) + "]";
    return fail(
        BLOOMTOOL_ERR_LIMIT_EXCEEDED,
        (what + ": " + std::to_string(len) + " bytes, longer than the limit of 1MiB").c_str());
  } catch (...) {
    return fail(BLOOMTOOL_ERR_LIMIT_EXCEEDED, "key: longer than the limit of 1MiB");
  }
}

// The plan's members the caller's struct holds (`size` of them); the rest count as zero.
bloomtool_status plan_of(const bloomtool_plan* in, bloomtool::Plan& plan) {
  if (in == nullptr) return fail(BLOOMTOOL_ERR_INVALID_ARGUMENT, "no plan (NULL)");
  if (in->size < sizeof(size_t) || in->size > (size_t{1} << 16))
    return fail(BLOOMTOOL_ERR_INVALID_ARGUMENT, "plan: its size member is not set");
  bloomtool_plan c;
  std::memset(&c, 0, sizeof c);
  std::memcpy(&c, in, in->size < sizeof c ? in->size : sizeof c);
  switch (c.kind) {
    case BLOOMTOOL_KIND_BLOOM:
      plan.kind = bloomtool::Kind::kBloom;
      break;
    case BLOOMTOOL_KIND_BLOCKED_BLOOM:
      plan.kind = bloomtool::Kind::kBlockedBloom;
      break;
    case BLOOMTOOL_KIND_XOR:
      plan.kind = bloomtool::Kind::kXor;
      break;
    case BLOOMTOOL_KIND_BINARY_FUSE:
      plan.kind = bloomtool::Kind::kBinaryFuse;
      break;
    default:
      return fail(BLOOMTOOL_ERR_INVALID_ARGUMENT,
                  ("kind: " + std::to_string(c.kind) + " is not a bloomtool_kind").c_str());
  }
  if (c.n != 0) plan.n = c.n;
  if (c.p != 0) plan.p = c.p;
  if (c.m != 0) plan.m = c.m;
  if (c.k != 0) plan.k = c.k;
  if (c.fingerprint_bits != 0) plan.fingerprint_bits = c.fingerprint_bits;
  if (c.max_attempts != 0) plan.max_attempts = c.max_attempts;
  plan.allow_overfill = c.allow_overfill != 0;
  switch (c.seed_mode) {
    case BLOOMTOOL_SEED_DEFAULT:
      break;
    case BLOOMTOOL_SEED_GIVEN:
      plan.seed = c.seed;
      break;
    case BLOOMTOOL_SEED_RANDOM:
      plan.random_seed = true;
      break;
    default:
      return fail(BLOOMTOOL_ERR_INVALID_ARGUMENT,
                  ("seed_mode: " + std::to_string(c.seed_mode) + " is not a BLOOMTOOL_SEED_ value")
                      .c_str());
  }
  if (c.normalisation != nullptr) plan.normalisation = c.normalisation;
  if (c.label != nullptr) plan.label = c.label;
  if (c.created_set != 0) plan.created = c.created_unix;
  plan.threads = c.threads;
  return BLOOMTOOL_OK;
}

bloomtool_status output_of(const char* signing_key_path, uint32_t flags,
                           bloomtool::OutputOptions& output) {
  if ((flags & ~uint32_t{BLOOMTOOL_CODEC_RAW | BLOOMTOOL_FINISH_KEEP}) != 0)
    return fail(BLOOMTOOL_ERR_INVALID_ARGUMENT, "flags: unknown bits set");
  output.codec =
      (flags & BLOOMTOOL_CODEC_RAW) != 0 ? bloomtool::Codec::kRaw : bloomtool::Codec::kZstd;
  if (signing_key_path != nullptr) {
    if (*signing_key_path == '\0')
      return fail(BLOOMTOOL_ERR_INVALID_ARGUMENT, "signing key: the path is empty");
    output.signing_key = signing_key_path;
  }
  return BLOOMTOOL_OK;
}

bool format_of(int32_t format, bloomtool::FilterFormat& out) noexcept {
  switch (format) {
    case BLOOMTOOL_FORMAT_BLOOMTOOL:
      out = bloomtool::FilterFormat::kBloomtool;
      return true;
    case BLOOMTOOL_FORMAT_AUTO:
      out = bloomtool::FilterFormat::kAuto;
      return true;
    case BLOOMTOOL_FORMAT_GUAVA:
      out = bloomtool::FilterFormat::kGuava;
      return true;
    case BLOOMTOOL_FORMAT_DCSO:
      out = bloomtool::FilterFormat::kDcso;
      return true;
    default:
      return false;
  }
}

// Checks the common arguments of the opens: *out cleared, format and key known.
bloomtool_status open_options_of(int32_t format, const char* public_key_path,
                                 bloomtool_filter** out, bloomtool::OpenOptions& options) {
  if (out == nullptr) return fail(BLOOMTOOL_ERR_INVALID_ARGUMENT, "no place to store the filter");
  *out = nullptr;
  if (!format_of(format, options.format))
    return fail(BLOOMTOOL_ERR_INVALID_ARGUMENT,
                ("format: " + std::to_string(format) + " is not a bloomtool_format").c_str());
  if (public_key_path != nullptr) {
    if (*public_key_path == '\0')
      return fail(BLOOMTOOL_ERR_INVALID_ARGUMENT, "no public key file (the path is empty)");
    options.trusted_key = public_key_path;
  }
  return BLOOMTOOL_OK;
}

}  // namespace

extern "C" {

bloomtool_status bloomtool_builder_new(const bloomtool_plan* plan, bloomtool_builder** out) {
  if (out == nullptr) return fail(BLOOMTOOL_ERR_INVALID_ARGUMENT, "no place to store the builder");
  *out = nullptr;
  return guarded([&] {
    bloomtool::Plan p;
    const bloomtool_status status = plan_of(plan, p);
    if (status != BLOOMTOOL_OK) return status;
    *out = new bloomtool_builder(p);
    return BLOOMTOOL_OK;
  });
}

bloomtool_status bloomtool_builder_add(bloomtool_builder* builder, const void* key, size_t len) {
  if (builder == nullptr) return no_builder();
  std::lock_guard<std::mutex> lock(builder->mutex);
  if (builder->finished) return finished_builder();
  if (key == nullptr && len != 0)
    return fail(BLOOMTOOL_ERR_INVALID_ARGUMENT, "key: NULL with a non-zero length");
  if (len > kMaxBuilderKey) return key_too_long(UINT64_MAX, len);
  return guarded([&] {
    const char* bytes = key != nullptr ? static_cast<const char*>(key) : &empty_byte;
    if (builder->live)
      builder->live->add(std::string_view(bytes, len));
    else
      builder->builder->add(std::string_view(bytes, len));
    return BLOOMTOOL_OK;
  });
}

bloomtool_status bloomtool_builder_add_many(bloomtool_builder* builder, const void* keys,
                                            const uint64_t* offsets, size_t count) {
  if (builder == nullptr) return no_builder();
  std::lock_guard<std::mutex> lock(builder->mutex);
  if (builder->finished) return finished_builder();
  if (count == 0) return BLOOMTOOL_OK;
  if (offsets == nullptr) return fail(BLOOMTOOL_ERR_INVALID_ARGUMENT, "offsets must not be NULL");
  if (keys == nullptr && offsets[count] != offsets[0])
    return fail(BLOOMTOOL_ERR_INVALID_ARGUMENT, "keys: NULL with non-empty keys");
  for (size_t i = 0; i < count; ++i) {
    if (offsets[i + 1] >= offsets[i] && offsets[i + 1] - offsets[i] > kMaxBuilderKey)
      return key_too_long(i, offsets[i + 1] - offsets[i]);
  }
  return guarded([&] {
    const char* bytes = keys != nullptr ? static_cast<const char*>(keys) : &empty_byte;
    if (builder->live) {
      for (size_t i = 1; i <= count; ++i) {
        if (offsets[i] < offsets[i - 1])
          return fail(BLOOMTOOL_ERR_INVALID_ARGUMENT,
                      ("offsets: entry " + std::to_string(i) + " (" + std::to_string(offsets[i]) +
                       ") is less than the one before it (" + std::to_string(offsets[i - 1]) + ")")
                          .c_str());
      }
      builder->live->add_many(bytes, std::span<const uint64_t>(offsets, count + 1));
    } else {
      builder->builder->add_many(bytes, std::span<const uint64_t>(offsets, count + 1));
    }
    return BLOOMTOOL_OK;
  });
}

bloomtool_status bloomtool_builder_add_separated(bloomtool_builder* builder, const void* data,
                                                 size_t len, uint8_t separator, size_t count) {
  if (builder == nullptr) return no_builder();
  std::lock_guard<std::mutex> lock(builder->mutex);
  if (builder->finished) return finished_builder();
  if (data == nullptr && len != 0)
    return fail(BLOOMTOOL_ERR_INVALID_ARGUMENT, "data: NULL with a non-zero length");
  return guarded([&] {
    const std::string_view all(data != nullptr ? static_cast<const char*>(data) : &empty_byte, len);
    const std::vector<uint64_t> starts =
        bloomtool::separated_starts(all, static_cast<char>(separator), count);
    for (size_t i = 0; i < count; ++i) {
      if (starts[i + 1] - 1 - starts[i] > kMaxBuilderKey)
        return key_too_long(i, starts[i + 1] - 1 - starts[i]);
    }
    if (builder->live) {
      builder->live->add_separated(all, starts);
    } else {
      for (size_t i = 0; i < count; ++i)
        builder->builder->add(all.substr(starts[i], starts[i + 1] - 1 - starts[i]));
    }
    return BLOOMTOOL_OK;
  });
}

bloomtool_status bloomtool_builder_contains_separated(const bloomtool_builder* builder,
                                                      const void* data, size_t len,
                                                      uint8_t separator, size_t count,
                                                      uint8_t* results) {
  if (builder == nullptr) return no_builder();
  std::lock_guard<std::mutex> lock(builder->mutex);
  if (builder->finished) return finished_builder();
  if (!builder->live) return no_filter_yet();
  if (data == nullptr && len != 0)
    return fail(BLOOMTOOL_ERR_INVALID_ARGUMENT, "data: NULL with a non-zero length");
  if (results == nullptr && count != 0)
    return fail(BLOOMTOOL_ERR_INVALID_ARGUMENT, "results must not be NULL");
  return guarded([&] {
    const std::string_view all(data != nullptr ? static_cast<const char*>(data) : &empty_byte, len);
    const std::vector<uint64_t> starts =
        bloomtool::separated_starts(all, static_cast<char>(separator), count);
    builder->live->contains_separated(all, starts, results);
    return BLOOMTOOL_OK;
  });
}

bloomtool_status bloomtool_builder_size(const bloomtool_builder* builder, uint64_t* out) {
  if (builder == nullptr) return no_builder();
  if (out == nullptr) return fail(BLOOMTOOL_ERR_INVALID_ARGUMENT, "no place to store the size");
  std::lock_guard<std::mutex> lock(builder->mutex);
  if (builder->finished) return finished_builder();
  *out = builder->live ? builder->live->lines() : builder->builder->size();
  return BLOOMTOOL_OK;
}

bloomtool_status bloomtool_builder_finish(bloomtool_builder* builder, const char* path,
                                          const char* signing_key_path, uint32_t flags) {
  if (builder == nullptr) return no_builder();
  std::lock_guard<std::mutex> lock(builder->mutex);
  if (builder->finished) return finished_builder();
  if (path == nullptr || *path == '\0')
    return fail(BLOOMTOOL_ERR_INVALID_ARGUMENT, "no path (NULL or empty)");
  bloomtool::OutputOptions output;
  const bloomtool_status checked =
      guarded([&] { return output_of(signing_key_path, flags, output); });
  if (checked != BLOOMTOOL_OK) return checked;
  if (!keep_open(builder, flags)) return cannot_keep();
  builder->finished = (flags & BLOOMTOOL_FINISH_KEEP) == 0;
  return guarded([&] {
    if (builder->live) {
      const std::unique_ptr<bloomtool::LiveBloom> done =
          builder->finished ? std::move(builder->live) : nullptr;
      (done ? *done : *builder->live).write(path, output);
    } else {
      const std::unique_ptr<bloomtool::Builder> done = std::move(builder->builder);
      done->finish(path, output);
    }
    return BLOOMTOOL_OK;
  });
}

bloomtool_status bloomtool_builder_finish_bytes(bloomtool_builder* builder,
                                                const char* signing_key_path, uint32_t flags,
                                                uint8_t** data, size_t* len) {
  if (builder == nullptr) return no_builder();
  if (data == nullptr || len == nullptr)
    return fail(BLOOMTOOL_ERR_INVALID_ARGUMENT, "no place to store the bytes (data or len NULL)");
  *data = nullptr;
  *len = 0;
  std::lock_guard<std::mutex> lock(builder->mutex);
  if (builder->finished) return finished_builder();
  bloomtool::OutputOptions output;
  const bloomtool_status checked =
      guarded([&] { return output_of(signing_key_path, flags, output); });
  if (checked != BLOOMTOOL_OK) return checked;
  if (!keep_open(builder, flags)) return cannot_keep();
  builder->finished = (flags & BLOOMTOOL_FINISH_KEEP) == 0;
  return guarded([&] {
    std::vector<uint8_t> bytes;
    if (builder->live) {
      const std::unique_ptr<bloomtool::LiveBloom> done =
          builder->finished ? std::move(builder->live) : nullptr;
      bytes = (done ? *done : *builder->live).encode(output);
    } else {
      const std::unique_ptr<bloomtool::Builder> done = std::move(builder->builder);
      bytes = done->finish_bytes(output);
    }
    auto* copy = static_cast<uint8_t*>(std::malloc(bytes.empty() ? 1 : bytes.size()));
    if (copy == nullptr) throw std::bad_alloc();
    if (!bytes.empty()) std::memcpy(copy, bytes.data(), bytes.size());
    *data = copy;
    *len = bytes.size();
    return BLOOMTOOL_OK;
  });
}

bloomtool_status bloomtool_builder_contains_many(const bloomtool_builder* builder, const void* keys,
                                                 const uint64_t* offsets, size_t count,
                                                 uint8_t* results) {
  if (builder == nullptr) return no_builder();
  std::lock_guard<std::mutex> lock(builder->mutex);
  if (builder->finished) return finished_builder();
  if (!builder->live) return no_filter_yet();
  if (count == 0) return BLOOMTOOL_OK;
  if (offsets == nullptr || results == nullptr)
    return fail(BLOOMTOOL_ERR_INVALID_ARGUMENT, "offsets and results must not be NULL");
  if (keys == nullptr && offsets[count] != offsets[0])
    return fail(BLOOMTOOL_ERR_INVALID_ARGUMENT, "keys: NULL with non-empty keys");
  return guarded([&] {
    for (size_t i = 1; i <= count; ++i) {
      if (offsets[i] < offsets[i - 1])
        return fail(BLOOMTOOL_ERR_INVALID_ARGUMENT,
                    ("offsets: entry " + std::to_string(i) + " (" + std::to_string(offsets[i]) +
                     ") is less than the one before it (" + std::to_string(offsets[i - 1]) + ")")
                        .c_str());
    }
    const char* bytes = keys != nullptr ? static_cast<const char*>(keys) : &empty_byte;
    builder->live->contains_many(bytes, std::span<const uint64_t>(offsets, count + 1), results);
    return BLOOMTOOL_OK;
  });
}

int bloomtool_builder_contains(const bloomtool_builder* builder, const void* key, size_t len) {
  if (builder == nullptr) return -no_builder();
  std::lock_guard<std::mutex> lock(builder->mutex);
  if (builder->finished) return -finished_builder();
  if (!builder->live) return -no_filter_yet();
  if (key == nullptr && len != 0)
    return -fail(BLOOMTOOL_ERR_INVALID_ARGUMENT, "key: NULL with a non-zero length");
  int answer = 0;
  const bloomtool_status status = guarded([&] {
    const char* bytes = key != nullptr ? static_cast<const char*>(key) : &empty_byte;
    answer = builder->live->contains(std::string_view(bytes, len)) ? 1 : 0;
    return BLOOMTOOL_OK;
  });
  return status == BLOOMTOOL_OK ? answer : -static_cast<int>(status);
}

bloomtool_status bloomtool_builder_merge(bloomtool_builder* builder, const bloomtool_builder* other,
                                         int32_t intersect) {
  if (builder == nullptr || other == nullptr) return no_builder();
  if (builder == other)
    return fail(BLOOMTOOL_ERR_INVALID_ARGUMENT, "other: the same builder (merge a copy)");
  std::scoped_lock lock(builder->mutex, other->mutex);
  if (builder->finished || other->finished) return finished_builder();
  if (!builder->live || !other->live) return no_filter_yet();
  return guarded([&] {
    builder->live->merge(*other->live, intersect != 0);
    return BLOOMTOOL_OK;
  });
}

bloomtool_status bloomtool_builder_estimate(const bloomtool_builder* builder, uint64_t* distinct) {
  if (builder == nullptr) return no_builder();
  if (distinct == nullptr) return fail(BLOOMTOOL_ERR_INVALID_ARGUMENT, "no place to store it");
  std::lock_guard<std::mutex> lock(builder->mutex);
  if (builder->finished) return finished_builder();
  if (!builder->live) return no_filter_yet();
  return guarded([&] {
    *distinct = builder->live->distinct();
    return BLOOMTOOL_OK;
  });
}

bloomtool_status bloomtool_builder_from_bytes(const void* data, size_t len,
                                              bloomtool_builder** out) {
  if (out == nullptr) return fail(BLOOMTOOL_ERR_INVALID_ARGUMENT, "no place to store the builder");
  *out = nullptr;
  if (data == nullptr && len != 0)
    return fail(BLOOMTOOL_ERR_INVALID_ARGUMENT, "data: NULL with a non-zero length");
  return guarded([&] {
    const uint8_t* bytes = data != nullptr ? static_cast<const uint8_t*>(data)
                                           : reinterpret_cast<const uint8_t*>(&empty_byte);
    *out = new bloomtool_builder(
        std::make_unique<bloomtool::LiveBloom>(std::span<const uint8_t>(bytes, len), "<memory>"));
    return BLOOMTOOL_OK;
  });
}

void bloomtool_builder_free(bloomtool_builder* builder) {
  delete builder;
}

void bloomtool_free(void* data) {
  std::free(data);
}

bloomtool_status bloomtool_open_bytes(const void* data, size_t len, int32_t format,
                                      const char* public_key_path, bloomtool_filter** out) {
  bloomtool::OpenOptions options;
  const bloomtool_status checked =
      guarded([&] { return open_options_of(format, public_key_path, out, options); });
  if (checked != BLOOMTOOL_OK) return checked;
  if (data == nullptr && len != 0)
    return fail(BLOOMTOOL_ERR_INVALID_ARGUMENT, "data: NULL with a non-zero length");
  return guarded([&] {
    const uint8_t* bytes = data != nullptr ? static_cast<const uint8_t*>(data)
                                           : reinterpret_cast<const uint8_t*>(&empty_byte);
    *out = new bloomtool_filter(
        bloomtool::open_filter(std::span<const uint8_t>(bytes, len), options), "<memory>");
    return BLOOMTOOL_OK;
  });
}

bloomtool_status bloomtool_open_format(const char* path, int32_t format,
                                       const char* public_key_path, bloomtool_filter** out) {
  bloomtool::OpenOptions options;
  const bloomtool_status checked =
      guarded([&] { return open_options_of(format, public_key_path, out, options); });
  if (checked != BLOOMTOOL_OK) return checked;
  if (path == nullptr) return fail(BLOOMTOOL_ERR_INVALID_ARGUMENT, "no path (NULL)");
  if (*path == '\0') return fail(BLOOMTOOL_ERR_INVALID_ARGUMENT, "no path (the path is empty)");
  return guarded([&] {
    *out = new bloomtool_filter(path, options);
    return BLOOMTOOL_OK;
  });
}

}  // extern "C"
