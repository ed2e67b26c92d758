#include "interop/interop_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>

#include "base/unique_fd.h"
#include "format/atomic_file.h"
#include "bloomtool/error.h"

namespace bloomtool::interop_io {

namespace {

[[noreturn]] void too_big(const std::string& path, uint64_t max_bytes) {
  throw Error(ErrorCode::kLimitExceeded,
              path + ": file exceeds the limit of " + std::to_string(max_bytes) + " bytes");
}

}  // namespace

std::vector<uint8_t> read_file(const std::string& path, uint64_t max_bytes) {
  // "-" is standard input (named <stdin> in messages, as every filter reader names it).
  const bool is_stdin = path == "-";
  const std::string name = is_stdin ? "<stdin>" : path;
  const UniqueFd fd(is_stdin ? ::dup(STDIN_FILENO) : ::open(path.c_str(), O_RDONLY | O_CLOEXEC));
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

namespace {
constexpr size_t kRawBuffer = size_t{1} << 16;
}  // namespace

InputStream::InputStream(const std::string& path, const std::string& name) : name_(name) {
  const bool is_stdin = path == "-";
  if (!is_stdin) owned_.reset(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  fd_ = is_stdin ? STDIN_FILENO : owned_.get();
  if (fd_ < 0) throw_io_error(name_, errno);
  struct stat st {};
  if (::fstat(fd_, &st) != 0) {
    const int e = errno;
    if (e == EBADF && is_stdin)
      throw Error(ErrorCode::kIOError, name_ + ": standard input is closed");
    throw_io_error(name_, e);
  }
  if (S_ISDIR(st.st_mode)) throw_io_error(name_, EISDIR);
  if (S_ISREG(st.st_mode) && !is_stdin) {
    file_size_ = static_cast<uint64_t>(st.st_size);
    posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
  }
  store_.resize(kRawBuffer);
  raw_ = store_.data();
}

InputStream::InputStream(std::span<const uint8_t> bytes, const std::string& name)
    : name_(name), eof_(true), file_size_(bytes.size()) {
  raw_ = bytes.data();
  raw_len_ = bytes.size();
  raw_total_ = bytes.size();
}

InputStream::~InputStream() {
  if (zs_ != nullptr) {
    inflateEnd(static_cast<z_stream*>(zs_));
    delete static_cast<z_stream*>(zs_);
  }
}

bool InputStream::ensure_raw(size_t n) {
  while (raw_len_ - raw_pos_ < n && !eof_) {
    if (raw_pos_ != 0) {  // keep the unconsumed bytes at the front
      std::memmove(store_.data(), store_.data() + raw_pos_, raw_len_ - raw_pos_);
      raw_len_ -= raw_pos_;
      raw_pos_ = 0;
    }
    const ssize_t got = ::read(fd_, store_.data() + raw_len_, store_.size() - raw_len_);
    if (got < 0) {
      if (errno == EINTR) continue;
      if (errno == EISDIR) throw Error(ErrorCode::kIOError, name_ + ": is a directory");
      throw_io_error(name_, errno);
    }
    if (got == 0) {
      eof_ = true;
      break;
    }
    raw_len_ += static_cast<size_t>(got);
    raw_total_ += static_cast<uint64_t>(got);
  }
  return raw_len_ - raw_pos_ >= n;
}

std::span<const uint8_t> InputStream::peek_raw(size_t n) {
  ensure_raw(std::min(n, kRawBuffer));
  return {raw_ + raw_pos_, std::min(n, raw_len_ - raw_pos_)};
}

void InputStream::start_gzip() {
  auto* zs = new z_stream{};
  if (inflateInit2(zs, 16 + MAX_WBITS) != Z_OK) {
    delete zs;
    throw Error(ErrorCode::kLimitExceeded, name_ + ": cannot initialise zlib");
  }
  zs_ = zs;
  gzip_ = true;
  member_start_ = raw_offset();
}

size_t InputStream::read(uint8_t* dst, size_t n) {
  if (gzip_) return read_gzip(dst, n);
  size_t got = 0;
  while (got < n && ensure_raw(1)) {
    const size_t take = std::min(n - got, raw_len_ - raw_pos_);
    std::memcpy(dst + got, raw_ + raw_pos_, take);
    raw_pos_ += take;
    got += take;
  }
  return got;
}

size_t InputStream::read_gzip(uint8_t* dst, size_t n) {
  auto* zs = static_cast<z_stream*>(zs_);
  size_t got = 0;
  while (got < n) {
    if (member_done_) {
      if (!ensure_raw(1)) return got;  // the last member ended with the file
      ensure_raw(2);
      if (raw_len_ - raw_pos_ < 2 || raw_[raw_pos_] != 0x1f || raw_[raw_pos_ + 1] != 0x8b) {
        throw Error(ErrorCode::kCorrupt, name_ + ": gzip: invalid header at offset " +
                                             std::to_string(raw_offset()) +
                                             " (after a complete member)");
      }
      if (inflateReset(zs) != Z_OK)
        throw Error(ErrorCode::kCorrupt, name_ + ": gzip: cannot reset the decoder");
      member_start_ = raw_offset();
      member_done_ = false;
    }
    if (!ensure_raw(1)) {
      throw Error(ErrorCode::kCorrupt, name_ + ": gzip: truncated: the member starting at offset " +
                                           std::to_string(member_start_) + " ends at offset " +
                                           std::to_string(raw_offset()) + " before its trailer");
    }
    const size_t in_avail = raw_len_ - raw_pos_;
    const size_t room = std::min<size_t>(n - got, UINT_MAX);
    zs->next_in = const_cast<Bytef*>(raw_ + raw_pos_);
    zs->avail_in = static_cast<uInt>(std::min<size_t>(in_avail, UINT_MAX));
    const uInt in_before = zs->avail_in;
    zs->next_out = dst + got;
    zs->avail_out = static_cast<uInt>(room);
    const int rc = inflate(zs, Z_NO_FLUSH);
    raw_pos_ += in_before - zs->avail_in;
    got += room - zs->avail_out;
    if (rc == Z_STREAM_END) {
      member_done_ = true;
    } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
      throw Error(ErrorCode::kCorrupt, name_ + ": gzip: " + (zs->msg ? zs->msg : "damaged data") +
                                           " in the member starting at offset " +
                                           std::to_string(member_start_) + ", near offset " +
                                           std::to_string(raw_offset()));
    }
  }
  return got;
}

uint64_t InputStream::skip(uint64_t limit) {
  uint8_t sink[1 << 14];
  uint64_t n = 0;
  while (n <= limit) {
    const size_t got =
        read(sink, static_cast<size_t>(std::min<uint64_t>(sizeof sink, limit + 1 - n)));
    if (got == 0) break;
    n += got;
  }
  return n;
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
