// The raw chunked payload of format 1.1 (codec 2, docs/FORMAT.md "Raw chunked payload"): the
// payload stored uncompressed at a 4096-aligned offset, preceded by a table of XXH3-64 checksums,
// one per fixed-size chunk, itself covered by the header checksum. A reader opens the file
// (RawPayloadView), verifies the header, the table and the padding, and then reads a chunk with
// pread() only when a query needs it, checks it against its table entry, and answers from its own
// verified copy, kept in a cache of bounded size. Nothing of the file is mapped: a file truncated
// or rewritten under the reader is an error, never a signal or an answer from unverified bytes.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/unique_fd.h"
#include "format/file_header.h"

namespace bloomtool {

inline constexpr uint64_t kRawAlignment = 4096;
inline constexpr uint64_t kMinRawChunkBytes = 4096;
inline constexpr uint64_t kMaxRawChunkBytes = uint64_t{1} << 26;  // 64 MiB
// Chosen from measurements (docs/PERFORMANCE.md, "Raw payload chunk size").
inline constexpr uint64_t kDefaultRawChunkBytes = uint64_t{1} << 16;  // 64 KiB
inline constexpr size_t kRawLayoutFieldBytes = 16;
// The verified chunks a reader keeps by default (docs/EMBEDDING.md, "Memory"): a quarter of the
// machine's memory, at least 32 MiB. A one-key query reads k chunks whatever the budget; a bulk
// query keeps what it reads until the budget is reached, and then reads a chunk in place of the
// least recently used one that no query is reading.
uint64_t default_raw_cache_bytes() noexcept;
inline constexpr uint64_t kRawCacheDefault = ~uint64_t{0};  // RawPayloadView: use the default

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

// Fills in a codec-2 header (layout, sizes, checksum of `table`, minor 1) and returns it
// serialised, with the chunk table and the zero padding after it: everything before the payload,
// which follows it in the file (raw_bytes bytes). For writers that produce the payload themselves.
std::vector<uint8_t> raw_file_head(FilterHeader& header, uint64_t raw_bytes, uint64_t chunk_bytes,
                                   const std::vector<uint8_t>& table);

// Hands the payload to `sink` as little-endian bytes in pieces that end where the file offset
// (the payload starting at `file_offset`) is a multiple of 2 MiB, so each piece but the first and
// the last fills one whole 2 MiB-aligned stretch of the file (see raw_payload.cpp).
void emit_raw_words(std::span<const uint64_t> words, uint64_t raw_bytes, uint64_t file_offset,
                    const std::function<void(std::span<const uint8_t>)>& sink);

// The payload of the codec-2 file at `path`, whose header read before is `expected`, streamed to
// fn(index of the first word, words in host order) a window at a time (2 MiB, or one chunk if
// larger), each chunk read with pread() and verified just before its words are handed out.
void stream_raw_payload(const std::string& path, const FilterHeader& expected,
                        const std::function<void(uint64_t, std::span<const uint64_t>)>& fn);

// Checks a whole codec-2 file image held in memory: the chunk table against the header's payload
// checksum, the padding, and every chunk. Throws kCorrupt naming `path`.
void verify_raw_image(std::span<const uint8_t> file, const FilterHeader& header,
                      const std::string& path);

// A codec-2 file open for reading. The constructor reads and checks the header, the chunk table
// (against the header's payload checksum) and the padding; chunks are read later, each checked
// against its table entry every time it is read from the file. Thread-safe.
//
// Queries read the payload through words(), an address range as long as the payload that holds
// a chunk's verified bytes at the chunk's own offset while the chunk is resident (elsewhere it
// reads as zeros, or is not readable at all); pin() makes chunks resident and keeps them so until
// unpin(). At most cache_bytes of chunks stay resident when no query pins them (more while
// queries pin more): the least recently used unpinned chunk makes room for the next. load_all()
// makes the whole payload resident for good, for readers that need every word.
class RawPayloadView {
 public:
  // Opens `path` (a regular file), keeping at most cache_bytes of chunks resident (rounded down to
  // whole chunks, at least one) when no query pins them. Throws like read_filter_header,
  // kInvalidArgument when the file is not codec 2, and kCorrupt naming `path` for a bad table or
  // padding.
  explicit RawPayloadView(const std::string& path, uint64_t cache_bytes = kRawCacheDefault);
  RawPayloadView(const RawPayloadView&) = delete;
  RawPayloadView& operator=(const RawPayloadView&) = delete;
  ~RawPayloadView();

  const FilterHeader& header() const noexcept { return header_; }
  // The header's bytes as read (header_bytes of them).
  const std::vector<uint8_t>& head() const noexcept { return head_; }
  uint64_t file_bytes() const noexcept { return file_bytes_; }
  const std::string& path() const noexcept { return path_; }
  uint64_t chunk_count() const noexcept { return chunks_; }
  uint64_t chunk_bytes() const noexcept { return chunk_bytes_; }
  uint64_t payload_bytes() const noexcept { return header_.payload_raw_bytes; }
  // Bytes of chunk `chunk` (the last one may be short).
  uint64_t chunk_size(uint64_t chunk) const noexcept;
  // The payload's words (little-endian as stored, so only for little-endian hosts): valid only in
  // chunks pinned by the caller, or everywhere after load_all().
  uint64_t* words() const noexcept { return reinterpret_cast<uint64_t*>(base_); }

  // Reads chunk `chunk` from the file into dst (chunk_size bytes) and checks it, without caching
  // it. Throws kCorrupt "<path>: corrupt: payload chunk N at byte offset X (n bytes): checksum
  // mismatch", or "<path>: truncated: ..." when the file now ends before the chunk does.
  void read_chunk(uint64_t chunk, uint8_t* dst) const;

  // The chunks one query batch should pin at most: a batch that needs more is split.
  uint64_t pin_limit() const noexcept { return pin_limit_; }
  // Makes `chunks` resident (each read and checked unless it is) and pins them. A chunk may be
  // listed twice. Throws as read_chunk does, and then pins none of them.
  void pin(std::span<const uint64_t> chunks) const;
  // Releases pins taken by pin(chunks) (the same list).
  void unpin(std::span<const uint64_t> chunks) const noexcept;
  // Reads every chunk not resident and keeps the whole payload resident from then on (memory:
  // the payload's size). Throws as read_chunk does.
  void load_all() const;
  bool all_resident() const noexcept { return all_resident_.load(std::memory_order_acquire); }

  // Counters for tests and benchmarks: chunks read from the file so far, and resident now.
  uint64_t chunk_reads() const;
  uint64_t resident_chunks() const;

 private:
  struct Slot {
    uint32_t pins = 0;
    std::list<uint64_t>::iterator idle;  // its place in idle_ while pins == 0
  };
  // With mu_ held: reads `chunk` into its place (making room first) and adds it, pinned.
  void load_locked(uint64_t chunk) const;
  void evict_locked(uint64_t chunk) const noexcept;
  void unpin_locked(uint64_t chunk) const noexcept;
  [[noreturn]] void throw_short(uint64_t chunk, uint64_t at, uint64_t n, uint64_t got) const;

  std::string path_;
  UniqueFd fd_;
  FilterHeader header_;
  std::vector<uint8_t> head_;
  uint64_t file_bytes_ = 0;
  uint64_t chunk_bytes_ = 0;
  uint64_t chunks_ = 0;
  std::vector<uint64_t> table_;  // host order
  uint8_t* base_ = nullptr;      // the payload's address range (anonymous memory)
  uint64_t reserved_ = 0;        // its length, whole pages
  uint64_t page_ = 4096;
  bool protect_ = false;  // the range is PROT_NONE but for resident chunks (strict overcommit)
  uint64_t budget_chunks_ = 0;
  uint64_t pin_limit_ = 0;

  mutable std::mutex mu_;
  mutable std::unordered_map<uint64_t, Slot> resident_;
  mutable std::list<uint64_t> idle_;  // resident, unpinned; most recently used first
  mutable uint64_t reads_ = 0;
  mutable bool whole_ = false;
  mutable std::atomic<bool> all_resident_{false};
};

}  // namespace bloomtool
