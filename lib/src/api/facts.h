// What the public API's implementation files share: the facts of a header in the public
// FilterInfo, the format of a file told from its first bytes, and the public names of formats
// and codecs translated to the library's own.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "bloomtool/build.h"
#include "bloomtool/info.h"
#include "format/filter_file.h"
#include "interop/foreign_format.h"

namespace bloomtool {

// The facts of a file whose header is `header` and whose size is `file_bytes`.
FilterInfo filter_info_of(const FilterHeader& header, uint64_t file_bytes, FilterFormat format);

// The format of a file by its first bytes (`head`, at least kSniffBytes of them when the file has
// them) and its size when known: bloomtool, Guava, DCSO (plain or gzip). Anything else is read
// as a bloomtool file, so that the error is the one `bloomtool query` gives.
FilterFormat detect_format(std::span<const uint8_t> head, std::optional<uint64_t> size);
// The same for the file at `path`: `format` unless it is kAuto; standard input ("-"), a pipe or
// a device is a bloomtool file unless `format` says otherwise (it cannot be read twice).
FilterFormat resolve_format(const std::string& path, FilterFormat format);

// The creation time of a new file: `created`, else SOURCE_DATE_EPOCH, else now. Throws FieldError
// naming SOURCE_DATE_EPOCH when it is not a number of seconds.
int64_t creation_time(const std::optional<int64_t>& created);

// Standard or blocked Bloom (else xor or binary fuse).
bool is_bloom(Kind kind) noexcept;

FileFormat internal_format(FilterFormat format);
PayloadCodec internal_codec(Codec codec);

}  // namespace bloomtool
