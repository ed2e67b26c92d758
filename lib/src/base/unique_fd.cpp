// Writing through a descriptor (unique_fd.h).
#include "base/unique_fd.h"

#include "bloomtool/error.h"

namespace bloomtool {

void write_all(int fd, std::span<const uint8_t> bytes, const std::string& what) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t w = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (w < 0) {
      if (errno == EINTR) continue;
      throw_io_error(what, errno);
    }
    done += static_cast<size_t>(w);
  }
}

}  // namespace bloomtool
