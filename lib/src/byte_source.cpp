// File-descriptor and zstd byte sources. zstd input is recognised by its frame magic
// (28 B5 2F FD), whatever the file is called; concatenated frames are read in order, and a stream
// that ends inside a frame is reported as truncated instead of being read as a short input.
#include "byte_source.h"

#include <fcntl.h>
#include <unistd.h>
#include <zstd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "bloomtool/error.h"

namespace bloomtool {

namespace {

constexpr unsigned char kZstdMagic[4] = {0x28, 0xB5, 0x2F, 0xFD};

class FdSource final : public ByteSource {
 public:
  FdSource(const std::string& path, std::string name) : name_(std::move(name)) {
    if (path == "-") {
      fd_ = STDIN_FILENO;
      owns_ = false;
    } else {
      fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd_ < 0) throw_io_error(name_, errno);
      posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
    }
  }
  ~FdSource() override {
    if (owns_) ::close(fd_);
  }
  size_t read(char* dst, size_t cap) override {
    if (pushback_pos_ < pushback_.size()) {
      const size_t n = std::min(cap, pushback_.size() - pushback_pos_);
      std::memcpy(dst, pushback_.data() + pushback_pos_, n);
      pushback_pos_ += n;
      return n;
    }
    return read_fd(dst, cap);
  }
  uint64_t raw_bytes_read() const noexcept override { return total_; }
  // Reads up to n bytes and keeps them to be returned again by read().
  std::string_view peek(size_t n) {
    pushback_.resize(n);
    size_t have = 0;
    while (have < n) {
      const size_t r = read_fd(pushback_.data() + have, n - have);
      if (r == 0) break;
      have += r;
    }
    pushback_.resize(have);
    pushback_pos_ = 0;
    return {pushback_.data(), have};
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
  std::string name_;
  int fd_ = -1;
  bool owns_ = true;
  uint64_t total_ = 0;
  std::vector<char> pushback_;
  size_t pushback_pos_ = 0;
};

// Bytes [begin, end) of a regular file, read with pread: one of the ranges that threads read in
// parallel (plan_line_ranges). A file that shrinks under it ends the range early.
class RangeSource final : public ByteSource {
 public:
  RangeSource(const std::string& path, std::string name, uint64_t begin, uint64_t end)
      : name_(std::move(name)), pos_(begin), end_(end) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) throw_io_error(name_, errno);
    posix_fadvise(fd_, static_cast<off_t>(begin), static_cast<off_t>(end - begin),
                  POSIX_FADV_SEQUENTIAL);
  }
  ~RangeSource() override { ::close(fd_); }
  size_t read(char* dst, size_t cap) override {
    const size_t want = static_cast<size_t>(std::min<uint64_t>(cap, end_ - pos_));
    if (want == 0) return 0;
    for (;;) {
      const ssize_t r = ::pread(fd_, dst, want, static_cast<off_t>(pos_));
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
  int fd_ = -1;
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

 private:
  std::unique_ptr<ByteSource> inner_;
  std::string name_;
  std::vector<char> in_buf_;
  ZSTD_inBuffer in_{nullptr, 0, 0};
  std::unique_ptr<ZSTD_DCtx, size_t (*)(ZSTD_DCtx*)> dctx_;
  bool inner_eof_ = false;
  bool frame_complete_ = true;
};

}  // namespace

std::unique_ptr<ByteSource> open_memory_source(std::string_view bytes, const std::string& name) {
  auto mem = std::make_unique<MemorySource>(bytes);
  if (bytes.size() >= 4 && std::memcmp(bytes.data(), kZstdMagic, 4) == 0) {
    return std::make_unique<ZstdSource>(std::move(mem), name);
  }
  return mem;
}

std::unique_ptr<ByteSource> open_range_source(const std::string& path, const std::string& name,
                                              uint64_t begin, uint64_t end) {
  return std::make_unique<RangeSource>(path, name, begin, end);
}

bool starts_with_zstd_magic(std::string_view head) noexcept {
  return head.size() >= 4 && std::memcmp(head.data(), kZstdMagic, 4) == 0;
}

std::unique_ptr<ByteSource> open_byte_source(const std::string& path, const std::string& name) {
  auto fd = std::make_unique<FdSource>(path, name);
  const std::string_view head = fd->peek(4);
  if (head.size() == 4 && std::memcmp(head.data(), kZstdMagic, 4) == 0) {
    return std::make_unique<ZstdSource>(std::move(fd), name);
  }
  return fd;
}

}  // namespace bloomtool
