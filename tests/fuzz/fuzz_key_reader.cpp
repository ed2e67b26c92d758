// Fuzz target: KeyReader on arbitrary bytes (plain or zstd-compressed), differentially checked
// against a direct line splitter. Byte 0 chooses the options: bits 0-2 the key limit, bits 3-5 the
// input format. The reader must hand out exactly the keys the reference finds, with the same
// counts, or fail with a bad-input / limit error naming the input when the reference fails too.
#include <zstd.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bloomtool/key_reader.h"
#include "fuzz_util.h"

namespace {

using namespace bloomtool;

constexpr uint64_t kLimits[8] = {1, 2, 3, 7, 64, 4096, 1u << 20, kDefaultMaxKeyBytes};
constexpr size_t kMaxDecompressed = 8u << 20;

struct Expected {
  std::vector<std::string> keys;
  InputStats stats;
};

// The input as the reader should see it: decompressed like the reader does (zstd frames, window
// at most 2^27) when it starts with the zstd magic.
struct Plain {
  enum { kOk, kError, kTooBig } status = kOk;
  std::string bytes;
};

Plain reference_bytes(std::string_view in) {
  if (in.size() < 4 || in.substr(0, 4) != std::string_view("\x28\xB5\x2F\xFD", 4))
    return {Plain::kOk, std::string(in)};
  const Plain error{Plain::kError, {}}, too_big{Plain::kTooBig, {}};
  std::unique_ptr<ZSTD_DCtx, size_t (*)(ZSTD_DCtx*)> d(ZSTD_createDCtx(), ZSTD_freeDCtx);
  ZSTD_DCtx_setParameter(d.get(), ZSTD_d_windowLogMax, 27);
  std::string out;
  std::vector<char> buf(1 << 16);
  ZSTD_inBuffer ib{in.data(), in.size(), 0};
  size_t rc = 0;
  while (ib.pos < ib.size) {
    ZSTD_outBuffer ob{buf.data(), buf.size(), 0};
    rc = ZSTD_decompressStream(d.get(), &ob, &ib);
    if (ZSTD_isError(rc)) return error;
    out.append(buf.data(), ob.pos);
    if (out.size() > kMaxDecompressed) return too_big;
  }
  while (rc != 0) {  // flush what the decoder still holds
    ZSTD_outBuffer ob{buf.data(), buf.size(), 0};
    rc = ZSTD_decompressStream(d.get(), &ob, &ib);
    if (ZSTD_isError(rc)) return error;
    out.append(buf.data(), ob.pos);
    if (out.size() > kMaxDecompressed) return too_big;
    if (ob.pos == 0 && rc != 0) return error;  // ends inside a frame
  }
  return {Plain::kOk, std::move(out)};
}

// The `lines` format as documented: LF or CRLF, last line may lack its newline, empty lines
// skipped and counted, a UTF-8 BOM at the start dropped, a line longer than the limit an error.
std::optional<Expected> reference_lines(std::string_view s, uint64_t limit) {
  Expected e;
  size_t at = 0;
  bool first = true;
  while (at < s.size()) {
    const size_t nl = s.find('\n', at);
    const size_t end = nl == std::string_view::npos ? s.size() : nl;
    std::string_view line = s.substr(at, end - at);
    at = nl == std::string_view::npos ? s.size() : nl + 1;
    ++e.stats.lines;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (first && line.substr(0, 3) == "\xEF\xBB\xBF") line.remove_prefix(3);
    first = false;
    if (line.size() > limit) return std::nullopt;
    if (line.empty()) {
      ++e.stats.empty_lines;
      continue;
    }
    ++e.stats.keys;
    e.keys.emplace_back(line);
  }
  e.stats.bytes = s.size();
  return e;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::Bytes in(data, size);
  const uint8_t opts = in.u8();
  InputOptions options;
  options.max_key_bytes = kLimits[opts & 7];
  const unsigned format = (opts >> 3) & 7;
  // TODO(ndjson/delimited, issue 6): map more `format` values to the new input formats (set them
  // in `options`) and give each a reference splitter below; until then every value reads lines.
  (void)format;
  const std::string_view bytes = in.rest();
  const std::string name = "fuzz-input";

  std::vector<std::string> got;
  std::optional<InputStats> got_stats;
  try {
    KeyReader reader(MemoryInput{bytes, name}, options);
    KeyBatch batch;
    while (reader.next(batch)) {
      FUZZ_CHECK(!batch.keys.empty() && batch.keys.size() <= KeyBatch::kBatchSize);
      FUZZ_CHECK(batch.keys.size() == batch.records.size());
      for (std::string_view k : batch.keys) {
        FUZZ_CHECK(!k.empty() && k.size() <= options.max_key_bytes);
        FUZZ_CHECK(k.find('\n') == std::string_view::npos);
        got.emplace_back(k);
      }
    }
    got_stats = reader.stats();
  } catch (const Error& e) {
    fuzz::check_error(e, name, {ErrorCode::kBadInput, ErrorCode::kLimitExceeded});
  }

  const Plain plain = reference_bytes(bytes);
  if (plain.status == Plain::kTooBig) return 0;
  const std::optional<Expected> want = plain.status == Plain::kOk
                                           ? reference_lines(plain.bytes, options.max_key_bytes)
                                           : std::nullopt;
  if (got_stats) {
    FUZZ_CHECK(want.has_value());
    FUZZ_CHECK(got == want->keys);
    FUZZ_CHECK(got_stats->keys == want->stats.keys && got_stats->lines == want->stats.lines);
    FUZZ_CHECK(got_stats->empty_lines == want->stats.empty_lines);
    FUZZ_CHECK(got_stats->bytes == want->stats.bytes);
  } else {
    FUZZ_CHECK(!want.has_value());
  }
  return 0;
}
