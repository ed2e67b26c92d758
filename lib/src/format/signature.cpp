// Signatures over bytes (docs/FORMAT.md, "Signature (field 9, 1.1)"). The signed message is a
// fixed context string followed by the BLAKE2b-512 digest of the bytes the caller names, with the
// signature's own bytes and the header checksum read as zeros, so one signature covers every
// other byte and can be written after the rest of the file. Which bytes those are is the filter
// file reader's and writer's business (filter_reader.cpp, filter_writer.cpp).
#include <sodium.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "base/sodium_init.h"
#include "bloomtool/error.h"
#include "format/signature.h"

namespace bloomtool {

namespace {

// What a bloomtool file signature signs: these 30 bytes (ASCII and a zero byte), then the digest.
constexpr char kContext[] = "bloomtool-filter-signature-v1";
constexpr size_t kContextBytes = sizeof kContext;  // the terminating zero included
constexpr size_t kDigestBytes = 64;
using Message = std::array<uint8_t, kContextBytes + kDigestBytes>;

bool signature_inside(const SignedBytes& b) noexcept {
  return b.zeroed_tail <= b.head.size() && b.signature_offset <= b.head.size() - b.zeroed_tail &&
         kSignatureBytes <= b.head.size() - b.zeroed_tail - b.signature_offset;
}

// The message of `b`, whose signature lies inside its head.
Message message_of(const SignedBytes& b) {
  crypto_generichash_state state;
  crypto_generichash_init(&state, nullptr, 0, kDigestBytes);
  std::vector<uint8_t> head(b.head.begin(), b.head.end());
  std::fill_n(head.begin() + static_cast<ptrdiff_t>(b.signature_offset), kSignatureBytes, 0);
  std::fill(head.end() - static_cast<ptrdiff_t>(b.zeroed_tail), head.end(), 0);
  crypto_generichash_update(&state, head.data(), head.size());
  std::vector<uint8_t> buffer(static_cast<size_t>(std::min<uint64_t>(b.tail_bytes, 1u << 20)));
  for (uint64_t at = 0; at < b.tail_bytes;) {
    const auto n = static_cast<size_t>(std::min<uint64_t>(buffer.size(), b.tail_bytes - at));
    b.read(at, std::span<uint8_t>(buffer.data(), n));
    crypto_generichash_update(&state, buffer.data(), n);
    at += n;
  }
  Message m{};
  std::memcpy(m.data(), kContext, kContextBytes);
  crypto_generichash_final(&state, m.data() + kContextBytes, kDigestBytes);
  return m;
}

}  // namespace

void ensure_sodium() {
  static const int rc = sodium_init();
  if (rc < 0) throw Error(ErrorCode::kIOError, "libsodium cannot be initialised");
}

Signature sign_bytes(const SignedBytes& bytes, const SigningKey& key) {
  if (!signature_inside(bytes))
    throw Error(ErrorCode::kInvalidArgument, "signature field outside the header");
  ensure_sodium();
  return key.sign(message_of(bytes));
}

bool signature_matches(const SignedBytes& bytes, const Signature& signature,
                       std::span<const uint8_t, kPublicKeyBytes> public_key) {
  ensure_sodium();
  if (!signature_inside(bytes)) return false;
  const Message message = message_of(bytes);
  return crypto_sign_verify_detached(signature.data(), message.data(), message.size(),
                                     public_key.data()) == 0;
}

}  // namespace bloomtool
