// Byte streams under KeyReader: a file descriptor (a path or standard input), with a zstd or
// gzip decompressor stacked on top of it when the input starts with that format's magic bytes.
// Inputs that are not keys are refused by their first bytes: other compressed formats (xz,
// bzip2, lz4), and filter files (bloomtool's, DCSO's, Guava's), also inside zstd or gzip.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
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
  // Whether read() can return without waiting for a producer (a pipe's writer): bytes are
  // buffered or ready, or the stream has ended. Files are always ready.
  virtual bool ready() const { return true; }
  // A descriptor that becomes readable when a read that waits for a producer should give up
  // (it then throws); for a source read on another thread that has to stop.
  virtual void cancel_on(int fd) noexcept { (void)fd; }
};

// Opens `path` ("-" for standard input) and returns a source that yields its decompressed
// content. `name` is how the input is named in error messages. Throws kBadInput for an xz, bzip2
// or lz4 input (naming the tool that decompresses it) and FilterAsKeysError for a filter file.
// With `stream_threads` (the threads of the stream that reads it) above one, a zstd or gzip
// input decompresses on a thread of its own, a few blocks ahead of the reader; with
// kParallelFrameThreads or more, a zstd input of several frames whose headers give their size
// decompresses them on two threads of their own (on fewer cores the reader and the hashing
// thread keep them busy, and more decoding threads only take turns with them). A pipe's buffer is
// raised (to 1 MiB where the kernel allows), so that its writer runs ahead and each read takes up
// to that much.
std::unique_ptr<ByteSource> open_byte_source(const std::string& path, const std::string& name,
                                             unsigned stream_threads = 1);
inline constexpr unsigned kParallelFrameThreads = 4;

// Bytes [begin, end) of the regular file `path`, as they are (no decompression).
std::unique_ptr<ByteSource> open_range_source(const std::string& path, const std::string& name,
                                              uint64_t begin, uint64_t end);

// Whether `head` (the first bytes of an input) starts a zstd frame.
bool starts_with_zstd_magic(std::string_view head) noexcept;

// What the first bytes of an input say it is.
enum class InputKind { kText, kZstd, kGzip, kXz, kBzip2, kLz4, kBloomtool, kDcso, kGuava };
struct Sniffed {
  InputKind kind = InputKind::kText;
  bool need_more = false;  // `head` may still be the start of a magic or header: read more
};
// The most bytes classify_input_head needs.
inline constexpr size_t kSniffBytes = 48;
// Classifies an input by its first bytes `head`. `size`, when known, is the input's whole size
// in bytes (a Guava file has no magic: it is recognised only by its header matching that size).
Sniffed classify_input_head(std::string_view head, std::optional<uint64_t> size) noexcept;

// A source over bytes in memory (which must outlive it), decompressed and checked as
// open_byte_source does.
std::unique_ptr<ByteSource> open_memory_source(std::string_view bytes, const std::string& name);

}  // namespace bloomtool
