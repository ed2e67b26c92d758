// Opening a filter file of any kind as a queryable Filter. Kind-specific checks (hash id, variant,
// parameters against payload length, padding bits) happen here, after the generic checks of
// filter_file.h, so `query` and `stats` never see a filter whose bytes disagree with its header.
#pragma once

#include <memory>
#include <string>

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

// Instantiates a filter from contents already read and checksum-verified.
LoadedFilter make_filter(FilterFileContents contents, const std::string& path);

}  // namespace bloomtool
