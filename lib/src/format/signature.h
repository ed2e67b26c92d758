// The cryptography of signed filter files and secret seeds (docs/FORMAT.md, "Signature (field 9,
// 1.1)" and "Key files"): Ed25519 key pairs in small text files, the signature over a BLAKE2b-512
// digest of a file's bytes and its verification against a public key, and hash seeds from the
// operating system's random source. All cryptography is libsodium's. This knows bytes and keys,
// not the filter file: the reader and writer (filter_file.h) say which bytes are signed.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>

namespace bloomtool {

inline constexpr size_t kPublicKeyBytes = 32;
inline constexpr size_t kKeyIdBytes = 8;
inline constexpr size_t kSignatureBytes = 64;
using KeyId = std::array<uint8_t, kKeyIdBytes>;
using Signature = std::array<uint8_t, kSignatureBytes>;
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

// The bytes a file signature covers, streamed: `head` (the file's header) with the kSignatureBytes
// at `signature_offset` and the last `zeroed_tail` bytes (its checksum) read as zeros, then
// `tail_bytes` more bytes, which read(offset, buffer) fills in order (offsets counted from the end
// of `head`). The signed message is a fixed context string and the BLAKE2b-512 digest of them.
using TailReader = std::function<void(uint64_t, std::span<uint8_t>)>;
struct SignedBytes {
  std::span<const uint8_t> head;
  uint64_t signature_offset = 0;  // within head; the signature lies before the zeroed tail
  size_t zeroed_tail = 0;
  uint64_t tail_bytes = 0;
  TailReader read;
};

// The Ed25519 signature of `bytes` by `key`. Throws kInvalidArgument when the signature's place
// is not inside the head.
Signature sign_bytes(const SignedBytes& bytes, const SigningKey& key);
// True when `signature` is `public_key`'s signature of `bytes` (false too when the signature's
// place is not inside the head).
bool signature_matches(const SignedBytes& bytes, const Signature& signature,
                       std::span<const uint8_t, kPublicKeyBytes> public_key);

// A hash seed from the operating system's random source (getrandom via libsodium).
uint64_t random_seed();

}  // namespace bloomtool
