// Shared CLI plumbing: input options, stdout buffering with quiet EPIPE, creation time, early
// checks of output paths.
#include "common.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include "bloomtool/error.h"
#include "bloomtool/units.h"

namespace bloomtool::cli {

void InputArgs::add_to(CLI::App& app, const char* inputs_help) {
  app.add_option("inputs", inputs, inputs_help)->type_name("INPUT");
  app.add_option(
         "--max-key-bytes", max_key_bytes,
         "Longest accepted key in bytes; a longer line is an error (default 1MiB, at most 1GiB)")
      ->type_name("SIZE");
}

InputOptions InputArgs::options() const {
  InputOptions o;
  const uint64_t bits = parse_size_bits(
      max_key_bytes.find_first_not_of("0123456789") == std::string::npos ? max_key_bytes + "B"
                                                                         : max_key_bytes,
      "--max-key-bytes");
  o.max_key_bytes = bits / 8;
  if (o.max_key_bytes == 0 || o.max_key_bytes > kMaxMaxKeyBytes) {
    throw Error(ErrorCode::kInvalidArgument, "--max-key-bytes: must be between 1 and 1GiB");
  }
  return o;
}

StdoutWriter::StdoutWriter() : buf_(1 << 18) {}

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
          if (errno == EPIPE) throw BrokenPipe{};
          throw_io_error("<stdout>", errno);
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
      if (errno == EPIPE) throw BrokenPipe{};
      throw_io_error("<stdout>", errno);
    }
    done += static_cast<size_t>(w);
  }
  used_ = 0;
}

void warn(std::string_view message) {
  fmt::print(stderr, "bloomtool: {}\n", message);
}

int64_t creation_time(const std::string& created_option) {
  if (!created_option.empty()) return parse_timestamp(created_option, "--created");
  if (const char* sde = std::getenv("SOURCE_DATE_EPOCH"); sde != nullptr && *sde != '\0') {
    return parse_timestamp(sde, "SOURCE_DATE_EPOCH");
  }
  return static_cast<int64_t>(std::time(nullptr));
}

void check_output_path(const std::string& path) {
  if (path == "-") return;
  if (path.empty()) throw Error(ErrorCode::kInvalidArgument, "-o: empty output path");
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) throw_io_error(path, EISDIR);
  const auto slash = path.rfind('/');
  const std::string dir =
      slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  if (::stat(dir.c_str(), &st) != 0) throw_io_error(path, errno);
  if (!S_ISDIR(st.st_mode)) throw_io_error(path, ENOTDIR);
  if (::access(dir.c_str(), W_OK) != 0) throw_io_error(path, errno);
}

}  // namespace bloomtool::cli
