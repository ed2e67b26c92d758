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

namespace bloomtool {

struct LoadedFilter {
  FilterHeader header;
  std::unique_ptr<Filter> filter;
  uint64_t file_bytes = 0;
};

// Reads, verifies and instantiates the filter in `path`. Throws bloomtool::Error.
LoadedFilter load_filter(const std::string& path);

// Checks a Bloom filter's header on its own, before any payload is read: variant, m, k, and the
// payload length m implies. Throws kCorrupt or kUnsupported naming `path`.
void check_bloom_header(const FilterHeader& header, const std::string& path);

// Key-level queries, for every hash scheme: out[i] = 1 if keys[i] may be in the filter, else 0.
// Keys must already be normalised as header.normalisation says (normalise.h). This is the one
// place that knows how each scheme turns a key into what the filter tests, so the CLI, the C API
// and the bindings all answer alike.
void filter_contains_keys(const LoadedFilter& filter, std::span<const std::string_view> keys,
                          uint8_t* out);

// Instantiates a filter from contents already read and checksum-verified.
LoadedFilter make_filter(FilterFileContents contents, const std::string& path);

}  // namespace bloomtool
