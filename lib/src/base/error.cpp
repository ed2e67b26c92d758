// Names of error codes and the helper that turns errno into an IOError.
#include "bloomtool/error.h"

#include <cstring>

namespace bloomtool {

const char* error_code_name(ErrorCode code) noexcept {
  switch (code) {
    case ErrorCode::kInvalidArgument:
      return "invalid argument";
    case ErrorCode::kBadInput:
      return "bad input";
    case ErrorCode::kCorrupt:
      return "corrupt";
    case ErrorCode::kUnsupported:
      return "unsupported";
    case ErrorCode::kIOError:
      return "i/o error";
    case ErrorCode::kLimitExceeded:
      return "limit exceeded";
    case ErrorCode::kUntrusted:
      return "untrusted";
  }
  return "error";
}

void throw_io_error(const std::string& what, int errno_value) {
  throw Error(ErrorCode::kIOError, what + ": " + std::strerror(errno_value));
}

}  // namespace bloomtool
