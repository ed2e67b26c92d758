// Buffered stdout with quiet EPIPE (see stdout_writer.h).
#include "stdout_writer.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "bloomtool/error.h"

namespace bloomtool::cli {

namespace {

[[noreturn]] void throw_stdout_error(int e) {
  if (e == EPIPE) throw BrokenPipe{};
  if (e == EBADF) throw Error(ErrorCode::kIOError, "<stdout>: standard output is closed");
  throw_io_error("<stdout>", e);
}

}  // namespace

// Large writes: output to a pipe moves in megabytes, one system call each.
StdoutWriter::StdoutWriter() : buf_(size_t{1} << 20) {}

StdoutWriter::~StdoutWriter() {
  try {
    flush();
  } catch (...) {
  }
}

void StdoutWriter::write(std::string_view s) {
  if (s.size() > buf_.size() - used_) {
    flush();
    if (s.size() >= buf_.size()) {
      const char* p = s.data();
      size_t left = s.size();
      while (left != 0) {
        const ssize_t w = ::write(STDOUT_FILENO, p, left);
        if (w < 0) {
          if (errno == EINTR) continue;
          throw_stdout_error(errno);
        }
        p += w;
        left -= static_cast<size_t>(w);
      }
      return;
    }
  }
  std::memcpy(buf_.data() + used_, s.data(), s.size());
  used_ += s.size();
}

void StdoutWriter::flush() {
  size_t done = 0;
  while (done < used_) {
    const ssize_t w = ::write(STDOUT_FILENO, buf_.data() + done, used_ - done);
    if (w < 0) {
      if (errno == EINTR) continue;
      used_ = 0;
      throw_stdout_error(errno);
    }
    done += static_cast<size_t>(w);
  }
  used_ = 0;
}

}  // namespace bloomtool::cli
