// Fuzz target: the foreign-format readers (Guava BloomFilter.writeTo bytes, DCSO bloom v1 plain
// or gzip) on arbitrary bytes. The first byte picks the reader: bit 0 clear = Guava, set = DCSO
// (bit 1 set: the rest is gunzipped first, with a 1 MiB output cap). A file is either rejected
// with a corrupt / unsupported / limit error naming it, or it loads, answers queries without
// throwing, and serializes back to exactly the bytes it was read from. The same bytes then go
// through the CLI's path (foreign_format.h): parsed as a bloomtool filter of the peer's scheme,
// queried through filter_contains_keys, written as a bloomtool file (field 7), read back, and
// written in the peer's format again: the same bytes (gzip: the same decompressed bytes). And
// once more through a pipe, as query and stats read a FIFO: the bounded stream reader.
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "api/convert.h"
#include "api/load_filter.h"
#include "fuzz_util.h"
#include "interop/dcso_codec.h"
#include "interop/foreign_format.h"
#include "interop/guava_codec.h"
#include "interop/interop_io.h"

namespace {

using namespace bloomtool;

const char* const kProbeKeys[] = {"", "a", "https://example.com/", "0123456789abcdef0"};

void guava_case(std::span<const uint8_t> bytes) {
  const std::string name = "fuzz.guava";
  try {
    const BloomFilter f = guava::deserialize(bytes, name);
    for (const char* k : kProbeKeys) (void)f.contains(k);
    const std::vector<uint8_t> again = guava::serialize(f);
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
    const dcso::File f = dcso::File::deserialize(plain, name);
    if (scheme_geometry_problem(kHashDcsoFnv1, f.header.m, f.header.k).empty()) {
      const BloomFilter b = f.filter();
      for (const char* k : kProbeKeys) (void)b.contains(k);
    }
    FUZZ_CHECK(f.serialize() == plain);
  } catch (const Error& e) {
    fuzz::check_error(e, name,
                      {ErrorCode::kCorrupt, ErrorCode::kUnsupported, ErrorCode::kLimitExceeded});
  }
}

// The CLI's path: a peer file as a filter, to a bloomtool file and back.
void as_filter_case(std::span<const uint8_t> bytes, FileFormat format) {
  const std::string name = "fuzz.peer";
  const bool gzip = format == FileFormat::kDcso && interop_io::looks_gzip(bytes);
  LoadedFilter f;
  try {
    f = parse_foreign(bytes, format, name, 1 << 20);
  } catch (const Error& e) {
    fuzz::check_error(e, name,
                      {ErrorCode::kCorrupt, ErrorCode::kUnsupported, ErrorCode::kLimitExceeded});
    return;
  }
  std::vector<std::string_view> keys(std::begin(kProbeKeys), std::end(kProbeKeys));
  std::vector<uint8_t> found(keys.size());
  filter_contains_keys(f, keys, found.data());
  const std::vector<uint8_t> again = encode_foreign(f, format, name);
  std::vector<uint8_t> original(bytes.begin(), bytes.end());
  if (gzip) {
    original = interop_io::gunzip(bytes, name, 1 << 20);
    FUZZ_CHECK(interop_io::gunzip(again, name, 1 << 20) == original);
  } else {
    FUZZ_CHECK(again == original);
  }
  std::vector<uint8_t> file;
  try {
    FilterHeader h = f.header;
    const auto words = f.filter->words();
    file = encode_filter_file(h, words, words.size() * 8);
  } catch (const Error& e) {  // a DCSO data block too large for a header
    fuzz::check_error(e, name, {ErrorCode::kInvalidArgument});
    return;
  }
  LoadedFilter back = make_filter(parse_filter_file(file, "fuzz.bf"), "fuzz.bf");
  std::vector<uint8_t> found_back(keys.size());
  filter_contains_keys(back, keys, found_back.data());
  FUZZ_CHECK(found_back == found);
  FUZZ_CHECK(encode_foreign(back, format, "fuzz.bf") == again);
}

// The same bytes as a stream (a pipe named by /proc/self/fd, as a FIFO is named): the bounded
// reader of query and stats, which reads past a DCSO data block instead of keeping it. Where both
// load, the filters agree.
void stream_case(std::span<const uint8_t> bytes, FileFormat format) {
  const int fd = fuzz::pipe_holding(bytes);
  if (fd < 0) return;
  const std::string path = "/proc/self/fd/" + std::to_string(fd);
  LoadedFilter streamed;
  bool ok = false;
  try {
    streamed = load_filter_as(path, format, false);
    ok = true;
  } catch (const Error& e) {
    fuzz::check_error(e, path,
                      {ErrorCode::kCorrupt, ErrorCode::kUnsupported, ErrorCode::kLimitExceeded});
  }
  ::close(fd);
  if (!ok) return;
  try {
    const LoadedFilter whole = parse_foreign(bytes, format, "fuzz.peer", 1 << 20);
    FUZZ_CHECK(whole.header.m == streamed.header.m && whole.header.k == streamed.header.k);
    FUZZ_CHECK(whole.header.hash_id == streamed.header.hash_id);
    const auto a = whole.filter->words(), b = streamed.filter->words();
    FUZZ_CHECK(a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin()));
  } catch (const Error&) {  // the in-memory reader keeps the source: its limits are tighter
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::span<const uint8_t> rest(data + 1, size - 1);
  if ((data[0] & 1) == 0) {
    guava_case(rest);
    as_filter_case(rest, FileFormat::kGuava);
    stream_case(rest, FileFormat::kGuava);
  } else {
    dcso_case(rest, (data[0] & 2) != 0);
    as_filter_case(rest, FileFormat::kDcso);
    stream_case(rest, FileFormat::kDcso);
  }
  return 0;
}
