// The C API (bloomtool_c.h) over bloomtool::Reader: every entry point catches everything, turns
// it into a status and a per-thread message, and lets no exception out.
#define BLOOMTOOL_C_BUILDING 1
#include "bloomtool/bloomtool_c.h"

#include <cstring>
#include <new>
#include <string>

#include "bloomtool/error.h"
#include "bloomtool/reader.h"
#include "bloomtool/version.h"

struct bloomtool_filter {
  bloomtool_filter(const std::string& path, const bloomtool::ReaderOptions& options)
      : reader(path, options) {}
  bloomtool::Reader reader;
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

char empty_byte = 0;

bloomtool_status open_with(const char* path, const char* trusted_key,
                           bloomtool_filter** out) noexcept {
  if (out == nullptr) return fail(BLOOMTOOL_ERR_INVALID_ARGUMENT, "no place to store the filter");
  *out = nullptr;
  if (path == nullptr) return fail(BLOOMTOOL_ERR_INVALID_ARGUMENT, "no path (NULL)");
  return guarded([&] {
    bloomtool::ReaderOptions options;
    if (trusted_key != nullptr) options.trusted_key = trusted_key;
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

void bloomtool_close(bloomtool_filter* filter) {
  delete filter;
}

int bloomtool_contains(const bloomtool_filter* filter, const void* key, size_t len) {
  if (filter == nullptr) return -no_filter();
  if (key == nullptr && len != 0)
    return -fail(BLOOMTOOL_ERR_INVALID_ARGUMENT, "key: NULL with a non-zero length");
  int answer = 0;
  const bloomtool_status status = guarded([&] {
    const char* bytes = key != nullptr ? static_cast<const char*>(key) : &empty_byte;
    answer = filter->reader.contains(std::string_view(bytes, len)) ? 1 : 0;
    return BLOOMTOOL_OK;
  });
  return status == BLOOMTOOL_OK ? answer : -static_cast<int>(status);
}

bloomtool_status bloomtool_contains_many(const bloomtool_filter* filter, const void* keys,
                                         const uint64_t* offsets, size_t count, uint8_t* results) {
  if (filter == nullptr) return no_filter();
  if (count == 0) return BLOOMTOOL_OK;
  if (offsets == nullptr || results == nullptr)
    return fail(BLOOMTOOL_ERR_INVALID_ARGUMENT, "offsets and results must not be NULL");
  if (keys == nullptr && offsets[count] != offsets[0])
    return fail(BLOOMTOOL_ERR_INVALID_ARGUMENT, "keys: NULL with non-empty keys");
  return guarded([&] {
    const char* bytes = keys != nullptr ? static_cast<const char*>(keys) : &empty_byte;
    filter->reader.contains_many(bytes, std::span<const uint64_t>(offsets, count + 1), results);
    return BLOOMTOOL_OK;
  });
}

bloomtool_status bloomtool_get_info(const bloomtool_filter* filter, bloomtool_info* info) {
  if (filter == nullptr) return no_filter();
  if (info == nullptr || info->size < sizeof(size_t))
    return fail(BLOOMTOOL_ERR_INVALID_ARGUMENT, "info: NULL, or its size member is not set");
  const bloomtool::ReaderInfo& r = filter->reader.info();
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
    default:
      return "internal error";
  }
}

}  // extern "C"
