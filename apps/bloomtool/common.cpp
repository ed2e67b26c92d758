// Shared CLI plumbing: standard descriptors and diagnostics on stderr.
#include "common.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "base/unique_fd.h"

namespace bloomtool::cli {

void guard_standard_fds() noexcept {
  for (int fd = 0; fd <= 2; ++fd) {
    if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    // stdin: reads fail; stdout: writes of results fail; stderr: diagnostics are discarded.
    UniqueFd got(::open("/dev/null", fd == 1 ? O_RDONLY : O_WRONLY));
    if (got.get() == fd) {
      got.release();  // it took the free number itself: keep it open
    } else if (got) {
      ::dup2(got.get(), fd);
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
