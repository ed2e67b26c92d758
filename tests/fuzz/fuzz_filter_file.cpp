// Fuzz target: the filter-file reader (parse_filter_file + make_filter) on arbitrary bytes, zstd
// and raw (codec 2: the chunk table and padding), and the bounded raw reader (RawPayloadView via
// load_filter, chunks read with pread into its cache) over the same bytes in a memfd, before and
// after the file is truncated or rewritten under it: its answers are the in-memory filter's, or
// it throws kCorrupt naming the file.
// Each input is tried twice: as is, and with both checksums (for a raw file also its chunk table)
// recomputed so that mutations reach the field parsing and kind checks behind them. A file is
// either rejected with a corrupt / unsupported / limit error naming it, or it loads, answers
// queries, and survives a re-encode. The repaired input is also read through a pipe, as a FIFO or
// device is read (read_filter_stream_image: header first, then exactly the declared bytes).
#include <sys/mman.h>
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "format/filter_file.h"
#include "api/load_filter.h"
#include "keys/normalise.h"
#include "format/raw_payload.h"
#include "base/byte_order.h"
#include "fuzz_util.h"

namespace {

using namespace bloomtool;

// Payloads above this are skipped after the header parse: a valid header may declare a large
// filter, and decompressing gigabytes is not what this target is for (tests/unit covers the limit
// checks on such headers).
constexpr uint64_t kMaxFuzzPayload = 16u << 20;

void repair_checksums(std::vector<uint8_t>& b) {
  if (b.size() < 16) return;
  const uint32_t hb = le::load<uint32_t>(&b[12]);
  if (hb < kFixedHeaderBytes + 8 || hb > b.size()) return;
  const uint64_t stored = le::load<uint64_t>(&b[96]);
  if (stored <= b.size() - hb) {
    le::store<uint64_t>(&b[112], XXH3_64bits(b.data() + hb, static_cast<size_t>(stored)));
  }
  le::store<uint64_t>(&b[hb - 8], XXH3_64bits(b.data(), hb - 8));
  // A raw file whose header now parses: its chunk table and the table's checksum too.
  try {
    const FilterHeader h = parse_filter_header(b, b.size(), "fuzz.bf");
    if (h.codec != PayloadCodec::kRawChunked) return;
    const uint64_t chunks = raw_chunk_count(h);
    for (uint64_t i = 0; i < chunks; ++i) {
      const uint64_t at = h.raw_payload_offset + i * h.raw_chunk_bytes;
      const uint64_t n = std::min(h.raw_chunk_bytes, h.payload_raw_bytes - i * h.raw_chunk_bytes);
      le::store<uint64_t>(&b[hb + i * 8], XXH3_64bits(b.data() + at, n));
    }
    le::store<uint64_t>(&b[112], XXH3_64bits(b.data() + hb, chunks * 8));
    le::store<uint64_t>(&b[hb - 8], XXH3_64bits(b.data(), hb - 8));
  } catch (const Error&) {
  }
}

// Answers of the raw reader for `hashes` compared with the in-memory filter's: equal, or kCorrupt
// naming `name` (returns false then).
bool same_answers(const LoadedFilter& raw, const LoadedFilter& ref,
                  std::span<const uint64_t> hashes, const std::string& name) {
  uint8_t got[64];
  try {
    filter_contains_hashes(raw, hashes, got);
  } catch (const Error& e) {
    fuzz::check_error(e, name, {ErrorCode::kCorrupt});
    return false;
  }
  for (size_t i = 0; i < hashes.size(); ++i)
    FUZZ_CHECK(got[i] == ref.filter->contains_hash(hashes[i]));
  return true;
}

// The bounded raw reader over `bytes` (a raw file that parse_filter_file accepted as `ref`).
void try_raw_reader(std::span<const uint8_t> bytes, const LoadedFilter& ref) {
  const int fd = memfd_create("fuzz", MFD_CLOEXEC);
  if (fd < 0) return;
  const std::string name = "/proc/self/fd/" + std::to_string(fd);
  try {
    if (pwrite(fd, bytes.data(), bytes.size(), 0) == static_cast<ssize_t>(bytes.size())) {
      // A cache of one chunk: every group of probes reads and checks its chunks again.
      auto view = std::make_shared<const RawPayloadView>(name, 1);
      const LoadedFilter f = make_raw_filter(view, name);
      uint64_t hashes[64];
      for (uint64_t i = 0; i < 64; ++i) hashes[i] = i * 0xD1B54A32D192ED03ull + bytes.size();
      FUZZ_CHECK(same_answers(f, ref, hashes, name));
      // Rewritten in place: a payload byte changed (chosen by the input's length).
      const uint64_t payload = f.header.raw_payload_offset;
      const uint64_t at = payload + bytes.size() * 7919 % (bytes.size() - payload);
      const uint8_t flipped = static_cast<uint8_t>(bytes[at] ^ 0x5A);
      FUZZ_CHECK(pwrite(fd, &flipped, 1, static_cast<off_t>(at)) == 1);
      same_answers(f, ref, hashes, name);
      // Truncated under the reader, then to nothing.
      FUZZ_CHECK(ftruncate(fd, static_cast<off_t>(payload + (at - payload) / 2)) == 0);
      same_answers(f, ref, hashes, name);
      FUZZ_CHECK(ftruncate(fd, 0) == 0);
      same_answers(f, ref, hashes, name);
      // Whole: possible only if every chunk was still resident, and then from verified bytes.
      verify_whole_payload(f);
      FUZZ_CHECK(same_answers(f, ref, hashes, name));
    }
  } catch (const Error& e) {
    fuzz::check_error(e, name, {ErrorCode::kCorrupt});
  }
  close(fd);
}

void try_load(std::span<const uint8_t> bytes) {
  const std::string name = "fuzz.bf";
  try {
    const FilterHeader h = parse_filter_header(
        bytes.first(std::min<size_t>(bytes.size(), kMaxHeaderBytes)), bytes.size(), name);
    if (h.payload_raw_bytes > kMaxFuzzPayload) return;
    FilterFileContents contents = parse_filter_file(bytes, name);
    FUZZ_CHECK(contents.payload.size() * 8 == contents.header.payload_raw_bytes);
    FUZZ_CHECK(contents.file_bytes == bytes.size());

    // Re-encoding what was read gives a file that reads back the same.
    FilterHeader again = contents.header;
    const std::vector<uint8_t> image =
        encode_filter_file(again, contents.payload.span(), contents.header.payload_raw_bytes);
    const FilterFileContents reread = parse_filter_file(image, name);
    FUZZ_CHECK(reread.header.m == contents.header.m && reread.header.k == contents.header.k);
    FUZZ_CHECK(reread.header.label == contents.header.label);
    FUZZ_CHECK(reread.payload.size() == contents.payload.size());
    FUZZ_CHECK(std::equal(reread.payload.span().begin(), reread.payload.span().end(),
                          contents.payload.span().begin()));
    // And as a raw file.
    FilterHeader raw_header = contents.header;
    const std::vector<uint8_t> raw_image =
        encode_filter_file(raw_header, contents.payload.span(), contents.header.payload_raw_bytes,
                           WriteOptions{PayloadCodec::kRawChunked});
    const FilterFileContents raw_reread = parse_filter_file(raw_image, name);
    FUZZ_CHECK(raw_reread.header.codec == PayloadCodec::kRawChunked);
    FUZZ_CHECK(std::equal(raw_reread.payload.span().begin(), raw_reread.payload.span().end(),
                          contents.payload.span().begin()));

    LoadedFilter f = make_filter(std::move(contents), name);
    if (f.header.codec == PayloadCodec::kRawChunked) try_raw_reader(bytes, f);
    Normaliser::parse(f.header.normalisation, name);  // as query does; untrusted text too
    uint64_t hashes[64];
    uint8_t batch[64];
    for (uint64_t i = 0; i < 64; ++i) hashes[i] = i * 0x9E3779B97F4A7C15ull;
    f.filter->contains_batch(hashes, batch);
    for (size_t i = 0; i < 64; ++i) FUZZ_CHECK(batch[i] == f.filter->contains_hash(hashes[i]));
  } catch (const Error& e) {
    fuzz::check_error(e, name,
                      {ErrorCode::kCorrupt, ErrorCode::kUnsupported, ErrorCode::kLimitExceeded});
  }
}

// The same bytes through a pipe (a FIFO, a device, standard input): the header-first reader, which
// reads exactly what the checked header declares. What it accepts is the whole input, unchanged.
void try_stream(std::span<const uint8_t> bytes) {
  const int fd = fuzz::pipe_holding(bytes);
  if (fd < 0) return;
  const std::string name = "fuzz.stream";
  try {
    const std::vector<uint8_t> image = read_filter_stream_image(fd, name);
    FUZZ_CHECK(image.size() == bytes.size() &&
               std::equal(image.begin(), image.end(), bytes.begin()));
  } catch (const Error& e) {
    fuzz::check_error(e, name,
                      {ErrorCode::kCorrupt, ErrorCode::kUnsupported, ErrorCode::kLimitExceeded});
  }
  ::close(fd);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try_load({data, size});
  std::vector<uint8_t> repaired(data, data + size);
  repair_checksums(repaired);
  try_load(repaired);
  try_stream(repaired);
  return 0;
}
