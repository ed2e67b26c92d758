// Opening a filter file of any kind as a queryable Filter. Kind-specific checks (hash id, variant,
// parameters against payload length, padding bits) happen here, after the generic checks of
// filter_file.h, so `query` and `stats` never see a filter whose bytes disagree with its header.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "filters/filter.h"
#include "filters/loaded_filter.h"
#include "format/filter_file.h"
#include "format/raw_payload.h"
#include "interop/foreign_format.h"
#include "format/signature.h"

namespace bloomtool {

// Reads, verifies and instantiates the filter in `path`; "-" reads it from standard input, named
// "<stdin>" in messages (see load_filter_from_fd). Throws bloomtool::Error.
// A zstd file is read whole (read(), never mapped) and verified before this returns. A raw
// (codec 2) regular file is opened instead (RawPayloadView): its header, chunk table and padding
// are verified here, and the payload's chunks are read with pread() when a query needs them,
// each checked against the table every time it is read from the file and kept in a cache of
// bounded size (default_raw_cache_bytes()), so opening and querying a filter of any size, even one
// larger than memory, costs about the chunks its queries read. Query it through
// filter_contains_hashes or filter_contains_keys, which read the chunks each batch needs and
// throw kCorrupt naming the file and the chunk's byte offset (a chunk that does not match its
// checksum, or a file truncated under the reader) instead of giving an answer that depends on
// bytes not verified. Before using `filter` or its words() directly, call verify_whole_payload.
LoadedFilter load_filter(const std::string& path);

// load_filter with the signature verified against `key` first, over the same bytes that are then
// decoded: the whole file is read (every byte hashed) before any answer can come from it.
// Throws kUntrusted as verify_file_signature (filter_file.h) says.
LoadedFilter load_verified_filter(const std::string& path, const PublicKey& key);

// The filter of a raw file already opened (load_filter's raw path; load_verified_filter's, after
// the signature check).
LoadedFilter make_raw_filter(std::shared_ptr<const RawPayloadView> view, const std::string& path);

// out[i] = 1 if the key whose hash is hashes[i] may be in the filter: filter.filter's
// contains_batch, after the chunks of a raw payload it reads are made resident and pinned (in
// groups, so that a batch of any size holds a bounded number). Throws kCorrupt as load_filter
// says. Thread-safe.
void filter_contains_hashes(const LoadedFilter& filter, std::span<const uint64_t> hashes,
                            uint8_t* out);

// Reads every chunk of a raw payload into memory for good (memory: the payload's size), for
// readers that use every word; a no-op for other files. Throws as load_filter says.
void verify_whole_payload(const LoadedFilter& filter);

// The same for a filter file arriving on the descriptor `fd` (read_filter_stream: read whole and
// verified, whatever its codec), named `name`.
LoadedFilter load_filter_from_fd(int fd, const std::string& name);

// Key-level queries, for every hash scheme: out[i] = 1 if keys[i] may be in the filter, else 0.
// The chunks of a raw payload are read and checked first (see load_filter).
// Keys must already be normalised as header.normalisation says (normalise.h). The filter's key
// rule turns each key into what it tests (filter.h), so the CLI, the C API and the bindings all
// answer alike.
void filter_contains_keys(const LoadedFilter& filter, std::span<const std::string_view> keys,
                          uint8_t* out);

// Reads `path` in `format`: a bloomtool file with load_filter, a peer's with read_foreign_file
// (foreign_format.h).
LoadedFilter load_filter_as(const std::string& path, FileFormat format, bool keep_source = true);

// Instantiates a filter from contents already read and checksum-verified.
LoadedFilter make_filter(FilterFileContents contents, const std::string& path);

}  // namespace bloomtool
