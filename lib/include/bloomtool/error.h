// The single error type the library throws. The CLI maps every code to exit status 2 and prints
// the message as one line "bloomtool: <message>"; messages name the file and, where known, the
// line number or byte offset.
#pragma once

#include <stdexcept>
#include <string>

namespace bloomtool {

enum class ErrorCode {
  kInvalidArgument,  // a parameter out of range or inconsistent with others
  kBadInput,         // a key input that cannot be read as the chosen format
  kCorrupt,          // a filter file whose bytes fail a check (checksum, size, truncation)
  kUnsupported,      // a filter file from a newer major version or with an unknown feature
  kIOError,          // the operating system refused a read, write, rename, fsync
  kLimitExceeded,    // an input or file exceeds a configured or sane limit
  kUntrusted,        // a filter file that must be signed by a trusted key and is not, or was
                     // altered since it was signed
};

class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  ErrorCode code() const noexcept { return code_; }

 private:
  ErrorCode code_;
};

// A value the library refuses, named by the parameter it was given for (code kInvalidArgument):
// field() is the parameter's name in the library ("n", "p", "m", "k", "delimiter", "column",
// "field", "max_key_bytes"), reason() what is wrong; what() is "<field>: <reason>". Callers that
// know the parameter under another name (a command-line flag) report reason() under that name.
class FieldError : public Error {
 public:
  FieldError(std::string field, std::string reason)
      : Error(ErrorCode::kInvalidArgument, field + ": " + reason),
        field_(std::move(field)),
        reason_(std::move(reason)) {}
  const std::string& field() const noexcept { return field_; }
  const std::string& reason() const noexcept { return reason_; }

 private:
  std::string field_;
  std::string reason_;
};

// Returns a short lowercase name for the code ("corrupt", "unsupported", ...).
const char* error_code_name(ErrorCode code) noexcept;

// Throws kIOError with "<what>: <strerror(errno_value)>".
[[noreturn]] void throw_io_error(const std::string& what, int errno_value);

}  // namespace bloomtool
