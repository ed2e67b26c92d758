// Building a Ribbon filter from a key stream: every key's hash is collected (one mapped buffer a
// thread, growing without copying), then build_ribbon_filter makes the filter of the distinct
// hashes.
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

// Reads every key of `keys` and builds the filter. Throws what build_ribbon_filter throws
// (RibbonConstructionError when no seed works, kInvalidArgument for a rate outside [2^-30, 1/2])
// and the stream's input errors. Deterministic: the same keys give the same filter for any thread
// count.
RibbonBuild build_ribbon(KeyStream& keys, const RibbonBuildOptions& options,
                         const BuildProvenance& provenance);
// The same from hashed keys of any source (a key stream or keys held in memory).
RibbonBuild build_ribbon(const HashedKeys& keys, const RibbonBuildOptions& options,
                         const BuildProvenance& provenance);

// The file header of a built filter (every field the filter decides: variant, m, k, kind_params,
// distinct keys), complete but for the payload fields; `seed` is the key hash seed. Every
// unpartitioned Ribbon build makes its header here.
FilterHeader ribbon_file_header(const RibbonBuildResult& built, uint64_t seed,
                                const InputStats& input, const InputOptions& input_options,
                                const BuildProvenance& provenance);

}  // namespace bloomtool
