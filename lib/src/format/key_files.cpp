// Ed25519 keys and their files (docs/FORMAT.md, "Key files"): two short text lines each, a header
// line naming the kind of key and its key id, and the key in hex. The key id is a hash of the
// public key, so a damaged or truncated file is caught when the id no longer matches. Secret key
// files are created 0600 without ever replacing an existing file, and refused when their group or
// others may use them. Key generation and random seeds use libsodium's random source.
#include <fcntl.h>
#include <sodium.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <string_view>
#include <vector>

#include "base/sodium_init.h"
#include "base/unique_fd.h"
#include "bloomtool/error.h"
#include "format/signature.h"

namespace bloomtool {

namespace {

constexpr std::string_view kPublicTag = "bloomtool public key";
constexpr std::string_view kSecretTag = "bloomtool secret key";
constexpr std::string_view kKeyFileVersion = "1";
constexpr std::string_view kAlgorithm = "ed25519";
constexpr size_t kMaxKeyFileBytes = 4096;

std::string to_hex(std::span<const uint8_t> bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s;
  for (const uint8_t b : bytes) {
    s += kDigits[b >> 4];
    s += kDigits[b & 15];
  }
  return s;
}

// Lowercase hex of exactly out.size() bytes (one spelling per key: any changed bit is noticed).
bool from_hex(std::string_view text, std::span<uint8_t> out) {
  if (text.size() != out.size() * 2) return false;
  auto digit = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  for (size_t i = 0; i < out.size(); ++i) {
    const int hi = digit(text[2 * i]), lo = digit(text[2 * i + 1]);
    if (hi < 0 || lo < 0) return false;
    out[i] = static_cast<uint8_t>(hi << 4 | lo);
  }
  return true;
}

std::string header_line(std::string_view tag, const KeyId& id) {
  return std::string(tag) + " " + std::string(kKeyFileVersion) + " " + std::string(kAlgorithm) +
         " " + key_id_hex(id) + "\n";
}

[[noreturn]] void bad_key_file(const std::string& path, const std::string& why) {
  throw Error(ErrorCode::kBadInput, path + ": " + why);
}

// The key bytes of a key file of kind `want` ("public" or "secret" tag) and the key id its header
// line claims. Checks everything but the id against the key, which the caller derives.
KeyId parse_key_file(std::span<const uint8_t> text, const std::string& path, std::string_view want,
                     std::span<uint8_t, 32> key) {
  const std::string_view t(reinterpret_cast<const char*>(text.data()), text.size());
  const std::string_view other = want == kPublicTag ? kSecretTag : kPublicTag;
  const bool is_public = want == kPublicTag;
  if (t.starts_with(other)) {
    bad_key_file(path, is_public ? "is a secret key file; give the public key (NAME.pub) here"
                                 : "is a public key file; signing needs the secret key (NAME.key)");
  }
  if (!t.starts_with(want) || t.size() == want.size() || t[want.size()] != ' ') {
    bad_key_file(path, std::string("not a bloomtool ") + (is_public ? "public" : "secret") +
                           " key file (its first line must start with '" + std::string(want) +
                           "')");
  }
  if (const size_t cr = t.find('\r'); cr != std::string_view::npos) {
    bad_key_file(path, "damaged key file: carriage return (CR, byte " + std::to_string(cr) +
                           ") in a line end; key files end their lines in LF alone (the file was "
                           "likely converted to CRLF line ends: convert it back, e.g. dos2unix)");
  }
  const size_t eol = t.find('\n');
  if (eol == std::string_view::npos) bad_key_file(path, "truncated key file: one line only");
  const std::string_view line1 = t.substr(want.size() + 1, eol - want.size() - 1);
  const std::string expected_prefix =
      std::string(kKeyFileVersion) + " " + std::string(kAlgorithm) + " ";
  if (!line1.starts_with(expected_prefix)) {
    const std::string_view version = line1.substr(0, line1.find(' '));
    if (version != kKeyFileVersion) {
      throw Error(ErrorCode::kUnsupported, path + ": unsupported: key file version '" +
                                               std::string(version.substr(0, 16)) +
                                               "' (this bloomtool reads version 1)");
    }
    throw Error(ErrorCode::kUnsupported,
                path + ": unsupported: key algorithm (this bloomtool knows ed25519 only)");
  }
  KeyId id{};
  if (!from_hex(line1.substr(expected_prefix.size()), id))
    bad_key_file(path, "damaged key file: line 1 must end in a 16-digit hex key id");
  std::string_view line2 = t.substr(eol + 1);
  if (line2.ends_with('\n')) line2.remove_suffix(1);
  if (line2.find('\n') != std::string_view::npos)
    bad_key_file(path, "damaged key file: more than two lines");
  if (!from_hex(line2, key))
    bad_key_file(path, "truncated or damaged key file: line 2 must hold 64 hex digits");
  return id;
}

// The whole of a small file, and its permission bits in `mode`.
std::vector<uint8_t> read_key_file(const std::string& path, uint32_t& mode) {
  // Opened without blocking, so a FIFO (which would wait for a writer) or a device is refused at
  // once by the check below; the flag is cleared before the regular file is read.
  const UniqueFd file(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  if (!file) throw_io_error(path, errno);
  const int fd = file.get();
  struct stat st;
  if (::fstat(fd, &st) != 0) throw_io_error(path, errno);
  if (!S_ISREG(st.st_mode)) {
    const char* what = S_ISFIFO(st.st_mode)   ? "a FIFO"
                       : S_ISCHR(st.st_mode)  ? "a character device"
                       : S_ISBLK(st.st_mode)  ? "a block device"
                       : S_ISDIR(st.st_mode)  ? "a directory"
                       : S_ISSOCK(st.st_mode) ? "a socket"
                                              : "a special file";
    throw Error(ErrorCode::kInvalidArgument,
                path + ": " + what + ", not a key file (give the path of a NAME.key or NAME.pub " +
                    "file that bloomtool keygen wrote)");
  }
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0 || ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) throw_io_error(path, errno);
  mode = static_cast<uint32_t>(st.st_mode & 07777);
  if (static_cast<uint64_t>(st.st_size) > kMaxKeyFileBytes)
    bad_key_file(path, "not a bloomtool key file (larger than 4096 bytes)");
  std::vector<uint8_t> text(static_cast<size_t>(st.st_size) + 1);
  size_t have = 0;
  for (;;) {
    const ssize_t r = ::read(fd, text.data() + have, text.size() - have);
    if (r < 0) {
      if (errno == EINTR) continue;
      throw_io_error(path, errno);
    }
    if (r == 0) break;
    have += static_cast<size_t>(r);
    if (have == text.size()) bad_key_file(path, "key file changed while it was being read");
  }
  text.resize(have);
  return text;
}

// Creates `path` with `text` through a temporary file linked into place, so the file appears whole
// or not at all and an existing file is never replaced. `secret`: mode 0600 whatever the umask,
// else 0644 less the umask.
void create_new_file(const std::string& path, const std::string& text, bool secret) {
  const std::string temp = path + ".tmp." + std::to_string(::getpid());
  UniqueFd fd(::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, secret ? 0600 : 0644));
  if (!fd) throw_io_error(path, errno);
  bool ok = !secret || ::fchmod(fd.get(), 0600) == 0;
  size_t done = 0;
  while (ok && done < text.size()) {
    const ssize_t w = ::write(fd.get(), text.data() + done, text.size() - done);
    if (w < 0 && errno == EINTR) continue;
    ok = w > 0;
    if (ok) done += static_cast<size_t>(w);
  }
  ok = ok && ::fsync(fd.get()) == 0;
  const int write_errno = errno;
  fd.reset();
  if (!ok) {
    ::unlink(temp.c_str());
    throw_io_error(path, write_errno);
  }
  const int rc = ::link(temp.c_str(), path.c_str());
  const int link_errno = errno;
  ::unlink(temp.c_str());
  if (rc != 0) {
    if (link_errno == EEXIST) {
      throw Error(ErrorCode::kInvalidArgument, path +
                                                   ": exists; not replaced (keys are never "
                                                   "overwritten: remove it or choose another "
                                                   "name)");
    }
    throw_io_error(path, link_errno);
  }
}

}  // namespace

KeyId key_id_of(std::span<const uint8_t, kPublicKeyBytes> public_key) {
  ensure_sodium();
  uint8_t h[32];
  crypto_generichash(h, sizeof h, public_key.data(), public_key.size(), nullptr, 0);
  KeyId id;
  std::memcpy(id.data(), h, id.size());
  return id;
}

std::string key_id_hex(const KeyId& id) {
  return to_hex(id);
}

SigningKey::SigningKey(std::span<const uint8_t, kKeySeedBytes> seed, std::string path)
    : path_(std::move(path)) {
  ensure_sodium();
  crypto_sign_seed_keypair(public_.data(), secret_.data(), seed.data());
  id_ = key_id_of(public_);
}

SigningKey::~SigningKey() {
  sodium_memzero(secret_.data(), secret_.size());
}

std::array<uint8_t, kSignatureBytes> SigningKey::sign(std::span<const uint8_t> message) const {
  std::array<uint8_t, kSignatureBytes> sig;
  crypto_sign_detached(sig.data(), nullptr, message.data(), message.size(), secret_.data());
  return sig;
}

std::string SigningKey::secret_file_text() const {
  return header_line(kSecretTag, id_) +
         to_hex(std::span<const uint8_t>(secret_.data(), kKeySeedBytes)) + "\n";
}

std::string public_key_file_text(std::span<const uint8_t, kPublicKeyBytes> public_key) {
  return header_line(kPublicTag, key_id_of(public_key)) + to_hex(public_key) + "\n";
}

std::unique_ptr<SigningKey> parse_signing_key(std::span<const uint8_t> text,
                                              const std::string& path) {
  std::array<uint8_t, kKeySeedBytes> seed{};
  const KeyId claimed = parse_key_file(text, path, kSecretTag, seed);
  auto key = std::make_unique<SigningKey>(seed, path);
  sodium_memzero(seed.data(), seed.size());
  if (key->id() != claimed)
    bad_key_file(path, "damaged key file: the key does not match its key id");
  return key;
}

PublicKey parse_public_key(std::span<const uint8_t> text, const std::string& path) {
  PublicKey key;
  key.path = path;
  const KeyId claimed = parse_key_file(text, path, kPublicTag, key.bytes);
  key.id = key_id_of(key.bytes);
  if (key.id != claimed) bad_key_file(path, "damaged key file: the key does not match its key id");
  return key;
}

std::unique_ptr<SigningKey> read_signing_key(const std::string& path) {
  uint32_t mode = 0;
  std::vector<uint8_t> text = read_key_file(path, mode);
  std::unique_ptr<SigningKey> key;
  try {
    key = parse_signing_key(text, path);  // a public key file given here is named as such
  } catch (...) {
    sodium_memzero(text.data(), text.size());
    throw;
  }
  sodium_memzero(text.data(), text.size());
  if ((mode & 077) != 0) {
    throw Error(ErrorCode::kInvalidArgument,
                fmt::format("{}: secret key file may be used by group or others (mode {:04o}); "
                            "refused: run 'chmod 600 {}'",
                            path, mode, path));
  }
  return key;
}

PublicKey read_public_key(const std::string& path) {
  uint32_t mode = 0;
  return parse_public_key(read_key_file(path, mode), path);
}

KeyId generate_key_files(const std::string& name) {
  ensure_sodium();
  const std::string secret_path = name + ".key", public_path = name + ".pub";
  for (const std::string& p : {secret_path, public_path}) {
    struct stat st;
    if (::lstat(p.c_str(), &st) == 0) {
      throw Error(ErrorCode::kInvalidArgument,
                  p + ": exists; not replaced (keys are never overwritten: remove it or choose "
                      "another name)");
    }
  }
  std::array<uint8_t, kKeySeedBytes> seed;
  randombytes_buf(seed.data(), seed.size());
  const SigningKey key(seed, secret_path);
  sodium_memzero(seed.data(), seed.size());
  std::string secret_text = key.secret_file_text();
  try {
    create_new_file(secret_path, secret_text, true);
  } catch (...) {
    sodium_memzero(secret_text.data(), secret_text.size());
    throw;
  }
  sodium_memzero(secret_text.data(), secret_text.size());
  try {
    create_new_file(public_path, public_key_file_text(key.public_key()), false);
  } catch (...) {
    ::unlink(secret_path.c_str());
    throw;
  }
  return key.id();
}

uint64_t random_seed() {
  ensure_sodium();
  uint64_t seed;
  randombytes_buf(&seed, sizeof seed);
  return seed;
}

}  // namespace bloomtool
