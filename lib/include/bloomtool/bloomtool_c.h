/* The C API of libbloomtool.so (SONAME libbloomtool.so.0): open a filter file that bloomtool
 * wrote (any kind, codec and hash scheme it reads), ask whether keys may be in it, read its facts,
 * close it. Keys are normalised as the file says, exactly as `bloomtool query` does.
 *
 * Errors: functions that can fail return a bloomtool_status (0 = BLOOMTOOL_OK) or, for the
 * single-key query, a negative status; the message is then available from
 * bloomtool_last_error() in the same thread, worded as the bloomtool program words it (without
 * its "bloomtool: " prefix). No C++ exception ever leaves this library.
 *
 * Thread safety: a bloomtool_filter may be queried and read from any number of threads at once.
 * To stop a handle that other threads may still be using, call bloomtool_shutdown: it waits for
 * the calls in flight on it to return, frees the filter's memory and file, and every later call
 * on the handle fails with BLOOMTOOL_ERR_CLOSED (never a crash). bloomtool_close (shutdown, then
 * free the handle itself) must be the last call on a handle: like free(), nothing may use the
 * pointer once it has begun. The last error is kept per thread.
 *
 * ABI: only the functions declared here are exported. Within SONAME libbloomtool.so.0 they keep
 * their signatures and meaning, new functions may be added, and bloomtool_info may gain fields at
 * its end only (callers pass sizeof(bloomtool_info), so old callers keep working). docs/
 * EMBEDDING.md has the full rules. */
#ifndef BLOOMTOOL_BLOOMTOOL_C_H
#define BLOOMTOOL_BLOOMTOOL_C_H

#include <stddef.h>
#include <stdint.h>

#if defined(BLOOMTOOL_C_BUILDING)
#define BLOOMTOOL_C_API __attribute__((visibility("default")))
#else
#define BLOOMTOOL_C_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* An open filter. Opaque: only pointers to it are used. */
typedef struct bloomtool_filter bloomtool_filter;

/* The library's error classes (bloomtool::ErrorCode, plus the two that only the C API has). New
 * values may be added; a caller treats an unknown non-zero value as an error. */
typedef enum bloomtool_status {
  BLOOMTOOL_OK = 0,
  BLOOMTOOL_ERR_INVALID_ARGUMENT = 1, /* a NULL handle or path, decreasing offsets, ... */
  BLOOMTOOL_ERR_BAD_INPUT = 2,
  BLOOMTOOL_ERR_CORRUPT = 3,        /* the file fails a check: checksum, size, truncation */
  BLOOMTOOL_ERR_UNSUPPORTED = 4,    /* a newer format, an unknown kind, codec, hash, ... */
  BLOOMTOOL_ERR_IO = 5,             /* the operating system refused: no such file, ... */
  BLOOMTOOL_ERR_LIMIT_EXCEEDED = 6, /* e.g. a filter larger than this machine's memory */
  BLOOMTOOL_ERR_NO_MEMORY = 7,      /* an allocation failed */
  BLOOMTOOL_ERR_INTERNAL = 8,       /* anything else: a bug, please report it */
  BLOOMTOOL_ERR_UNTRUSTED = 9,      /* bloomtool_open_trusted: unsigned, another key, altered */
  BLOOMTOOL_ERR_CLOSED = 10         /* the handle was shut down (bloomtool_shutdown) */
} bloomtool_status;

/* The facts of an open filter (the names of `bloomtool stats --json`). Strings are NUL-terminated
 * UTF-8 owned by the handle: valid until bloomtool_close (bloomtool_shutdown keeps them). */
typedef struct bloomtool_info {
  size_t size;                /* set by the caller: sizeof(bloomtool_info) */
  const char* kind;           /* "bloom", "xor", "binary-fuse", "ribbon" */
  const char* variant;        /* Bloom: "standard" or "blocked"; otherwise "" */
  const char* format_version; /* "1.0", "1.1" */
  uint64_t m;                 /* Bloom: bits; xor / binary fuse: fingerprint slots */
  uint32_t k;                 /* Bloom: hashes per key; xor / binary fuse: fingerprint bits */
  uint32_t hash_id;           /* the file's hash id (1 = XXH3-64) */
  uint64_t distinct_keys;     /* distinct keys the file records (n) */
  uint64_t keys_added;        /* keys inserted at build time, duplicates included */
  double model_fpr;           /* the model's false-positive rate p for n distinct keys */
  const char* label;          /* "" when none */
  int64_t created_unix;       /* creation time, seconds since 1970-01-01 UTC */
  const char* normalisation;  /* canonical steps, e.g. "trim,lowercase"; "" when none */
  const char* hash;           /* hash scheme name, e.g. "xxh3-64" */
  uint64_t seed;              /* hash seed (0 for schemes without one) */
  uint64_t file_bytes;        /* size of the file read */
  /* stats --json's "signature" object (members added at the end, as the ABI rules say): */
  int32_t signature_signed;     /* 1 if the file carries a signature */
  int32_t signature_verified;   /* 1 if opened by bloomtool_open_trusted (and so verified) */
  const char* signature_key_id; /* the signing key's id, 16 hex digits; "" when unsigned */
} bloomtool_info;

/* The library's version, e.g. "0.1.0" (static storage). */
BLOOMTOOL_C_API const char* bloomtool_version(void);

/* Opens, verifies and instantiates the filter file at `path` (NUL-terminated, not empty) and
 * stores the handle in *out (NULL on failure). Every check `bloomtool query` makes is made here; a
 * corrupt or truncated file is an error, never a crash. */
BLOOMTOOL_C_API bloomtool_status bloomtool_open(const char* path, bloomtool_filter** out);

/* Like bloomtool_open, and the filter opens only if it is signed by the key in the public key
 * file `public_key_path` (NAME.pub of `bloomtool keygen`) and unaltered since, as `bloomtool
 * query --trusted-key` checks: BLOOMTOOL_ERR_UNTRUSTED otherwise. The signature is verified over
 * the same bytes that are then decoded. */
BLOOMTOOL_C_API bloomtool_status bloomtool_open_trusted(const char* path,
                                                        const char* public_key_path,
                                                        bloomtool_filter** out);

/* Releases the filter and the handle; NULL is allowed and ignored. It first shuts the handle
 * down (see bloomtool_shutdown), so it waits for calls in flight; but the pointer is invalid once
 * it returns, so no other thread may still be about to use it: where one may, call
 * bloomtool_shutdown there, and bloomtool_close once every thread is done with the handle. */
BLOOMTOOL_C_API void bloomtool_close(bloomtool_filter* filter);

/* Closes the filter but keeps the handle: waits until the calls in flight on it have returned,
 * then frees the filter's memory and mapping. Every later call on the handle (contains,
 * contains_many, get_info) returns BLOOMTOOL_ERR_CLOSED ("<path>: the filter is closed"), so it
 * may race with queries from other threads. Calling it again is harmless; NULL is ignored.
 * bloomtool_close frees the handle. */
BLOOMTOOL_C_API void bloomtool_shutdown(bloomtool_filter* filter);

/* 1 if the key of `len` bytes at `key` may be in the filter, 0 if it is definitely not, or a
 * negative bloomtool_status (-BLOOMTOOL_ERR_...) on error. `key` may be NULL when len is 0. A key
 * that normalises to nothing answers 0 (builds skip such keys). */
BLOOMTOOL_C_API int bloomtool_contains(const bloomtool_filter* filter, const void* key, size_t len);

/* Batch query: key i is the bytes keys[offsets[i]] .. keys[offsets[i + 1] - 1], so `offsets`
 * holds count + 1 non-decreasing entries (offsets[0] is usually 0). results[i] is set to 1 (may
 * be present) or 0 (definitely absent). On error nothing is guaranteed about `results`. */
BLOOMTOOL_C_API bloomtool_status bloomtool_contains_many(const bloomtool_filter* filter,
                                                         const void* keys, const uint64_t* offsets,
                                                         size_t count, uint8_t* results);

/* Fills *info, whose `size` member the caller has set to sizeof(bloomtool_info); members beyond
 * `size` are not touched (a caller compiled against an older, shorter struct). */
BLOOMTOOL_C_API bloomtool_status bloomtool_get_info(const bloomtool_filter* filter,
                                                    bloomtool_info* info);

/* The message of the last failed call in this thread, e.g. "x.bf: corrupt: payload checksum
 * mismatch" ("" when none has failed). Valid until the next call into this library from the same
 * thread. */
BLOOMTOOL_C_API const char* bloomtool_last_error(void);

/* A short lowercase name of a status: "ok", "corrupt", "unsupported", ... (static storage). */
BLOOMTOOL_C_API const char* bloomtool_status_name(int status);

/* ---- Following a replaced file (refresh) ---------------------------------------------------
 * A nightly job replaces the file by an atomic rename; a handle switches to the new file only
 * after opening and verifying it fully (checksums, the signature with the same trusted key, the
 * maximum age). A call in flight finishes on the filter it began with: one call's answers all
 * come from one whole filter, never a mix. A new file that fails a check leaves the old filter
 * serving, and the error is reported; the next refresh retries. */

/* Options of bloomtool_open_with; members beyond `size` count as zero / NULL. */
typedef struct bloomtool_open_options {
  /* Set by the caller: sizeof(bloomtool_open_options). */
  size_t size;
  /* A public key file as for bloomtool_open_trusted; NULL: none. */
  const char* trusted_key;
  /* > 0: queries look for a new file at most once per this many seconds and switch to it (one
   * clock read per call); 0: only bloomtool_refresh. */
  uint32_t refresh_seconds;
  /* > 0: a file created longer ago than this is refused (BLOOMTOOL_ERR_UNTRUSTED), at open and
   * at every refresh. */
  int64_t max_age_seconds;
} bloomtool_open_options;

/* bloomtool_open with options (`options` NULL: as bloomtool_open). */
BLOOMTOOL_C_API bloomtool_status bloomtool_open_with(const char* path,
                                                     const bloomtool_open_options* options,
                                                     bloomtool_filter** out);

/* Switches the handle to the file its path names now, if that is another file (device, inode,
 * size or modification time differ) and it passes every check. *changed (may be NULL) is set to 1
 * if it switched, else 0. On error the old filter keeps serving, *changed is 0 and the status and
 * bloomtool_last_error() say why. bloomtool_get_info then describes the new filter; strings it
 * gave before stay valid until bloomtool_close. May be called while other threads query. */
BLOOMTOOL_C_API bloomtool_status bloomtool_refresh(bloomtool_filter* filter, int* changed);

#ifdef __cplusplus
}
#endif

#endif /* BLOOMTOOL_BLOOMTOOL_C_H */
