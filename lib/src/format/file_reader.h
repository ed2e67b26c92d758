// Reading filter files with read() and pread() into memory the reader owns. Nothing is mapped: a
// file truncated under a mapping kills the reader with SIGBUS, while a short read is an error the
// reader reports (docs/RELIABILITY.md).
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "base/unique_fd.h"
#include "bloomtool/error.h"
#include "format/filter_file.h"
#include "model/model.h"

namespace bloomtool {

// An open file (regular, pipe or device). Owns its descriptor: movable, not copyable.
class ReadFile {
 public:
  explicit ReadFile(const std::string& path)
      : path_(path), fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {
    if (!fd_) throw_io_error(path, errno);
    struct stat st;
    if (fstat(fd_.get(), &st) != 0) throw_io_error(path, errno);
    if (S_ISDIR(st.st_mode)) throw_io_error(path, EISDIR);
    regular_ = S_ISREG(st.st_mode);
    size_ = regular_ ? static_cast<uint64_t>(st.st_size) : 0;
  }
  ReadFile(ReadFile&&) noexcept = default;
  int fd() const noexcept { return fd_.get(); }
  bool regular() const noexcept { return regular_; }
  // The size fstat gave at open (0 for a pipe or device).
  uint64_t size() const noexcept { return size_; }
  const std::string& path() const noexcept { return path_; }
  // Takes the descriptor.
  UniqueFd release() noexcept { return std::move(fd_); }

  // Reads up to n bytes at `offset` into dst; returns how many were there (fewer at end of file).
  uint64_t pread_some(uint8_t* dst, uint64_t n, uint64_t offset) const {
    return pread_fd(fd_.get(), dst, n, offset, path_);
  }
  static uint64_t pread_fd(int fd, uint8_t* dst, uint64_t n, uint64_t offset,
                           const std::string& path) {
    uint64_t done = 0;
    while (done < n) {
      const ssize_t r =
          ::pread(fd, dst + done, static_cast<size_t>(n - done), static_cast<off_t>(offset + done));
      if (r < 0) {
        if (errno == EINTR) continue;
        throw_io_error(path, errno);
      }
      if (r == 0) break;
      done += static_cast<uint64_t>(r);
    }
    return done;
  }
  // Reads n bytes at `offset`; a file that ends first is kCorrupt "<path>: truncated: ...".
  void pread_exact(uint8_t* dst, uint64_t n, uint64_t offset) const {
    const uint64_t got = pread_some(dst, n, offset);
    if (got != n) {
      throw Error(ErrorCode::kCorrupt,
                  path_ + ": truncated: file ends at byte " + std::to_string(offset + got) +
                      " while bytes " + std::to_string(offset) + " to " +
                      std::to_string(offset + n) + " were read (it changed while open)");
    }
  }
  // The whole file from the current position. A regular file is read with read() until end of
  // file (one that grew or shrank since open is read as it is now), bounded by the largest file a
  // reader accepts; a pipe or device is read header first, checked, and then only as far as the
  // header declares (read_filter_stream_image), so /dev/zero or an endless FIFO fails at once.
  std::vector<uint8_t> read_all() const {
    if (!regular_) return read_filter_stream_image(fd_.get(), path_);
    const uint64_t limit = model::kMaxBits / 8 + kMaxHeaderBytes + (1u << 20);
    std::vector<uint8_t> out;
    out.reserve(static_cast<size_t>(std::min(size_, limit)));
    uint8_t chunk[1 << 16];
    for (;;) {
      const ssize_t r = ::read(fd_.get(), chunk, sizeof chunk);
      if (r < 0) {
        if (errno == EINTR) continue;
        throw_io_error(path_, errno);
      }
      if (r == 0) break;
      if (out.size() + static_cast<size_t>(r) > limit)
        throw Error(ErrorCode::kLimitExceeded, path_ + ": input larger than any valid filter file");
      out.insert(out.end(), chunk, chunk + r);
    }
    return out;
  }

 private:
  std::string path_;
  UniqueFd fd_;
  bool regular_ = false;
  uint64_t size_ = 0;
};

}  // namespace bloomtool
