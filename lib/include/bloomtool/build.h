// Building a filter of any kind: a Plan says what to build (kind, size, seed, key
// normalisation, label), keys come from files or standard input (build_filter, reading them as
// `bloomtool build` and `xor-build` do) or from memory (Builder), and the result is written to a
// file (atomically, optionally signed) or returned as bytes. For the same keys and plan the file
// is byte for byte the one `bloomtool build` / `xor-build` writes (with a fixed creation time).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bloomtool/error.h"
#include "bloomtool/info.h"

namespace bloomtool {

struct Plan {
  Kind kind = Kind::kBloom;
  // Bloom sizing (`build -n -p -m -k`): a capacity n and a rate p (the filter is sized up front
  // and keys stream in); or a size m in bits, and optionally k; or only p (default 1%): the exact
  // count of distinct keys sizes the filter. k defaults to the best for the size.
  std::optional<uint64_t> n;
  std::optional<double> p;
  std::optional<uint64_t> m;
  std::optional<uint32_t> k;
  bool allow_overfill = false;  // write even when the distinct keys exceed n by more than 20%
  // Xor and binary fuse (`xor-build`): fingerprint bits, 8 or 16 (rate 2^-8 or 2^-16), and how
  // many construction seeds to try (1 to 10000).
  uint32_t fingerprint_bits = 8;
  uint32_t max_attempts = 100;
  // The hash seed: none is the public default; random_seed draws one from the operating system
  // (the file records it; nobody can compute the filter's false positives without the file).
  std::optional<uint64_t> seed;
  bool random_seed = false;
  // Key normalisation, applied before hashing and recorded in the file for queries: steps
  // separated by commas, applied in order: "trim", "lowercase", "strip-prefix=TEXT" (bytes of TEXT
  // outside printable ASCII, and ' ', '%', ',', ';', '=', written %XX) and the presets "email",
  // "phone", "url" (`bloomtool build --trim --lowercase --normalize email` is
  // "trim,lowercase,email"). "" uses keys as they are.
  std::string normalisation;
  std::string label;               // free text stored in the file
  std::optional<int64_t> created;  // creation time; none: SOURCE_DATE_EPOCH, else now
  unsigned threads = 0;            // 0: every core; the file does not depend on it
};

enum class KeyFormat {
  kLines,      // each line is a key
  kNdjson,     // one JSON value per line; the key is the string or number at `field`
  kDelimited,  // column `column` of the line split on `delimiter` (default tab); no quoting
  kCsv,        // like kDelimited with RFC 4180 double quotes (default delimiter ',')
};

// Where build_filter reads keys: files or standard input, zstd and gzip decompressed.
struct KeySource {
  std::vector<std::string> paths;  // none, or "-": standard input
  KeyFormat format = KeyFormat::kLines;
  std::string field;              // kNdjson: RFC 6901 JSON pointer, "" the whole value
  std::optional<char> delimiter;  // kDelimited, kCsv
  uint32_t column = 1;            // kDelimited, kCsv: 1-based
  std::string column_name;        // kDelimited, kCsv: the column of this name (implies header)
  bool header = false;            // kDelimited, kCsv: the first line of each input is a header
  bool skip_bad_lines = false;    // count and skip records without a usable key
  std::optional<uint64_t> max_bad_lines;       // fail after more than this many (implies skipping)
  uint64_t max_key_bytes = uint64_t{1} << 20;  // longest accepted line (1 to 1 GiB)
};

enum class Codec {
  kZstd,  // compressed (the default)
  kRaw,   // uncompressed and chunk-checksummed: read chunk by chunk when queried
};

// How a new file is written.
struct OutputOptions {
  Codec codec = Codec::kZstd;
  std::string signing_key;  // a secret key file (NAME.key of `bloomtool keygen`): sign the file
};

// What a build read and wrote.
struct BuildResult {
  FilterInfo info;              // the new file's facts
  bool distinct_exact = false;  // distinct_keys counted exactly (else estimated from the fill)
  uint64_t empty_keys = 0;      // keys skipped because normalisation left nothing
  uint64_t bad_lines = 0;       // records skipped as bad (KeySource::skip_bad_lines)
  std::string first_bad_line;   // "<path>: line N: <reason>" of the first of them
};

// Reads every key of `keys` and writes the filter `plan` describes to `path` atomically ("-":
// standard output), as `bloomtool build` / `xor-build` do. Throws bloomtool::Error:
// kInvalidArgument (a FieldError naming the Plan or KeySource member) for an impossible plan, the
// input's errors naming file and line, kLimitExceeded when the keys exceed n by more than 20%
// (unless allow_overfill) or no xor seed works; nothing is written then.
BuildResult build_filter(const KeySource& keys, const Plan& plan, const std::string& path,
                         const OutputOptions& output = {});
// The same, returning the file's bytes.
std::vector<uint8_t> build_filter_bytes(const KeySource& keys, const Plan& plan,
                                        const OutputOptions& output = {});

// A filter built from keys held in memory. Each key counts as one input line of the `lines`
// format, taken as it is (no line end is stripped): added keys and a file of the same keys, one
// per line, give the same filter file. A Bloom plan sized up front (n, or m and k) sets the
// filter's bits as keys arrive, so the memory is the filter's (add_many batches of 65,536 keys or
// more are hashed and inserted on up to Plan::threads threads); other plans (the exact count of
// distinct keys sizes the filter, or a static kind) keep their keys, normalised, until finish.
class Builder {
 public:
  // Checks the plan (kInvalidArgument naming the member at fault).
  explicit Builder(const Plan& plan);
  Builder(Builder&&) noexcept;
  Builder& operator=(Builder&&) noexcept;
  ~Builder();

  void add(std::string_view key);
  void add_many(std::span<const std::string_view> keys);
  // The C API's layout: key i is data[offsets[i], offsets[i + 1]), `offsets` holds count + 1
  // non-decreasing entries (kInvalidArgument otherwise, before any key is added).
  void add_many(const char* data, std::span<const uint64_t> offsets);
  // Keys added so far (empty ones included).
  uint64_t size() const noexcept;

  // Builds the filter and writes it to `path` atomically ("-": standard output). The builder is
  // empty afterwards, ready for new keys under the same plan.
  BuildResult finish(const std::string& path, const OutputOptions& output = {});
  // The same, returning the file's bytes.
  std::vector<uint8_t> finish_bytes(const OutputOptions& output = {});

  struct Impl;  // the library's

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace bloomtool
