// Byte streams under KeyReader: a file descriptor (a path or standard input) and a zstd
// decompressor stacked on top of one when the input starts with the zstd frame magic.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace bloomtool {

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Reads up to cap bytes; returns 0 only at the end of the stream. Throws on errors.
  virtual size_t read(char* dst, size_t cap) = 0;
  // Bytes consumed from the underlying file so far (compressed bytes for zstd inputs).
  virtual uint64_t raw_bytes_read() const noexcept = 0;
};

// Opens `path` ("-" for standard input) and returns a source that yields its decompressed
// content. `name` is how the input is named in error messages.
std::unique_ptr<ByteSource> open_byte_source(const std::string& path, const std::string& name);

// Bytes [begin, end) of the regular file `path`, as they are (no decompression).
std::unique_ptr<ByteSource> open_range_source(const std::string& path, const std::string& name,
                                              uint64_t begin, uint64_t end);

// Whether `head` (the first bytes of an input) starts a zstd frame.
bool starts_with_zstd_magic(std::string_view head) noexcept;

// A source over bytes in memory (which must outlive it), decompressed when they start with the
// zstd frame magic.
std::unique_ptr<ByteSource> open_memory_source(std::string_view bytes, const std::string& name);

}  // namespace bloomtool
