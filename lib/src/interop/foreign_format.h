// Guava and DCSO filter files as bloomtool filters: reading them as LoadedFilter (for query,
// stats and convert), writing a loaded filter back in a peer's format, and field 7
// (source_format) that keeps what a peer's file holds beyond its bits, so that converting back
// reproduces the original bytes (docs/FORMAT.md, "Hash schemes (1.1)").
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "filters/loaded_filter.h"
#include "format/filter_file.h"

namespace bloomtool {

enum class FileFormat { kBloomtool, kGuava, kDcso };
// "bloomtool", "guava", "dcso"; parse_file_format throws kInvalidArgument on other names.
const char* file_format_name(FileFormat f) noexcept;
FileFormat parse_file_format(std::string_view name);

// Field 7. Guava: nothing but the source (the strategy is the hash id, k and the word count are
// the header's k and m / 64). DCSO: the header words bloomtool has no place for, the container
// and the trailing data block.
struct SourceFormat {
  enum class Source : uint32_t { kGuava = 1, kDcso = 2 };
  Source source = Source::kGuava;
  // DCSO only:
  bool gzip = false;                 // the file was gzip-compressed
  std::vector<uint8_t> gzip_header;  // its first gzip member's header, as read (gzip only)
  uint64_t flags = 1;                // the file's first word (version 1 in the low byte)
  uint64_t capacity = 0;             // n
  uint64_t fpp_bits = 0;             // p, IEEE-754 binary64 bits
  uint64_t count = 0;                // N
  std::vector<uint8_t> data;         // the trailing data block

  bool operator==(const SourceFormat&) const = default;
};
inline constexpr size_t kMaxGzipHeaderBytes = 1024;

std::string encode_source_format(const SourceFormat& s);
// For a filter of a peer's rule: throws kCorrupt naming `path` when field 7 is not a valid field
// or names the other peer.
void check_source_format(const FilterHeader& header, const std::string& path);
// Throws kCorrupt naming `path` when the bytes are not a valid field 7.
SourceFormat decode_source_format(std::string_view bytes, const std::string& path);

// Reads `path` in `format` (guava or dcso; load_filter_as in load_filter.h reads every format).
// Guava and DCSO files become a Bloom filter
// of hash id 2, 3 or 4 with field 7 filled in; keys_added and distinct_estimate are DCSO's N, or
// for Guava (which stores no count) its approximateElementCount of the fill; created is the
// file's modification time. Throws bloomtool::Error naming the file and what is wrong.
// The file is read front to back, never held whole: the header is checked before anything is
// buffered, the bit array read into the filter's words, and what follows it (a DCSO data block)
// kept only when keep_source is set (converting writes it back; query and stats clear it) and
// read past otherwise; a data
// block of more than 64 MiB is refused (kLimitExceeded), and so is a gzip member header of more
// than 1024 bytes when it is kept. A file that looks like another format is named as such.
LoadedFilter read_foreign_file(const std::string& path, FileFormat format, bool keep_source = true);

// The same for a file image in memory (for tests and fuzzing), keeping the source; created is 0.
// max_bytes caps the bit array and the data block kept.
LoadedFilter parse_foreign(std::span<const uint8_t> bytes, FileFormat format,
                           const std::string& name, uint64_t max_bytes);

// Options of writing a filter in a peer's format.
struct ForeignWriteOptions {
  std::optional<bool> gzip;  // DCSO: compress (default: as field 7 says, else plain)
  int gzip_level = 6;        // zlib level of a gzip DCSO file (Go's default is level 6 too)
};

// The bytes of `filter` as a Guava (writeTo) or DCSO file. Throws kInvalidArgument naming `path`
// (the source) when the filter cannot be expressed in that format: another hash scheme, a
// geometry the peer cannot hold.
std::vector<uint8_t> encode_foreign(const LoadedFilter& filter, FileFormat format,
                                    const std::string& path, const ForeignWriteOptions& opt = {});

}  // namespace bloomtool
