// Rewriting filter files without their keys: the union or intersection of Bloom filters of the
// same geometry (`bloomtool merge`), and a filter written with another codec or in another
// format (`bloomtool convert`). Outputs are written atomically ("-": standard output).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "bloomtool/build.h"
#include "bloomtool/error.h"
#include "bloomtool/info.h"

namespace bloomtool {

struct MergeOptions {
  bool intersect = false;          // AND the bits instead of OR-ing them
  std::string label;               // the new file's label
  std::optional<int64_t> created;  // none: SOURCE_DATE_EPOCH, else now
  OutputOptions output;
};

// Merges two or more Bloom filter files (one may be "-": standard input) with the same variant,
// m, k, seed and key options into `output`; the union of filters built from parts of a key set is
// bit for bit the filter of the whole set. Throws kInvalidArgument naming the first field that
// differs; xor and binary fuse filters cannot be merged. Returns the new file's facts.
FilterInfo merge_filters(const std::vector<std::string>& inputs, const std::string& output,
                         const MergeOptions& options = {});

struct ConvertOptions {
  FilterFormat from = FilterFormat::kAuto;
  FilterFormat to = FilterFormat::kBloomtool;
  OutputOptions output;      // a bloomtool output's codec and signing key (a signature never
                             // carries over: it covers the old bytes)
  std::optional<bool> gzip;  // a DCSO output: gzip it (default: as the source was, else plain)
};

// Writes the filter of `input` to `output` without rebuilding it: every header fact is kept and
// only the codec (or the format) changes; a peer's file converted to bloomtool and back is byte
// for byte the original. Throws kInvalidArgument when the filter cannot be expressed in `to`.
// Returns the facts of what was written.
FilterInfo convert_file(const std::string& input, const std::string& output,
                        const ConvertOptions& options = {});

}  // namespace bloomtool
