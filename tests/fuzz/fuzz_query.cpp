// Fuzz target: queries with fuzzed keys. Byte 0 picks the variant and geometry of a filter that
// the rest of the input (read as lines by KeyReader) is inserted into; then every key must be
// found (no false negatives), the concurrent insert must set the same bits as the plain one, and
// batch queries must agree with single queries, on that filter and on a fixed filter of other
// keys.
#include <memory>
#include <string>
#include <vector>

#include "bloomtool/bloom.h"
#include "bloomtool/hash.h"
#include "bloomtool/key_reader.h"
#include "fuzz_util.h"

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

void check_batch_agrees(const BloomFilter& f, const std::vector<uint64_t>& hashes) {
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
  if (!hashes.empty()) {
    BloomFilter one_by_one(m, k, variant);
    for (uint64_t h : hashes) one_by_one.add(h);
    FUZZ_CHECK(std::equal(plain.words().begin(), plain.words().end(), one_by_one.words().begin()));
  }
  return 0;
}
