// Reader and writer of filter file format 1.x (docs/FORMAT.md). The reader trusts nothing: it
// checks magic, header length and header checksum before reading any field, every declared size
// against the file length and sane limits before allocating, and the payload checksum before
// decompressing. The writer streams the zstd payload into an AtomicFile and patches the header in
// place, so memory stays near the size of one filter (standard output, character devices and
// FIFOs get the whole image encoded in memory and written as a stream); for_each_payload_chunk
// streams a payload the other way, a window at a time, for merge.
#include "format/filter_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>
#define ZSTD_STATIC_LINKING_ONLY  // ZSTD_c_literalCompressionMode
#include <zstd.h>

#include <atomic>
#include <bit>
#include <cerrno>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <new>
#include <system_error>
#include <thread>
#include <type_traits>
#include <utility>

#include "base/byte_order.h"
#include "base/checksum.h"
#include "base/run_threads.h"
#include "bloomtool/error.h"
#include "format/atomic_file.h"
#include "format/file_reader.h"
#include "format/output_target.h"
#include "format/payload_literals.h"
#include "format/raw_payload.h"
#include "format/signature.h"
#include "keys/hash.h"
#include "model/model.h"

namespace bloomtool {

namespace detail {

namespace {

// literals_cannot_shrink's test on one 128 KiB block, or the payload's shorter last one.
bool block_cannot_shrink(const uint8_t* b, size_t len, bool first) noexcept {
  uint32_t h[4][256] = {};
  size_t i = 0;
  for (; i + 8 <= len; i += 8) {
    uint64_t x;
    std::memcpy(&x, b + i, 8);
    ++h[0][x & 0xff];
    ++h[1][(x >> 8) & 0xff];
    ++h[2][(x >> 16) & 0xff];
    ++h[3][(x >> 24) & 0xff];
    ++h[0][(x >> 32) & 0xff];
    ++h[1][(x >> 40) & 0xff];
    ++h[2][(x >> 48) & 0xff];
    ++h[3][x >> 56];
  }
  for (; i < len; ++i) ++h[0][b[i]];
  double bits = 0.0;
  uint32_t largest = 0;
  const double total = static_cast<double>(len);
  for (size_t v = 0; v < 256; ++v) {
    const uint32_t c = h[0][v] + h[1][v] + h[2][v] + h[3][v];
    largest = std::max(largest, c);
    if (c != 0) bits += c * std::log2(total / c);
  }
  // A first block whose most frequent byte is that rare zstd gives up on at once, without
  // coding (a standard filter's payload): nothing to gain from scanning further.
  if (first && largest <= (len >> 7) + 4) return false;
  const double floor_bytes = static_cast<double>(len - (len >> 6) - 2 + (len >> 9));
  return len >= 64 && bits / 8.0 >= floor_bytes;
}

}  // namespace

// zstd (level 3) stores a block's literals as they are unless Huffman coding saves at least
// (n >> 6) + 2 of their n bytes, and no code takes fewer bits than the bytes' empirical entropy.
// True when that bound, with a margin of n >> 9 bytes, rules out such a saving in every 128 KiB
// block of the payload (zstd's blocks at this level; a shorter payload is one block): a blocked
// Bloom filter near its design fill, say. Then zstd is told not to try, which on such a payload
// was four fifths of the compression time, and writes the same frame: the literals were going to
// be stored as they are (the matches zstd finds in such bytes are negligible; docs/PERFORMANCE.md,
// "The payload's compression"). A last block of a few KiB or less cannot show its entropy (the
// empirical entropy of few bytes is low), so such a payload keeps zstd's default.
bool literals_cannot_shrink(const uint8_t* p, uint64_t n, unsigned threads) noexcept {
  constexpr uint64_t kBlock = uint64_t{128} << 10;
  const uint64_t blocks = (n + kBlock - 1) / kBlock;
  if (blocks == 0 || !block_cannot_shrink(p, static_cast<size_t>(std::min(kBlock, n)), true))
    return false;
  // The other blocks a thread at a time, until one fails.
  std::atomic<uint64_t> next{1};
  std::atomic<bool> failed{false};
  auto scan = [&](unsigned) {
    for (uint64_t i = next++; i < blocks && !failed.load(std::memory_order_relaxed); i = next++) {
      const uint64_t at = i * kBlock;
      if (!block_cannot_shrink(p + at, static_cast<size_t>(std::min(kBlock, n - at)), false))
        failed = true;
    }
  };
  // Two threads and more only for a payload that keeps them busy for a while (16 blocks, 2 MiB).
  const unsigned use = blocks >= 16 ? std::max(threads, 1u) : 1u;
  try {
    detail::run_threads(static_cast<unsigned>(std::min<uint64_t>(use, blocks)), scan);
  } catch (...) {  // no thread to be had: the check is an optimisation, zstd's default stays
    return false;
  }
  return !failed;
}

}  // namespace detail

namespace {

constexpr uint8_t kMagic[8] = {0x89, 'B', 'L', 'M', '\r', '\n', 0x1A, '\n'};
constexpr size_t kChecksumBytes = 8;
constexpr size_t kMinHeaderBytes = kFixedHeaderBytes + kChecksumBytes;
constexpr size_t kFieldHeaderBytes = 8;
constexpr uint16_t kFieldRequired = 1;
constexpr uint64_t kKnownFeatures = 0;  // no required features are defined in format 1.0
constexpr size_t kMaxKindParams = 64;

[[noreturn]] void corrupt(const std::string& path, const std::string& why) {
  throw Error(ErrorCode::kCorrupt, path + ": corrupt: " + why);
}

// What a file without bloomtool's magic looks like, from its first bytes and its length: a peer's
// filter file (whose header fields must agree with the length), or compressed data; "" when
// nothing is recognised.
std::string foreign_format_hint(std::span<const uint8_t> b, uint64_t file_bytes) {
  if (b.size() >= 2 && b[0] == 0x1f && b[1] == 0x8b)
    return "; it is gzip-compressed, as a gzip DCSO filter file is: read it as a dcso file";
  if (b.size() >= 4 && b[0] == 0x28 && b[1] == 0xB5 && b[2] == 0x2F && b[3] == 0xFD)
    return "; it is zstd-compressed: decompress it first";
  if (b.size() >= 6 && b[0] <= 1 && b[1] != 0) {
    const uint32_t words = uint32_t{b[2]} << 24 | uint32_t{b[3]} << 16 | uint32_t{b[4]} << 8 | b[5];
    if (words != 0 && words <= 0x7fffffffu && file_bytes == 6 + uint64_t{words} * 8) {
      return fmt::format(
          "; it looks like a Guava filter file (strategy {}, k = {}, {} words): read it as a "
          "guava file",
          b[0] == 1 ? "MURMUR128_MITZ_64" : "MURMUR128_MITZ_32", b[1], words);
    }
  }
  if (b.size() >= 48 && b[0] == 1) {
    const uint64_t k = le::load<uint64_t>(b.data() + 24), m = le::load<uint64_t>(b.data() + 32);
    // Go writes flags = 1; a stream's length is not known yet, so a flags word of exactly 1
    // stands in for the length check.
    const bool fits = 48 + (m / 64 + (m % 64 != 0)) * 8 <= file_bytes;
    if (k >= 1 && k <= 4096 && m >= 1 && m <= (uint64_t{1} << 53) &&
        (fits || le::load<uint64_t>(b.data()) == 1)) {
      return fmt::format(
          "; it looks like a DCSO filter file (k = {}, m = {} bits): read it as a dcso file", k, m);
    }
  }
  return "";
}

[[noreturn]] void truncated(const std::string& path, uint64_t have, uint64_t need) {
  throw Error(ErrorCode::kCorrupt, path + ": truncated: file has " + std::to_string(have) +
                                       " bytes, its header declares " + std::to_string(need));
}

void put_field(std::vector<uint8_t>& out, FieldTag tag, const void* data, size_t len,
               uint16_t flags = 0) {
  const size_t at = out.size();
  out.resize(at + kFieldHeaderBytes + len);
  le::store<uint16_t>(&out[at], static_cast<uint16_t>(tag));
  le::store<uint16_t>(&out[at + 2], flags);
  le::store<uint32_t>(&out[at + 4], static_cast<uint32_t>(len));
  if (len != 0) std::memcpy(&out[at + kFieldHeaderBytes], data, len);
}

void put_text(std::vector<uint8_t>& out, FieldTag tag, const std::string& s) {
  if (!s.empty()) put_field(out, tag, s.data(), s.size());
}

std::vector<uint8_t> serialize_header(FilterHeader& h) {
  std::vector<uint8_t> tlv;
  put_text(tlv, FieldTag::kToolVersion, h.tool_version);
  put_text(tlv, FieldTag::kLabel, h.label);
  put_text(tlv, FieldTag::kNormalisation, h.normalisation);
  put_text(tlv, FieldTag::kInputOptions, h.input_options);
  if (!h.kind_params.empty()) {
    std::vector<uint8_t> v(h.kind_params.size() * 8);
    for (size_t i = 0; i < h.kind_params.size(); ++i)
      le::store<uint64_t>(&v[i * 8], h.kind_params[i]);
    put_field(tlv, FieldTag::kKindParams, v.data(), v.size());
  }
  {
    uint8_t v[8];
    le::store<uint64_t>(v, h.empty_lines);
    put_field(tlv, FieldTag::kEmptyLines, v, 8);
  }
  put_text(tlv, FieldTag::kSourceFormat, h.source_format);
  // A peer's hash scheme is a 1.1 feature; every other file stays 1.0, byte for byte.
  if (h.hash_id >= kHashGuavaMitz64 && h.hash_id <= kHashDcsoFnv1 && h.minor < kFormatMinorLatest)
    h.minor = kFormatMinorLatest;
  if (h.kind == FilterKind::kRibbon) h.minor = std::max(h.minor, kFormatMinorRibbon);
  if (h.codec == PayloadCodec::kRawChunked) {
    uint8_t v[kRawLayoutFieldBytes];
    le::store<uint64_t>(v, h.raw_chunk_bytes);
    le::store<uint64_t>(v + 8, h.raw_payload_offset);
    put_field(tlv, FieldTag::kRawLayout, v, sizeof v, kFieldRequired);
  }
  if (h.signature) {  // last, so that a signature can be added to a finished file
    const auto v = encode_signature_field(*h.signature);
    h.signature->signature_offset = kFixedHeaderBytes + tlv.size() + kFieldHeaderBytes +
                                    (kSignatureFieldBytes - kSignatureBytes);
    put_field(tlv, FieldTag::kSignature, v.data(), v.size());
  }
  const size_t total = kFixedHeaderBytes + tlv.size() + kChecksumBytes;
  if (total > kMaxHeaderBytes) {
    throw Error(ErrorCode::kInvalidArgument,
                "header fields too long (label, options or source format): " +
                    std::to_string(total) + " bytes, more than the 65536 a header may hold");
  }
  h.header_bytes = total;
  std::vector<uint8_t> out(total, 0);
  uint8_t* p = out.data();
  std::memcpy(p, kMagic, 8);
  le::store<uint16_t>(p + 8, h.major);
  le::store<uint16_t>(p + 10, h.minor);
  le::store<uint32_t>(p + 12, static_cast<uint32_t>(total));
  le::store<uint64_t>(p + 16, h.required_features);
  le::store<uint32_t>(p + 24, static_cast<uint32_t>(h.kind));
  le::store<uint32_t>(p + 28, h.variant);
  le::store<uint32_t>(p + 32, h.hash_id);
  le::store<uint32_t>(p + 36, h.k);
  le::store<uint64_t>(p + 40, h.seed);
  le::store<uint64_t>(p + 48, h.m);
  le::store<uint64_t>(p + 56, h.lines_read);
  le::store<uint64_t>(p + 64, h.keys_added);
  le::store<uint64_t>(p + 72, h.distinct_estimate);
  le::store<uint64_t>(p + 80, static_cast<uint64_t>(h.created_unix));
  le::store<uint64_t>(p + 88, h.payload_raw_bytes);
  le::store<uint64_t>(p + 96, h.payload_stored_bytes);
  le::store<uint32_t>(p + 104, static_cast<uint32_t>(h.codec));
  le::store<uint64_t>(p + 112, h.payload_checksum);
  if (!tlv.empty()) std::memcpy(p + kFixedHeaderBytes, tlv.data(), tlv.size());
  le::store<uint64_t>(p + total - kChecksumBytes, XXH3_64bits(p, total - kChecksumBytes));
  return out;
}

// A sink on a thread of its own (compress_payload with two threads or more): while it checksums
// and writes one piece, zstd fills the next; at most kQueued pieces wait. Pieces reach the sink in
// order; its first exception is rethrown to the compressing thread at its next piece or at
// finish(), and the pieces still queued then are dropped.
class SinkThread {
 public:
  using Sink = std::function<void(std::span<const uint8_t>)>;

  // Throws std::system_error when no thread is to be had.
  explicit SinkThread(Sink sink) : sink_(std::move(sink)), thread_([this] { run(); }) {}
  ~SinkThread() {
    {
      const std::lock_guard<std::mutex> hold(mu_);
      stopping_ = true;
      queue_.clear();
    }
    ready_.notify_all();
    thread_.join();
  }
  SinkThread(const SinkThread&) = delete;
  SinkThread& operator=(const SinkThread&) = delete;

  // Queues the first `size` bytes of `piece`; returns a buffer as large for the next piece.
  std::vector<uint8_t> pass(std::vector<uint8_t> piece, size_t size) {
    const size_t capacity = piece.size();
    std::unique_lock<std::mutex> lock(mu_);
    room_.wait(lock, [&] { return error_ || unfinished_ < kQueued; });
    if (error_) std::rethrow_exception(error_);
    queue_.push_back({std::move(piece), size});
    ++unfinished_;
    ready_.notify_one();
    std::vector<uint8_t> next;
    if (!spare_.empty()) {
      next = std::move(spare_.back());
      spare_.pop_back();
    }
    lock.unlock();
    next.resize(capacity);
    return next;
  }
  // Waits until the sink has taken every piece; rethrows its exception.
  void finish() {
    std::unique_lock<std::mutex> lock(mu_);
    room_.wait(lock, [&] { return error_ || unfinished_ == 0; });
    if (error_) std::rethrow_exception(error_);
  }

 private:
  static constexpr size_t kQueued = 2;
  struct Piece {
    std::vector<uint8_t> bytes;
    size_t size;
  };

  void run() {
    detail::block_termination_signals();
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      ready_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;
      Piece piece = std::move(queue_.front());
      queue_.pop_front();
      lock.unlock();
      std::exception_ptr error;
      try {
        sink_(std::span<const uint8_t>(piece.bytes.data(), piece.size));
      } catch (...) {
        error = std::current_exception();
      }
      lock.lock();
      if (error) {
        error_ = error;
        queue_.clear();
        unfinished_ = 0;
      } else {
        --unfinished_;
      }
      spare_.push_back(std::move(piece.bytes));
      room_.notify_all();
      if (error) return;
    }
  }

  Sink sink_;
  std::mutex mu_;
  std::condition_variable ready_, room_;
  std::deque<Piece> queue_;
  std::vector<std::vector<uint8_t>> spare_;
  size_t unfinished_ = 0;  // queued or being written
  bool stopping_ = false;
  std::exception_ptr error_;
  std::thread thread_;  // last: starts once the rest is set up
};

// Streams `raw_bytes` bytes of little-endian words through zstd into `sink`, in pieces of a MiB
// (the last one shorter): zstd writes into the piece, and the sink gets it without another copy;
// with two threads or more, on a SinkThread. (zstd's own copy of the input stays: with a stable
// input buffer it finds other matches and writes another frame.)
template <typename Sink>
void compress_payload(std::span<const uint64_t> words, uint64_t raw_bytes, unsigned threads,
                      Sink&& sink) {
  std::unique_ptr<ZSTD_CCtx, size_t (*)(ZSTD_CCtx*)> cctx(ZSTD_createCCtx(), ZSTD_freeCCtx);
  if (!cctx) throw Error(ErrorCode::kLimitExceeded, "cannot create a zstd context");
  ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_compressionLevel, 3);
  ZSTD_CCtx_setPledgedSrcSize(cctx.get(), raw_bytes);
  const auto* bytes = reinterpret_cast<const uint8_t*>(words.data());
#if ZSTD_VERSION_NUMBER >= 10502  // ZSTD_ps_disable; an older zstd keeps its default (same frame)
  if (std::endian::native == std::endian::little &&
      detail::literals_cannot_shrink(bytes, raw_bytes, threads))
    ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_literalCompressionMode, ZSTD_ps_disable);
#else
  (void)threads;
#endif
  constexpr size_t kChunk = 1u << 20;
  std::vector<uint8_t> out(kChunk);
  size_t out_pos = 0;
  std::unique_ptr<SinkThread> off;
  if (threads > 1 && raw_bytes > kChunk) {
    try {
      off = std::make_unique<SinkThread>([&sink](std::span<const uint8_t> b) { sink(b); });
    } catch (const std::system_error&) {
      // no second thread: the sink runs here
    }
  }
  std::vector<uint8_t> le_chunk;
  uint64_t done = 0;
  do {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(kChunk, raw_bytes - done));
    const uint8_t* src = bytes + done;
    if constexpr (std::endian::native == std::endian::big) {
      le_chunk.resize(n);
      for (size_t i = 0; i < n; i += 8) le::store<uint64_t>(&le_chunk[i], words[(done + i) / 8]);
      src = le_chunk.data();
    }
    done += n;
    const ZSTD_EndDirective mode = done == raw_bytes ? ZSTD_e_end : ZSTD_e_continue;
    ZSTD_inBuffer in{src, n, 0};
    bool finished = false;
    while (!finished) {
      ZSTD_outBuffer ob{out.data(), out.size(), out_pos};
      const size_t rc = ZSTD_compressStream2(cctx.get(), &ob, &in, mode);
      if (ZSTD_isError(rc)) {
        throw Error(ErrorCode::kIOError,
                    std::string("zstd compression failed: ") + ZSTD_getErrorName(rc));
      }
      out_pos = ob.pos;
      finished = mode == ZSTD_e_end ? rc == 0 : in.pos == in.size;
      if (out_pos == out.size() || (finished && mode == ZSTD_e_end && out_pos != 0)) {
        if (off) {
          out = off->pass(std::move(out), out_pos);
        } else {
          sink(std::span<const uint8_t>(out.data(), out_pos));
        }
        out_pos = 0;
      }
    }
  } while (done < raw_bytes);
  if (off) off->finish();
}

void check_payload_shape(const FilterHeader& h) {
  if (h.payload_raw_bytes % 8 != 0 || h.payload_raw_bytes == 0) {
    throw Error(ErrorCode::kInvalidArgument, "payload must be a non-empty multiple of 8 bytes");
  }
}

struct XxhStateFree {
  void operator()(XXH3_state_t* state) const noexcept { XXH3_freeState(state); }
};
using XxhState = std::unique_ptr<XXH3_state_t, XxhStateFree>;

// A fresh XXH3-64 streaming state, freed however the caller's scope ends.
XxhState make_xxh_state() {
  XxhState state(XXH3_createState());
  if (!state) throw std::bad_alloc();
  XXH3_64bits_reset(state.get());
  return state;
}

uint64_t physical_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return UINT64_MAX;
  return static_cast<uint64_t>(pages) * static_cast<uint64_t>(page);
}

// Unpacks the checksum-verified stored payload of `h` through the window [window, window +
// window_bytes): each time the window fills, and once at the end, calls sink(raw offset, bytes in
// the window, stored bytes consumed so far). window_bytes is a positive multiple of 8, so every
// window but the last is full and all hold whole words (little-endian, as stored).
template <typename Sink>
void unpack_payload(std::span<const uint8_t> stored, const FilterHeader& h, const std::string& path,
                    uint8_t* window, uint64_t window_bytes, Sink&& sink) {
  const uint64_t raw = h.payload_raw_bytes;
  if (h.codec != PayloadCodec::kZstd) {  // stored as is; codec 2 after its table and padding
    const uint64_t skip =
        h.codec == PayloadCodec::kRawChunked ? h.raw_payload_offset - h.header_bytes : 0;
    for (uint64_t at = 0; at < raw; at += window_bytes) {
      const uint64_t n = std::min(window_bytes, raw - at);
      std::memcpy(window, stored.data() + skip + at, n);
      sink(at, n, skip + at + n);
    }
    return;
  }
  const unsigned long long content = ZSTD_getFrameContentSize(stored.data(), stored.size());
  if (content != raw) corrupt(path, "compressed payload does not declare the expected length");
  std::unique_ptr<ZSTD_DCtx, size_t (*)(ZSTD_DCtx*)> dctx(ZSTD_createDCtx(), ZSTD_freeDCtx);
  if (!dctx) throw Error(ErrorCode::kLimitExceeded, "cannot create a zstd context");
  ZSTD_inBuffer in{stored.data(), stored.size(), 0};
  uint64_t produced = 0;
  size_t rc = 1;
  for (;;) {
    ZSTD_outBuffer ob{window, static_cast<size_t>(std::min(window_bytes, raw - produced)), 0};
    while (ob.pos < ob.size && rc != 0) {
      const size_t before_in = in.pos, before_out = ob.pos;
      rc = ZSTD_decompressStream(dctx.get(), &ob, &in);
      if (ZSTD_isError(rc))
        corrupt(path, std::string("payload does not decompress: ") + ZSTD_getErrorName(rc));
      if (rc != 0 && in.pos == before_in && ob.pos == before_out)
        corrupt(path, "payload ends early");
    }
    if (ob.pos != 0) {
      sink(produced, static_cast<uint64_t>(ob.pos), static_cast<uint64_t>(in.pos));
      produced += ob.pos;
    }
    if (rc == 0) break;
    if (produced == raw) corrupt(path, "payload is longer than its declared length");
  }
  if (produced != raw || in.pos != in.size) corrupt(path, "payload length mismatch");
}

bool same_file_header(const FilterHeader& a, const FilterHeader& b) {
  return a.header_bytes == b.header_bytes && a.payload_checksum == b.payload_checksum &&
         a.payload_stored_bytes == b.payload_stored_bytes &&
         a.payload_raw_bytes == b.payload_raw_bytes && a.codec == b.codec && a.kind == b.kind &&
         a.variant == b.variant && a.hash_id == b.hash_id && a.seed == b.seed && a.m == b.m &&
         a.k == b.k && a.raw_chunk_bytes == b.raw_chunk_bytes &&
         a.raw_payload_offset == b.raw_payload_offset;
}

// for_each_payload_chunk for codec 2: each chunk read with pread() and verified just before its
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

// for_each_payload_chunk for a zstd regular file, in bounded memory: the stored bytes are read
// with pread() a window at a time, hashed once and checked before the first chunk is handed out,
// then read again, decompressed and hashed again; a file that changed between the two passes (or
// during the second) is an error when the second pass ends, or when a read comes up short, so the
// caller (merge, stats) never finishes on bytes that were not checked.
void stream_zstd_payload(const ReadFile& file, const FilterHeader& h,
                         const std::function<void(uint64_t, std::span<const uint64_t>)>& fn) {
  constexpr uint64_t kStep = 1u << 20;
  constexpr uint64_t kWindowWords = 1u << 18;  // 2 MiB
  const std::string& path = file.path();
  const uint64_t stored = h.payload_stored_bytes, base = h.header_bytes;
  std::vector<uint8_t> in(static_cast<size_t>(std::min(kStep, std::max<uint64_t>(stored, 1))));
  {
    const XxhState state = make_xxh_state();
    for (uint64_t at = 0; at < stored; at += kStep) {
      const uint64_t n = std::min(kStep, stored - at);
      file.pread_exact(in.data(), n, base + at);
      detail::checksum_update(state.get(), in.data(), n);
    }
    if (XXH3_64bits_digest(state.get()) != h.payload_checksum)
      corrupt(path, "payload checksum mismatch");
  }
  const XxhState again = make_xxh_state();
  std::unique_ptr<ZSTD_DCtx, size_t (*)(ZSTD_DCtx*)> dctx(ZSTD_createDCtx(), ZSTD_freeDCtx);
  if (!dctx) throw Error(ErrorCode::kLimitExceeded, "cannot create a zstd context");
  const uint64_t raw = h.payload_raw_bytes;
  WordBuffer window(static_cast<size_t>(std::min(kWindowWords, raw / 8)));
  auto* out = reinterpret_cast<uint8_t*>(window.data());
  const uint64_t window_bytes = window.size() * 8;
  uint64_t read = 0, produced = 0;
  ZSTD_inBuffer ib{in.data(), 0, 0};
  ZSTD_outBuffer ob{out, static_cast<size_t>(std::min(window_bytes, raw)), 0};
  for (;;) {
    if (ib.pos == ib.size && read < stored) {
      const uint64_t n = std::min(kStep, stored - read);
      file.pread_exact(in.data(), n, base + read);
      detail::checksum_update(again.get(), in.data(), n);
      if (read == 0 && ZSTD_getFrameContentSize(in.data(), n) != raw)
        corrupt(path, "compressed payload does not declare the expected length");
      read += n;
      ib = ZSTD_inBuffer{in.data(), static_cast<size_t>(n), 0};
    }
    const size_t in_pos = ib.pos, out_pos = ob.pos;
    const size_t rc = ZSTD_decompressStream(dctx.get(), &ob, &ib);
    if (ZSTD_isError(rc))
      corrupt(path, std::string("payload does not decompress: ") + ZSTD_getErrorName(rc));
    if (ob.pos == ob.size || rc == 0) {  // a full window (every one but the last), or the end
      if (ob.pos != 0) {
        if constexpr (std::endian::native == std::endian::big) {
          for (uint64_t i = 0; i < ob.pos / 8; ++i)
            window.data()[i] = le::load<uint64_t>(out + i * 8);
        }
        fn(produced / 8, std::span<const uint64_t>(window.data(), ob.pos / 8));
        produced += ob.pos;
      }
      if (rc == 0) break;
      if (produced == raw) corrupt(path, "payload is longer than its declared length");
      ob = ZSTD_outBuffer{out, static_cast<size_t>(std::min(window_bytes, raw - produced)), 0};
      continue;
    }
    if (ib.pos == in_pos && ob.pos == out_pos && ib.pos == ib.size && read == stored)
      corrupt(path, "payload ends early");
  }
  if (produced != raw || read != stored || ib.pos != ib.size)
    corrupt(path, "payload length mismatch");
  if (XXH3_64bits_digest(again.get()) != h.payload_checksum)
    throw Error(ErrorCode::kIOError, path + ": the file changed while it was being read");
}

// The first bytes of a file (up to kMaxHeaderBytes) and its length; a pipe or device is read
// whole (`whole` then holds it).
std::vector<uint8_t> read_head(const ReadFile& file, uint64_t& file_bytes,
                               std::vector<uint8_t>* whole = nullptr) {
  if (!file.regular()) {
    std::vector<uint8_t> all = file.read_all();
    file_bytes = all.size();
    std::vector<uint8_t> head(
        all.begin(), all.begin() + static_cast<ptrdiff_t>(std::min(all.size(), kMaxHeaderBytes)));
    if (whole != nullptr) *whole = std::move(all);
    return head;
  }
  file_bytes = file.size();
  std::vector<uint8_t> head(static_cast<size_t>(std::min<uint64_t>(file_bytes, kMaxHeaderBytes)));
  head.resize(static_cast<size_t>(file.pread_some(head.data(), head.size(), 0)));
  return head;
}

}  // namespace

const char* filter_kind_name(FilterKind kind) noexcept {
  switch (kind) {
    case FilterKind::kBloom:
      return "bloom";
    case FilterKind::kXor:
      return "xor";
    case FilterKind::kBinaryFuse:
      return "binary-fuse";
    case FilterKind::kRibbon:
      return "ribbon";
  }
  return "unknown";
}

const char* payload_codec_name(PayloadCodec codec) noexcept {
  switch (codec) {
    case PayloadCodec::kNone:
      return "none";
    case PayloadCodec::kZstd:
      return "zstd";
    case PayloadCodec::kRawChunked:
      return "raw";
  }
  return "unknown";
}

PayloadCodec parse_payload_codec(const std::string& name) {
  if (name == "zstd") return PayloadCodec::kZstd;
  if (name == "raw") return PayloadCodec::kRawChunked;
  throw Error(ErrorCode::kInvalidArgument,
              "unknown payload codec '" + name + "' (expected zstd or raw)");
}

FilterHeader parse_filter_header(std::span<const uint8_t> bytes, uint64_t file_bytes,
                                 const std::string& path) {
  const uint8_t* p = bytes.data();
  const size_t have = bytes.size();
  if (have == 0) throw Error(ErrorCode::kCorrupt, path + ": truncated: the file is empty");
  if (std::memcmp(p, kMagic, std::min<size_t>(have, 8)) != 0) {
    throw Error(ErrorCode::kCorrupt, path + ": corrupt: not a bloomtool filter file (bad magic)" +
                                         foreign_format_hint(bytes, file_bytes));
  }
  if (have < 16) {
    throw Error(ErrorCode::kCorrupt, path + ": truncated: file has " + std::to_string(have) +
                                         " bytes, less than the smallest header (" +
                                         std::to_string(kMinHeaderBytes) + ")");
  }
  const uint32_t header_bytes = le::load<uint32_t>(p + 12);
  if (header_bytes < kMinHeaderBytes || header_bytes > kMaxHeaderBytes) {
    corrupt(path, "header length " + std::to_string(header_bytes) + " is out of range");
  }
  if (have < header_bytes) truncated(path, file_bytes, header_bytes);
  const uint64_t stored_sum = le::load<uint64_t>(p + header_bytes - kChecksumBytes);
  if (XXH3_64bits(p, header_bytes - kChecksumBytes) != stored_sum)
    corrupt(path, "header checksum mismatch");

  FilterHeader h;
  h.header_bytes = header_bytes;
  h.major = le::load<uint16_t>(p + 8);
  h.minor = le::load<uint16_t>(p + 10);
  if (h.major != kFormatMajor) {
    throw Error(ErrorCode::kUnsupported,
                path + ": unsupported: file format version " + std::to_string(h.major) + "." +
                    std::to_string(h.minor) + ", this bloomtool reads version " +
                    std::to_string(kFormatMajor) + ".x");
  }
  h.required_features = le::load<uint64_t>(p + 16);
  if ((h.required_features & ~kKnownFeatures) != 0) {
    throw Error(ErrorCode::kUnsupported,
                path + ": unsupported: required feature bits 0x" +
                    fmt::format("{:x}", h.required_features & ~kKnownFeatures) + " (file version " +
                    std::to_string(h.major) + "." + std::to_string(h.minor) +
                    ", this bloomtool writes " + std::to_string(kFormatMajor) + "." +
                    std::to_string(kFormatMinor) + ")");
  }
  const uint32_t kind = le::load<uint32_t>(p + 24);
  if (kind < 1 || kind > 4) {
    throw Error(ErrorCode::kUnsupported,
                path + ": unsupported: filter kind " + std::to_string(kind));
  }
  h.kind = static_cast<FilterKind>(kind);
  h.variant = le::load<uint32_t>(p + 28);
  h.hash_id = le::load<uint32_t>(p + 32);
  h.k = le::load<uint32_t>(p + 36);
  h.seed = le::load<uint64_t>(p + 40);
  h.m = le::load<uint64_t>(p + 48);
  h.lines_read = le::load<uint64_t>(p + 56);
  h.keys_added = le::load<uint64_t>(p + 64);
  h.distinct_estimate = le::load<uint64_t>(p + 72);
  h.created_unix = static_cast<int64_t>(le::load<uint64_t>(p + 80));
  h.payload_raw_bytes = le::load<uint64_t>(p + 88);
  h.payload_stored_bytes = le::load<uint64_t>(p + 96);
  const uint32_t codec = le::load<uint32_t>(p + 104);
  if (codec > 2) {
    throw Error(ErrorCode::kUnsupported,
                path + ": unsupported: payload codec " + std::to_string(codec));
  }
  h.codec = static_cast<PayloadCodec>(codec);
  h.payload_checksum = le::load<uint64_t>(p + 112);

  // Tag-length-value fields between the fixed header and the checksum.
  size_t at = kFixedHeaderBytes;
  const size_t end = header_bytes - kChecksumBytes;
  bool seen_raw_layout = false;
  while (at < end) {
    if (end - at < kFieldHeaderBytes)
      corrupt(path, "header field at byte " + std::to_string(at) + " is cut short");
    const uint16_t tag = le::load<uint16_t>(p + at);
    const uint16_t flags = le::load<uint16_t>(p + at + 2);
    const uint32_t len = le::load<uint32_t>(p + at + 4);
    at += kFieldHeaderBytes;
    if (len > end - at)
      corrupt(path, "header field " + std::to_string(tag) + " runs past the header");
    const auto* v = reinterpret_cast<const char*>(p + at);
    switch (static_cast<FieldTag>(tag)) {
      case FieldTag::kToolVersion:
        h.tool_version.assign(v, len);
        break;
      case FieldTag::kLabel:
        h.label.assign(v, len);
        break;
      case FieldTag::kNormalisation:
        h.normalisation.assign(v, len);
        break;
      case FieldTag::kInputOptions:
        h.input_options.assign(v, len);
        break;
      case FieldTag::kKindParams:
        if (len % 8 != 0 || len / 8 > kMaxKindParams)
          corrupt(path, "kind parameters field has bad length");
        h.kind_params.resize(len / 8);
        for (size_t i = 0; i < h.kind_params.size(); ++i)
          h.kind_params[i] = le::load<uint64_t>(p + at + i * 8);
        break;
      case FieldTag::kEmptyLines:
        if (len != 8) corrupt(path, "empty-lines field has bad length");
        h.empty_lines = le::load<uint64_t>(p + at);
        break;
      case FieldTag::kRawLayout:
        if (len != kRawLayoutFieldBytes || seen_raw_layout)
          corrupt(path, "raw layout field has bad length or appears twice");
        seen_raw_layout = true;
        h.raw_chunk_bytes = le::load<uint64_t>(p + at);
        h.raw_payload_offset = le::load<uint64_t>(p + at + 8);
        break;
      case FieldTag::kSignature:
        if (h.signature) corrupt(path, "more than one signature field");
        h.signature = parse_signature_field({p + at, len}, at, path);
        break;
      case FieldTag::kSourceFormat:
        h.source_format.assign(v, len);
        break;
      default:
        if (flags & kFieldRequired) {
          throw Error(ErrorCode::kUnsupported,
                      path + ": unsupported: required header field " + std::to_string(tag) +
                          " (file version " + std::to_string(h.major) + "." +
                          std::to_string(h.minor) + ", this bloomtool writes " +
                          std::to_string(kFormatMajor) + "." + std::to_string(kFormatMinor) + ")");
        }
        break;  // unknown optional field: skipped
    }
    at += len;
  }

  if ((h.codec == PayloadCodec::kRawChunked) != seen_raw_layout) {
    corrupt(path, seen_raw_layout ? "raw layout field (8) in a file whose codec is not raw"
                                  : "raw payload without its layout field (8)");
  }
  // Declared sizes against the file and sane limits, before anything is allocated.
  if (h.payload_raw_bytes == 0 || h.payload_raw_bytes % 8 != 0) {
    corrupt(path, "payload length " + std::to_string(h.payload_raw_bytes) +
                      " is not a positive multiple of 8");
  }
  if (h.payload_raw_bytes > model::kMaxBits / 8 + 64) {
    throw Error(ErrorCode::kLimitExceeded, path + ": payload of " +
                                               std::to_string(h.payload_raw_bytes) +
                                               " bytes exceeds the limit of 2^40 bits");
  }
  if (h.codec == PayloadCodec::kRawChunked) {
    const std::string why = raw_layout_problem(h);
    if (!why.empty()) corrupt(path, why);
  }
  if (h.payload_stored_bytes > file_bytes - header_bytes) {
    throw Error(ErrorCode::kCorrupt, path + ": truncated: file has " + std::to_string(file_bytes) +
                                         " bytes, its header declares " +
                                         std::to_string(header_bytes) + " header bytes and " +
                                         std::to_string(h.payload_stored_bytes) + " payload bytes");
  }
  const uint64_t need = header_bytes + h.payload_stored_bytes;
  if (need < file_bytes)
    corrupt(path, std::to_string(file_bytes - need) + " bytes after the payload");
  if (h.codec == PayloadCodec::kNone && h.payload_raw_bytes != h.payload_stored_bytes) {
    corrupt(path, "uncompressed payload length does not match the stored length");
  }
  return h;
}

FilterHeader read_filter_header(const std::string& path) {
  const ReadFile file(path);
  uint64_t file_bytes = 0;
  const std::vector<uint8_t> head = read_head(file, file_bytes);
  return parse_filter_header(head, file_bytes, path);
}

FilterFileContents parse_filter_file(std::span<const uint8_t> bytes, const std::string& path) {
  FilterFileContents out;
  out.file_bytes = bytes.size();
  out.header = parse_filter_header(bytes.first(std::min<size_t>(bytes.size(), kMaxHeaderBytes)),
                                   bytes.size(), path);
  const FilterHeader& h = out.header;
  const auto stored = bytes.subspan(h.header_bytes, h.payload_stored_bytes);
  if (h.codec == PayloadCodec::kRawChunked) {
    verify_raw_image(bytes, h, path);
  } else if (detail::checksum_bytes(stored.data(), stored.size()) != h.payload_checksum) {
    corrupt(path, "payload checksum mismatch");
  }
  if (h.codec == PayloadCodec::kZstd &&
      ZSTD_getFrameContentSize(stored.data(), stored.size()) != h.payload_raw_bytes) {
    corrupt(path, "compressed payload does not declare the expected length");
  }
  check_payload_fits_memory(h, path);
  out.payload = WordBuffer(h.payload_raw_bytes / 8);
  unpack_payload(stored, h, path, reinterpret_cast<uint8_t*>(out.payload.data()),
                 h.payload_raw_bytes, [](uint64_t, uint64_t, uint64_t) {});
  if constexpr (std::endian::native == std::endian::big) {
    for (auto& w : out.payload.span()) w = le::load<uint64_t>(reinterpret_cast<const uint8_t*>(&w));
  }
  return out;
}

void check_payload_fits_memory(const FilterHeader& header, const std::string& path) {
  if (header.payload_raw_bytes > physical_memory_bytes()) {
    throw Error(ErrorCode::kLimitExceeded, path + ": filter of " +
                                               std::to_string(header.payload_raw_bytes) +
                                               " bytes is larger than this machine's memory");
  }
}

void check_image_fits_memory(const FilterHeader& header, const std::string& path) {
  check_payload_fits_memory(header, path);
  FilterHeader stored = header;
  stored.payload_raw_bytes = header.header_bytes + header.payload_stored_bytes;
  check_payload_fits_memory(stored, path);
}

void for_each_payload_chunk(const std::string& path, const FilterHeader& expected,
                            const std::function<void(uint64_t, std::span<const uint64_t>)>& fn) {
  constexpr uint64_t kWindowWords = 1u << 18;  // 2 MiB
  const ReadFile file(path);
  uint64_t file_bytes = 0;
  std::vector<uint8_t> image;
  const std::vector<uint8_t> head = read_head(file, file_bytes, &image);
  const FilterHeader h = parse_filter_header(head, file_bytes, path);
  if (!same_file_header(h, expected))
    throw Error(ErrorCode::kIOError, path + ": the file changed while it was being read");
  if (h.codec == PayloadCodec::kRawChunked && file.regular()) {
    stream_raw_payload(path, h, fn);
    return;
  }
  if (file.regular() && h.codec == PayloadCodec::kZstd) {
    stream_zstd_payload(file, h, fn);
    return;
  }
  const auto stored =
      std::span<const uint8_t>(image).subspan(h.header_bytes, h.payload_stored_bytes);
  if (h.codec == PayloadCodec::kRawChunked) {
    verify_raw_image(image, h, path);
  } else if (detail::checksum_bytes(stored.data(), stored.size()) != h.payload_checksum) {
    corrupt(path, "payload checksum mismatch");
  }

  WordBuffer window(static_cast<size_t>(std::min(kWindowWords, h.payload_raw_bytes / 8)));
  uint64_t* words = window.data();
  unpack_payload(stored, h, path, reinterpret_cast<uint8_t*>(words), window.size() * 8,
                 [&](uint64_t offset, uint64_t n, uint64_t) {
                   if constexpr (std::endian::native == std::endian::big) {
                     for (uint64_t i = 0; i < n / 8; ++i)
                       words[i] = le::load<uint64_t>(reinterpret_cast<const uint8_t*>(&words[i]));
                   }
                   fn(offset / 8, std::span<const uint64_t>(words, n / 8));
                 });
}

FilterFileContents read_filter_file(const std::string& path) {
  const ReadFile file(path);
  if (!file.regular()) {
    const std::vector<uint8_t> image = file.read_all();
    return parse_filter_file(image, path);
  }
  uint64_t file_bytes = 0;
  const std::vector<uint8_t> head = read_head(file, file_bytes);
  const FilterHeader h = parse_filter_header(head, file_bytes, path);
  if (h.codec != PayloadCodec::kRawChunked) {
    check_image_fits_memory(h, path);
    const std::vector<uint8_t> image = file.read_all();
    return parse_filter_file(image, path);
  }
  // A raw file: chunk by chunk into the payload's own memory, each chunk checked as it arrives.
  check_payload_fits_memory(h, path);
  const RawPayloadView view(path, 0);
  if (!same_file_header(view.header(), h))
    throw Error(ErrorCode::kIOError, path + ": the file changed while it was being read");
  FilterFileContents out;
  out.header = view.header();
  out.file_bytes = view.file_bytes();
  out.payload = WordBuffer(static_cast<size_t>(h.payload_raw_bytes / 8));
  auto* bytes = reinterpret_cast<uint8_t*>(out.payload.data());
  for (uint64_t c = 0; c < view.chunk_count(); ++c)
    view.read_chunk(c, bytes + c * view.chunk_bytes());
  if constexpr (std::endian::native == std::endian::big) {
    for (auto& w : out.payload.span()) w = le::load<uint64_t>(reinterpret_cast<const uint8_t*>(&w));
  }
  return out;
}

namespace {

uint64_t chunk_bytes_of(const WriteOptions& options) {
  return options.raw_chunk_bytes == 0 ? kDefaultRawChunkBytes : options.raw_chunk_bytes;
}

void check_write_options(const WriteOptions& options) {
  if (options.codec == PayloadCodec::kZstd) return;
  if (options.codec != PayloadCodec::kRawChunked) {
    throw Error(ErrorCode::kInvalidArgument,
                "payload codec " + std::to_string(static_cast<uint32_t>(options.codec)) +
                    " cannot be written");
  }
  const uint64_t c = chunk_bytes_of(options);
  if (!std::has_single_bit(c) || c < kMinRawChunkBytes || c > kMaxRawChunkBytes) {
    throw Error(ErrorCode::kInvalidArgument,
                "raw chunk size " + std::to_string(c) + " is not a power of two from " +
                    std::to_string(kMinRawChunkBytes) + " to " + std::to_string(kMaxRawChunkBytes));
  }
}

// A signed file carries field 9 (format 1.1), reserved before the payload is written and filled in
// by sign_file_header once the whole file is; an unsigned one carries none.
void reserve_signature(FilterHeader& header, const WriteOptions& options) {
  header.signature.reset();
  if (options.signing_key == nullptr) return;
  SignatureField field;
  field.key_id = options.signing_key->id();
  header.signature = field;
  header.minor = std::max(header.minor, kFormatMinorLatest);
}

}  // namespace

std::vector<uint8_t> raw_file_head(FilterHeader& header, uint64_t raw_bytes, uint64_t chunk_bytes,
                                   const std::vector<uint8_t>& table) {
  header.codec = PayloadCodec::kRawChunked;
  header.minor = std::max(header.minor, kFormatMinorLatest);
  header.payload_raw_bytes = raw_bytes;
  header.raw_chunk_bytes = chunk_bytes;
  header.raw_payload_offset = 0;
  serialize_header(header);  // header_bytes does not depend on the values of the fields
  header.raw_payload_offset = raw_payload_offset_for(header.header_bytes, raw_bytes, chunk_bytes);
  header.payload_stored_bytes = header.raw_payload_offset - header.header_bytes + raw_bytes;
  header.payload_checksum = detail::checksum_bytes(table.data(), table.size());
  std::vector<uint8_t> head = serialize_header(header);
  head.insert(head.end(), table.begin(), table.end());
  head.resize(static_cast<size_t>(header.raw_payload_offset), 0);
  return head;
}

namespace {

// Hands the payload to `sink` as little-endian bytes in pieces that end where the file offset
// (the payload starting at `file_offset`) is a multiple of 2 MiB, so each piece fills one whole
// 2 MiB-aligned stretch of the file but the first and the last. Written so, a file lands in the
// page cache in 2 MiB folios (ext4 on Linux 6.18 picks the folio from the write's size and
// alignment; 1 MiB writes at unaligned offsets left the file in 4 KiB pages), and a mapping of it
// then takes one TLB entry per 2 MiB instead of one per 4 KiB: 1M queries against a mapped 4 GiB
// filter ran 1.44x the in-memory time in 2 MiB folios, 3.39x in 4 KiB pages (PERFORMANCE.md).
template <typename Sink>
void emit_raw_words(std::span<const uint64_t> words, uint64_t raw_bytes, uint64_t file_offset,
                    Sink&& sink) {
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

}  // namespace

std::vector<uint8_t> encode_filter_file(FilterHeader& header, std::span<const uint64_t> words,
                                        uint64_t raw_bytes, const WriteOptions& options) {
  check_write_options(options);
  header.payload_raw_bytes = raw_bytes;
  check_payload_shape(header);
  reserve_signature(header, options);
  std::vector<uint8_t> out;
  if (options.codec == PayloadCodec::kRawChunked) {
    const uint64_t chunk = chunk_bytes_of(options);
    out = raw_file_head(header, raw_bytes, chunk, raw_chunk_table(words, raw_bytes, chunk));
    emit_raw_words(words, raw_bytes, out.size(),
                   [&](std::span<const uint8_t> b) { out.insert(out.end(), b.begin(), b.end()); });
  } else {
    std::vector<uint8_t> payload;
    const XxhState state = make_xxh_state();
    compress_payload(words, raw_bytes, options.threads, [&](std::span<const uint8_t> chunk) {
      detail::checksum_update(state.get(), chunk.data(), chunk.size());
      payload.insert(payload.end(), chunk.begin(), chunk.end());
    });
    header.payload_checksum = XXH3_64bits_digest(state.get());
    header.codec = PayloadCodec::kZstd;
    header.raw_chunk_bytes = header.raw_payload_offset = 0;
    header.payload_stored_bytes = payload.size();
    out = serialize_header(header);
    out.insert(out.end(), payload.begin(), payload.end());
  }
  if (options.signing_key != nullptr) {
    sign_file_header(
        std::span<uint8_t>(out.data(), header.header_bytes), header, header.payload_stored_bytes,
        [&](uint64_t at, std::span<uint8_t> buf) {
          std::memcpy(buf.data(), out.data() + header.header_bytes + at, buf.size());
        },
        *options.signing_key);
  }
  return out;
}

uint64_t write_filter_file(const std::string& path, FilterHeader& header,
                           std::span<const uint64_t> words, uint64_t raw_bytes,
                           const WriteOptions& options) {
  check_write_options(options);
  const OutputTarget target = resolve_output_target(path);
  if (target.kind != OutputKind::kFile) {  // stdout, a character device or a FIFO: a stream
    const std::vector<uint8_t> image = encode_filter_file(header, words, raw_bytes, options);
    write_output_stream(target, image);
    return image.size();
  }
  header.payload_raw_bytes = raw_bytes;
  check_payload_shape(header);
  reserve_signature(header, options);
  AtomicFile file(path);
  if (options.codec == PayloadCodec::kRawChunked) {
    const uint64_t chunk = chunk_bytes_of(options);
    std::vector<uint8_t> head =
        raw_file_head(header, raw_bytes, chunk, raw_chunk_table(words, raw_bytes, chunk));
    // The head goes out with the payload's first piece, in one write up to the first 2 MiB
    // boundary (emit_raw_words).
    const size_t head_bytes = head.size();
    bool first = true;
    emit_raw_words(words, raw_bytes, head_bytes, [&](std::span<const uint8_t> b) {
      if (!first) return file.write(b);
      first = false;
      head.insert(head.end(), b.begin(), b.end());
      file.write(head);
      head.resize(head_bytes);
    });
    if (options.signing_key != nullptr) {
      head.resize(static_cast<size_t>(header.header_bytes));
      sign_file_header(
          head, header, header.payload_stored_bytes,
          [&](uint64_t at, std::span<uint8_t> buf) { file.pread(buf, head.size() + at); },
          *options.signing_key);
      file.pwrite(head, 0);
    }
    file.commit();
    return header.raw_payload_offset + raw_bytes;
  }
  header.codec = PayloadCodec::kZstd;
  header.raw_chunk_bytes = header.raw_payload_offset = 0;
  // The header's length does not depend on the payload, so a placeholder is written first and
  // replaced once the payload's length and checksum are known.
  std::vector<uint8_t> head = serialize_header(header);
  file.write(head);
  uint64_t stored = 0;
  const XxhState state = make_xxh_state();
  compress_payload(words, raw_bytes, options.threads, [&](std::span<const uint8_t> chunk) {
    detail::checksum_update(state.get(), chunk.data(), chunk.size());
    stored += chunk.size();
    file.write(chunk);
  });
  header.payload_checksum = XXH3_64bits_digest(state.get());
  header.payload_stored_bytes = stored;
  head = serialize_header(header);
  if (options.signing_key != nullptr) {
    sign_file_header(
        head, header, stored,
        [&](uint64_t at, std::span<uint8_t> buf) { file.pread(buf, head.size() + at); },
        *options.signing_key);
  }
  file.pwrite(head, 0);
  file.commit();
  return head.size() + stored;
}

}  // namespace bloomtool
