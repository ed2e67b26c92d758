// Codec 1 of the filter file (docs/FORMAT.md, "Payload"): the payload as one zstd frame at level
// 3, compressed by zstd's workers in jobs of 1 MiB (the same frame for any number of workers),
// written in pieces as zstd fills them (on a thread of their own when the writer has two) and
// read back into a window of bounded size, from memory or a window at a time from the file.
#include "format/zstd_payload.h"

#include <xxhash.h>
#define ZSTD_STATIC_LINKING_ONLY  // ZSTD_c_literalCompressionMode
#include <zstd.h>

#include <pthread.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>
#include <utility>

#include "base/byte_order.h"
#include "base/checksum.h"
#include "base/run_threads.h"
#include "bloomtool/error.h"
#include "format/file_reader.h"

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

// A sink on a thread of its own (compress_zstd_payload with two threads or more): while it
// checksums and writes one piece, zstd fills the next; at most kQueued pieces wait. Pieces reach
// the sink in order; its first exception is rethrown to the compressing thread at its next piece
// or at finish(), and the pieces still queued then are dropped.
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

}  // namespace

// In pieces of a MiB (the last one shorter): zstd writes into the piece, and the sink gets it
// without another copy; with two threads or more, on a SinkThread. (zstd's own copy of the input
// stays: with a stable input buffer it finds other matches and writes another frame.)
void compress_zstd_payload(std::span<const uint64_t> words, uint64_t raw_bytes, unsigned threads,
                           const PayloadSink& sink) {
  // zstd's workers start with the calling thread's signal mask: termination signals stay with
  // the thread that owns the output (one that arrives meanwhile is handled once this returns).
  sigset_t termination, before;
  sigemptyset(&termination);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&termination, sig);
  pthread_sigmask(SIG_BLOCK, &termination, &before);
  struct Restore {
    const sigset_t& mask;
    ~Restore() { pthread_sigmask(SIG_SETMASK, &mask, nullptr); }
  } restore{before};
  std::unique_ptr<ZSTD_CCtx, size_t (*)(ZSTD_CCtx*)> cctx(ZSTD_createCCtx(), ZSTD_freeCCtx);
  if (!cctx) throw Error(ErrorCode::kLimitExceeded, "cannot create a zstd context");
  ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_compressionLevel, 3);
  // Jobs of 1 MiB, each compressed on its own (no overlap: a filter's bytes hold no long matches
  // to find across them), on as many workers as threads: the frame is the same for any number of
  // workers from one on, so files stay byte-identical for any thread count. zstd compresses a
  // payload of 512 KiB or less on the calling thread. A zstd without workers keeps one thread.
  if (!ZSTD_isError(ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_nbWorkers,
                                           static_cast<int>(std::clamp(threads, 1u, 64u))))) {
    ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_jobSize, 1 << 20);
    ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_overlapLog, 1);
  }
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
      off = std::make_unique<SinkThread>(sink);
    } catch (const std::system_error&) {
      // no second thread: the sink runs here
    }
  }
  std::vector<uint8_t> le_chunk;
  uint64_t done = 0;
  // The input in one piece where its bytes are already little-endian (zstd cuts it into blocks
  // and jobs the same way however it is handed over).
  const uint64_t in_chunk =
      std::endian::native == std::endian::big ? kChunk : std::min<uint64_t>(raw_bytes, SIZE_MAX);
  do {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(in_chunk, raw_bytes - done));
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

void check_zstd_frame_length(std::span<const uint8_t> stored, uint64_t raw,
                             const std::string& path) {
  if (ZSTD_getFrameContentSize(stored.data(), stored.size()) != raw)
    throw_corrupt(path, "compressed payload does not declare the expected length");
}

void decode_zstd_payload(std::span<const uint8_t> stored, uint64_t raw, const std::string& path,
                         uint8_t* window, uint64_t window_bytes, const WindowSink& sink) {
  const unsigned long long content = ZSTD_getFrameContentSize(stored.data(), stored.size());
  if (content != raw)
    throw_corrupt(path, "compressed payload does not declare the expected length");
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
        throw_corrupt(path, std::string("payload does not decompress: ") + ZSTD_getErrorName(rc));
      if (rc != 0 && in.pos == before_in && ob.pos == before_out)
        throw_corrupt(path, "payload ends early");
    }
    if (ob.pos != 0) {
      sink(produced, static_cast<uint64_t>(ob.pos), static_cast<uint64_t>(in.pos));
      produced += ob.pos;
    }
    if (rc == 0) break;
    if (produced == raw) throw_corrupt(path, "payload is longer than its declared length");
  }
  if (produced != raw || in.pos != in.size) throw_corrupt(path, "payload length mismatch");
}
// for_each_payload_chunk for a zstd regular file, in bounded memory: the stored bytes are read
// with pread() a window at a time, hashed once and checked before the first chunk is handed out,
// then read again, decompressed and hashed again; a file that changed between the two passes (or
// during the second) is an error when the second pass ends, or when a read comes up short, so the
// caller (merge, stats) never finishes on bytes that were not checked.
void stream_zstd_payload(const ReadFile& file, const FilterHeader& h, const ChunkSink& fn) {
  constexpr uint64_t kStep = 1u << 20;
  constexpr uint64_t kWindowWords = 1u << 18;  // 2 MiB
  const std::string& path = file.path();
  const uint64_t stored = h.payload_stored_bytes, base = h.header_bytes;
  std::vector<uint8_t> in(static_cast<size_t>(std::min(kStep, std::max<uint64_t>(stored, 1))));
  {
    const detail::XxhState state = detail::make_xxh_state();
    for (uint64_t at = 0; at < stored; at += kStep) {
      const uint64_t n = std::min(kStep, stored - at);
      file.pread_exact(in.data(), n, base + at);
      detail::checksum_update(state.get(), in.data(), n);
    }
    if (XXH3_64bits_digest(state.get()) != h.payload_checksum)
      throw_corrupt(path, "payload checksum mismatch");
  }
  const detail::XxhState again = detail::make_xxh_state();
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
        throw_corrupt(path, "compressed payload does not declare the expected length");
      read += n;
      ib = ZSTD_inBuffer{in.data(), static_cast<size_t>(n), 0};
    }
    const size_t in_pos = ib.pos, out_pos = ob.pos;
    const size_t rc = ZSTD_decompressStream(dctx.get(), &ob, &ib);
    if (ZSTD_isError(rc))
      throw_corrupt(path, std::string("payload does not decompress: ") + ZSTD_getErrorName(rc));
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
      if (produced == raw) throw_corrupt(path, "payload is longer than its declared length");
      ob = ZSTD_outBuffer{out, static_cast<size_t>(std::min(window_bytes, raw - produced)), 0};
      continue;
    }
    if (ib.pos == in_pos && ob.pos == out_pos && ib.pos == ib.size && read == stored)
      throw_corrupt(path, "payload ends early");
  }
  if (produced != raw || read != stored || ib.pos != ib.size)
    throw_corrupt(path, "payload length mismatch");
  if (XXH3_64bits_digest(again.get()) != h.payload_checksum)
    throw Error(ErrorCode::kIOError, path + ": the file changed while it was being read");
}

}  // namespace bloomtool
