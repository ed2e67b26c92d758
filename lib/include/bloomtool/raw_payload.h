// The raw chunked payload of format 1.1 (codec 2, docs/FORMAT.md "Raw chunked payload"): the
// payload stored uncompressed at a 4096-aligned offset, preceded by a table of XXH3-64 checksums,
// one per fixed-size chunk, itself covered by the header checksum. A reader maps the payload and
// verifies each chunk before it first uses a word of it (RawPayloadView).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "bloomtool/filter_file.h"

namespace bloomtool {

inline constexpr uint64_t kRawAlignment = 4096;
inline constexpr uint64_t kMinRawChunkBytes = 4096;
inline constexpr uint64_t kMaxRawChunkBytes = uint64_t{1} << 26;  // 64 MiB
// Chosen from measurements (docs/PERFORMANCE.md, "Raw payload chunk size").
inline constexpr uint64_t kDefaultRawChunkBytes = uint64_t{1} << 16;  // 64 KiB
inline constexpr size_t kRawLayoutFieldBytes = 16;
// A mapped payload's chunks are read into private pages of the mapping until this many bytes of
// them have been verified (k = 64 chunks of 64 KiB: every chunk of one key); after that they are
// used from the page cache in place (see verify_chunk).
inline constexpr uint64_t kPrivateReadBytes = uint64_t{4} << 20;

// Chunks of a codec-2 header: ceil(payload_raw_bytes / raw_chunk_bytes).
uint64_t raw_chunk_count(const FilterHeader& header) noexcept;

// The offset a codec-2 payload must start at: header_bytes plus the chunk table, rounded up to
// kRawAlignment.
uint64_t raw_payload_offset_for(uint64_t header_bytes, uint64_t raw_bytes, uint64_t chunk_bytes);

// Checks a codec-2 header's layout (chunk size, payload offset, stored length) without the file;
// returns why it is wrong, or an empty string.
std::string raw_layout_problem(const FilterHeader& header);

// The chunk table of `raw_bytes` bytes of payload words (host order, written little-endian):
// one XXH3-64 per chunk of chunk_bytes, as little-endian bytes ready to be stored.
std::vector<uint8_t> raw_chunk_table(std::span<const uint64_t> words, uint64_t raw_bytes,
                                     uint64_t chunk_bytes);

// A verified view of a codec-2 file image (mapped or in memory, which must outlive the view):
// the constructor checks the chunk table against the header's payload checksum and the padding
// for zero bytes; verify_chunk checks one chunk against its table entry. Thread-safe: one thread
// at a time verifies a chunk (others needing it wait), and chunks verified once are remembered
// (atomically) and not hashed again.
class RawPayloadView {
 public:
  // `file` is the whole file image; `header` its parsed header (codec 2). Throws kCorrupt naming
  // `path`. `owner`, when given, keeps the image alive as long as the view. `mapped_fd` >= 0 says
  // the image is a private, writable mapping of the file open on that descriptor: the first
  // chunks verified are then read into it (see verify_chunk).
  RawPayloadView(std::span<const uint8_t> file, const FilterHeader& header, std::string path,
                 std::shared_ptr<const void> owner = {}, int mapped_fd = -1);

  uint64_t chunk_count() const noexcept { return chunks_; }
  uint64_t chunk_bytes() const noexcept { return chunk_bytes_; }
  // The payload bytes (little-endian words), starting at the file's payload offset.
  std::span<const uint8_t> payload() const noexcept { return payload_; }
  bool verified(uint64_t chunk) const noexcept {
    return (done_[chunk >> 6].load(std::memory_order_acquire) >> (chunk & 63)) & 1;
  }
  // Verifies chunk `chunk` unless already verified. Throws kCorrupt "<path>: corrupt: payload
  // chunk N at byte offset X: checksum mismatch".
  void verify_chunk(uint64_t chunk) const;
  // Verifies the chunks holding payload bytes [begin, end).
  void verify_bytes(uint64_t begin, uint64_t end) const;
  // Verifies every chunk.
  void verify_all() const;
  bool all_verified() const noexcept {
    return verified_count_.load(std::memory_order_acquire) == chunks_;
  }
  const std::string& path() const noexcept { return path_; }

 private:
  // pread()s payload bytes [at, at + n) of the file into the mapping at the same place.
  void read_into_mapping(uint64_t at, uint64_t n) const;
  // Reads chunk `chunk` in where it should be (read_into_mapping) and checks it against the
  // table; throws kCorrupt. Called only by the thread that claimed the chunk.
  void check_chunk(uint64_t chunk) const;

  std::span<const uint8_t> table_;
  std::span<const uint8_t> payload_;
  uint64_t payload_offset_ = 0;
  uint64_t chunk_bytes_ = 0;
  uint64_t chunks_ = 0;
  std::string path_;
  std::shared_ptr<const void> owner_;
  int fd_ = -1;                                       // the mapped file's descriptor, or -1
  std::unique_ptr<std::atomic<uint64_t>[]> done_;     // bit per chunk: verified
  std::unique_ptr<std::atomic<uint64_t>[]> claimed_;  // bit per chunk: being verified, or done
  mutable std::atomic<uint64_t> verified_count_{0};
};

// A codec-2 file opened for queries: mapped copy-on-write and read at random places (a pipe is
// read whole), its header parsed and its chunk table verified; no chunk is verified yet.
struct MappedRawFile {
  FilterHeader header;
  std::shared_ptr<const RawPayloadView> view;
  uint64_t file_bytes = 0;
};
// Throws like read_filter_header, and kInvalidArgument when the file is not codec 2.
MappedRawFile map_raw_filter_file(const std::string& path);

}  // namespace bloomtool
