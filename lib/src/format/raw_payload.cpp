// The raw chunked payload (codec 2): its layout rules, the chunk table a writer stores, and the
// reader that verifies the table once at open and each chunk every time it reads it from the file.
// The table is trusted only after its checksum matches the header's payload_checksum (itself
// covered by the header checksum), and a chunk only after its XXH3-64 matches its table entry.
// Chunks are read with pread() into memory of the reader's own, never mapped from the file.
#include "format/raw_payload.h"

#include <xxhash.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>

#include "base/byte_order.h"
#include "base/checksum.h"
#include "base/word_buffer.h"
#include "bloomtool/error.h"
#include "format/file_reader.h"

namespace bloomtool {

uint64_t raw_chunk_count(const FilterHeader& h) noexcept {
  if (h.raw_chunk_bytes == 0) return 0;
  return h.payload_raw_bytes / h.raw_chunk_bytes + (h.payload_raw_bytes % h.raw_chunk_bytes != 0);
}

uint64_t raw_payload_offset_for(uint64_t header_bytes, uint64_t raw_bytes, uint64_t chunk_bytes) {
  const uint64_t chunks = raw_bytes / chunk_bytes + (raw_bytes % chunk_bytes != 0);
  const uint64_t end = header_bytes + chunks * 8;
  return (end + kRawAlignment - 1) / kRawAlignment * kRawAlignment;
}

std::string raw_layout_problem(const FilterHeader& h) {
  const uint64_t c = h.raw_chunk_bytes;
  if (!std::has_single_bit(c) || c < kMinRawChunkBytes || c > kMaxRawChunkBytes) {
    return "raw chunk size " + std::to_string(c) + " is not a power of two from " +
           std::to_string(kMinRawChunkBytes) + " to " + std::to_string(kMaxRawChunkBytes);
  }
  // payload_raw_bytes is at most 2^37 + 64 here (checked before), so nothing below overflows.
  const uint64_t want = raw_payload_offset_for(h.header_bytes, h.payload_raw_bytes, c);
  if (h.raw_payload_offset != want) {
    return "raw payload offset " + std::to_string(h.raw_payload_offset) + " is not " +
           std::to_string(want) + " (header, chunk table, padding to 4096)";
  }
  if (h.payload_stored_bytes != want - h.header_bytes + h.payload_raw_bytes) {
    return "stored payload length " + std::to_string(h.payload_stored_bytes) + " is not " +
           std::to_string(want - h.header_bytes + h.payload_raw_bytes) +
           " (chunk table, padding and raw payload)";
  }
  return {};
}

std::vector<uint8_t> raw_chunk_table(std::span<const uint64_t> words, uint64_t raw_bytes,
                                     uint64_t chunk_bytes) {
  const uint64_t chunks = raw_bytes / chunk_bytes + (raw_bytes % chunk_bytes != 0);
  std::vector<uint8_t> table(static_cast<size_t>(chunks * 8));
  std::vector<uint8_t> le_chunk;
  const auto* bytes = reinterpret_cast<const uint8_t*>(words.data());
  for (uint64_t i = 0; i < chunks; ++i) {
    const uint64_t at = i * chunk_bytes;
    const size_t n = static_cast<size_t>(std::min(chunk_bytes, raw_bytes - at));
    const uint8_t* src = bytes + at;
    if constexpr (std::endian::native == std::endian::big) {
      le_chunk.resize(n);
      for (size_t j = 0; j < n; j += 8) le::store<uint64_t>(&le_chunk[j], words[(at + j) / 8]);
      src = le_chunk.data();
    }
    le::store<uint64_t>(&table[i * 8], detail::checksum_bytes(src, n));
  }
  return table;
}

void verify_raw_image(std::span<const uint8_t> file, const FilterHeader& h,
                      const std::string& path) {
  // parse_filter_header checked the layout and that the file holds exactly these bytes.
  if (h.codec != PayloadCodec::kRawChunked || !raw_layout_problem(h).empty() ||
      file.size() != h.raw_payload_offset + h.payload_raw_bytes) {
    throw_corrupt(path, "raw payload layout does not match the file");
  }
  const uint64_t chunks = raw_chunk_count(h);
  const auto table = file.subspan(h.header_bytes, chunks * 8);
  if (detail::checksum_bytes(table.data(), table.size()) != h.payload_checksum)
    throw_corrupt(path, "chunk table checksum mismatch");
  for (uint64_t i = h.header_bytes + chunks * 8; i < h.raw_payload_offset; ++i) {
    if (file[i] != 0)
      throw_corrupt(path, "padding byte at offset " + std::to_string(i) + " is not zero");
  }
  for (uint64_t c = 0; c < chunks; ++c) {
    const uint64_t at = c * h.raw_chunk_bytes;
    const uint64_t n = std::min(h.raw_chunk_bytes, h.payload_raw_bytes - at);
    if (detail::checksum_bytes(file.data() + h.raw_payload_offset + at, n) !=
        le::load<uint64_t>(table.data() + c * 8)) {
      throw_corrupt(path, "payload chunk " + std::to_string(c) + " at byte offset " +
                              std::to_string(h.raw_payload_offset + at) + " (" + std::to_string(n) +
                              " bytes): checksum mismatch");
    }
  }
}

uint64_t default_raw_cache_bytes() noexcept {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  const uint64_t memory =
      pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) : 0;
  return std::max<uint64_t>(uint64_t{32} << 20, memory / 4);
}

RawPayloadView::RawPayloadView(const std::string& path, uint64_t cache_bytes) : path_(path) {
  ReadFile file(path);
  if (!file.regular())
    throw Error(ErrorCode::kInvalidArgument,
                path + ": not a regular file (a raw file is read in place)");
  file_bytes_ = file.size();
  std::vector<uint8_t> head(static_cast<size_t>(std::min<uint64_t>(file_bytes_, kMaxHeaderBytes)));
  head.resize(static_cast<size_t>(file.pread_some(head.data(), head.size(), 0)));
  header_ = parse_filter_header(head, file_bytes_, path);
  const FilterHeader& h = header_;
  head.resize(static_cast<size_t>(h.header_bytes));
  head_ = std::move(head);
  if (h.codec != PayloadCodec::kRawChunked)
    throw Error(ErrorCode::kInvalidArgument, path + ": not a raw (codec 2) filter file");
  if (!raw_layout_problem(h).empty() || file_bytes_ != h.raw_payload_offset + h.payload_raw_bytes)
    throw_corrupt(path_, "raw payload layout does not match the file");
  chunk_bytes_ = h.raw_chunk_bytes;
  chunks_ = raw_chunk_count(h);
  // The table and padding: at most an eighth of a 4 KiB chunk per chunk, within the file's size.
  std::vector<uint8_t> table(static_cast<size_t>(h.raw_payload_offset - h.header_bytes));
  file.pread_exact(table.data(), table.size(), h.header_bytes);
  if (detail::checksum_bytes(table.data(), chunks_ * 8) != h.payload_checksum)
    throw_corrupt(path_, "chunk table checksum mismatch");
  for (uint64_t i = chunks_ * 8; i < table.size(); ++i) {
    if (table[i] != 0) {
      throw_corrupt(
          path_, "padding byte at offset " + std::to_string(h.header_bytes + i) + " is not zero");
    }
  }
  table_.resize(static_cast<size_t>(chunks_));
  for (uint64_t c = 0; c < chunks_; ++c) table_[c] = le::load<uint64_t>(&table[c * 8]);

  // Lookups read a few chunks at random places: no read-ahead around them.
  (void)posix_fadvise(file.fd(), 0, 0, POSIX_FADV_RANDOM);
  // The payload's address range: anonymous memory that holds only the chunks read into it (pages
  // never touched cost nothing, whatever the payload's size). Not counted against the commit
  // limit (MAP_NORESERVE) where the kernel allows that; under strict overcommit the range is
  // reserved inaccessible and each chunk made accessible while it is resident.
  const long page = sysconf(_SC_PAGESIZE);
  page_ = page > 0 ? static_cast<uint64_t>(page) : 4096;
  reserved_ = (std::max<uint64_t>(h.payload_raw_bytes, 1) + page_ - 1) / page_ * page_;
  void* p = mmap(nullptr, reserved_, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) {
    protect_ = true;
    p = mmap(nullptr, reserved_, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
      throw Error(ErrorCode::kLimitExceeded, path_ + ": cannot reserve " +
                                                 std::to_string(reserved_) +
                                                 " bytes of address space for the payload");
    }
  }
  base_ = static_cast<uint8_t*>(p);
#ifdef MADV_NOHUGEPAGE
  // A chunk read into a transparent huge page would take 2 MiB of memory, not its own size.
  (void)madvise(p, reserved_, MADV_NOHUGEPAGE);
#endif
  if (cache_bytes == kRawCacheDefault) cache_bytes = default_raw_cache_bytes();
  budget_chunks_ = std::max<uint64_t>(1, cache_bytes / chunk_bytes_);
  // A batch pins at most half the budget (at least one key's probes: kMaxK chunks).
  pin_limit_ = std::max<uint64_t>(64, budget_chunks_ / 2);
  fd_ = file.release();
}

RawPayloadView::~RawPayloadView() {
  if (base_ != nullptr) munmap(base_, reserved_);
}

uint64_t RawPayloadView::chunk_size(uint64_t chunk) const noexcept {
  return std::min(chunk_bytes_, header_.payload_raw_bytes - chunk * chunk_bytes_);
}

void RawPayloadView::throw_short(uint64_t chunk, uint64_t at, uint64_t n, uint64_t got) const {
  struct stat st;
  const std::string now = fstat(fd_.get(), &st) == 0
                              ? "file now has " + std::to_string(st.st_size) + " bytes"
                              : "file ends early";
  throw Error(ErrorCode::kCorrupt,
              path_ + ": truncated: payload chunk " + std::to_string(chunk) + " at byte offset " +
                  std::to_string(at) + " (" + std::to_string(n) + " bytes): " + now + ", " +
                  std::to_string(got) + " of the chunk's bytes read (it changed while open)");
}

void RawPayloadView::read_chunk(uint64_t chunk, uint8_t* dst) const {
  const uint64_t n = chunk_size(chunk);
  const uint64_t at = header_.raw_payload_offset + chunk * chunk_bytes_;
  const uint64_t got = ReadFile::pread_fd(fd_.get(), dst, n, at, path_);
  if (got != n) throw_short(chunk, at, n, got);
  if (detail::checksum_bytes(dst, n) != table_[chunk]) {
    throw_corrupt(path_, "payload chunk " + std::to_string(chunk) + " at byte offset " +
                             std::to_string(at) + " (" + std::to_string(n) +
                             " bytes): checksum mismatch");
  }
}

void RawPayloadView::evict_locked(uint64_t chunk) const noexcept {
  // Gives back the pages wholly inside the chunk (a page shared with a neighbour stays: it is
  // read again and checked like any chunk before it is used once more).
  const uint64_t begin = chunk * chunk_bytes_, end = begin + chunk_size(chunk);
  const uint64_t from = (begin + page_ - 1) / page_ * page_;
  const uint64_t to = end == header_.payload_raw_bytes ? reserved_ : end / page_ * page_;
  if (to > from) {
    (void)madvise(base_ + from, to - from, MADV_DONTNEED);
    if (protect_) (void)mprotect(base_ + from, to - from, PROT_NONE);
  }
  resident_.erase(chunk);
}

void RawPayloadView::load_locked(uint64_t chunk) const {
  if (!whole_) {
    while (resident_.size() >= budget_chunks_ && !idle_.empty()) {
      const uint64_t old = idle_.back();
      idle_.pop_back();
      evict_locked(old);
    }
  }
  const uint64_t begin = chunk * chunk_bytes_, n = chunk_size(chunk);
  uint8_t* dst = base_ + begin;
  if (protect_) {
    const uint64_t from = begin / page_ * page_;
    const uint64_t to = std::min(reserved_, (begin + n + page_ - 1) / page_ * page_);
    if (mprotect(base_ + from, to - from, PROT_READ | PROT_WRITE) != 0)
      throw_io_error(path_, errno);
  }
#ifdef MADV_POPULATE_WRITE
  // One call maps the chunk's pages instead of a fault per page during the read (best effort).
  (void)madvise(
      base_ + begin / page_ * page_,
      std::min(reserved_, (begin + n + page_ - 1) / page_ * page_) - begin / page_ * page_,
      MADV_POPULATE_WRITE);
#endif
  ++reads_;
  try {
    read_chunk(chunk, dst);
  } catch (...) {
    // Nothing of a bad chunk stays readable.
    std::fill(dst, dst + n, uint8_t{0});
    evict_locked(chunk);
    throw;
  }
  resident_[chunk].pins = 1;
  if (resident_.size() == chunks_) {
    // Everything read and nothing will be evicted (the cache holds the whole payload): queries
    // need no pins any more.
    whole_ = true;
    all_resident_.store(true, std::memory_order_release);
  }
}

void RawPayloadView::unpin_locked(uint64_t chunk) const noexcept {
  const auto it = resident_.find(chunk);
  if (it == resident_.end() || it->second.pins == 0) return;
  if (--it->second.pins == 0) {
    try {
      idle_.push_front(chunk);
      it->second.idle = idle_.begin();
    } catch (...) {  // out of memory: drop the chunk instead of keeping it findable
      evict_locked(chunk);
    }
  }
}

void RawPayloadView::pin(std::span<const uint64_t> chunks) const {
  if (all_resident()) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (whole_) return;
  size_t done = 0;
  try {
    for (; done < chunks.size(); ++done) {
      const uint64_t c = chunks[done];
      const auto it = resident_.find(c);
      if (it == resident_.end()) {
        load_locked(c);
      } else if (it->second.pins++ == 0) {
        idle_.erase(it->second.idle);
      }
    }
  } catch (...) {
    for (size_t i = 0; i < done; ++i) unpin_locked(chunks[i]);
    throw;
  }
}

void RawPayloadView::unpin(std::span<const uint64_t> chunks) const noexcept {
  if (all_resident()) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (whole_) return;
  for (const uint64_t c : chunks) unpin_locked(c);
}

void RawPayloadView::load_all() const {
  if (all_resident()) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (whole_) return;
  // Every chunk stays resident from here on: the machine must be able to hold the payload, or
  // the reader fails with a message instead of being killed for memory once the pages are read.
  uint64_t missing = 0;
  for (uint64_t c = 0; c < chunks_; ++c) missing += resident_.count(c) == 0 ? 1 : 0;
  try {
    check_memory_available(missing * header_.raw_chunk_bytes, "the whole raw payload");
  } catch (const MemoryLimitError& e) {
    throw MemoryLimitError(ErrorCode::kLimitExceeded, path_ + ": " + e.what());
  }
  whole_ = true;  // nothing is evicted from now on; pins other threads hold keep working
  try {
    for (uint64_t c = 0; c < chunks_; ++c) {
      if (resident_.count(c) != 0) continue;
      load_locked(c);
      unpin_locked(c);
    }
  } catch (...) {
    whole_ = false;  // the chunks read stay resident, evictable again
    throw;
  }
  all_resident_.store(true, std::memory_order_release);
}

uint64_t RawPayloadView::chunk_reads() const {
  std::lock_guard<std::mutex> lock(mu_);
  return reads_;
}

uint64_t RawPayloadView::resident_chunks() const {
  std::lock_guard<std::mutex> lock(mu_);
  return resident_.size();
}

std::vector<uint8_t> raw_file_head(FilterHeader& header, uint64_t raw_bytes, uint64_t chunk_bytes,
                                   const std::vector<uint8_t>& table) {
  header.codec = PayloadCodec::kRawChunked;
  header.minor = std::max(header.minor, kFormatMinorLatest);
  header.payload_raw_bytes = raw_bytes;
  header.raw_chunk_bytes = chunk_bytes;
  header.raw_payload_offset = 0;
  serialize_filter_header(header);  // header_bytes does not depend on the values of the fields
  header.raw_payload_offset = raw_payload_offset_for(header.header_bytes, raw_bytes, chunk_bytes);
  header.payload_stored_bytes = header.raw_payload_offset - header.header_bytes + raw_bytes;
  header.payload_checksum = detail::checksum_bytes(table.data(), table.size());
  std::vector<uint8_t> head = serialize_filter_header(header);
  head.insert(head.end(), table.begin(), table.end());
  head.resize(static_cast<size_t>(header.raw_payload_offset), 0);
  return head;
}

// Hands the payload to `sink` as little-endian bytes in pieces that end where the file offset
// (the payload starting at `file_offset`) is a multiple of 2 MiB, so each piece fills one whole
// 2 MiB-aligned stretch of the file but the first and the last. Written so, a file lands in the
// page cache in 2 MiB folios (ext4 on Linux 6.18 picks the folio from the write's size and
// alignment; 1 MiB writes at unaligned offsets left the file in 4 KiB pages), and a mapping of it
// then takes one TLB entry per 2 MiB instead of one per 4 KiB: 1M queries against a mapped 4 GiB
// filter ran 1.44x the in-memory time in 2 MiB folios, 3.39x in 4 KiB pages (PERFORMANCE.md).
void emit_raw_words(std::span<const uint64_t> words, uint64_t raw_bytes, uint64_t file_offset,
                    const std::function<void(std::span<const uint8_t>)>& sink) {
  constexpr uint64_t kPiece = uint64_t{2} << 20;
  std::vector<uint8_t> le_piece;
  const auto* bytes = reinterpret_cast<const uint8_t*>(words.data());
  for (uint64_t at = 0; at < raw_bytes;) {
    const uint64_t to_boundary = kPiece - (file_offset + at) % kPiece;
    const size_t n = static_cast<size_t>(std::min(to_boundary, raw_bytes - at));
    if constexpr (std::endian::native == std::endian::big) {
      le_piece.resize(n);
      for (size_t i = 0; i < n; i += 8) le::store<uint64_t>(&le_piece[i], words[(at + i) / 8]);
      sink(std::span<const uint8_t>(le_piece.data(), n));
    } else {
      sink(std::span<const uint8_t>(bytes + at, n));
    }
    at += n;
  }
}

// Each chunk read with pread() and verified just before its
// words are handed out, a window at a time.
void stream_raw_payload(const std::string& path, const FilterHeader& expected,
                        const std::function<void(uint64_t, std::span<const uint64_t>)>& fn) {
  const RawPayloadView view(path, 0);
  if (!same_file_header(view.header(), expected))
    throw Error(ErrorCode::kIOError, path + ": the file changed while it was being read");
  const uint64_t raw = view.payload_bytes();
  const uint64_t window_bytes = std::min(raw, std::max(view.chunk_bytes(), uint64_t{2} << 20));
  WordBuffer window(static_cast<size_t>(window_bytes / 8));
  auto* bytes = reinterpret_cast<uint8_t*>(window.data());
  for (uint64_t at = 0; at < raw; at += window_bytes) {
    const uint64_t n = std::min(window_bytes, raw - at);
    for (uint64_t c = at / view.chunk_bytes(); c * view.chunk_bytes() < at + n; ++c)
      view.read_chunk(c, bytes + (c * view.chunk_bytes() - at));
    if constexpr (std::endian::native == std::endian::big) {
      for (uint64_t i = 0; i < n / 8; ++i) window.data()[i] = le::load<uint64_t>(bytes + i * 8);
    }
    fn(at / 8, std::span<const uint64_t>(window.data(), n / 8));
  }
}

}  // namespace bloomtool
