#include "interop_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <climits>

#include "bloomtool/atomic_file.h"
#include "bloomtool/error.h"

namespace bloomtool::interop_io {

namespace {

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const noexcept { return fd_; }

 private:
  int fd_;
};

[[noreturn]] void too_big(const std::string& path, uint64_t max_bytes) {
  throw Error(ErrorCode::kLimitExceeded,
              path + ": file exceeds the limit of " + std::to_string(max_bytes) + " bytes");
}

}  // namespace

std::vector<uint8_t> read_file(const std::string& path, uint64_t max_bytes) {
  // "-" is standard input (named <stdin> in messages, as every filter reader names it).
  const bool is_stdin = path == "-";
  const std::string name = is_stdin ? "<stdin>" : path;
  Fd fd(is_stdin ? ::dup(STDIN_FILENO) : ::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) throw_io_error(name, errno);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) throw_io_error(name, errno);
  std::vector<uint8_t> out;
  if (S_ISREG(st.st_mode)) {
    if (static_cast<uint64_t>(st.st_size) > max_bytes) too_big(name, max_bytes);
    out.reserve(static_cast<size_t>(st.st_size));
  }
  uint8_t buf[1 << 16];
  for (;;) {
    const ssize_t got = ::read(fd.get(), buf, sizeof buf);
    if (got < 0) {
      if (errno == EINTR) continue;
      throw_io_error(name, errno);
    }
    if (got == 0) break;
    if (out.size() + static_cast<uint64_t>(got) > max_bytes) too_big(name, max_bytes);
    out.insert(out.end(), buf, buf + got);
  }
  return out;
}

void write_file_atomic(const std::string& path, std::span<const uint8_t> bytes) {
  AtomicFile file(path);
  file.write(bytes);
  file.commit();
}

bool looks_gzip(std::span<const uint8_t> bytes) noexcept {
  return bytes.size() >= 2 && bytes[0] == 0x1f && bytes[1] == 0x8b;
}

std::vector<uint8_t> gunzip(std::span<const uint8_t> in, const std::string& name,
                            uint64_t max_out) {
  z_stream zs{};
  if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) {
    throw Error(ErrorCode::kLimitExceeded, name + ": cannot initialise zlib");
  }
  struct Guard {
    z_stream* z;
    ~Guard() { inflateEnd(z); }
  } guard{&zs};

  std::vector<uint8_t> out;
  size_t pos = 0;  // compressed bytes consumed so far
  bool first_member = true;
  while (pos < in.size() || first_member) {
    if (!first_member && inflateReset(&zs) != Z_OK) {
      throw Error(ErrorCode::kCorrupt, name + ": gzip: cannot reset the decoder");
    }
    const size_t member_start = pos;
    if (in.size() - pos < 2 || in[pos] != 0x1f || in[pos + 1] != 0x8b) {
      throw Error(ErrorCode::kCorrupt, name + ": gzip: invalid header at offset " +
                                           std::to_string(member_start) +
                                           (first_member ? "" : " (after a complete member)"));
    }
    first_member = false;
    int rc = Z_OK;
    while (rc != Z_STREAM_END) {
      const size_t have = out.size();
      if (have >= max_out) {
        throw Error(ErrorCode::kLimitExceeded,
                    name + ": gzip: decompressed data exceeds the limit of " +
                        std::to_string(max_out) + " bytes");
      }
      // Doubling growth driven by the data actually produced, never by a size field.
      const size_t room = static_cast<size_t>(
          std::min<uint64_t>({std::max<uint64_t>(have, 1 << 16), max_out - have, UINT_MAX}));
      out.resize(have + room);
      const size_t in_avail = std::min<size_t>(in.size() - pos, UINT_MAX);
      zs.next_in = const_cast<Bytef*>(in.data() + pos);
      zs.avail_in = static_cast<uInt>(in_avail);
      zs.next_out = out.data() + have;
      zs.avail_out = static_cast<uInt>(room);
      rc = inflate(&zs, Z_NO_FLUSH);
      pos += in_avail - zs.avail_in;
      out.resize(have + (room - zs.avail_out));
      if (rc == Z_STREAM_END || rc == Z_OK) continue;
      if (rc == Z_BUF_ERROR && pos < in.size()) continue;  // needed more output room
      if (rc == Z_BUF_ERROR) {
        throw Error(ErrorCode::kCorrupt, name +
                                             ": gzip: truncated: the member starting at offset " +
                                             std::to_string(member_start) + " ends at offset " +
                                             std::to_string(pos) + " before its trailer");
      }
      throw Error(ErrorCode::kCorrupt, name + ": gzip: " + (zs.msg ? zs.msg : "damaged data") +
                                           " in the member starting at offset " +
                                           std::to_string(member_start) + ", near offset " +
                                           std::to_string(pos));
    }
  }
  return out;
}

std::vector<uint8_t> gzip(std::span<const uint8_t> in, int level) {
  z_stream zs{};
  if (deflateInit2(&zs, level, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    throw Error(ErrorCode::kInvalidArgument,
                "gzip: cannot initialise zlib at level " + std::to_string(level));
  }
  struct Guard {
    z_stream* z;
    ~Guard() { deflateEnd(z); }
  } guard{&zs};
  gz_header header{};
  header.os = 255;  // what Go writes ("unknown")
  deflateSetHeader(&zs, &header);

  std::vector<uint8_t> out;
  size_t pos = 0;
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    const size_t in_avail = std::min<size_t>(in.size() - pos, UINT_MAX);
    const int flush = pos + in_avail == in.size() ? Z_FINISH : Z_NO_FLUSH;
    zs.next_in = const_cast<Bytef*>(in.data() + pos);
    zs.avail_in = static_cast<uInt>(in_avail);
    do {
      const size_t have = out.size();
      const size_t room = 1 << 16;
      out.resize(have + room);
      zs.next_out = out.data() + have;
      zs.avail_out = static_cast<uInt>(room);
      rc = deflate(&zs, flush);
      out.resize(have + (room - zs.avail_out));
      if (rc == Z_STREAM_ERROR) throw Error(ErrorCode::kIOError, "gzip: zlib deflate failed");
    } while (zs.avail_out == 0);
    pos += in_avail - zs.avail_in;
  }
  return out;
}

}  // namespace bloomtool::interop_io
