// Fuzz target: KeyReader on arbitrary bytes (plain, zstd- or gzip-compressed, or what it refuses:
// other compressions and filter files), in every input format,
// with and without key normalisation. Byte 0 chooses the key limit (bits 0-2) and the format
// (bits 3-4: lines, ndjson, delimited, csv); byte 1 the format's parameters and the normalisation.
// Checks:
//  - lines, delimited, and csv on input without quotes: exactly the keys and counts a direct
//    reference splitter finds (normalised by the same Normaliser), or an error when it fails;
//  - every format: with --skip-bad-lines the reader hands out the same keys as without, plus those
//    after the bad lines, and counts a bad line exactly when the strict reader fails on one;
//  - every error is bad-input / limit-exceeded and names the input.
#include <zstd.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "keys/key_reader.h"
#include "keys/normalise.h"
#include "keys/byte_source.h"
#include "fuzz_util.h"

namespace {

using namespace bloomtool;

constexpr uint64_t kLimits[8] = {1, 2, 3, 7, 64, 4096, 1u << 20, kDefaultMaxKeyBytes};
constexpr InputFormat kFormats[4] = {InputFormat::kLines, InputFormat::kNdjson,
                                     InputFormat::kDelimited, InputFormat::kCsv};
const char* const kFields[4] = {"", "/k", "/a/0", "/x~1y"};
constexpr char kDelimiters[4] = {'\t', ',', ' ', '|'};
constexpr size_t kMaxDecompressed = 8u << 20;
const std::string kName = "fuzz-input";

Normaliser pick_normaliser(unsigned choice) {
  switch (choice) {
    case 1:
      return Normaliser({{NormStepKind::kTrim, {}}, {NormStepKind::kLowercase, {}}});
    case 2:
      return Normaliser({{NormStepKind::kEmail, {}}});
    case 3:
      return Normaliser({{NormStepKind::kUrl, {}}});
    case 4:
      return Normaliser({{NormStepKind::kPhone, {}}});
    case 5:
      return Normaliser({{NormStepKind::kStripPrefix, "ab"}, {NormStepKind::kTrim, {}}});
    default:
      return Normaliser();
  }
}

// The input as the reader should see it: decompressed like the reader does (zstd frames, window
// at most 2^27) when it starts with the zstd magic; an error when its first bytes (or those it
// decompresses to) are another compression's or a filter file's; not restated for gzip.
struct Plain {
  enum { kOk, kError, kTooBig } status = kOk;
  std::string bytes;
};

// The kind the reader gives bytes whose size it knows (memory) or learns at their end (a stream).
InputKind kind_of(std::string_view b, bool size_known) {
  const std::string_view head = b.substr(0, kSniffBytes);
  const bool whole = size_known || b.size() < kSniffBytes;
  return classify_input_head(head, whole ? std::optional<uint64_t>(b.size()) : std::nullopt).kind;
}

Plain reference_bytes(std::string_view in) {
  const Plain error{Plain::kError, {}}, too_big{Plain::kTooBig, {}};
  const InputKind kind = kind_of(in, true);
  if (kind == InputKind::kText) return {Plain::kOk, std::string(in)};
  if (kind == InputKind::kGzip) return too_big;  // no reference inflater here
  if (kind != InputKind::kZstd) return error;
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
  if (kind_of(out, false) != InputKind::kText) return error;  // compressed twice, or a filter
  return {Plain::kOk, std::move(out)};
}

struct Result {
  std::vector<std::string> keys;
  InputStats stats;
  std::optional<ErrorCode> error;
};

// The documented `lines` and `delimited` formats, split directly: LF or CRLF, last line may lack
// its newline, empty lines skipped and counted, a UTF-8 BOM at the start dropped, a line longer
// than the limit an error; delimited: column N of the line split on the delimiter, too few
// columns a bad line. Keys then go through the normaliser; an empty result is an empty key.
Result reference_split(std::string_view s, const InputOptions& o) {
  Result r;
  size_t at = 0;
  bool first = true;
  NormScratch scratch;
  while (at < s.size()) {
    const size_t nl = s.find('\n', at);
    const size_t end = nl == std::string_view::npos ? s.size() : nl;
    std::string_view line = s.substr(at, end - at);
    at = nl == std::string_view::npos ? s.size() : nl + 1;
    ++r.stats.lines;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (first && line.substr(0, 3) == "\xEF\xBB\xBF") line.remove_prefix(3);
    first = false;
    if (line.size() > o.max_key_bytes) {
      r.error = ErrorCode::kLimitExceeded;
      return r;
    }
    if (line.empty()) {
      ++r.stats.empty_lines;
      continue;
    }
    std::string_view key = line;
    if (o.format != InputFormat::kLines) {
      size_t pos = 0;
      for (uint32_t col = 1; col < o.column && pos != std::string_view::npos; ++col) {
        pos = line.find(o.delimiter, pos);
        if (pos != std::string_view::npos) ++pos;
      }
      if (pos == std::string_view::npos) {
        if (!o.skip_bad_lines) {
          r.error = ErrorCode::kBadInput;
          return r;
        }
        ++r.stats.bad_lines;
        continue;
      }
      const size_t stop = line.find(o.delimiter, pos);
      key = line.substr(pos, stop == std::string_view::npos ? std::string_view::npos : stop - pos);
    }
    if (!o.normaliser.empty()) key = o.normaliser.apply(key, scratch);
    if (key.empty()) {
      ++r.stats.empty_keys;
      continue;
    }
    ++r.stats.keys;
    r.keys.emplace_back(key);
  }
  r.stats.bytes = s.size();
  return r;
}

Result read_all(std::string_view bytes, const InputOptions& options) {
  Result r;
  try {
    const auto reader = KeyReader::from_memory(bytes, kName, options);
    KeyBatch batch;
    while (reader->next(batch)) {
      FUZZ_CHECK(!batch.keys.empty() && batch.keys.size() <= KeyBatch::kBatchSize);
      FUZZ_CHECK(batch.keys.size() == batch.records.size());
      for (size_t i = 0; i < batch.keys.size(); ++i) {
        FUZZ_CHECK(!batch.keys[i].empty());
        FUZZ_CHECK(batch.records[i].size() <= options.max_key_bytes);
        FUZZ_CHECK(batch.records[i].find('\n') == std::string_view::npos);
        r.keys.emplace_back(batch.keys[i]);
      }
    }
    r.stats = reader->stats();
    FUZZ_CHECK(r.stats.keys == r.keys.size());
    FUZZ_CHECK(r.stats.keys + r.stats.empty_lines + r.stats.empty_keys + r.stats.bad_lines ==
               r.stats.lines);
  } catch (const Error& e) {
    fuzz::check_error(e, kName, {ErrorCode::kBadInput, ErrorCode::kLimitExceeded});
    r.error = e.code();
  }
  return r;
}

bool same_counts(const InputStats& a, const InputStats& b) {
  return a.lines == b.lines && a.keys == b.keys && a.empty_lines == b.empty_lines &&
         a.empty_keys == b.empty_keys && a.bad_lines == b.bad_lines && a.bytes == b.bytes;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::Bytes in(data, size);
  const uint8_t opts = in.u8();
  const uint8_t params = in.u8();
  InputOptions options;
  options.max_key_bytes = kLimits[opts & 7];
  options.format = kFormats[(opts >> 3) & 3];
  options.field = kFields[params & 3];
  options.delimiter = kDelimiters[params & 3];
  options.column = 1 + ((params >> 2) & 3) % 3;
  options.normaliser = pick_normaliser((params >> 4) & 7);
  // TODO(new input formats): extend kFormats and give each a reference check if it has one.
  const std::string_view bytes = in.rest();

  const Result strict = read_all(bytes, options);
  InputOptions skipping = options;
  skipping.skip_bad_lines = true;
  const Result lenient = read_all(bytes, skipping);

  // Skipping bad lines changes nothing before the first one, and counts one iff strict fails.
  if (!strict.error) {
    FUZZ_CHECK(!lenient.error);
    FUZZ_CHECK(lenient.keys == strict.keys && same_counts(lenient.stats, strict.stats));
  } else if (!lenient.error) {
    FUZZ_CHECK(*strict.error == ErrorCode::kBadInput);
    FUZZ_CHECK(lenient.stats.bad_lines >= 1);
    FUZZ_CHECK(std::equal(strict.keys.begin(), strict.keys.end(), lenient.keys.begin()));
  }

  // A reference for the formats simple enough to restate: lines, delimited, and csv on input
  // with no double quote (where csv splits exactly like delimited).
  const bool csv_as_delimited =
      options.format == InputFormat::kCsv && bytes.find('"') == std::string_view::npos;
  if (options.format == InputFormat::kNdjson ||
      (options.format == InputFormat::kCsv && !csv_as_delimited)) {
    return 0;
  }
  const Plain plain = reference_bytes(bytes);
  if (plain.status == Plain::kTooBig) return 0;
  if (csv_as_delimited && plain.bytes.find('"') != std::string::npos) return 0;
  for (const InputOptions* o : {&options, &skipping}) {
    const Result& got = o == &options ? strict : lenient;
    if (plain.status == Plain::kError) {
      FUZZ_CHECK(got.error.has_value());
      continue;
    }
    const Result want = reference_split(plain.bytes, *o);
    FUZZ_CHECK(got.error.has_value() == want.error.has_value());
    if (got.error) {
      FUZZ_CHECK(*got.error == *want.error);
      continue;
    }
    FUZZ_CHECK(got.keys == want.keys);
    FUZZ_CHECK(same_counts(got.stats, want.stats));
  }
  return 0;
}
