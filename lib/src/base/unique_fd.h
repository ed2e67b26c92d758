// The one owner of a file descriptor in the library and the CLI: closes it when destroyed, moves,
// never copies. Every descriptor the code opens is held in one from the moment open() returns, so
// no path (an exception, an early return) can leak it, and no other code calls close().
#pragma once

#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <span>
#include <string>
#include <utility>

namespace bloomtool {

class UniqueFd {
 public:
  UniqueFd() noexcept = default;
  // Takes `fd` (which may be negative: then nothing is owned).
  explicit UniqueFd(int fd) noexcept : fd_(fd) {}
  ~UniqueFd() { reset(); }
  UniqueFd(UniqueFd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  UniqueFd& operator=(UniqueFd&& o) noexcept {
    if (this != &o) reset(std::exchange(o.fd_, -1));
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;

  int get() const noexcept { return fd_; }
  explicit operator bool() const noexcept { return fd_ >= 0; }
  // Gives the descriptor up without closing it.
  int release() noexcept { return std::exchange(fd_, -1); }
  // Closes the descriptor held (errors ignored: see close()) and takes `fd`.
  void reset(int fd = -1) noexcept {
    if (fd_ >= 0 && fd_ != fd) ::close(fd_);
    fd_ = fd;
  }
  // Closes the descriptor and reports close()'s error, for writers whose last write-back error
  // close() may return: 0, or the errno. The descriptor is gone either way (EINTR included: on
  // Linux close() has released it before it is interrupted).
  int close() noexcept {
    const int fd = std::exchange(fd_, -1);
    if (fd < 0) return 0;
    return ::close(fd) == 0 ? 0 : errno;
  }

 private:
  int fd_ = -1;
};

// Writes all bytes to a file descriptor, retrying on EINTR and short writes. Throws kIOError
// naming `what` (EPIPE included).
void write_all(int fd, std::span<const uint8_t> bytes, const std::string& what);

}  // namespace bloomtool
