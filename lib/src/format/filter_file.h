// The versioned filter file (format 1.x, specified byte by byte in docs/FORMAT.md): a
// little-endian header protected by its own checksum (file_header.h), followed by a payload
// protected by a second checksum, zstd-compressed (zstd_payload.h) or raw and chunked
// (raw_payload.h). The reader (filter_reader.cpp) checks every size against the file length and
// sane limits before allocating; the writer (filter_writer.cpp) publishes atomically (see
// atomic_file.h).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/word_buffer.h"
#include "format/file_header.h"

namespace bloomtool {

// A filter file read whole: header and the decompressed payload as little-endian words
// (converted to host order).
struct FilterFileContents {
  FilterHeader header;
  WordBuffer payload;
  uint64_t file_bytes = 0;
};

// Reads and checks the header only (magic, version, header checksum, declared sizes against the
// file length). `path` names the file in error messages.
FilterHeader read_filter_header(const std::string& path);

// Reads the whole file and verifies both checksums. Throws kCorrupt, kUnsupported, kIOError or
// kLimitExceeded with a message naming the path.
FilterFileContents read_filter_file(const std::string& path);

// Reads a filter file from the descriptor `fd` (a pipe, standard input), which cannot be mapped or
// read twice, into memory, and checks it as parse_filter_file does. The header is verified before
// any payload byte is read; the buffer grows with the bytes that arrive, never ahead of them, so a
// header that lies about its size costs no more memory than the bytes sent. `name` names the
// stream in messages ("<stdin>").
FilterFileContents read_filter_stream(int fd, const std::string& name);
// The whole file image of such a stream, its header verified and its length the declared one,
// the payload not yet checked (for readers that check more, such as a signature, before decoding).
std::vector<uint8_t> read_filter_stream_image(int fd, const std::string& name);

// Streams the payload of the filter file at `path` to `fn` as consecutive chunks of host-order
// words, fn(index of the chunk's first word, words), in order and without gaps. `expected` is the
// header read_filter_header returned for the same path; a file that no longer carries it is an
// kIOError. The payload checksum is verified over the stored bytes before the first chunk (codec
// 2: the chunk table, then each chunk before it is handed out), and stored bytes are dropped from
// memory once used, so memory stays near one window (2 MiB, or one chunk if larger).
void for_each_payload_chunk(const std::string& path, const FilterHeader& expected,
                            const std::function<void(uint64_t, std::span<const uint64_t>)>& fn);

// Throws kLimitExceeded naming `path` when the decompressed payload would not fit in this
// machine's memory.
void check_payload_fits_memory(const FilterHeader& header, const std::string& path);
// The same for a whole file image read into memory: the payload it decodes to and the stored
// bytes (header included) must each fit the machine's memory before either is read.
void check_image_fits_memory(const FilterHeader& header, const std::string& path);

// Verifies the signature of a file whose header `header` was parsed from `head` and is followed by
// `tail_bytes` bytes read through `read`, against `key`. Throws kUntrusted naming `path` when the
// file is unsigned, signed by another key or altered since it was signed, kUnsupported for an
// unknown signature algorithm.
void verify_file_signature(std::span<const uint8_t> head, const FilterHeader& header,
                           uint64_t tail_bytes, const TailReader& read, const PublicKey& key,
                           const std::string& path);
// The same over the whole file image `file`.
void verify_file_signature(std::span<const uint8_t> file, const FilterHeader& header,
                           const PublicKey& key, const std::string& path);

// Parses a complete file image held in memory (for tests and fuzzing).
FilterFileContents parse_filter_file(std::span<const uint8_t> bytes, const std::string& path);

// How a filter file is written: everything that is a choice of the writer rather than a fact
// of the filter. Each 1.1 writer feature adds its member here.
class SigningKey;  // signature.h
struct WriteOptions {
  PayloadCodec codec = PayloadCodec::kZstd;
  // Signs the file with this key (field 9, format 1.1); must outlive the write. Without a key any
  // signature the header carries is dropped.
  const SigningKey* signing_key = nullptr;
  // Codec 2: bytes per checksummed chunk, a power of two in [kMinRawChunkBytes,
  // kMaxRawChunkBytes]; see raw_payload.h for the default.
  uint64_t raw_chunk_bytes = 0;  // 0: kDefaultRawChunkBytes
  // Threads the writer may use to look the payload over before compressing it (codec 1); the
  // file's bytes do not depend on it.
  unsigned threads = 1;
};

// Serialises header and payload into `out` with the payload zstd-compressed or, with codec 2,
// raw and chunk-checksummed; fills in the payload sizes, checksum, codec, layout and minor
// version. payload holds raw_bytes bytes of little-endian data.
std::vector<uint8_t> encode_filter_file(FilterHeader& header, std::span<const uint64_t> words,
                                        uint64_t raw_bytes, const WriteOptions& options = {});

// Writes the file to `path` atomically, or to standard output when path is "-".
// Returns the number of bytes written.
uint64_t write_filter_file(const std::string& path, FilterHeader& header,
                           std::span<const uint64_t> words, uint64_t raw_bytes,
                           const WriteOptions& options = {});

}  // namespace bloomtool
