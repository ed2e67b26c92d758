// Rewriting a filter file without rebuilding it: the same filter, header facts and bits, with
// other writer choices (the payload codec: zstd or raw, docs/FORMAT.md).
#pragma once

#include <cstdint>
#include <string>

#include "bloomtool/filter_file.h"

namespace bloomtool {

struct ConvertResult {
  FilterHeader header;  // as written
  uint64_t input_bytes = 0;
  uint64_t output_bytes = 0;
};

// Reads `input` whole and verifies it as load_filter does (both checksums, every chunk of a raw
// payload, the kind's own checks), then writes the same filter to `output` atomically ("-":
// standard output) as `options` say. Every header fact is kept (kind, geometry, seed, counts,
// creation time, label, tool version, key options); only the codec, its layout and the format
// minor version (1 only when a 1.1 feature is used) change; a signature is dropped, unless
// `options` sign the output again. Memory: one filter. Throws
// bloomtool::Error naming the file at fault; `output` is untouched on any error.
ConvertResult convert_filter_file(const std::string& input, const std::string& output,
                                  const WriteOptions& options);

}  // namespace bloomtool
