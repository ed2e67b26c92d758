// Signed filter files and key files: a signed file verifies with its key and with no other, every
// single-bit flip of the signed golden file is refused (as is, and with both XXH3 checksums
// recomputed, so the signature alone must catch it), a targeted edit that clears a member's bits
// and fixes the checksums is refused, unsigned files stay as they were, key files reject damage
// and loose permissions, and seeds come from the random source.
#include <sys/stat.h>
#include <xxhash.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "filters/bloom.h"
#include "bloomtool/error.h"
#include "keys/hash.h"
#include "api/load_filter.h"
#include "format/signature.h"
#include "base/byte_order.h"
#include "golden_files.h"
#include "temp_dir.h"

using namespace bloomtool;
using bloomtool::test::golden_path;
using bloomtool::test::TempDir;

namespace {

std::vector<uint8_t> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

std::span<const uint8_t> as_bytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

std::unique_ptr<SigningKey> test_key(uint8_t first) {
  std::array<uint8_t, kKeySeedBytes> seed;
  for (size_t i = 0; i < seed.size(); ++i) seed[i] = static_cast<uint8_t>(first + i);
  return std::make_unique<SigningKey>(seed);
}

PublicKey public_of(const SigningKey& key) {
  return parse_public_key(as_bytes(public_key_file_text(key.public_key())), "test.pub");
}

// The golden keys' Bloom filter, as build writes it (m = 1024, k = 5).
std::vector<uint8_t> golden_image(const WriteOptions& options) {
  BloomFilter f(1024, 5, BloomVariant::kStandard);
  std::ifstream in(std::string(BLOOMTOOL_TESTDATA) + "/golden/keys.txt");
  for (std::string key; std::getline(in, key);) f.add(hash_key(key, kDefaultSeed));
  FilterHeader h;
  h.kind = FilterKind::kBloom;
  h.hash_id = kHashXxh3_64;
  h.seed = kDefaultSeed;
  h.m = 1024;
  h.k = 5;
  h.input_options = "lines";
  return encode_filter_file(h, f.words(), f.words().size() * 8, options);
}

// Reads an image as `query --trusted-key` does; the error, or nullopt if it was accepted.
std::optional<Error> try_verified(std::span<const uint8_t> bytes, const PublicKey& key) {
  try {
    const FilterHeader h = parse_filter_header(
        bytes.first(std::min<size_t>(bytes.size(), kMaxHeaderBytes)), bytes.size(), "f.bf");
    verify_file_signature(bytes, h, key, "f.bf");
    make_filter(parse_filter_file(bytes, "f.bf"), "f.bf");
    return std::nullopt;
  } catch (const Error& e) {
    return e;
  }
}

// What an attacker who can write the file does after editing it: both XXH3 checksums recomputed.
void repair_checksums(std::vector<uint8_t>& b) {
  const uint32_t hb = le::load<uint32_t>(&b[12]);
  if (hb < kFixedHeaderBytes + 8 || hb > b.size()) return;
  const uint64_t stored = le::load<uint64_t>(&b[96]);
  if (stored <= b.size() - hb)
    le::store<uint64_t>(&b[112], XXH3_64bits(b.data() + hb, static_cast<size_t>(stored)));
  le::store<uint64_t>(&b[hb - 8], XXH3_64bits(b.data(), hb - 8));
}

PublicKey golden_public_key() {
  return read_public_key(std::string(BLOOMTOOL_TESTDATA) + "/golden/golden-signing.pub");
}

}  // namespace

TEST_CASE("a signed file verifies with its key only; unsigned files are unchanged", "[signature]") {
  const auto key = test_key(1), other = test_key(2);
  WriteOptions sign;
  sign.signing_key = key.get();
  const std::vector<uint8_t> unsigned_image = golden_image({});
  const std::vector<uint8_t> signed_image = golden_image(sign);

  const FilterHeader u = parse_filter_header(unsigned_image, unsigned_image.size(), "u.bf");
  CHECK(u.minor == 0);
  CHECK_FALSE(u.signature);
  const FilterHeader s = parse_filter_header(signed_image, signed_image.size(), "s.bf");
  CHECK(s.minor == 1);
  REQUIRE(s.signature);
  CHECK(s.signature->key_id == key->id());
  CHECK(s.header_bytes == u.header_bytes + 8 + kSignatureFieldBytes);
  // The payload is the same bytes; only the header grew by field 9.
  CHECK(std::equal(
      unsigned_image.begin() + static_cast<ptrdiff_t>(u.header_bytes), unsigned_image.end(),
      signed_image.begin() + static_cast<ptrdiff_t>(s.header_bytes), signed_image.end()));

  CHECK_FALSE(try_verified(signed_image, public_of(*key)));
  const auto wrong = try_verified(signed_image, public_of(*other));
  REQUIRE(wrong);
  CHECK(wrong->code() == ErrorCode::kUntrusted);
  CHECK_THAT(wrong->what(), Catch::Matches("f\\.bf: signed by key " + key_id_hex(key->id()) +
                                           ", not by the trusted key " + key_id_hex(other->id()) +
                                           " \\(test\\.pub\\)"));
  const auto bare = try_verified(unsigned_image, public_of(*key));
  REQUIRE(bare);
  CHECK(bare->code() == ErrorCode::kUntrusted);
  CHECK(std::string(bare->what()) ==
        "f.bf: not signed; the trusted key " + key_id_hex(key->id()) + " (test.pub) is required");
  // Without a trusted key a signed file reads like any other.
  CHECK(make_filter(parse_filter_file(signed_image, "s.bf"), "s.bf").header.m == 1024);
}

TEST_CASE("the streamed writer signs exactly as the in-memory encoder", "[signature]") {
  const auto key = test_key(7);
  WriteOptions sign;
  sign.signing_key = key.get();
  BloomFilter f(1 << 22, 7, BloomVariant::kStandard);  // several 1 MiB read-back chunks
  for (uint64_t i = 0; i < 400000; ++i) f.add(mix64(i));
  FilterHeader h;
  h.kind = FilterKind::kBloom;
  h.hash_id = kHashXxh3_64;
  h.seed = kDefaultSeed;
  h.m = f.bits();
  h.k = 7;
  FilterHeader h2 = h;
  const std::vector<uint8_t> image = encode_filter_file(h, f.words(), f.words().size() * 8, sign);
  TempDir dir;
  const std::string path = dir.path() + "/big.bf";
  write_filter_file(path, h2, f.words(), f.words().size() * 8, sign);
  CHECK(read_bytes(path) == image);  // Ed25519 is deterministic
  CHECK(load_verified_filter(path, public_of(*key)).header.m == f.bits());
}

TEST_CASE("a signed raw (codec 2) file is verified over every byte, then used in place",
          "[signature]") {
  const auto key = test_key(21);
  WriteOptions sign;
  sign.signing_key = key.get();
  sign.codec = PayloadCodec::kRawChunked;
  BloomFilter f(1 << 20, 7, BloomVariant::kStandard);  // 128 KiB: two 64 KiB chunks
  for (uint64_t i = 0; i < 50000; ++i) f.add(mix64(i));
  FilterHeader h;
  h.kind = FilterKind::kBloom;
  h.hash_id = kHashXxh3_64;
  h.seed = kDefaultSeed;
  h.m = f.bits();
  h.k = 7;
  TempDir dir;
  const std::string path = dir.path() + "/raw.bf";
  write_filter_file(path, h, f.words(), f.words().size() * 8, sign);
  const LoadedFilter loaded = load_verified_filter(path, public_of(*key));
  CHECK(loaded.header.codec == PayloadCodec::kRawChunked);
  REQUIRE(loaded.raw);  // read a chunk at a time, not copied whole
  uint8_t found = 0;
  const uint64_t member = mix64(123);
  filter_contains_hashes(loaded, std::span<const uint64_t>(&member, 1), &found);
  CHECK(found == 1);
  // A sample of flips over the whole file, payload included, each refused before any answer.
  const std::vector<uint8_t> image = read_bytes(path);
  REQUIRE(image.size() > 128 * 1024);
  size_t refused = 0, tried = 0;
  for (size_t bit = 5; bit < image.size() * 8; bit += 997) {
    std::vector<uint8_t> b = image;
    b[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
    const std::string flipped = dir.write(
        "flipped.bf", std::string_view(reinterpret_cast<const char*>(b.data()), b.size()));
    ++tried;
    try {
      load_verified_filter(flipped, public_of(*key));
    } catch (const Error&) {
      ++refused;
    }
  }
  CHECK(refused == tried);
}

TEST_CASE("every single-bit flip of the signed golden file is refused", "[signature]") {
  const std::vector<uint8_t> golden = read_bytes(golden_path("v1-bloom-signed.bf"));
  const PublicKey key = golden_public_key();
  REQUIRE(golden.size() == 416);
  REQUIRE_FALSE(try_verified(golden, key));
  const FilterHeader h = parse_filter_header(golden, golden.size(), "g.bf");
  size_t refused = 0, refused_repaired = 0, payload_bits = 0;
  for (size_t bit = 0; bit < golden.size() * 8; ++bit) {
    std::vector<uint8_t> b = golden;
    b[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
    if (!try_verified(b, key)) FAIL("bit " << bit << " flipped and accepted");
    ++refused;
    // With both checksums recomputed only the signature stands in the way. A flip in either
    // checksum itself is undone by the repair.
    const size_t byte = bit / 8;
    if ((byte >= h.header_bytes - 8 && byte < h.header_bytes) || (byte >= 112 && byte < 120))
      continue;
    repair_checksums(b);
    const auto e = try_verified(b, key);
    if (!e) FAIL("bit " << bit << " flipped, checksums repaired, and accepted");
    ++refused_repaired;
    if (byte >= h.header_bytes) {
      ++payload_bits;
      CHECK(e->code() == ErrorCode::kUntrusted);  // refused before the payload is decoded
    }
  }
  CHECK(refused == golden.size() * 8);
  CHECK(refused_repaired == (golden.size() - 16) * 8);
  CHECK(payload_bits == (golden.size() - h.header_bytes) * 8);
}

TEST_CASE("the signed golden file reads identically", "[signature][golden]") {
  const std::string path = golden_path("v1-bloom-signed.bf");
  const LoadedFilter f = load_verified_filter(path, golden_public_key());
  const FilterHeader& h = f.header;
  CHECK(h.major == 1);
  CHECK(h.minor == 1);
  CHECK(h.seed == 0x5eed0123456789abull);
  CHECK(h.m == 1024);
  CHECK(h.k == 5);
  CHECK(h.header_bytes == 293);
  CHECK(h.label == "golden-signed");
  CHECK(h.created_unix == 1700000000);
  REQUIRE(h.signature);
  CHECK(h.signature->algorithm == kSignatureEd25519Blake2b);
  CHECK(h.signature->key_id == golden_public_key().id);
  CHECK(h.signature->signature_offset == 293 - 8 - kSignatureBytes);
  std::ifstream in(std::string(BLOOMTOOL_TESTDATA) + "/golden/keys.txt");
  size_t n = 0;
  for (std::string key; std::getline(in, key); ++n)
    CHECK(f.filter->contains_hash(hash_key(key, h.seed)));
  CHECK(n == 40);
}

TEST_CASE("clearing a member's bits and fixing both checksums is refused", "[signature]") {
  const std::vector<uint8_t> golden = read_bytes(golden_path("v1-bloom-signed.bf"));
  FilterFileContents c = parse_filter_file(golden, "g.bf");
  const FilterHeader& h = c.header;
  // Clear the k bits of the first golden key, as an attacker who wants it through would.
  std::string member;
  std::getline(std::ifstream(std::string(BLOOMTOOL_TESTDATA) + "/golden/keys.txt") >> std::ws,
               member);
  const uint64_t hash = hash_key(member, h.seed);
  BloomFilter f(h.m, h.k, BloomVariant::kStandard, std::move(c.payload));
  REQUIRE(f.contains_hash(hash));
  std::vector<uint64_t> mask(f.words().size(), 0);
  {
    BloomFilter one(h.m, h.k, BloomVariant::kStandard);
    one.add(hash);
    for (size_t i = 0; i < mask.size(); ++i) mask[i] = one.words()[i];
  }
  std::vector<uint64_t> edited(f.words().begin(), f.words().end());
  for (size_t i = 0; i < edited.size(); ++i) edited[i] &= ~mask[i];
  // Re-encode the edited payload, then splice it under the original header (signature field
  // kept), with the payload length, payload checksum and header checksum fixed.
  FilterHeader plain = h;
  const std::vector<uint8_t> re = encode_filter_file(plain, edited, edited.size() * 8);
  std::vector<uint8_t> forged(golden.begin(),
                              golden.begin() + static_cast<ptrdiff_t>(h.header_bytes));
  forged.insert(forged.end(), re.begin() + static_cast<ptrdiff_t>(plain.header_bytes), re.end());
  le::store<uint64_t>(&forged[96], re.size() - plain.header_bytes);
  repair_checksums(forged);

  // Checksums alone are fooled: the key is gone.
  const LoadedFilter fooled = make_filter(parse_filter_file(forged, "f.bf"), "f.bf");
  CHECK_FALSE(fooled.filter->contains_hash(hash));
  REQUIRE(fooled.header.signature);
  // The signature is not.
  const auto e = try_verified(forged, golden_public_key());
  REQUIRE(e);
  CHECK(e->code() == ErrorCode::kUntrusted);
  CHECK_THAT(e->what(), Catch::Contains("signature does not match the file"));
}

TEST_CASE("key files round-trip and refuse damage", "[signature]") {
  const auto key = test_key(11);
  const std::string secret = key->secret_file_text();
  const std::string pub = public_key_file_text(key->public_key());
  const std::string id = key_id_hex(key->id());
  CHECK(secret.starts_with("bloomtool secret key 1 ed25519 " + id + "\n"));
  CHECK(pub.starts_with("bloomtool public key 1 ed25519 " + id + "\n"));
  CHECK(secret.size() == 31 + 16 + 1 + 64 + 1);
  CHECK(parse_signing_key(as_bytes(secret), "k.key")->id() == key->id());
  CHECK(parse_public_key(as_bytes(pub), "k.pub").bytes == key->public_key());
  // Without the final newline (a copy and paste) both still read.
  CHECK(parse_public_key(as_bytes(pub.substr(0, pub.size() - 1)), "k.pub").id == key->id());

  for (const std::string* text : {&secret, &pub}) {
    const bool is_secret = text == &secret;
    auto parse = [&](const std::string& t) {
      if (is_secret)
        parse_signing_key(as_bytes(t), "k");
      else
        parse_public_key(as_bytes(t), "k");
    };
    // Every truncation but the final newline, and every single-bit flip, is refused.
    for (size_t n = 0; n + 1 < text->size(); ++n) {
      INFO("cut at " << n);
      CHECK_THROWS_AS(parse(text->substr(0, n)), Error);
    }
    for (size_t bit = 0; bit < text->size() * 8; ++bit) {
      std::string t = *text;
      t[bit / 8] = static_cast<char>(t[bit / 8] ^ (1 << (bit % 8)));
      INFO("bit " << bit);
      CHECK_THROWS_AS(parse(t), Error);
    }
  }
  CHECK_THROWS_WITH(parse_public_key(as_bytes(secret), "k.key"),
                    "k.key: is a secret key file; give the public key (NAME.pub) here");
  CHECK_THROWS_WITH(parse_signing_key(as_bytes(pub), "k.pub"),
                    "k.pub: is a public key file; signing needs the secret key (NAME.key)");
  std::string swapped = pub;
  swapped[swapped.size() - 2] = swapped[swapped.size() - 2] == '0' ? '1' : '0';
  CHECK_THROWS_WITH(parse_public_key(as_bytes(swapped), "k.pub"),
                    "k.pub: damaged key file: the key does not match its key id");
}

TEST_CASE("keygen writes 0600 and 0644 files, never overwrites, and secret keys must be private",
          "[signature]") {
  TempDir dir;
  const std::string name = dir.path() + "/fleet";
  const KeyId id = generate_key_files(name);
  struct stat st;
  REQUIRE(::stat((name + ".key").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  REQUIRE(::stat((name + ".pub").c_str(), &st) == 0);
  CHECK((st.st_mode & 0077) == ((0644 &
                                 ~[] {
                                   const mode_t m = ::umask(0);
                                   ::umask(m);
                                   return m;
                                 }()) &
                                0077));
  CHECK(read_signing_key(name + ".key")->id() == id);
  CHECK(read_public_key(name + ".pub").id == id);
  const std::vector<uint8_t> before = read_bytes(name + ".key");
  CHECK_THROWS_WITH(generate_key_files(name), Catch::Contains("exists; not replaced"));
  CHECK(read_bytes(name + ".key") == before);
  REQUIRE(::chmod((name + ".key").c_str(), 0640) == 0);
  CHECK_THROWS_WITH(read_signing_key(name + ".key"),
                    name +
                        ".key: secret key file may be used by group or others (mode 0640); "
                        "refused: run 'chmod 600 " +
                        name + ".key'");
  REQUIRE(::chmod((name + ".key").c_str(), 0400) == 0);
  CHECK(read_signing_key(name + ".key")->id() == id);
}

TEST_CASE("the signature field parser checks lengths and keeps unknown algorithms", "[signature]") {
  std::array<uint8_t, kSignatureFieldBytes> v{};
  le::store<uint32_t>(v.data(), 1);
  const SignatureField f = parse_signature_field(v, 200, "f.bf");
  CHECK(f.signature_offset == 200 + 12);
  CHECK_THROWS_WITH(parse_signature_field(std::span(v).first(75), 200, "f.bf"),
                    "f.bf: corrupt: signature field of 75 bytes, not 76");
  CHECK_THROWS_WITH(parse_signature_field(std::span(v).first(3), 200, "f.bf"),
                    "f.bf: corrupt: signature field of 3 bytes");
  le::store<uint32_t>(v.data(), 2);
  CHECK(parse_signature_field(std::span(v).first(4), 200, "f.bf").algorithm == 2);
}

TEST_CASE("random seeds come from the OS and differ", "[signature]") {
  // Two equal 64-bit draws would happen with probability 2^-64.
  CHECK(random_seed() != random_seed());
}
