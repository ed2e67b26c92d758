// The header of a newly built filter: geometry from the builder, counts from the key stream,
// normalisation and input options from the input, and provenance (creation time, tool version,
// label) from the caller.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "format/filter_file.h"
#include "keys/key_reader.h"

namespace bloomtool {

// What the caller records about a build besides the keys.
struct BuildProvenance {
  int64_t created_unix = 0;  // seconds since 1970-01-01 UTC
  std::string label;         // free text, may be empty
};

// Everything the builder knows about the filter it made.
struct BuildFacts {
  FilterKind kind = FilterKind::kBloom;
  uint32_t variant = 0;  // Bloom: BloomVariant; xor/fuse: 0
  uint64_t seed = 0;
  uint64_t m = 0;  // Bloom: bits; xor/fuse: slots
  uint32_t k = 0;  // Bloom: hashes; xor/fuse: fingerprint bits
  std::vector<uint64_t> kind_params;
  uint64_t distinct = 0;
};

// A complete header for a filter built from keys read with `input` (hash id xxh3-64, this tool's
// version); payload fields are left for the writer.
FilterHeader make_filter_header(const BuildFacts& facts, const InputStats& stats,
                                const InputOptions& input, const BuildProvenance& provenance);

// Sets the creation time, tool version and label of `header` (builders and merge).
void stamp_provenance(FilterHeader& header, const BuildProvenance& provenance);

}  // namespace bloomtool
