// The filter file reader (format 1.x, docs/FORMAT.md). It trusts nothing: the header codec
// (file_header.h) checks magic, header length and header checksum before reading any field, and
// every declared size against the file length and sane limits; the payload checksum is checked
// before anything is decoded. A file is read with read() and pread() into memory the reader owns
// (file_reader.h); for_each_payload_chunk streams a payload a window at a time, for merge and
// stats. A stream (a pipe: `build -o - | bloomtool stats -`) cannot be read twice, so it is read
// into memory header first: a corrupt or unsupported stream fails before its payload is read, and
// the buffer grows with the bytes that actually arrive, so a header that lies about its payload
// costs no more memory than the bytes sent. A signature is checked over the very bytes that are
// then decoded (verify_file_signature).
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <utility>
#include <vector>

#include "base/byte_order.h"
#include "base/checksum.h"
#include "base/sodium_init.h"
#include "bloomtool/error.h"
#include "format/file_reader.h"
#include "format/filter_file.h"
#include "format/raw_payload.h"
#include "format/signature.h"
#include "format/zstd_payload.h"
#include "model/model.h"

namespace bloomtool {

namespace {

uint64_t physical_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return UINT64_MAX;
  return static_cast<uint64_t>(pages) * static_cast<uint64_t>(page);
}

// Unpacks the checksum-verified stored payload of `h` through the window [window, window +
// window_bytes), as decode_zstd_payload does (zstd_payload.h) for every codec. window_bytes is a
// positive multiple of 8, so every window but the last is full and all hold whole words
// (little-endian, as stored).
void unpack_payload(std::span<const uint8_t> stored, const FilterHeader& h, const std::string& path,
                    uint8_t* window, uint64_t window_bytes, const WindowSink& sink) {
  const uint64_t raw = h.payload_raw_bytes;
  if (h.codec != PayloadCodec::kZstd) {  // stored as is; codec 2 after its table and padding
    const uint64_t skip =
        h.codec == PayloadCodec::kRawChunked ? h.raw_payload_offset - h.header_bytes : 0;
    for (uint64_t at = 0; at < raw; at += window_bytes) {
      const uint64_t n = std::min(window_bytes, raw - at);
      std::memcpy(window, stored.data() + skip + at, n);
      sink(at, n, skip + at + n);
    }
    return;
  }
  decode_zstd_payload(stored, raw, path, window, window_bytes, sink);
}

// The first bytes of a file (up to kMaxHeaderBytes) and its length; a pipe or device is read
// whole (`whole` then holds it).
std::vector<uint8_t> read_head(const ReadFile& file, uint64_t& file_bytes,
                               std::vector<uint8_t>* whole = nullptr) {
  if (!file.regular()) {
    std::vector<uint8_t> all = file.read_all();
    file_bytes = all.size();
    std::vector<uint8_t> head(
        all.begin(), all.begin() + static_cast<ptrdiff_t>(std::min(all.size(), kMaxHeaderBytes)));
    if (whole != nullptr) *whole = std::move(all);
    return head;
  }
  file_bytes = file.size();
  std::vector<uint8_t> head(static_cast<size_t>(std::min<uint64_t>(file_bytes, kMaxHeaderBytes)));
  head.resize(static_cast<size_t>(file.pread_some(head.data(), head.size(), 0)));
  return head;
}

// Magic, version and header length, and enough more to tell a peer's file by its header (48
// bytes: DCSO's) when the magic is not bloomtool's; no bloomtool header is shorter.
constexpr size_t kFirstRead = 48;
constexpr uint64_t kGrowFrom = uint64_t{1} << 16;
// No valid filter file is longer: the largest payload plus room for headers and checksum tables.
constexpr uint64_t kMaxStreamBytes = model::kMaxBits / 8 + (uint64_t{64} << 20);

// The bytes read so far; `bytes` may hold more room than `size` (grown in doublings).
struct StreamImage {
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
void read_until(int fd, StreamImage& image, uint64_t upto, const std::string& name) {
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

[[noreturn]] void untrusted(const std::string& path, const std::string& why) {
  throw Error(ErrorCode::kUntrusted, path + ": " + why);
}

std::string trusted_name(const PublicKey& key) {
  return "the trusted key " + key_id_hex(key.id) + (key.path.empty() ? "" : " (" + key.path + ")");
}

}  // namespace

FilterHeader read_filter_header(const std::string& path) {
  const ReadFile file(path);
  uint64_t file_bytes = 0;
  const std::vector<uint8_t> head = read_head(file, file_bytes);
  return parse_filter_header(head, file_bytes, path);
}

FilterFileContents parse_filter_file(std::span<const uint8_t> bytes, const std::string& path) {
  FilterFileContents out;
  out.file_bytes = bytes.size();
  out.header = parse_filter_header(bytes.first(std::min<size_t>(bytes.size(), kMaxHeaderBytes)),
                                   bytes.size(), path);
  const FilterHeader& h = out.header;
  const auto stored = bytes.subspan(h.header_bytes, h.payload_stored_bytes);
  if (h.codec == PayloadCodec::kRawChunked) {
    verify_raw_image(bytes, h, path);
  } else if (detail::checksum_bytes(stored.data(), stored.size()) != h.payload_checksum) {
    throw_corrupt(path, "payload checksum mismatch");
  }
  if (h.codec == PayloadCodec::kZstd) check_zstd_frame_length(stored, h.payload_raw_bytes, path);
  check_payload_fits_memory(h, path);
  out.payload = WordBuffer(h.payload_raw_bytes / 8);
  unpack_payload(stored, h, path, reinterpret_cast<uint8_t*>(out.payload.data()),
                 h.payload_raw_bytes, [](uint64_t, uint64_t, uint64_t) {});
  if constexpr (std::endian::native == std::endian::big) {
    for (auto& w : out.payload.span()) w = le::load<uint64_t>(reinterpret_cast<const uint8_t*>(&w));
  }
  return out;
}

void check_payload_fits_memory(const FilterHeader& header, const std::string& path) {
  if (header.payload_raw_bytes > physical_memory_bytes()) {
    throw Error(ErrorCode::kLimitExceeded, path + ": filter of " +
                                               std::to_string(header.payload_raw_bytes) +
                                               " bytes is larger than this machine's memory");
  }
}

void check_image_fits_memory(const FilterHeader& header, const std::string& path) {
  check_payload_fits_memory(header, path);
  FilterHeader stored = header;
  stored.payload_raw_bytes = header.header_bytes + header.payload_stored_bytes;
  check_payload_fits_memory(stored, path);
}

void for_each_payload_chunk(const std::string& path, const FilterHeader& expected,
                            const std::function<void(uint64_t, std::span<const uint64_t>)>& fn) {
  constexpr uint64_t kWindowWords = 1u << 18;  // 2 MiB
  const ReadFile file(path);
  uint64_t file_bytes = 0;
  std::vector<uint8_t> image;
  const std::vector<uint8_t> head = read_head(file, file_bytes, &image);
  const FilterHeader h = parse_filter_header(head, file_bytes, path);
  if (!same_file_header(h, expected))
    throw Error(ErrorCode::kIOError, path + ": the file changed while it was being read");
  if (h.codec == PayloadCodec::kRawChunked && file.regular()) {
    stream_raw_payload(path, h, fn);
    return;
  }
  if (file.regular() && h.codec == PayloadCodec::kZstd) {
    stream_zstd_payload(file, h, fn);
    return;
  }
  const auto stored =
      std::span<const uint8_t>(image).subspan(h.header_bytes, h.payload_stored_bytes);
  if (h.codec == PayloadCodec::kRawChunked) {
    verify_raw_image(image, h, path);
  } else if (detail::checksum_bytes(stored.data(), stored.size()) != h.payload_checksum) {
    throw_corrupt(path, "payload checksum mismatch");
  }

  WordBuffer window(static_cast<size_t>(std::min(kWindowWords, h.payload_raw_bytes / 8)));
  uint64_t* words = window.data();
  unpack_payload(stored, h, path, reinterpret_cast<uint8_t*>(words), window.size() * 8,
                 [&](uint64_t offset, uint64_t n, uint64_t) {
                   if constexpr (std::endian::native == std::endian::big) {
                     for (uint64_t i = 0; i < n / 8; ++i)
                       words[i] = le::load<uint64_t>(reinterpret_cast<const uint8_t*>(&words[i]));
                   }
                   fn(offset / 8, std::span<const uint64_t>(words, n / 8));
                 });
}

FilterFileContents read_filter_file(const std::string& path) {
  const ReadFile file(path);
  if (!file.regular()) {
    const std::vector<uint8_t> image = file.read_all();
    return parse_filter_file(image, path);
  }
  uint64_t file_bytes = 0;
  const std::vector<uint8_t> head = read_head(file, file_bytes);
  const FilterHeader h = parse_filter_header(head, file_bytes, path);
  if (h.codec != PayloadCodec::kRawChunked) {
    check_image_fits_memory(h, path);
    const std::vector<uint8_t> image = file.read_all();
    return parse_filter_file(image, path);
  }
  // A raw file: chunk by chunk into the payload's own memory, each chunk checked as it arrives.
  check_payload_fits_memory(h, path);
  const RawPayloadView view(path, 0);
  if (!same_file_header(view.header(), h))
    throw Error(ErrorCode::kIOError, path + ": the file changed while it was being read");
  FilterFileContents out;
  out.header = view.header();
  out.file_bytes = view.file_bytes();
  out.payload = WordBuffer(static_cast<size_t>(h.payload_raw_bytes / 8));
  auto* bytes = reinterpret_cast<uint8_t*>(out.payload.data());
  for (uint64_t c = 0; c < view.chunk_count(); ++c)
    view.read_chunk(c, bytes + c * view.chunk_bytes());
  if constexpr (std::endian::native == std::endian::big) {
    for (auto& w : out.payload.span()) w = le::load<uint64_t>(reinterpret_cast<const uint8_t*>(&w));
  }
  return out;
}

std::vector<uint8_t> read_filter_stream_image(int fd, const std::string& name) {
  StreamImage image;
  read_until(fd, image, kFirstRead, name);
  const uint64_t header_bytes =
      image.size >= kFirstRead ? le::load<uint32_t>(image.bytes.data() + kHeaderBytesOffset) : 0;
  if (header_bytes > kFirstRead && header_bytes <= kMaxHeaderBytes) {
    read_until(fd, image, header_bytes, name);
  }
  // The fields read below lie in the smallest header (kMinHeaderBytes).
  if (image.size < header_bytes || header_bytes < kMinHeaderBytes ||
      header_bytes > kMaxHeaderBytes) {
    // Cut short or out of range: the checks that every file gets say which, and how.
    parse_filter_header(image.view(), image.size, name);
    throw Error(ErrorCode::kCorrupt, name + ": corrupt: header length " +
                                         std::to_string(header_bytes) + " is out of range");
  }

  // The header is whole: verify it (checksum, version, fields, limits) before reading the payload
  // it declares, as if the file were exactly as long as it says.
  const uint64_t declared = le::load<uint64_t>(image.bytes.data() + kPayloadStoredBytesOffset);
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

void verify_file_signature(std::span<const uint8_t> head, const FilterHeader& header,
                           uint64_t tail_bytes, const TailReader& read, const PublicKey& key,
                           const std::string& path) {
  ensure_sodium();
  if (!header.signature) {
    untrusted(path, "not signed; " + trusted_name(key) + " is required");
  }
  const SignatureField& field = *header.signature;
  if (field.algorithm != kSignatureEd25519Blake2b) {
    throw Error(ErrorCode::kUnsupported,
                path + ": unsupported: signature algorithm " + std::to_string(field.algorithm));
  }
  if (field.key_id != key.id) {
    untrusted(path, "signed by key " + key_id_hex(field.key_id) + ", not by " + trusted_name(key));
  }
  if (head.size() < header.header_bytes ||
      field.signature_offset + kSignatureBytes > header.header_bytes - kHeaderChecksumBytes) {
    untrusted(path, "signature does not match the file (altered since it was signed)");
  }
  const SignedBytes bytes{head.first(static_cast<size_t>(header.header_bytes)),
                          field.signature_offset, kHeaderChecksumBytes, tail_bytes, read};
  if (!signature_matches(bytes, field.signature, key.bytes)) {
    untrusted(path, "signature does not match the file (altered since it was signed by key " +
                        key_id_hex(field.key_id) + ")");
  }
}

void verify_file_signature(std::span<const uint8_t> file, const FilterHeader& header,
                           const PublicKey& key, const std::string& path) {
  const uint64_t head = std::min<uint64_t>(file.size(), header.header_bytes);
  verify_file_signature(
      file.first(static_cast<size_t>(head)), header, file.size() - head,
      [&](uint64_t at, std::span<uint8_t> buf) {
        std::memcpy(buf.data(), file.data() + head + at, buf.size());
      },
      key, path);
}

}  // namespace bloomtool
