// `bloomtool convert`: a filter rewritten without rebuilding it. Between bloomtool files, the same
// filter, header facts and bits with other writer choices (the payload codec: zstd or raw,
// docs/FORMAT.md); between formats, a filter read as a bloomtool file, a Guava writeTo file or a
// DCSO bloom v1 file (plain or gzip) and written as another. Converting a peer's file to a
// bloomtool file and back reproduces the original bytes (a gzip DCSO file: the same member header
// and decompressed bytes; docs/FORMAT.md, "Hash schemes (1.1)").
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "format/filter_file.h"
#include "interop/foreign_format.h"
#include "api/load_filter.h"

namespace bloomtool {

struct ConvertResult {
  FilterHeader header;  // as written (a peer's output: as read)
  uint64_t input_bytes = 0;
  uint64_t output_bytes = 0;
  // The input carried a signature (field 9), which is never carried over: it covers the old bytes.
  // The output is signed only when the write options sign it anew.
  std::optional<KeyId> source_signer;
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

struct FormatConvertOptions {
  WriteOptions write;           // a bloomtool output file: codec, signing
  ForeignWriteOptions foreign;  // a Guava or DCSO output file
};

// The bytes of `filter` in a peer's format `to` (guava or dcso); see encode_foreign.
std::vector<uint8_t> encode_filter_as(const LoadedFilter& filter, FileFormat to,
                                      const std::string& source,
                                      const FormatConvertOptions& options = {});

// Reads `input` as `from` and writes `output` as `to`, atomically ("-": standard output). Between
// two bloomtool files this is convert_filter_file. A filter read from a peer's file and written
// as a bloomtool file gets tool_version "bloomtool <version>"; its creation time is the peer
// file's modification time. Throws kInvalidArgument naming `input` when the filter cannot be
// expressed in `to` (another hash scheme, a geometry the peer cannot hold, writer options the
// peer's format has no place for).
ConvertResult convert_filter(const std::string& input, FileFormat from, const std::string& output,
                             FileFormat to, const FormatConvertOptions& options = {});

}  // namespace bloomtool
