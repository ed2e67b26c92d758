// Fuzz target: signature material. The first byte chooses what the rest is: 0 a public key file,
// 1 a secret key file, 2 the value of header field 9, 3 a filter file verified against the public
// key of testdata/golden/golden-signing.pub. Each input is accepted or refused with an error of
// an expected code naming it. What is accepted must be exactly what a writer writes: a key file
// reads back as the text it was parsed from, a field re-encodes to its bytes, and the one file the
// golden key verifies is the signed golden file itself (the signature covers every byte but its
// own and the header checksum, which the header check pins): nothing the fuzzer makes up from it
// is accepted as signed.
#include <xxhash.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "format/filter_file.h"
#include "format/signature.h"
#include "fuzz_util.h"

namespace {

using namespace bloomtool;

// XXH3-64 of testdata/golden/v1-bloom-signed.bf (416 bytes).
constexpr uint64_t kSignedGoldenXxh3 = 0x5ce20c1101927327ull;
constexpr char kGoldenPublic[] =
    "bloomtool public key 1 ed25519 8ac2a31d249165d4\n"
    "3e77a50d15427f3016ffee9989919263323f664500612a20473a20a8fec15b5d\n";

std::string text_of(std::span<const uint8_t> b) {
  return {reinterpret_cast<const char*>(b.data()), b.size()};
}

// A key file is accepted only as written, or without its final newline.
void check_same_text(const std::string& written, std::span<const uint8_t> input) {
  const std::string in = text_of(input);
  FUZZ_CHECK(in == written || in + "\n" == written);
}

void verify_image(std::span<const uint8_t> bytes, const std::string& name) {
  static const PublicKey key = parse_public_key(
      {reinterpret_cast<const uint8_t*>(kGoldenPublic), sizeof kGoldenPublic - 1}, "golden.pub");
  const FilterHeader h = parse_filter_header(
      bytes.first(std::min<size_t>(bytes.size(), kMaxHeaderBytes)), bytes.size(), name);
  verify_file_signature(bytes, h, key, name);
  FUZZ_CHECK(bytes.size() == 416 && XXH3_64bits(bytes.data(), bytes.size()) == kSignedGoldenXxh3);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t mode = data[0] % 4;
  const std::span<const uint8_t> rest(data + 1, size - 1);
  const std::string name = "fuzz.input";
  try {
    switch (mode) {
      case 0: {
        const PublicKey k = parse_public_key(rest, name);
        check_same_text(public_key_file_text(k.bytes), rest);
        FUZZ_CHECK(k.id == key_id_of(k.bytes));
        break;
      }
      case 1:
        check_same_text(parse_signing_key(rest, name)->secret_file_text(), rest);
        break;
      case 2: {
        const SignatureField f = parse_signature_field(rest, 200, name);
        if (f.algorithm == kSignatureEd25519Blake2b) {
          const auto again = encode_signature_field(f);
          FUZZ_CHECK(rest.size() == again.size() &&
                     std::equal(again.begin(), again.end(), rest.begin()));
          FUZZ_CHECK(f.signature_offset == 200 + 12);
        }
        break;
      }
      default:
        verify_image(rest, name);
        break;
    }
  } catch (const Error& e) {
    fuzz::check_error(e, name,
                      {ErrorCode::kBadInput, ErrorCode::kUnsupported, ErrorCode::kCorrupt,
                       ErrorCode::kUntrusted, ErrorCode::kLimitExceeded});
  }
  return 0;
}
