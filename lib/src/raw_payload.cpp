// The raw chunked payload (codec 2): its layout rules, the chunk table a writer stores, and the
// reader's view that verifies the table once and each chunk the first time it is needed. The table
// is trusted only after its checksum matches the header's payload_checksum (itself covered by the
// header checksum), and a chunk only after its XXH3-64 matches its table entry.
#include "bloomtool/raw_payload.h"

#include <xxhash.h>

#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <thread>

#include "bloomtool/error.h"
#include "byte_order.h"
#include "checksum.h"
#include "mapped_file.h"

namespace bloomtool {

namespace {

[[noreturn]] void corrupt(const std::string& path, const std::string& why) {
  throw Error(ErrorCode::kCorrupt, path + ": corrupt: " + why);
}

}  // namespace

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

RawPayloadView::RawPayloadView(std::span<const uint8_t> file, const FilterHeader& h,
                               std::string path, std::shared_ptr<const void> owner, int mapped_fd)
    : payload_offset_(h.raw_payload_offset),
      chunk_bytes_(h.raw_chunk_bytes),
      chunks_(raw_chunk_count(h)),
      path_(std::move(path)),
      owner_(std::move(owner)),
      fd_(mapped_fd) {
  // parse_filter_header checked the layout and that the file holds exactly these bytes.
  if (h.codec != PayloadCodec::kRawChunked || !raw_layout_problem(h).empty() ||
      file.size() != h.raw_payload_offset + h.payload_raw_bytes) {
    corrupt(path_, "raw payload layout does not match the file");
  }
  table_ = file.subspan(h.header_bytes, chunks_ * 8);
  if (detail::checksum_bytes(table_.data(), table_.size()) != h.payload_checksum)
    corrupt(path_, "chunk table checksum mismatch");
  const uint64_t pad_begin = h.header_bytes + chunks_ * 8;
  for (uint64_t i = pad_begin; i < payload_offset_; ++i) {
    if (file[i] != 0)
      corrupt(path_, "padding byte at offset " + std::to_string(i) + " is not zero");
  }
  payload_ = file.subspan(payload_offset_, h.payload_raw_bytes);
  done_ = std::make_unique<std::atomic<uint64_t>[]>((chunks_ + 63) / 64);
  claimed_ = std::make_unique<std::atomic<uint64_t>[]>((chunks_ + 63) / 64);
}

void RawPayloadView::read_into_mapping(uint64_t at, uint64_t n) const {
  auto* dst = const_cast<uint8_t*>(payload_.data() + at);
  uint64_t done = 0;
  while (done < n) {
    const ssize_t got = ::pread(fd_, dst + done, static_cast<size_t>(n - done),
                                static_cast<off_t>(payload_offset_ + at + done));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return;  // the mapping still holds the file's bytes: the checksum decides
    done += static_cast<uint64_t>(got);
  }
}

void RawPayloadView::verify_chunk(uint64_t chunk) const {
  // A chunk is verified by the one thread that claims it: the pread below writes into the
  // mapping, which no other thread may read or write meanwhile (ThreadSanitizer caught two
  // threads of the C API's concurrency check reading the same chunk in at once). Others wait
  // for the claimant: a 64 KiB chunk takes microseconds. A claimant that finds the chunk corrupt
  // gives the claim back, so every thread that needs the chunk gets the error.
  const uint64_t bit = uint64_t{1} << (chunk & 63);
  std::atomic<uint64_t>& claimed = claimed_[chunk >> 6];
  while (!verified(chunk)) {
    if ((claimed.fetch_or(bit, std::memory_order_acq_rel) & bit) != 0) {
      std::this_thread::yield();
      continue;
    }
    try {
      check_chunk(chunk);
    } catch (...) {
      claimed.fetch_and(~bit, std::memory_order_release);
      throw;
    }
    done_[chunk >> 6].fetch_or(bit, std::memory_order_release);
    verified_count_.fetch_add(1, std::memory_order_acq_rel);
    return;
  }
}

void RawPayloadView::check_chunk(uint64_t chunk) const {
  const uint64_t at = chunk * chunk_bytes_;
  const uint64_t n = std::min(chunk_bytes_, payload_.size() - at);
  // The first kPrivateReadBytes of chunks a query verifies are read with pread into the mapping
  // itself, which is private and writable: the kernel copies each chunk into pages of this
  // process's own (copy-on-write), with one read request when the file is cold, and maps nothing
  // else. Faulting a chunk in instead maps whole page-cache folios, which may be 2 MiB each: a
  // one-key query at k = 64 then counted 144 MiB of RSS, against 11 MiB this way. Past that the
  // query is a bulk one and chunks are used from the page cache in place, where large folios
  // give the probes large pages; a private page would split its 2 MiB region back into 4 KiB
  // pages, which is why the budget is small (docs/PERFORMANCE.md, "Raw payloads").
  if (fd_ >= 0 &&
      verified_count_.load(std::memory_order_relaxed) * chunk_bytes_ < kPrivateReadBytes)
    read_into_mapping(at, n);
  if (detail::checksum_bytes(payload_.data() + at, n) !=
      le::load<uint64_t>(table_.data() + chunk * 8)) {
    corrupt(path_, "payload chunk " + std::to_string(chunk) + " at byte offset " +
                       std::to_string(payload_offset_ + at) + " (" + std::to_string(n) +
                       " bytes): checksum mismatch");
  }
}

void RawPayloadView::verify_bytes(uint64_t begin, uint64_t end) const {
  if (end <= begin) return;
  for (uint64_t c = begin / chunk_bytes_; c <= (end - 1) / chunk_bytes_ && c < chunks_; ++c)
    verify_chunk(c);
}

void RawPayloadView::verify_all() const {
  for (uint64_t c = 0; c < chunks_; ++c) verify_chunk(c);
}

MappedRawFile map_raw_filter_file(const std::string& path) {
  auto file = std::make_shared<MappedFile>(path, MapAccess::kRandom);
  const auto bytes = file->bytes();
  MappedRawFile out;
  out.header = parse_filter_header(bytes.first(std::min<size_t>(bytes.size(), kMaxHeaderBytes)),
                                   bytes.size(), path);
  if (out.header.codec != PayloadCodec::kRawChunked)
    throw Error(ErrorCode::kInvalidArgument, path + ": not a raw (codec 2) filter file");
  out.file_bytes = bytes.size();
  const int fd = file->fd();
  out.view = std::make_shared<const RawPayloadView>(bytes, out.header, path, std::move(file), fd);
  return out;
}

}  // namespace bloomtool
