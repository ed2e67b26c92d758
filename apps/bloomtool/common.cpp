// Shared CLI plumbing: standard descriptors and diagnostics on stderr.
#include "common.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

namespace bloomtool::cli {

void guard_standard_fds() noexcept {
  for (int fd = 0; fd <= 2; ++fd) {
    if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    // stdin: reads fail; stdout: writes of results fail; stderr: diagnostics are discarded.
    const int got = ::open("/dev/null", fd == 1 ? O_RDONLY : O_WRONLY);
    if (got >= 0 && got != fd) {
      ::dup2(got, fd);
      ::close(got);
    }
  }
}

void warn(std::string_view message) noexcept {
  try {
    fmt::print(stderr, "bloomtool: {}\n", message);
  } catch (...) {  // stderr unwritable: nowhere left to report it
  }
}

}  // namespace bloomtool::cli
