// File and gzip helpers shared by the foreign-format readers and writers (Guava, DCSO). Private
// to the library.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace bloomtool::interop_io {

// Reads a whole regular file (or a stream, such as a pipe) into memory. Throws kIOError naming
// the path when the system refuses, kLimitExceeded when the file holds more than max_bytes (the
// size is checked before reading, and again while reading streams).
std::vector<uint8_t> read_file(const std::string& path, uint64_t max_bytes);

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
