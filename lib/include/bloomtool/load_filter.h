// Opening a filter file of any kind as a queryable Filter. Kind-specific checks (hash id, variant,
// parameters against payload length, padding bits) happen here, after the generic checks of
// filter_file.h, so `query` and `stats` never see a filter whose bytes disagree with its header.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "bloomtool/filter.h"
#include "bloomtool/filter_file.h"
#include "bloomtool/raw_payload.h"

namespace bloomtool {

struct LoadedFilter {
  FilterHeader header;
  // Set for a raw (codec 2) file opened by load_filter: the mapped file and which of its chunks
  // have been verified. `filter` reads the mapping in place, so it is declared after this.
  std::shared_ptr<const RawPayloadView> raw;
  std::unique_ptr<Filter> filter;
  uint64_t file_bytes = 0;
};

// Reads, verifies and instantiates the filter in `path`; "-" reads it from standard input, named
// "<stdin>" in messages (see load_filter_from_fd). Throws bloomtool::Error.
// A zstd file is read whole and verified before this returns. A raw (codec 2) regular file is
// mapped instead: its header, chunk table, padding (and the last chunk when the kind's checks
// read its last word) are verified here, every other
// chunk the first time a query needs it, so opening a filter of any size costs a few pages. Query
// it through filter_contains_hashes or filter_contains_keys, which verify the chunks each batch
// reads and throw kCorrupt naming the file and the chunk's byte offset before giving an answer
// that depends on a bad chunk; before using `filter` or its words() directly, call
// verify_whole_payload.
LoadedFilter load_filter(const std::string& path);

// The lazily verified filter of a raw file already mapped and parsed (load_filter's raw path;
// load_verified_filter's, after the signature check over the same mapping).
LoadedFilter make_raw_filter(MappedRawFile file, const std::string& path);

// Verifies the chunks contains_batch(hashes) would read, unless all are verified already (always
// the case for a file that is not raw). Throws kCorrupt as load_filter says. Thread-safe.
void verify_probes(const LoadedFilter& filter, std::span<const uint64_t> hashes);

// verify_probes, then filter.filter->contains_batch(hashes, out).
void filter_contains_hashes(const LoadedFilter& filter, std::span<const uint64_t> hashes,
                            uint8_t* out);

// Verifies every chunk of a lazily verified payload (a no-op otherwise).
void verify_whole_payload(const LoadedFilter& filter);

// The same for a filter file arriving on the descriptor `fd` (read_filter_stream: read whole and
// verified, whatever its codec), named `name`.
LoadedFilter load_filter_from_fd(int fd, const std::string& name);

// Checks a Bloom filter's header on its own, before any payload is read: variant, m, k, and the
// payload length m implies. Throws kCorrupt or kUnsupported naming `path`.
void check_bloom_header(const FilterHeader& header, const std::string& path);

// Key-level queries, for every hash scheme: out[i] = 1 if keys[i] may be in the filter, else 0.
// Chunks of a lazily verified payload are verified first (see load_filter).
// Keys must already be normalised as header.normalisation says (normalise.h). This is the one
// place that knows how each scheme turns a key into what the filter tests, so the CLI, the C API
// and the bindings all answer alike.
void filter_contains_keys(const LoadedFilter& filter, std::span<const std::string_view> keys,
                          uint8_t* out);

// Instantiates a filter from contents already read and checksum-verified.
LoadedFilter make_filter(FilterFileContents contents, const std::string& path);

}  // namespace bloomtool
