// Fuzz target: the foreign-format readers (Guava BloomFilter.writeTo bytes, DCSO bloom v1 plain
// or gzip) on arbitrary bytes. The first byte picks the reader: bit 0 clear = Guava, set = DCSO
// (bit 1 set: the rest is gunzipped first, with a 1 MiB output cap). A file is either rejected
// with a corrupt / unsupported / limit error naming it, or it loads, answers queries without
// throwing, and serializes back to exactly the bytes it was read from.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "bloomtool/dcso_bloom.h"
#include "bloomtool/guava_bloom.h"
#include "fuzz_util.h"
#include "interop_io.h"

namespace {

using namespace bloomtool;

const char* const kProbeKeys[] = {"", "a", "https://example.com/", "0123456789abcdef0"};

void guava_case(std::span<const uint8_t> bytes) {
  const std::string name = "fuzz.guava";
  try {
    const guava::GuavaBloom f = guava::GuavaBloom::deserialize(bytes, name);
    for (const char* k : kProbeKeys) (void)f.might_contain(k);
    const std::vector<uint8_t> again = f.serialize();
    FUZZ_CHECK(again.size() == bytes.size());
    FUZZ_CHECK(std::equal(again.begin(), again.end(), bytes.begin()));
  } catch (const Error& e) {
    fuzz::check_error(e, name, {ErrorCode::kCorrupt, ErrorCode::kUnsupported});
  }
}

void dcso_case(std::span<const uint8_t> bytes, bool gzip) {
  const std::string name = "fuzz.bloom";
  try {
    std::vector<uint8_t> plain(bytes.begin(), bytes.end());
    if (gzip) plain = interop_io::gunzip(bytes, name, 1 << 20);
    const dcso::DcsoBloom f = dcso::DcsoBloom::deserialize(plain, name);
    for (const char* k : kProbeKeys) (void)f.check(k);
    FUZZ_CHECK(f.serialize() == plain);
  } catch (const Error& e) {
    fuzz::check_error(e, name,
                      {ErrorCode::kCorrupt, ErrorCode::kUnsupported, ErrorCode::kLimitExceeded});
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::span<const uint8_t> rest(data + 1, size - 1);
  if ((data[0] & 1) == 0) {
    guava_case(rest);
  } else {
    dcso_case(rest, (data[0] & 2) != 0);
  }
  return 0;
}
