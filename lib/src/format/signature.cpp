// Signatures of filter files (docs/FORMAT.md, "Signature (field 9, 1.1)"). The signed message is
// a fixed context string followed by the BLAKE2b-512 digest of the whole file with the signature
// bytes and the header checksum read as zeros, so one signature covers the header, every field
// (the key id included) and every payload byte, and can be written after the rest of the file.
// Verification hashes the very bytes that are then decoded or, for a raw payload, used in place
// (one mapping of the file).
#include <sodium.h>
#include <xxhash.h>

#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <vector>

#include "bloomtool/error.h"
#include "format/raw_payload.h"
#include "format/signature.h"
#include "base/byte_order.h"
#include "format/file_reader.h"
#include "base/sodium_init.h"

namespace bloomtool {

namespace {

// What a bloomtool file signature signs: these 30 bytes (ASCII and a zero byte), then the digest.
constexpr char kContext[] = "bloomtool-filter-signature-v1";
constexpr size_t kContextBytes = sizeof kContext;  // the terminating zero included
constexpr size_t kDigestBytes = 64;
constexpr size_t kChecksumBytes = 8;
using Message = std::array<uint8_t, kContextBytes + kDigestBytes>;

class Digest {
 public:
  Digest() { crypto_generichash_init(&state_, nullptr, 0, kDigestBytes); }
  void update(std::span<const uint8_t> bytes) {
    crypto_generichash_update(&state_, bytes.data(), bytes.size());
  }
  // The header with the signature and checksum bytes read as zeros.
  void update_header(std::span<const uint8_t> head, const SignatureField& field) {
    std::vector<uint8_t> copy(head.begin(), head.end());
    std::fill_n(copy.begin() + static_cast<ptrdiff_t>(field.signature_offset), kSignatureBytes, 0);
    std::fill(copy.end() - kChecksumBytes, copy.end(), 0);
    update(copy);
  }
  Message message() {
    Message m{};
    std::memcpy(m.data(), kContext, kContextBytes);
    crypto_generichash_final(&state_, m.data() + kContextBytes, kDigestBytes);
    return m;
  }

 private:
  crypto_generichash_state state_;
};

[[noreturn]] void untrusted(const std::string& path, const std::string& why) {
  throw Error(ErrorCode::kUntrusted, path + ": " + why);
}

std::string trusted_name(const PublicKey& key) {
  return "the trusted key " + key_id_hex(key.id) + (key.path.empty() ? "" : " (" + key.path + ")");
}

}  // namespace

void ensure_sodium() {
  static const int rc = sodium_init();
  if (rc < 0) throw Error(ErrorCode::kIOError, "libsodium cannot be initialised");
}

SignatureField parse_signature_field(std::span<const uint8_t> value, uint64_t file_offset,
                                     const std::string& path) {
  if (value.size() < 4) {
    throw Error(ErrorCode::kCorrupt,
                path + ": corrupt: signature field of " + std::to_string(value.size()) + " bytes");
  }
  SignatureField f;
  f.algorithm = le::load<uint32_t>(value.data());
  if (f.algorithm != kSignatureEd25519Blake2b) return f;  // shown, and refused by verification
  if (value.size() != kSignatureFieldBytes) {
    throw Error(ErrorCode::kCorrupt, path + ": corrupt: signature field of " +
                                         std::to_string(value.size()) + " bytes, not " +
                                         std::to_string(kSignatureFieldBytes));
  }
  std::memcpy(f.key_id.data(), value.data() + 4, kKeyIdBytes);
  std::memcpy(f.signature.data(), value.data() + 4 + kKeyIdBytes, kSignatureBytes);
  f.signature_offset = file_offset + 4 + kKeyIdBytes;
  return f;
}

std::array<uint8_t, kSignatureFieldBytes> encode_signature_field(const SignatureField& field) {
  std::array<uint8_t, kSignatureFieldBytes> v{};
  le::store<uint32_t>(v.data(), field.algorithm);
  std::memcpy(v.data() + 4, field.key_id.data(), kKeyIdBytes);
  std::memcpy(v.data() + 4 + kKeyIdBytes, field.signature.data(), kSignatureBytes);
  return v;
}

void sign_file_header(std::span<uint8_t> head, const FilterHeader& header, uint64_t tail_bytes,
                      const TailReader& read, const SigningKey& key) {
  const SignatureField& field = header.signature.value();
  if (field.signature_offset + kSignatureBytes > head.size() - kChecksumBytes ||
      head.size() != header.header_bytes) {
    throw Error(ErrorCode::kInvalidArgument, "signature field outside the header");
  }
  Digest digest;
  digest.update_header(head, field);
  std::vector<uint8_t> buffer(std::min<uint64_t>(tail_bytes, uint64_t{1} << 20));
  for (uint64_t at = 0; at < tail_bytes;) {
    const auto n = static_cast<size_t>(std::min<uint64_t>(buffer.size(), tail_bytes - at));
    read(at, std::span<uint8_t>(buffer.data(), n));
    digest.update(std::span<const uint8_t>(buffer.data(), n));
    at += n;
  }
  const Message message = digest.message();
  const auto sig = key.sign(message);
  std::memcpy(head.data() + field.signature_offset, sig.data(), kSignatureBytes);
  le::store<uint64_t>(head.data() + head.size() - kChecksumBytes,
                      XXH3_64bits(head.data(), head.size() - kChecksumBytes));
}

namespace {

// verify_file_signature over a header `head` and `tail_bytes` read through `read`.
void verify_signature_over(std::span<const uint8_t> head, uint64_t tail_bytes,
                           const TailReader& read, const FilterHeader& header, const PublicKey& key,
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
      field.signature_offset + kSignatureBytes > header.header_bytes - kChecksumBytes) {
    untrusted(path, "signature does not match the file (altered since it was signed)");
  }
  Digest digest;
  digest.update_header(head.first(header.header_bytes), field);
  std::vector<uint8_t> buffer(
      static_cast<size_t>(std::min<uint64_t>(tail_bytes, uint64_t{1} << 20)));
  for (uint64_t at = 0; at < tail_bytes;) {
    const auto n = static_cast<size_t>(std::min<uint64_t>(buffer.size(), tail_bytes - at));
    read(at, std::span<uint8_t>(buffer.data(), n));
    digest.update(std::span<const uint8_t>(buffer.data(), n));
    at += n;
  }
  const Message message = digest.message();
  if (crypto_sign_verify_detached(field.signature.data(), message.data(), message.size(),
                                  key.bytes.data()) != 0) {
    untrusted(path, "signature does not match the file (altered since it was signed by key " +
                        key_id_hex(field.key_id) + ")");
  }
}

}  // namespace

void verify_file_signature(std::span<const uint8_t> file, const FilterHeader& header,
                           const PublicKey& key, const std::string& path) {
  const uint64_t head = std::min<uint64_t>(file.size(), header.header_bytes);
  verify_signature_over(
      file.first(static_cast<size_t>(head)), file.size() - head,
      [&](uint64_t at, std::span<uint8_t> buf) {
        std::memcpy(buf.data(), file.data() + head + at, buf.size());
      },
      header, key, path);
}

LoadedFilter load_verified_filter(const std::string& path, const PublicKey& key) {
  if (path == "-") {  // standard input, read whole as load_filter reads it
    const std::vector<uint8_t> image = read_filter_stream_image(STDIN_FILENO, "<stdin>");
    const FilterHeader header = parse_filter_header(
        std::span<const uint8_t>(image).first(std::min<size_t>(image.size(), kMaxHeaderBytes)),
        image.size(), "<stdin>");
    verify_file_signature(image, header, key, "<stdin>");
    return make_filter(parse_filter_file(image, "<stdin>"), "<stdin>");
  }
  const ReadFile file(path);
  if (file.regular() && std::endian::native == std::endian::little &&
      read_filter_header(path).codec == PayloadCodec::kRawChunked) {
    // A raw file is opened as load_filter opens it; the signature is checked over the header the
    // reader holds and the rest of the file read once with pread(). The header covers the chunk
    // table's checksum and the reader checks every chunk against that table when it reads it, so
    // what queries use is what was signed.
    auto view = std::make_shared<const RawPayloadView>(path);
    std::vector<uint8_t> head(static_cast<size_t>(view->header().header_bytes));
    file.pread_exact(head.data(), head.size(), 0);
    if (head != view->head())
      throw Error(ErrorCode::kIOError, path + ": the file changed while it was being read");
    verify_signature_over(
        head, view->file_bytes() - head.size(),
        [&](uint64_t at, std::span<uint8_t> buf) {
          file.pread_exact(buf.data(), buf.size(), head.size() + at);
        },
        view->header(), key, path);
    return make_raw_filter(std::move(view), path);
  }
  if (file.regular()) check_image_fits_memory(read_filter_header(path), path);
  const std::vector<uint8_t> bytes = file.read_all();
  const FilterHeader header = parse_filter_header(
      std::span<const uint8_t>(bytes).first(std::min<size_t>(bytes.size(), kMaxHeaderBytes)),
      bytes.size(), path);
  verify_file_signature(bytes, header, key, path);
  return make_filter(parse_filter_file(bytes, path), path);
}

}  // namespace bloomtool
