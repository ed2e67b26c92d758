// An unpartitioned Ribbon filter built from a key stream, not yet written: what build_static
// (partitioned_build.h) makes of all the hashes when there is one partition.
#pragma once

#include <string>

#include "filters/hashed_keys.h"
#include "filters/ribbon_construct.h"
#include "format/build_header.h"
#include "keys/key_stream.h"

namespace bloomtool {

// A built Ribbon filter, not yet written.
struct RibbonBuild {
  RibbonBuildResult built;  // the filter, distinct hashes, duplicates and attempts
  FilterHeader header;      // complete but for the payload fields
  InputStats input;         // what the key stream read

  // Writes the filter to `path` atomically ("-": standard output), signed if `options` say so;
  // returns the bytes written.
  uint64_t write(const std::string& path, const WriteOptions& options = {});
};

// The file header of a built filter (every field the filter decides: variant, m, k, kind_params,
// distinct keys), complete but for the payload fields; `seed` is the key hash seed. Every
// unpartitioned Ribbon build makes its header here.
FilterHeader ribbon_file_header(const RibbonBuildResult& built, uint64_t seed,
                                const InputStats& input, const InputOptions& input_options,
                                const BuildProvenance& provenance);

}  // namespace bloomtool
