// Shared by the fuzz targets: a check that stays on in release builds (the replay drivers are
// built with NDEBUG), a reader of fuzzer bytes, and the rule every library error must follow.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>

#include <fcntl.h>
#include <unistd.h>

#include "bloomtool/error.h"

#define FUZZ_CHECK(cond)                                                                 \
  do {                                                                                   \
    if (!(cond)) {                                                                       \
      std::fprintf(stderr, "%s:%d: FUZZ_CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      std::abort();                                                                      \
    }                                                                                    \
  } while (0)

namespace bloomtool::fuzz {

// The read end of a pipe that holds `bytes` and then ends, so that readers meet the input as they
// meet a FIFO or standard input (no length known in advance); -1 when the bytes do not fit in the
// pipe's buffer. The caller closes the descriptor.
inline int pipe_holding(std::span<const uint8_t> bytes) {
  int fds[2];
  if (::pipe(fds) != 0) return -1;
#ifdef F_SETPIPE_SZ
  ::fcntl(fds[1], F_SETPIPE_SZ, 1 << 20);
#endif
  size_t done = 0;
  ::fcntl(fds[1], F_SETFL, O_NONBLOCK);
  while (done < bytes.size()) {
    const ssize_t w = ::write(fds[1], bytes.data() + done, bytes.size() - done);
    if (w <= 0) break;
    done += static_cast<size_t>(w);
  }
  ::close(fds[1]);
  if (done < bytes.size()) {
    ::close(fds[0]);
    return -1;
  }
  return fds[0];
}

// Consumes fuzzer bytes from the front; reads past the end yield zeros.
class Bytes {
 public:
  Bytes(const uint8_t* data, size_t size) : p_(data), left_(size) {}
  uint8_t u8() {
    if (left_ == 0) return 0;
    --left_;
    return *p_++;
  }
  uint64_t u64(unsigned bytes) {
    uint64_t v = 0;
    for (unsigned i = 0; i < bytes; ++i) v |= uint64_t{u8()} << (8 * i);
    return v;
  }
  // Up to `max` bytes, ending early at a 0xFF byte (consumed, not included).
  std::string_view text(size_t max) {
    size_t n = 0;
    while (n < left_ && n < max && p_[n] != 0xFF) ++n;
    std::string_view s(reinterpret_cast<const char*>(p_), n);
    const size_t eat = n < left_ ? n + 1 : n;
    p_ += eat;
    left_ -= eat;
    return s;
  }
  std::string_view rest() const { return {reinterpret_cast<const char*>(p_), left_}; }

 private:
  const uint8_t* p_;
  size_t left_;
};

// A library error is acceptable only with one of the expected codes and a message that names the
// input it is about.
inline void check_error(const Error& e, const std::string& name,
                        std::initializer_list<ErrorCode> ok) {
  bool allowed = false;
  for (ErrorCode c : ok) allowed = allowed || e.code() == c;
  if (!allowed)
    std::fprintf(stderr, "unexpected error code %s: %s\n", error_code_name(e.code()), e.what());
  FUZZ_CHECK(allowed);
  FUZZ_CHECK(std::string_view(e.what()).substr(0, name.size()) == name);
}

}  // namespace bloomtool::fuzz
