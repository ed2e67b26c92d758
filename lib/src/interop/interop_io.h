// File and gzip helpers shared by the foreign-format readers and writers (Guava, DCSO). Private
// to the library.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/unique_fd.h"

namespace bloomtool::interop_io {

// Reads a whole regular file (or a stream, such as a pipe) into memory. Throws kIOError naming
// the path when the system refuses, kLimitExceeded when the file holds more than max_bytes (the
// size is checked before reading, and again while reading streams).
std::vector<uint8_t> read_file(const std::string& path, uint64_t max_bytes);

// A peer's file read front to back in bounded pieces (64 KiB of file bytes at a time), gunzipped
// on the fly once start_gzip() is called: the readers of foreign_format.cpp take from it the
// header, then exactly the bytes the checked header declares, and skip or count the rest, so no
// stream (a pipe, /dev/zero, a gzip bomb) is ever held whole. Concatenated gzip members are read
// in order (as Go's reader does), each member's CRC-32 and length verified by zlib.
class InputStream {
 public:
  // Opens `path` ("-" is standard input); `name` names it in messages.
  InputStream(const std::string& path, const std::string& name);
  // Reads bytes in memory (which must outlive the stream).
  InputStream(std::span<const uint8_t> bytes, const std::string& name);
  ~InputStream();
  InputStream(const InputStream&) = delete;
  InputStream& operator=(const InputStream&) = delete;

  // The file's first bytes, up to n (at most 64 KiB), without consuming them; only before any
  // read.
  std::span<const uint8_t> peek_raw(size_t n);
  // From here on, reads return the gzip-decompressed bytes.
  void start_gzip();
  bool gzip() const noexcept { return gzip_; }
  // Reads up to n bytes into dst; fewer only at the end of the data. Throws kIOError, kCorrupt.
  size_t read(uint8_t* dst, size_t n);
  // Reads and drops up to limit + 1 bytes; returns how many there were (limit + 1: more).
  uint64_t skip(uint64_t limit);
  // The size of a regular file (known before reading), else empty.
  std::optional<uint64_t> file_size() const noexcept { return file_size_; }
  // File bytes consumed so far.
  uint64_t raw_offset() const noexcept { return raw_total_ - (raw_len_ - raw_pos_); }

 private:
  bool ensure_raw(size_t n);  // at least n unconsumed file bytes buffered, unless the file ends
  size_t read_gzip(uint8_t* dst, size_t n);

  std::string name_;
  UniqueFd owned_;  // the file opened; empty for standard input
  int fd_ = -1;     // what is read: owned_ or standard input
  bool eof_ = false;
  std::optional<uint64_t> file_size_;
  std::vector<uint8_t> store_;
  const uint8_t* raw_ = nullptr;
  size_t raw_pos_ = 0, raw_len_ = 0;
  uint64_t raw_total_ = 0;  // file bytes brought into the buffer
  bool gzip_ = false;
  bool member_done_ = false;
  uint64_t member_start_ = 0;
  void* zs_ = nullptr;  // z_stream
};

// Writes the bytes atomically (temporary file, fsync, rename, fsync directory).
void write_file_atomic(const std::string& path, std::span<const uint8_t> bytes);

// True if the bytes start with the gzip magic 1f 8b.
bool looks_gzip(std::span<const uint8_t> bytes) noexcept;

// Decompresses one or more concatenated gzip members (as Go's compress/gzip reader does),
// verifying each member's CRC-32 and length. Output grows with the data actually produced;
// more than max_out bytes throws kLimitExceeded. Damage throws kCorrupt naming `name` and the
// compressed offset.
std::vector<uint8_t> gunzip(std::span<const uint8_t> in, const std::string& name, uint64_t max_out);

// One gzip member with the header Go's gzip.NewWriter writes: no name, no comment, MTIME 0,
// XFL from the level (2 for 9, 4 for 1, else 0), OS 255 (unknown). The deflate stream itself
// is zlib's, not Go's, so only the header and the decompressed bytes match Go byte for byte.
std::vector<uint8_t> gzip(std::span<const uint8_t> in, int level);

}  // namespace bloomtool::interop_io
