// Fuzz target: queries with fuzzed keys. Byte 0 picks the variant and geometry of a Bloom filter
// and the layout of an xor / binary fuse filter that the rest of the input (read as lines by
// KeyReader) is inserted into; then every key must be found (no false negatives), the concurrent
// insert must set the same bits as the plain one, and batch queries must agree with single
// queries, on those filters and on fixed filters of other keys.
#include <memory>
#include <string>
#include <vector>

#include "filters/bloom.h"
#include "filters/xor_construct.h"
#include "fuzz_util.h"
#include "keys/hash.h"
#include "keys/key_reader.h"

namespace {

using namespace bloomtool;

constexpr uint64_t kBits[4] = {1, 100, 4096, 1 << 16};
constexpr uint32_t kHashes[4] = {1, 3, 7, 64};

// A filter of 1000 fixed keys per variant, built once.
const BloomFilter& fixed_filter(BloomVariant v) {
  static const auto make = [](BloomVariant variant) {
    auto f = std::make_unique<BloomFilter>(10000, 7, variant);
    for (int i = 0; i < 1000; ++i) f->add(hash_key("member-" + std::to_string(i), kDefaultSeed));
    return f;
  };
  static const auto standard = make(BloomVariant::kStandard);
  static const auto blocked = make(BloomVariant::kBlocked512);
  return v == BloomVariant::kStandard ? *standard : *blocked;
}

// A binary fuse filter of the same 1000 keys, 8-bit fingerprints, built once.
const XorFilter& fixed_fuse() {
  static const auto filter = [] {
    std::vector<uint64_t> hashes;
    for (int i = 0; i < 1000; ++i)
      hashes.push_back(hash_key("member-" + std::to_string(i), kDefaultSeed));
    return std::move(build_xor_filter(hashes, XorBuildOptions{}).filter);
  }();
  return *filter;
}

void check_batch_agrees(const Filter& f, const std::vector<uint64_t>& hashes) {
  std::vector<uint8_t> out(hashes.size());
  f.contains_batch(hashes, out.data());
  for (size_t i = 0; i < hashes.size(); ++i) FUZZ_CHECK(out[i] == f.contains_hash(hashes[i]));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::Bytes in(data, size);
  const uint8_t opts = in.u8();
  const auto variant = (opts & 1) ? BloomVariant::kBlocked512 : BloomVariant::kStandard;
  const uint64_t m = kBits[(opts >> 1) & 3];
  const uint32_t k = kHashes[(opts >> 3) & 3];
  const uint64_t seed = (opts & 0x20) ? kDefaultSeed : in.u64(8);
  const std::string_view bytes = in.rest();

  std::vector<uint64_t> hashes;
  try {
    InputOptions options;
    options.max_key_bytes = 4096;
    const auto reader = KeyReader::from_memory(bytes, "fuzz-keys", options);
    KeyBatch batch;
    while (reader->next(batch)) {
      for (std::string_view key : batch.keys) hashes.push_back(hash_key(key, seed));
    }
  } catch (const Error& e) {
    fuzz::check_error(e, "fuzz-keys", {ErrorCode::kBadInput, ErrorCode::kLimitExceeded});
    return 0;
  }

  BloomFilter plain(m, k, variant);
  BloomFilter concurrent(m, k, variant);
  plain.add_batch(hashes);
  concurrent.add_batch_concurrent(hashes);
  FUZZ_CHECK(plain.bits() == BloomFilter::effective_bits(m, variant));
  FUZZ_CHECK(std::equal(plain.words().begin(), plain.words().end(), concurrent.words().begin()));
  for (uint64_t h : hashes) FUZZ_CHECK(plain.contains_hash(h));
  check_batch_agrees(plain, hashes);
  check_batch_agrees(fixed_filter(variant), hashes);
  check_batch_agrees(fixed_fuse(), hashes);

  // The same keys in an xor or binary fuse filter (bit 6: layout, bit 7: 16-bit fingerprints):
  // every key found, batch and single queries agree. Construction may give up on a hostile set.
  XorBuildOptions xo;
  xo.layout = (opts & 0x40) ? XorLayout::kXor : XorLayout::kFuse;
  xo.fingerprint_bits = (opts & 0x80) ? 16 : 8;
  xo.max_attempts = 4;
  std::vector<uint64_t> xor_hashes = hashes;
  try {
    const XorBuildResult x = build_xor_filter(xor_hashes, xo);
    for (uint64_t h : hashes) FUZZ_CHECK(x.filter->contains_hash(h));
    check_batch_agrees(*x.filter, hashes);
    FUZZ_CHECK(x.distinct + x.duplicates == hashes.size());
  } catch (const Error& e) {
    FUZZ_CHECK(e.code() == ErrorCode::kLimitExceeded);
  }

  if (!hashes.empty()) {
    BloomFilter one_by_one(m, k, variant);
    for (uint64_t h : hashes) one_by_one.add(h);
    FUZZ_CHECK(std::equal(plain.words().begin(), plain.words().end(), one_by_one.words().begin()));
  }
  return 0;
}
