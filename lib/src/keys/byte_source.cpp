// File-descriptor, zstd and gzip byte sources. An input is classified by its first bytes,
// whatever it is called: zstd (28 B5 2F FD; concatenated frames are read in order) and gzip (1F 8B;
// concatenated members are read in order, each one's CRC-32 and length checked) are decompressed
// as they are read, with bounded buffers; a stream that ends inside a frame or member is reported
// as truncated instead of being read as a short input. Other compressed formats (xz, bzip2, lz4)
// and filter files (bloomtool's magic; a DCSO header; a Guava header that matches the file's size)
// are refused, also when a zstd or gzip stream decompresses to them.
#include "keys/byte_source.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <climits>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>

#include "base/run_threads.h"
#include "base/unique_fd.h"
#include "bloomtool/error.h"
#include "keys/key_reader.h"

namespace bloomtool {

namespace {

constexpr unsigned char kZstdMagic[4] = {0x28, 0xB5, 0x2F, 0xFD};

class FdSource final : public ByteSource {
 public:
  FdSource(const std::string& path, std::string name) : name_(std::move(name)) {
    if (path == "-") {
      fd_ = STDIN_FILENO;
    } else {
      owned_.reset(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
      if (!owned_) throw_io_error(name_, errno);
      fd_ = owned_.get();
      posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
    }
    struct stat st;
    if (::fstat(fd_, &st) == 0 && !S_ISREG(st.st_mode)) {
      waits_ = true;  // a pipe, a terminal, a socket: a read waits for what the writer writes
      // A bigger pipe buffer lets the writer run ahead and a read take up to a megabyte instead
      // of 64 KiB; the kernel may refuse (a per-user limit), which changes nothing else.
      if (S_ISFIFO(st.st_mode)) ::fcntl(fd_, F_SETPIPE_SZ, 1 << 20);
    }
  }
  size_t read(char* dst, size_t cap) override {
    if (waits_ && cancel_ >= 0) wait_for_input();
    return read_fd(dst, cap);
  }
  uint64_t raw_bytes_read() const noexcept override { return total_; }
  bool ready() const override {
    if (!waits_) return true;
    pollfd p{fd_, POLLIN, 0};
    return ::poll(&p, 1, 0) != 0;  // bytes, the end or an error (which read() reports): no wait
  }
  void cancel_on(int fd) noexcept override { cancel_ = fd; }
  // The bytes left to read when the descriptor is a regular file (stdin redirected from one
  // included), else nothing.
  std::optional<uint64_t> size() const {
    struct stat st;
    if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
    const off_t at = ::lseek(fd_, 0, SEEK_CUR);
    const uint64_t size = static_cast<uint64_t>(st.st_size);
    return at > 0 ? size - std::min(size, static_cast<uint64_t>(at)) : size;
  }

 private:
  size_t read_fd(char* dst, size_t cap) {
    for (;;) {
      const ssize_t r = ::read(fd_, dst, cap);
      if (r >= 0) {
        total_ += static_cast<uint64_t>(r);
        return static_cast<size_t>(r);
      }
      if (errno == EINTR) continue;
      if (errno == EISDIR) throw Error(ErrorCode::kBadInput, name_ + ": is a directory");
      if (errno == EBADF && fd_ == STDIN_FILENO)
        throw Error(ErrorCode::kIOError, name_ + ": standard input is closed");
      throw_io_error(name_, errno);
    }
  }
  // Waits until the descriptor has input or cancel_ is readable (then throws).
  void wait_for_input() {
    pollfd p[2] = {{fd_, POLLIN, 0}, {cancel_, POLLIN, 0}};
    for (;;) {
      const int r = ::poll(p, 2, -1);
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) throw_io_error(name_, errno);
      if (p[1].revents != 0) throw Error(ErrorCode::kIOError, name_ + ": read cancelled");
      return;
    }
  }
  std::string name_;
  UniqueFd owned_;  // the file opened; empty for standard input
  int fd_ = -1;     // what is read: owned_ or standard input
  bool waits_ = false;
  int cancel_ = -1;
  uint64_t total_ = 0;
};

// A source whose first bytes can be looked at before they are read: they are kept and returned
// first by read().
class PeekSource final : public ByteSource {
 public:
  explicit PeekSource(std::unique_ptr<ByteSource> inner) : inner_(std::move(inner)) {}
  // Reads once more into the head, keeping at most `limit` bytes; false at the end of the stream
  // (or when the head is full).
  bool read_more(size_t limit) {
    const size_t have = head_.size();
    if (have >= limit) return false;
    head_.resize(limit);
    const size_t r = inner_->read(head_.data() + have, limit - have);
    head_.resize(have + r);
    return r != 0;
  }
  std::string_view head() const noexcept { return {head_.data(), head_.size()}; }
  size_t read(char* dst, size_t cap) override {
    if (pos_ < head_.size()) {
      const size_t n = std::min(cap, head_.size() - pos_);
      std::memcpy(dst, head_.data() + pos_, n);
      pos_ += n;
      return n;
    }
    return inner_->read(dst, cap);
  }
  uint64_t raw_bytes_read() const noexcept override { return inner_->raw_bytes_read(); }
  bool ready() const override { return pos_ < head_.size() || inner_->ready(); }
  void cancel_on(int fd) noexcept override { inner_->cancel_on(fd); }

 private:
  std::unique_ptr<ByteSource> inner_;
  std::vector<char> head_;
  size_t pos_ = 0;
};

// Bytes [begin, end) of a regular file, read with pread: one of the ranges that threads read in
// parallel (plan_line_ranges). A file that shrinks under it ends the range early.
class RangeSource final : public ByteSource {
 public:
  RangeSource(const std::string& path, std::string name, uint64_t begin, uint64_t end)
      : name_(std::move(name)), pos_(begin), end_(end) {
    fd_.reset(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd_) throw_io_error(name_, errno);
    posix_fadvise(fd_.get(), static_cast<off_t>(begin), static_cast<off_t>(end - begin),
                  POSIX_FADV_SEQUENTIAL);
  }
  size_t read(char* dst, size_t cap) override {
    const size_t want = static_cast<size_t>(std::min<uint64_t>(cap, end_ - pos_));
    if (want == 0) return 0;
    for (;;) {
      const ssize_t r = ::pread(fd_.get(), dst, want, static_cast<off_t>(pos_));
      if (r >= 0) {
        pos_ += static_cast<uint64_t>(r);
        total_ += static_cast<uint64_t>(r);
        if (r == 0) end_ = pos_;
        return static_cast<size_t>(r);
      }
      if (errno == EINTR) continue;
      throw_io_error(name_, errno);
    }
  }
  uint64_t raw_bytes_read() const noexcept override { return total_; }

 private:
  std::string name_;
  UniqueFd fd_;
  uint64_t pos_;
  uint64_t end_;
  uint64_t total_ = 0;
};

class MemorySource final : public ByteSource {
 public:
  explicit MemorySource(std::string_view bytes) : bytes_(bytes) {}
  size_t read(char* dst, size_t cap) override {
    const size_t n = std::min(cap, bytes_.size() - pos_);
    if (n != 0) std::memcpy(dst, bytes_.data() + pos_, n);
    pos_ += n;
    return n;
  }
  uint64_t raw_bytes_read() const noexcept override { return pos_; }

 private:
  std::string_view bytes_;
  size_t pos_ = 0;
};

class ZstdSource final : public ByteSource {
 public:
  ZstdSource(std::unique_ptr<ByteSource> inner, std::string name)
      : inner_(std::move(inner)),
        name_(std::move(name)),
        in_buf_(ZSTD_DStreamInSize()),
        dctx_(ZSTD_createDCtx(), ZSTD_freeDCtx) {
    if (!dctx_) throw Error(ErrorCode::kLimitExceeded, name_ + ": cannot create a zstd context");
    // Bound the decoder's window so a hostile frame cannot demand gigabytes.
    ZSTD_DCtx_setParameter(dctx_.get(), ZSTD_d_windowLogMax, 27);
  }
  size_t read(char* dst, size_t cap) override {
    ZSTD_outBuffer out{dst, cap, 0};
    while (out.pos == 0) {
      if (in_.pos == in_.size) {
        if (inner_eof_) {
          if (!frame_complete_) {
            throw Error(ErrorCode::kBadInput,
                        name_ +
                            ": truncated zstd stream (ends inside a frame, at compressed byte " +
                            std::to_string(inner_->raw_bytes_read()) + ")");
          }
          return 0;
        }
        const size_t r = inner_->read(in_buf_.data(), in_buf_.size());
        if (r == 0) {
          inner_eof_ = true;
          continue;
        }
        in_ = ZSTD_inBuffer{in_buf_.data(), r, 0};
      }
      const size_t rc = ZSTD_decompressStream(dctx_.get(), &out, &in_);
      if (ZSTD_isError(rc)) {
        throw Error(ErrorCode::kBadInput, name_ + ": zstd: " + ZSTD_getErrorName(rc) +
                                              " (compressed byte " +
                                              std::to_string(inner_->raw_bytes_read()) + ")");
      }
      frame_complete_ = rc == 0;
    }
    return out.pos;
  }
  uint64_t raw_bytes_read() const noexcept override { return inner_->raw_bytes_read(); }
  bool ready() const override { return in_.pos < in_.size || inner_eof_ || inner_->ready(); }
  void cancel_on(int fd) noexcept override { inner_->cancel_on(fd); }

 private:
  std::unique_ptr<ByteSource> inner_;
  std::string name_;
  std::vector<char> in_buf_;
  ZSTD_inBuffer in_{nullptr, 0, 0};
  std::unique_ptr<ZSTD_DCtx, size_t (*)(ZSTD_DCtx*)> dctx_;
  bool inner_eof_ = false;
  bool frame_complete_ = true;
};

// One or more concatenated gzip members, inflated by zlib into the caller's buffer: memory stays
// at zlib's 32 KiB window and one input block whatever the data. Each member's CRC-32 and length
// are checked by zlib; bytes after a member that do not start another one are an error.
class GzipSource final : public ByteSource {
 public:
  GzipSource(std::unique_ptr<ByteSource> inner, std::string name)
      : inner_(std::move(inner)), name_(std::move(name)), in_buf_(64 * 1024) {
    if (inflateInit2(&zs_, 15 + 16) != Z_OK)  // 16: gzip framing only
      throw Error(ErrorCode::kLimitExceeded, name_ + ": cannot create a zlib stream");
  }
  ~GzipSource() override { inflateEnd(&zs_); }
  GzipSource(const GzipSource&) = delete;
  GzipSource& operator=(const GzipSource&) = delete;
  size_t read(char* dst, size_t cap) override {
    const uInt want = static_cast<uInt>(std::min<size_t>(cap, UINT_MAX));
    zs_.next_out = reinterpret_cast<Bytef*>(dst);
    zs_.avail_out = want;
    while (zs_.avail_out == want) {
      if (zs_.avail_in == 0) {
        if (inner_eof_) {
          if (in_member_) {
            throw Error(ErrorCode::kBadInput,
                        name_ +
                            ": truncated gzip stream (ends inside a member, at compressed byte " +
                            std::to_string(inner_->raw_bytes_read()) + ")");
          }
          break;
        }
        const size_t r = inner_->read(reinterpret_cast<char*>(in_buf_.data()), in_buf_.size());
        if (r == 0) {
          inner_eof_ = true;
          continue;
        }
        zs_.next_in = in_buf_.data();
        zs_.avail_in = static_cast<uInt>(r);
      }
      in_member_ = true;
      const int rc = inflate(&zs_, Z_NO_FLUSH);
      if (rc == Z_STREAM_END) {
        in_member_ = false;  // another member may follow
        inflateReset(&zs_);
      } else if (rc != Z_OK && !(rc == Z_BUF_ERROR && zs_.avail_in == 0)) {
        throw Error(ErrorCode::kBadInput,
                    name_ + ": gzip: " + (zs_.msg != nullptr ? zs_.msg : "damaged data") +
                        " (compressed byte " +
                        std::to_string(inner_->raw_bytes_read() - zs_.avail_in) + ")");
      }
    }
    return want - zs_.avail_out;
  }
  uint64_t raw_bytes_read() const noexcept override { return inner_->raw_bytes_read(); }
  bool ready() const override { return zs_.avail_in != 0 || inner_eof_ || inner_->ready(); }
  void cancel_on(int fd) noexcept override { inner_->cancel_on(fd); }

 private:
  std::unique_ptr<ByteSource> inner_;
  std::string name_;
  std::vector<unsigned char> in_buf_;
  z_stream zs_{};
  bool inner_eof_ = false;
  bool in_member_ = false;
};

// A source (a decompressor) run on a thread of its own, up to kBlocks blocks ahead of the reader,
// so that decompressing overlaps splitting and hashing. The thread fills a block while its source
// has bytes ready and hands it over; an error is handed over after the bytes before it, so the
// reader sees what a direct read would. Stopping early cancels a read that waits for a pipe's
// writer (a self-pipe polled with the input), so the thread is always joined.
class AheadSource final : public ByteSource {
 public:
  explicit AheadSource(std::unique_ptr<ByteSource> inner) : inner_(std::move(inner)) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return;  // read directly
    cancel_[0].reset(fds[0]);
    cancel_[1].reset(fds[1]);
    inner_->cancel_on(cancel_[0].get());
    for (auto& b : blocks_) b.bytes.resize(kBlock);
    try {
      thread_ = std::thread([this] {
        detail::block_termination_signals();
        produce();
      });
    } catch (const std::system_error&) {
      inner_->cancel_on(-1);  // no thread to be had: read on the caller's
    }
  }
  ~AheadSource() override {
    if (thread_.joinable()) {
      {
        std::lock_guard<std::mutex> lock(mu_);
        stop_ = true;
      }
      cv_.notify_all();
      const char c = 0;
      [[maybe_unused]] const ssize_t w = ::write(cancel_[1].get(), &c, 1);
      thread_.join();
    }
  }
  AheadSource(const AheadSource&) = delete;
  AheadSource& operator=(const AheadSource&) = delete;
  size_t read(char* dst, size_t cap) override {
    if (!thread_.joinable()) return inner_->read(dst, cap);
    Block* b = &blocks_[taken_ % kBlocks];
    if (!holding_ || pos_ == b->size) {
      std::unique_lock<std::mutex> lock(mu_);
      if (holding_) {  // the block read to its end goes back
        ++taken_;
        holding_ = false;
        cv_.notify_all();
      }
      cv_.wait(lock, [&] { return filled_ > taken_ || finished_; });
      if (filled_ == taken_) {
        if (error_) std::rethrow_exception(error_);
        return 0;
      }
      holding_ = true;
      b = &blocks_[taken_ % kBlocks];
      pos_ = 0;
    }
    const size_t n = std::min(cap, b->size - pos_);
    std::memcpy(dst, b->bytes.data() + pos_, n);
    pos_ += n;
    return n;
  }
  uint64_t raw_bytes_read() const noexcept override {
    return thread_.joinable() ? raw_.load(std::memory_order_relaxed) : inner_->raw_bytes_read();
  }
  bool ready() const override {
    if (!thread_.joinable()) return inner_->ready();
    if (holding_ && pos_ < blocks_[taken_ % kBlocks].size) return true;
    std::lock_guard<std::mutex> lock(mu_);
    return filled_ > taken_ + (holding_ ? 1 : 0) || finished_;
  }

 private:
  static constexpr size_t kBlock = size_t{1} << 20;
  static constexpr uint64_t kBlocks = 4;
  struct Block {
    std::vector<char> bytes;
    size_t size = 0;
  };
  void produce() {
    for (uint64_t seq = 0;; ++seq) {
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [&] { return stop_ || seq < taken_ + kBlocks; });
        if (stop_) break;
      }
      Block& b = blocks_[seq % kBlocks];
      size_t n = 0;
      bool end = false;
      std::exception_ptr error;
      try {
        // Fill the block while bytes come without a wait; hand over what there is before one.
        while (n < kBlock) {
          const size_t r = inner_->read(b.bytes.data() + n, kBlock - n);
          if (r == 0) {
            end = true;
            break;
          }
          n += r;
          if (!inner_->ready()) break;
        }
      } catch (...) {
        error = std::current_exception();
      }
      b.size = n;
      raw_.store(inner_->raw_bytes_read(), std::memory_order_relaxed);
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (n != 0) ++filled_;
        if (end || error) {
          error_ = error;
          finished_ = true;
        }
      }
      cv_.notify_all();
      if (end || error) return;
    }
  }
  std::unique_ptr<ByteSource> inner_;
  UniqueFd cancel_[2];  // a self-pipe: a byte written to [1] wakes a read waiting on [0]
  Block blocks_[kBlocks];
  mutable std::mutex mu_;
  std::condition_variable cv_;
  uint64_t filled_ = 0;   // blocks handed over
  uint64_t taken_ = 0;    // blocks given back by the reader
  bool holding_ = false;  // the reader is reading block taken_
  size_t pos_ = 0;
  bool stop_ = false;
  bool finished_ = false;
  std::exception_ptr error_;
  std::atomic<uint64_t> raw_{0};
  std::thread thread_;
};

// Bytes kept in memory, then the rest of another source: what is left of a stream after some of it
// was read ahead (ParallelZstdSource handing the rest of its input to the streaming decoder).
class PrefixSource final : public ByteSource {
 public:
  PrefixSource(std::vector<char> bytes, size_t pos, std::unique_ptr<ByteSource> inner)
      : bytes_(std::move(bytes)), pos_(pos), inner_(std::move(inner)) {}
  size_t read(char* dst, size_t cap) override {
    if (pos_ < bytes_.size()) {
      const size_t n = std::min(cap, bytes_.size() - pos_);
      std::memcpy(dst, bytes_.data() + pos_, n);
      pos_ += n;
      return n;
    }
    return inner_->read(dst, cap);
  }
  uint64_t raw_bytes_read() const noexcept override {
    return inner_->raw_bytes_read() - (bytes_.size() - pos_);
  }
  bool ready() const override { return pos_ < bytes_.size() || inner_->ready(); }
  void cancel_on(int fd) noexcept override { inner_->cancel_on(fd); }

 private:
  std::vector<char> bytes_;
  size_t pos_;
  std::unique_ptr<ByteSource> inner_;
};

// A zstd input of several frames whose headers give their decompressed size (what pzstd, a
// seekable archive or concatenated files hold): each frame is read whole on the reading thread and
// decompressed on one of kDecoders threads of its own, up to kSlots frames at once, and handed out
// in order. A frame without a known size, larger than kMaxFrame, or anything unusual (bytes that
// do not start a frame, a stream that ends inside one) hands the rest of the input to the
// streaming decoder, decompressing ahead on its thread as for a one-frame file, which reads or
// reports it exactly as it would have from the start. Memory: at most kSlots frames, compressed
// and decompressed.
class ParallelZstdSource final : public ByteSource {
 public:
  ParallelZstdSource(std::unique_ptr<ByteSource> inner, std::string name)
      : inner_(std::move(inner)), name_(std::move(name)) {}
  ~ParallelZstdSource() override { stop_workers(); }
  ParallelZstdSource(const ParallelZstdSource&) = delete;
  ParallelZstdSource& operator=(const ParallelZstdSource&) = delete;

  size_t read(char* dst, size_t cap) override {
    for (;;) {
      if (rest_) return rest_->read(dst, cap);
      if (holding_) {
        Job& j = slots_[consumed_ % kSlots];
        if (pos_ < j.out_size) {
          const size_t n = std::min(cap, j.out_size - pos_);
          std::memcpy(dst, j.out.data() + pos_, n);
          pos_ += n;
          return n;
        }
        holding_ = false;
        std::lock_guard<std::mutex> lock(mu_);
        j.done = false;
        ++consumed_;
      }
      queue_frames();
      if (consumed_ == queued_) {  // every frame read: the end, or the rest streams
        if (!streaming_) return 0;
        stop_workers();
        rest_ = std::make_unique<AheadSource>(std::make_unique<ZstdSource>(
            std::make_unique<PrefixSource>(std::move(in_), in_pos_, std::move(inner_)), name_));
        continue;
      }
      Job& j = slots_[consumed_ % kSlots];
      {
        std::unique_lock<std::mutex> lock(mu_);
        done_cv_.wait(lock, [&] { return j.done; });
      }
      if (!j.error.empty()) throw Error(ErrorCode::kBadInput, j.error);
      holding_ = true;
      pos_ = 0;
    }
  }
  uint64_t raw_bytes_read() const noexcept override {
    return rest_ ? rest_->raw_bytes_read() : inner_->raw_bytes_read() - (in_.size() - in_pos_);
  }
  bool ready() const override {
    if (rest_) return rest_->ready();
    // A frame read waits for a decoder at most, not for the input's writer.
    return holding_ || consumed_ < queued_ || in_eof_ || inner_->ready();
  }
  void cancel_on(int fd) noexcept override {
    if (inner_) inner_->cancel_on(fd);
  }

 private:
  static constexpr size_t kSlots = 4;
  static constexpr unsigned kDecoders = 2;
  static constexpr uint64_t kMaxFrame = uint64_t{8} << 20;  // decompressed bytes
  static constexpr size_t kHeaderBytes = 18;                // ZSTD_FRAMEHEADERSIZE_MAX
  struct Job {
    std::vector<char> in;
    std::vector<char> out;
    size_t out_size = 0;
    uint64_t offset = 0;  // the frame's first compressed byte in the input
    std::string error;
    bool done = false;
  };

  // Reads more of the input behind the unread bytes: kMore, kEnd, or kLater when reading would
  // wait for the input's writer and `may_wait` is false.
  enum Read { kMore, kEnd, kLater };
  Read read_more(bool may_wait) {
    if (in_eof_) return kEnd;
    if (!may_wait && !inner_->ready()) return kLater;
    if (in_pos_ != 0) {
      in_.erase(in_.begin(), in_.begin() + static_cast<std::ptrdiff_t>(in_pos_));
      in_pos_ = 0;
    }
    const size_t have = in_.size();
    const size_t want = std::max<size_t>(have, size_t{1} << 20);
    in_.resize(have + want);
    const size_t r = inner_->read(in_.data() + have, want);
    in_.resize(have + r);
    if (r == 0) in_eof_ = true;
    return r != 0 ? kMore : kEnd;
  }

  // Reads whole frames into free slots and hands them to the decoders, until the slots are full,
  // the input ends, or a frame is for the streaming decoder (streaming_). While frames wait to be
  // read, it reads no input that is not there yet (a slow pipe's frames are handed out first).
  void queue_frames() {
    while (!streaming_ && queued_ - consumed_ < kSlots) {
      const bool may_wait = queued_ == consumed_;
      Read r = kMore;
      while (in_.size() - in_pos_ < kHeaderBytes && (r = read_more(may_wait)) == kMore) {
      }
      if (r == kLater) return;
      const size_t avail = in_.size() - in_pos_;
      if (avail == 0) return;  // the end, after a whole frame
      const char* p = in_.data() + in_pos_;
      const unsigned long long content = ZSTD_getFrameContentSize(p, avail);
      if (content == ZSTD_CONTENTSIZE_ERROR || content == ZSTD_CONTENTSIZE_UNKNOWN ||
          content > kMaxFrame) {
        streaming_ = true;
        return;
      }
      size_t frame = ZSTD_findFrameCompressedSize(in_.data() + in_pos_, in_.size() - in_pos_);
      while (ZSTD_isError(frame) && ZSTD_getErrorCode(frame) == ZSTD_error_srcSize_wrong &&
             in_.size() - in_pos_ <= ZSTD_compressBound(kMaxFrame)) {
        r = read_more(may_wait);
        if (r == kLater) return;
        if (r == kEnd) break;
        frame = ZSTD_findFrameCompressedSize(in_.data() + in_pos_, in_.size() - in_pos_);
      }
      if (ZSTD_isError(frame)) {  // damaged, too large or cut short: the streaming decoder says
        streaming_ = true;
        return;
      }
      // A lone frame (one whose end is the input's, or not known yet) streams, as a one-frame
      // file does: decoding it on another thread would gain nothing.
      if (queued_ == 0 && in_.size() - in_pos_ == frame && read_more(false) != kMore) {
        streaming_ = true;
        return;
      }
      start_workers();
      if (streaming_) return;  // no thread to be had
      Job& j = slots_[queued_ % kSlots];
      j.offset = inner_->raw_bytes_read() - (in_.size() - in_pos_);
      if (in_pos_ == 0) {
        // The frame starts the buffer: the buffer goes to the job, and only the bytes after the
        // frame are copied, into the job's old one.
        j.in.assign(in_.data() + frame, in_.data() + in_.size());
        std::swap(j.in, in_);
        j.in.resize(frame);
      } else {
        j.in.assign(in_.data() + in_pos_, in_.data() + in_pos_ + frame);
        in_pos_ += frame;
      }
      j.out.resize(static_cast<size_t>(content));
      j.error.clear();
      {
        std::lock_guard<std::mutex> lock(mu_);
        ++queued_;
      }
      work_cv_.notify_one();
    }
  }

  void decode(Job& j, ZSTD_DCtx* dctx) {
    const size_t r =
        ZSTD_decompressDCtx(dctx, j.out.data(), j.out.size(), j.in.data(), j.in.size());
    const std::string at = " (in the frame at compressed byte " + std::to_string(j.offset) + ")";
    if (ZSTD_isError(r)) {
      j.error = name_ + ": zstd: " + ZSTD_getErrorName(r) + at;
    } else if (r != j.out.size()) {
      j.error = name_ + ": zstd: the frame holds " + std::to_string(r) +
                " bytes, its header says " + std::to_string(j.out.size()) + at;
    }
    j.out_size = j.error.empty() ? r : 0;
  }

  void work_loop() {
    std::unique_ptr<ZSTD_DCtx, size_t (*)(ZSTD_DCtx*)> dctx(ZSTD_createDCtx(), ZSTD_freeDCtx);
    if (dctx) ZSTD_DCtx_setParameter(dctx.get(), ZSTD_d_windowLogMax, 27);
    for (;;) {
      uint64_t seq;
      {
        std::unique_lock<std::mutex> lock(mu_);
        work_cv_.wait(lock, [&] { return stop_ || taken_ < queued_; });
        if (stop_) return;
        seq = taken_++;
      }
      Job& j = slots_[seq % kSlots];
      if (dctx) {
        decode(j, dctx.get());
      } else {
        j.error = name_ + ": cannot create a zstd context";
        j.out_size = 0;
      }
      {
        std::lock_guard<std::mutex> lock(mu_);
        j.done = true;
      }
      done_cv_.notify_all();
    }
  }

  void start_workers() {
    if (!workers_.empty()) return;
    try {
      for (unsigned t = 0; t < kDecoders; ++t) {
        workers_.emplace_back([this] {
          detail::block_termination_signals();
          work_loop();
        });
      }
    } catch (const std::system_error&) {
      if (workers_.empty()) streaming_ = true;  // decode on the reading thread
    }
  }

  void stop_workers() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    work_cv_.notify_all();
    for (std::thread& t : workers_) t.join();
    workers_.clear();
  }

  std::unique_ptr<ByteSource> inner_;
  std::string name_;
  std::vector<char> in_;  // compressed bytes read; [in_pos_, end) not yet in a frame handed out
  size_t in_pos_ = 0;
  bool in_eof_ = false;
  bool streaming_ = false;            // the rest of the input goes to the streaming decoder
  std::unique_ptr<ByteSource> rest_;  // that decoder, once every frame before it is read
  Job slots_[kSlots];
  bool holding_ = false;  // reading frame consumed_'s output, at pos_
  size_t pos_ = 0;
  std::mutex mu_;
  std::condition_variable work_cv_, done_cv_;
  uint64_t queued_ = 0, taken_ = 0, consumed_ = 0;
  bool stop_ = false;
  std::vector<std::thread> workers_;
};

uint64_t load_le64(std::string_view b, size_t at) noexcept {
  uint64_t v = 0;
  for (size_t i = 0; i < 8; ++i) v |= uint64_t{static_cast<unsigned char>(b[at + i])} << (8 * i);
  return v;
}

// A DCSO bloom v1 header (flags, n, p, k, m, N; little-endian): version 1 in the low byte of the
// flags, p in (0, 1), k and m within what DCSO's reader takes, and the words m needs within the
// size when it is known.
bool dcso_header(std::string_view h, std::optional<uint64_t> size) noexcept {
  if (h.size() < 48 || h[0] != 1) return false;
  const double p = std::bit_cast<double>(load_le64(h, 16));
  const uint64_t k = load_le64(h, 24), m = load_le64(h, 32);
  if (!(p > 0.0 && p < 1.0) || k == 0 || k > 4096 || m == 0 || m > (uint64_t{1} << 53))
    return false;
  return !size || *size >= 48 + (m + 63) / 64 * 8;
}

// A Guava writeTo header (strategy ordinal 0 or 1, k, big-endian word count) whose words fill
// exactly the rest of a file of `size` bytes.
bool guava_header(std::string_view h, uint64_t size) noexcept {
  if (h.size() < 6 || (h[0] != 0 && h[0] != 1) || h[1] == 0) return false;
  uint32_t words = 0;
  for (size_t i = 2; i < 6; ++i) words = words << 8 | static_cast<unsigned char>(h[i]);
  return words != 0 && words <= INT32_MAX && size == 6 + uint64_t{words} * 8;
}

const char* kind_name(InputKind kind) noexcept {
  switch (kind) {
    case InputKind::kZstd:
      return "zstd";
    case InputKind::kGzip:
      return "gzip";
    case InputKind::kXz:
      return "xz";
    case InputKind::kBzip2:
      return "bzip2";
    case InputKind::kLz4:
      return "lz4";
    case InputKind::kBloomtool:
      return "bloomtool";
    case InputKind::kDcso:
      return "DCSO bloom";
    case InputKind::kGuava:
      return "Guava BloomFilter";
    case InputKind::kText:
      break;
  }
  return "text";
}

bool is_filter(InputKind k) noexcept {
  return k == InputKind::kBloomtool || k == InputKind::kDcso || k == InputKind::kGuava;
}

// Reads as much of the head as classifying it takes.
InputKind sniff(PeekSource& s, std::optional<uint64_t> size) {
  for (;;) {
    const Sniffed r = classify_input_head(s.head(), size);
    if (!r.need_more) return r.kind;
    if (!s.read_more(kSniffBytes)) return classify_input_head(s.head(), s.head().size()).kind;
  }
}

[[noreturn]] void refuse(const std::string& name, InputKind kind, InputKind outer) {
  const std::string inside =
      outer == InputKind::kText ? "" : std::string(" (") + kind_name(outer) + "-compressed)";
  if (is_filter(kind)) {
    throw FilterAsKeysError(
        name, kind_name(kind),
        name + ": is a " + kind_name(kind) + " filter file" + inside +
            (kind == InputKind::kGuava ? " (its header matches its size)" : "") + ", not keys");
  }
  if (outer != InputKind::kText) {
    throw Error(ErrorCode::kBadInput, name + ": " + kind_name(kind) + "-compressed data inside " +
                                          kind_name(outer) +
                                          " compression; decompress it before reading keys");
  }
  const char* tool = kind == InputKind::kXz      ? "xz -dc"
                     : kind == InputKind::kBzip2 ? "bzip2 -dc"
                                                 : "lz4 -dc";
  throw Error(ErrorCode::kBadInput, name + ": " + kind_name(kind) +
                                        "-compressed, which bloomtool does not read (it reads zstd "
                                        "and gzip); decompress it first with '" +
                                        tool + "'");
}

// The source that yields the keys of `raw`: decompressed, or refused, as its first bytes say.
std::unique_ptr<ByteSource> open_classified(std::unique_ptr<ByteSource> raw,
                                            std::optional<uint64_t> size, const std::string& name,
                                            unsigned threads) {
  const bool ahead = threads > 1;
  auto head = std::make_unique<PeekSource>(std::move(raw));
  const InputKind kind = sniff(*head, size);
  if (kind == InputKind::kText) return head;
  if (kind != InputKind::kZstd && kind != InputKind::kGzip) refuse(name, kind, InputKind::kText);
  std::unique_ptr<ByteSource> plain;
  if (kind == InputKind::kZstd && threads >= kParallelFrameThreads) {
    // Frames of known size decompress on threads of their own; one large frame streams ahead.
    plain = std::make_unique<ParallelZstdSource>(std::move(head), name);
  } else {
    if (kind == InputKind::kZstd) {
      plain = std::make_unique<ZstdSource>(std::move(head), name);
    } else {
      plain = std::make_unique<GzipSource>(std::move(head), name);
    }
    if (ahead) plain = std::make_unique<AheadSource>(std::move(plain));
  }
  auto inner = std::make_unique<PeekSource>(std::move(plain));
  const InputKind inside = sniff(*inner, std::nullopt);
  if (inside != InputKind::kText) refuse(name, inside, kind);
  return inner;
}

}  // namespace

Sniffed classify_input_head(std::string_view head, std::optional<uint64_t> size) noexcept {
  struct Magic {
    std::string_view bytes;
    InputKind kind;
  };
  static constexpr Magic kMagics[] = {
      {{"\x1F\x8B", 2}, InputKind::kGzip},
      {{"\x28\xB5\x2F\xFD", 4}, InputKind::kZstd},
      {{"\xFD"
        "7zXZ\0",
        6},
       InputKind::kXz},
      {{"\x04\x22\x4D\x18", 4}, InputKind::kLz4},  // frame format
      {{"\x02\x21\x4C\x18", 4}, InputKind::kLz4},  // legacy format
      {{"\x89"
        "BLM\r\n\x1A\n",
        8},
       InputKind::kBloomtool},
      // bzip2: "BZh", the block size digit, then a block's or the end's magic.
      {{"BZh?1AY&SY", 10}, InputKind::kBzip2},
      {{"BZh?\x17\x72\x45\x38\x50\x90", 10}, InputKind::kBzip2},
  };
  bool need_more = false;
  for (const Magic& m : kMagics) {
    const size_t n = std::min(head.size(), m.bytes.size());
    bool same = true;
    for (size_t i = 0; i < n && same; ++i) {
      same = m.bytes[i] == '?' && m.kind == InputKind::kBzip2 ? head[i] >= '1' && head[i] <= '9'
                                                              : head[i] == m.bytes[i];
    }
    if (!same) continue;
    if (n == m.bytes.size()) return {m.kind, false};
    need_more = true;
  }
  if (!head.empty() && head[0] == 1) {
    if (dcso_header(head, size)) return {InputKind::kDcso, false};
    if (head.size() < 48 && (!size || *size >= 48)) need_more = true;
  }
  if (size && !head.empty() && (head[0] == 0 || head[0] == 1)) {
    if (guava_header(head, *size)) return {InputKind::kGuava, false};
    if (head.size() < 6) need_more = true;
  }
  return {InputKind::kText, need_more && head.size() < kSniffBytes};
}

std::unique_ptr<ByteSource> open_memory_source(std::string_view bytes, const std::string& name) {
  return open_classified(std::make_unique<MemorySource>(bytes), bytes.size(), name, 1);
}

std::unique_ptr<ByteSource> open_range_source(const std::string& path, const std::string& name,
                                              uint64_t begin, uint64_t end) {
  return std::make_unique<RangeSource>(path, name, begin, end);
}

bool starts_with_zstd_magic(std::string_view head) noexcept {
  return head.size() >= 4 && std::memcmp(head.data(), kZstdMagic, 4) == 0;
}

std::unique_ptr<ByteSource> open_byte_source(const std::string& path, const std::string& name,
                                             unsigned stream_threads) {
  auto fd = std::make_unique<FdSource>(path, name);
  const std::optional<uint64_t> size = fd->size();
  return open_classified(std::move(fd), size, name, stream_threads);
}

}  // namespace bloomtool
