// Codec 1 of the filter file: the payload as one zstd frame (docs/FORMAT.md, "Payload").
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>

#include "format/file_header.h"

namespace bloomtool {

class ReadFile;  // file_reader.h

// Receives stored (compressed) bytes in order.
using PayloadSink = std::function<void(std::span<const uint8_t>)>;
// Receives a window of decoded bytes: sink(raw offset, bytes in the window, stored bytes consumed
// so far).
using WindowSink = std::function<void(uint64_t, uint64_t, uint64_t)>;
// Receives decoded words: fn(index of the first word, words in host order).
using ChunkSink = std::function<void(uint64_t, std::span<const uint64_t>)>;

// Compresses `raw_bytes` bytes of payload words (host order, stored little-endian) into one zstd
// frame at level 3 with its content size, handed to `sink` in pieces; with `threads` of two or
// more the sink runs on a thread of its own while zstd fills the next piece. The frame does not
// depend on `threads`.
void compress_zstd_payload(std::span<const uint64_t> words, uint64_t raw_bytes, unsigned threads,
                           const PayloadSink& sink);

// Throws kCorrupt naming `path` unless the frame `stored` declares a content size of `raw` bytes.
void check_zstd_frame_length(std::span<const uint8_t> stored, uint64_t raw,
                             const std::string& path);

// Decodes the checksum-verified frame `stored` of `raw` bytes through the window [window, window +
// window_bytes): each time the window fills, and once at the end, calls the sink. window_bytes is
// a positive multiple of 8, so every window but the last is full and all hold whole words
// (little-endian, as stored). Throws kCorrupt naming `path` for a frame that does not decode to
// exactly `raw` bytes.
void decode_zstd_payload(std::span<const uint8_t> stored, uint64_t raw, const std::string& path,
                         uint8_t* window, uint64_t window_bytes, const WindowSink& sink);

// The payload of the zstd file `file` (header `h`), streamed to `fn` in 2 MiB windows of words in
// bounded memory: the stored bytes are read with pread() a window at a time, hashed once and
// checked before the first window is handed out, then read again, decompressed and hashed again;
// a file that changed between the two passes is a kIOError when the second ends.
void stream_zstd_payload(const ReadFile& file, const FilterHeader& h, const ChunkSink& fn);

namespace detail {

// True when no 128 KiB block of the n bytes at p could be shrunk by zstd's literal coding by
// the least gain zstd accepts (an entropy bound, with a margin): the writer then tells zstd not to
// try, and the frame is the one zstd writes when it tries and gives up. Checks the blocks on up to
// `threads` threads.
bool literals_cannot_shrink(const uint8_t* p, uint64_t n, unsigned threads = 1) noexcept;

}  // namespace detail

}  // namespace bloomtool
