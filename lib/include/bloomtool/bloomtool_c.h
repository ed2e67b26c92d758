/* The C API of libbloomtool.so (SONAME libbloomtool.so.0): open a filter file that bloomtool
 * wrote (any kind, codec and hash scheme it reads), ask whether keys may be in it, read its facts,
 * close it; and build a filter from keys in memory (bloomtool_builder, at the end). Keys are normalised as the file says, exactly as `bloomtool query` does.
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
  const char* variant;        /* Bloom: "standard" or "blocked"; Ribbon: "standard" or "bumped";
                                 otherwise "" */
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

/* Batch query of `count` keys joined by the byte `separator`, which none of them holds (key i
 * lies between the i-th and the (i + 1)-th separator; keys from text lines joined with '\n'):
 * the layout a binding makes in one join, with no offsets to compute. `len` bytes at `data` must
 * hold exactly count - 1 separators (count 0: len 0), else BLOOMTOOL_ERR_INVALID_ARGUMENT ("data:
 * holds 3 keys separated by the byte 0x0a, the count says 2") before any result is written.
 * Batches of 65,536 keys or more are queried on several threads; all answers of one call come
 * from one filter. */
BLOOMTOOL_C_API bloomtool_status bloomtool_contains_separated(const bloomtool_filter* filter,
                                                              const void* data, size_t len,
                                                              uint8_t separator, size_t count,
                                                              uint8_t* results);

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

/* The error of the last automatic refresh (refresh_seconds > 0) of this handle, which no call
 * returns: the query that found the bad file answered from the old filter. Copies the message
 * (e.g. "x.bf: corrupt: payload checksum mismatch"), NUL-terminated and cut to fit, into `buf`
 * of `len` bytes (`buf` may be NULL when len is 0) and returns its full length in bytes: 0 when
 * the last automatic refresh succeeded or none has run. A negative bloomtool_status on error.
 * Thread rules: the message is the handle's, not the calling thread's (unlike
 * bloomtool_last_error); any thread may read it at any time, also while others query and an
 * automatic refresh replaces it (the copy is then the old message or the new one, whole).
 * bloomtool_refresh returns its own error and leaves this one as it is. */
BLOOMTOOL_C_API int64_t bloomtool_last_refresh_error(const bloomtool_filter* filter, char* buf,
                                                     size_t len);

/* ---- Building (keys in memory) and opening bytes ---------------------------------------------
 * A bloomtool_builder collects keys and writes the filter a plan describes, to a file or to bytes:
 * for the same keys and plan (and a fixed creation time: `created`, or SOURCE_DATE_EPOCH) the file
 * is byte for byte the one `bloomtool build` / `xor-build` writes from a file holding the keys one
 * per line. Each added key counts as one input line, taken as it is (no line end is stripped).
 *
 * Thread safety: calls on one builder are serialised by the library (a call waits for the one in
 * flight), so a builder may be shared between threads, though adding from several threads is no
 * faster than from one. bloomtool_builder_free must be the last call on a builder. */

/* A builder. Opaque: only pointers to it are used. */
typedef struct bloomtool_builder bloomtool_builder;

/* The kinds of filter (bloomtool::Kind). */
typedef enum bloomtool_kind {
  BLOOMTOOL_KIND_BLOOM = 0,         /* standard Bloom filter (`build`) */
  BLOOMTOOL_KIND_BLOCKED_BLOOM = 1, /* blocked Bloom filter (`build --variant blocked`) */
  BLOOMTOOL_KIND_XOR = 2,           /* xor filter (`xor-build --layout xor`), static */
  BLOOMTOOL_KIND_BINARY_FUSE = 3    /* binary fuse filter (`xor-build`), static */
} bloomtool_kind;

/* bloomtool_plan.seed_mode */
#define BLOOMTOOL_SEED_DEFAULT 0 /* the public default seed */
#define BLOOMTOOL_SEED_GIVEN 1   /* the `seed` member */
#define BLOOMTOOL_SEED_RANDOM 2  /* drawn from the operating system (recorded in the file) */

/* What to build (bloomtool::Plan). Zero means "not set" for every member, so a plan zeroed with
 * memset (or `= {0}`) and its `size` set is the default plan: a standard Bloom filter at 1% sized
 * for exactly the distinct keys added. New members may be added at the end only (callers set
 * `size` to sizeof(bloomtool_plan); members beyond it count as zero). */
typedef struct bloomtool_plan {
  size_t size;      /* set by the caller: sizeof(bloomtool_plan) */
  int32_t kind;     /* a bloomtool_kind */
  uint32_t k;       /* Bloom: hashes per key (`-k`); 0: the best for the size */
  uint64_t n;       /* Bloom: capacity (`-n`): sized up front, keys counted from the fill */
  double p;         /* Bloom: false-positive rate (`-p`); 0: 1% unless m is set */
  uint64_t m;       /* Bloom: size in bits (`-m`) */
  uint32_t fingerprint_bits; /* xor / binary fuse: 8 or 16; 0: 8 */
  uint32_t max_attempts;     /* xor / binary fuse: construction seeds to try; 0: 100 */
  int32_t seed_mode;         /* BLOOMTOOL_SEED_... */
  int32_t allow_overfill;    /* Bloom with n: 1 writes even when the keys exceed n by > 20% */
  uint64_t seed;             /* with BLOOMTOOL_SEED_GIVEN */
  const char* normalisation; /* "trim,lowercase,email", ...; NULL or "": keys as they are */
  const char* label;         /* free text stored in the file; NULL: none */
  int64_t created_unix;      /* creation time, with created_set = 1 */
  int32_t created_set;       /* 0: SOURCE_DATE_EPOCH, else now */
  uint32_t threads;          /* 0: every core (the file does not depend on it) */
} bloomtool_plan;

/* bloomtool_builder_finish / _finish_bytes flags */
#define BLOOMTOOL_CODEC_RAW 1 /* uncompressed, chunk-checksummed payload (`--codec raw`) */
#define BLOOMTOOL_FINISH_KEEP 2 /* the builder stays open (a Bloom filter sized up front only) */

/* Checks `plan` and creates a builder in *out (NULL on failure). An impossible plan is
 * BLOOMTOOL_ERR_INVALID_ARGUMENT with a message naming the member ("p: must be between 0 and
 * 1"). */
BLOOMTOOL_C_API bloomtool_status bloomtool_builder_new(const bloomtool_plan* plan,
                                                       bloomtool_builder** out);

/* Adds the key of `len` bytes at `key` (NULL when len is 0). A key longer than 1 MiB (the
 * longest line `bloomtool build` accepts by default) is BLOOMTOOL_ERR_LIMIT_EXCEEDED and is not
 * added. After a finish the builder takes no more keys (BLOOMTOOL_ERR_CLOSED). */
BLOOMTOOL_C_API bloomtool_status bloomtool_builder_add(bloomtool_builder* builder, const void* key,
                                                       size_t len);

/* Adds `count` keys in the layout of bloomtool_contains_many: key i is keys[offsets[i]] ..
 * keys[offsets[i + 1] - 1]. Decreasing offsets or a key over 1 MiB fail before any key is
 * added. For a Bloom plan sized up front, a batch of 65,536 keys or more is hashed and inserted
 * on up to plan.threads threads inside the call (the file is the same). */
BLOOMTOOL_C_API bloomtool_status bloomtool_builder_add_many(bloomtool_builder* builder,
                                                            const void* keys,
                                                            const uint64_t* offsets, size_t count);

/* Adds `count` keys joined by the byte `separator`, as bloomtool_contains_separated takes them.
 * A wrong count of separators or a key over 1 MiB fails before any key is added. */
BLOOMTOOL_C_API bloomtool_status bloomtool_builder_add_separated(bloomtool_builder* builder,
                                                                 const void* data, size_t len,
                                                                 uint8_t separator, size_t count);

/* Keys added so far (empty ones included) in *out. */
BLOOMTOOL_C_API bloomtool_status bloomtool_builder_size(const bloomtool_builder* builder,
                                                        uint64_t* out);

/* Builds the filter and writes it to `path` atomically (a temporary file renamed over it: the old
 * file stays whole on any error), signed with the secret key file `signing_key_path` (NAME.key of
 * `bloomtool keygen`) unless NULL; `flags`: 0 or BLOOMTOOL_CODEC_RAW. The builder is finished
 * afterwards, whether this succeeds or not (its keys are released), unless `flags` has
 * BLOOMTOOL_FINISH_KEEP: a Bloom filter sized up front then stays open and takes more keys
 * (BLOOMTOOL_ERR_UNSUPPORTED for other plans). */
BLOOMTOOL_C_API bloomtool_status bloomtool_builder_finish(bloomtool_builder* builder,
                                                          const char* path,
                                                          const char* signing_key_path,
                                                          uint32_t flags);

/* The same, storing the file's bytes in *data (free them with bloomtool_free) and their count in
 * *len. */
BLOOMTOOL_C_API bloomtool_status bloomtool_builder_finish_bytes(bloomtool_builder* builder,
                                                                const char* signing_key_path,
                                                                uint32_t flags, uint8_t** data,
                                                                size_t* len);

/* A Bloom plan sized up front (n, or m and k) sets the bits as keys arrive, so its builder also
 * answers queries, combines with another and estimates its keys before any finish; these calls
 * return BLOOMTOOL_ERR_UNSUPPORTED for other plans (which keep their keys until finish). */

/* 1 if the key may have been added, 0 if not, or a negative bloomtool_status (as
 * bloomtool_contains). */
BLOOMTOOL_C_API int bloomtool_builder_contains(const bloomtool_builder* builder, const void* key,
                                               size_t len);

/* Batch query of the keys added so far, in the layout of bloomtool_contains_many. */
BLOOMTOOL_C_API bloomtool_status bloomtool_builder_contains_many(const bloomtool_builder* builder,
                                                                 const void* keys,
                                                                 const uint64_t* offsets,
                                                                 size_t count, uint8_t* results);

/* Batch query in the layout of bloomtool_contains_separated. (Not reformatted: capi.abi_test
 * looks for the name on the line of the export macro.) */
/* clang-format off */
BLOOMTOOL_C_API bloomtool_status bloomtool_builder_contains_separated(
    const bloomtool_builder* builder, const void* data, size_t len, uint8_t separator,
    size_t count, uint8_t* results);
/* clang-format on */

/* Ors (intersect = 0: the union) or ands (intersect = 1) the bits of `other` into `builder`; both
 * need the same variant, m, k, seed and normalisation (BLOOMTOOL_ERR_INVALID_ARGUMENT naming the
 * first that differs). The union of builders of parts of a key set is bit for bit the builder of
 * the whole set, and its file the same file; the counts of keys add up. */
BLOOMTOOL_C_API bloomtool_status bloomtool_builder_merge(bloomtool_builder* builder,
                                                         const bloomtool_builder* other,
                                                         int32_t intersect);

/* The distinct keys estimated from the fill (what the file would record) in *distinct. */
BLOOMTOOL_C_API bloomtool_status bloomtool_builder_estimate(const bloomtool_builder* builder,
                                                            uint64_t* distinct);

/* A builder holding the Bloom filter of a bloomtool file image (a standard or blocked Bloom
 * filter of the xxh3-64 scheme, checked as bloomtool_open_bytes checks it), to take more keys:
 * its counts, label, creation time, seed and normalisation carry on, and finishing it unchanged
 * gives the same bytes (unsigned). Other kinds are BLOOMTOOL_ERR_UNSUPPORTED. */
BLOOMTOOL_C_API bloomtool_status bloomtool_builder_from_bytes(const void* data, size_t len,
                                                              bloomtool_builder** out);

/* Frees a builder (its keys, unwritten, are dropped); NULL is ignored. */
BLOOMTOOL_C_API void bloomtool_builder_free(bloomtool_builder* builder);

/* Frees memory the library handed out (bloomtool_builder_finish_bytes); NULL is ignored. */
BLOOMTOOL_C_API void bloomtool_free(void* data);

/* bloomtool_open_bytes / bloomtool_open_format: what the bytes or file are. */
typedef enum bloomtool_format {
  BLOOMTOOL_FORMAT_BLOOMTOOL = 0, /* a file bloomtool wrote (as bloomtool_open) */
  BLOOMTOOL_FORMAT_AUTO = 1,      /* told apart by their first bytes */
  BLOOMTOOL_FORMAT_GUAVA = 2,     /* a Guava BloomFilter.writeTo file */
  BLOOMTOOL_FORMAT_DCSO = 3       /* a DCSO bloom v1 file, plain or gzip */
} bloomtool_format;

/* Opens the filter file image of `len` bytes at `data` (copied: the bytes need not outlive the
 * handle), named "<memory>" in messages, with every check bloomtool_open makes; `format`: a
 * bloomtool_format; `public_key_path`: NULL, or a NAME.pub file as for bloomtool_open_trusted. */
BLOOMTOOL_C_API bloomtool_status bloomtool_open_bytes(const void* data, size_t len, int32_t format,
                                                      const char* public_key_path,
                                                      bloomtool_filter** out);

/* bloomtool_open / bloomtool_open_trusted for a file in `format` (a bloomtool_format). */
BLOOMTOOL_C_API bloomtool_status bloomtool_open_format(const char* path, int32_t format,
                                                       const char* public_key_path,
                                                       bloomtool_filter** out);

#ifdef __cplusplus
}
#endif

#endif /* BLOOMTOOL_BLOOMTOOL_C_H */
