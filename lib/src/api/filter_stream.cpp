// Filter files that arrive through a pipe (`build -o - | bloomtool stats -`): a stream cannot be
// mapped or read twice, so it is read into memory, and then checked by the same parse_filter_file
// as a file. The header is read first and verified on its own, so a corrupt or unsupported stream
// fails before its payload is read; the size the header declares only caps the reading, and the
// buffer grows with the bytes that actually arrive, so a header that lies about its payload costs
// no more memory than the bytes sent.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <utility>
#include <vector>

#include "bloomtool/error.h"
#include "format/filter_file.h"
#include "api/load_filter.h"
#include "model/model.h"
#include "base/byte_order.h"

namespace bloomtool {

namespace {

// Magic, version and header length, and enough more to tell a peer's file by its header (48
// bytes: DCSO's) when the magic is not bloomtool's; no bloomtool header is shorter.
constexpr size_t kFirstRead = 48;
constexpr uint64_t kGrowFrom = uint64_t{1} << 16;
// No valid filter file is longer: the largest payload plus room for headers and checksum tables.
constexpr uint64_t kMaxStreamBytes = model::kMaxBits / 8 + (uint64_t{64} << 20);

// The bytes read so far; `bytes` may hold more room than `size` (grown in doublings).
struct Image {
  std::vector<uint8_t> bytes;
  uint64_t size = 0;
  std::span<const uint8_t> view() const { return {bytes.data(), static_cast<size_t>(size)}; }
};

// Reads at most `cap` bytes into `dst`; 0 at the end of the stream.
size_t read_fd(int fd, uint8_t* dst, size_t cap, const std::string& name) {
  for (;;) {
    const ssize_t r = ::read(fd, dst, cap);
    if (r >= 0) return static_cast<size_t>(r);
    if (errno == EINTR) continue;
    if (errno == EISDIR) throw Error(ErrorCode::kIOError, name + ": is a directory");
    if (errno == EBADF && fd == STDIN_FILENO)
      throw Error(ErrorCode::kIOError, name + ": standard input is closed");
    throw_io_error(name, errno);
  }
}

// Reads until the image holds `upto` bytes or the stream ends. Room doubles only once the bytes
// already read fill it.
void read_until(int fd, Image& image, uint64_t upto, const std::string& name) {
  while (image.size < upto) {
    if (image.size == image.bytes.size()) {
      const uint64_t grown = std::max<uint64_t>(kGrowFrom, 2 * image.size);
      image.bytes.resize(static_cast<size_t>(std::min(upto, grown)));
    }
    const uint64_t room = std::min<uint64_t>(upto, image.bytes.size()) - image.size;
    const size_t got =
        read_fd(fd, image.bytes.data() + image.size, static_cast<size_t>(room), name);
    if (got == 0) return;
    image.size += got;
  }
}

// Reads and counts what follows the payload, without keeping it, up to kMaxRest bytes (an
// endless stream after a valid file must not hang the reader).
constexpr uint64_t kMaxRest = uint64_t{1} << 20;
uint64_t count_rest(int fd, const std::string& name) {
  uint8_t sink[1 << 16];
  uint64_t n = 0;
  while (n <= kMaxRest) {
    const size_t got = read_fd(fd, sink, sizeof sink, name);
    if (got == 0) break;
    n += got;
  }
  return n;
}

}  // namespace

std::vector<uint8_t> read_filter_stream_image(int fd, const std::string& name) {
  Image image;
  read_until(fd, image, kFirstRead, name);
  const uint64_t header_bytes =
      image.size >= kFirstRead ? le::load<uint32_t>(image.bytes.data() + 12) : 0;
  if (header_bytes > kFirstRead && header_bytes <= kMaxHeaderBytes) {
    read_until(fd, image, header_bytes, name);
  }
  // The smallest header: the fixed fields and the checksum (the fields read below lie in it).
  constexpr uint64_t kMinHeader = kFixedHeaderBytes + 8;
  if (image.size < header_bytes || header_bytes < kMinHeader || header_bytes > kMaxHeaderBytes) {
    // Cut short or out of range: the checks that every file gets say which, and how.
    parse_filter_header(image.view(), image.size, name);
    throw Error(ErrorCode::kCorrupt, name + ": corrupt: header length " +
                                         std::to_string(header_bytes) + " is out of range");
  }

  // The header is whole: verify it (checksum, version, fields, limits) before reading the payload
  // it declares, as if the file were exactly as long as it says.
  const uint64_t declared = le::load<uint64_t>(image.bytes.data() + 96);
  const uint64_t claimed = header_bytes + std::min(declared, kMaxStreamBytes);
  if (declared <= kMaxStreamBytes) {
    const FilterHeader h = parse_filter_header(image.view(), claimed, name);
    // What the stream would take in memory, against the machine, before any of it is read.
    check_payload_fits_memory(h, name);
    if (h.payload_stored_bytes > h.payload_raw_bytes + (uint64_t{64} << 20)) {
      FilterHeader stored = h;
      stored.payload_raw_bytes = h.payload_stored_bytes;
      check_payload_fits_memory(stored, name);
    }
  }

  read_until(fd, image, claimed, name);
  const uint64_t rest = image.size == claimed ? count_rest(fd, name) : 0;
  if (declared > kMaxStreamBytes && image.size == claimed && rest != 0) {
    throw Error(ErrorCode::kLimitExceeded, name + ": input larger than any valid filter file");
  }
  // Cut short, or too long: the file reader's checks and messages, with the length that arrived.
  if (image.size < claimed || declared > kMaxStreamBytes)
    parse_filter_header(image.view(), image.size, name);
  if (rest != 0) {
    throw Error(ErrorCode::kCorrupt, name + ": corrupt: " +
                                         (rest > kMaxRest ? "more than " + std::to_string(kMaxRest)
                                                          : std::to_string(rest)) +
                                         " bytes after the payload");
  }
  image.bytes.resize(static_cast<size_t>(image.size));
  return std::move(image.bytes);
}

FilterFileContents read_filter_stream(int fd, const std::string& name) {
  const std::vector<uint8_t> image = read_filter_stream_image(fd, name);
  return parse_filter_file(image, name);
}

LoadedFilter load_filter_from_fd(int fd, const std::string& name) {
  return make_filter(read_filter_stream(fd, name), name);
}

}  // namespace bloomtool
