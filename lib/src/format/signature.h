// Signed filter files and secret seeds (docs/FORMAT.md, "Signature (field 9, 1.1)" and "Key
// files"): Ed25519 key pairs in small text files, the signature over a BLAKE2b-512 digest of a
// filter file, its verification against a trusted public key, and hash seeds from the operating
// system's random source. All cryptography is libsodium's.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "format/filter_file.h"
#include "api/load_filter.h"

namespace bloomtool {

inline constexpr size_t kPublicKeyBytes = 32;
inline constexpr size_t kKeySeedBytes = 32;

// A public key and its id, as read from a NAME.pub file.
struct PublicKey {
  std::array<uint8_t, kPublicKeyBytes> bytes{};
  KeyId id{};
  std::string path;  // the file it came from, for messages
};

// A secret signing key as read from a NAME.key file. Its bytes are wiped when it is destroyed.
class SigningKey {
 public:
  // The key pair whose 32-byte seed is `seed` (RFC 8032 private key).
  explicit SigningKey(std::span<const uint8_t, kKeySeedBytes> seed, std::string path = {});
  ~SigningKey();
  SigningKey(const SigningKey&) = delete;
  SigningKey& operator=(const SigningKey&) = delete;

  const KeyId& id() const noexcept { return id_; }
  const std::array<uint8_t, kPublicKeyBytes>& public_key() const noexcept { return public_; }
  const std::string& path() const noexcept { return path_; }
  // Ed25519 signature of `message`.
  std::array<uint8_t, kSignatureBytes> sign(std::span<const uint8_t> message) const;
  // The secret key file text (docs/FORMAT.md, "Key files"); handle with care.
  std::string secret_file_text() const;

 private:
  std::array<uint8_t, 64> secret_{};  // libsodium's form: seed then public key
  std::array<uint8_t, kPublicKeyBytes> public_{};
  KeyId id_{};
  std::string path_;
};

// The key id of a public key: the first 8 bytes of its BLAKE2b-256 hash.
KeyId key_id_of(std::span<const uint8_t, kPublicKeyBytes> public_key);
// The key id as 16 lowercase hex digits, in byte order.
std::string key_id_hex(const KeyId& id);
// The public key file text of `key`.
std::string public_key_file_text(std::span<const uint8_t, kPublicKeyBytes> public_key);

// Key file parsers: `text` is the whole file, `path` names it in errors. A wrong kind of key file,
// a damaged or truncated one (its key id no longer matches its key) is kBadInput.
std::unique_ptr<SigningKey> parse_signing_key(std::span<const uint8_t> text,
                                              const std::string& path);
PublicKey parse_public_key(std::span<const uint8_t> text, const std::string& path);

// Reads NAME.key; refuses (kInvalidArgument) a file that its group or others may read or write,
// and anything but a regular file.
std::unique_ptr<SigningKey> read_signing_key(const std::string& path);
// Reads NAME.pub.
PublicKey read_public_key(const std::string& path);

// Generates a key pair from the operating system's random source and writes `name`.key (mode
// 0600) and `name`.pub, each atomically. Refuses (kInvalidArgument) if either file exists; on
// failure neither is left behind. Returns the new key's id.
KeyId generate_key_files(const std::string& name);

// Field 9's value (76 bytes for algorithm 1) from `value`, which starts `file_offset` bytes into
// the file. Throws kCorrupt naming `path` when the length does not fit the algorithm.
SignatureField parse_signature_field(std::span<const uint8_t> value, uint64_t file_offset,
                                     const std::string& path);
// Field 9's value of `field` (the inverse of parse_signature_field).
std::array<uint8_t, kSignatureFieldBytes> encode_signature_field(const SignatureField& field);

// Streams the file bytes after the header, in order, to the digest: read(offset, buffer) fills
// `buffer` with the bytes at `offset` (counted from the end of the header).
using TailReader = std::function<void(uint64_t, std::span<uint8_t>)>;

// Signs a finished file: `head` is its complete header as written (field 9 present, signature and
// header checksum bytes whatever they are), `tail_bytes` the bytes that follow it, read through
// `read`. Writes the signature into field 9 and recomputes the header checksum, in `head`.
void sign_file_header(std::span<uint8_t> head, const FilterHeader& header, uint64_t tail_bytes,
                      const TailReader& read, const SigningKey& key);

// Verifies the signature of the whole file image `file`, whose parsed header is `header`, against
// `key`. Throws kUntrusted naming `path` when the file is unsigned, signed by another key or
// altered since it was signed, kUnsupported for an unknown signature algorithm.
void verify_file_signature(std::span<const uint8_t> file, const FilterHeader& header,
                           const PublicKey& key, const std::string& path);

// load_filter with the signature verified first, over the same bytes that are then decoded: the
// whole file is read (every byte hashed) before any answer can come from it.
LoadedFilter load_verified_filter(const std::string& path, const PublicKey& key);

// A hash seed from the operating system's random source (getrandom via libsodium).
uint64_t random_seed();

}  // namespace bloomtool
