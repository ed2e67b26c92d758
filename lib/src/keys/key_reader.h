// Reading keys from files or standard input: zstd- and gzip-compressed inputs are recognised by
// their magic bytes (other compressed formats and filter files are refused), lines are split with
// memchr in large blocks (LF or CRLF, last line may lack a newline), and each line is a key
// (`lines`), or holds one in a JSON field (`ndjson`) or a column
// (`delimited`, `csv`). Keys then pass through the chosen normalisation and are handed out in
// batches of views, with no per-key allocation. Lines longer than the configured maximum are an
// error, so memory stays bounded.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bloomtool/error.h"
#include "keys/normalise.h"

namespace bloomtool {

inline constexpr uint64_t kDefaultMaxKeyBytes = 1ull << 20;  // 1 MiB
inline constexpr uint64_t kMaxMaxKeyBytes = 1ull << 30;      // 1 GiB

enum class InputFormat {
  kLines,      // the whole line is the key
  kNdjson,     // one JSON value per line; the key is the string or number at `field`
  kDelimited,  // the key is column `column` of the line split on `delimiter`; no quoting
  kCsv,        // like kDelimited, with RFC 4180 double quotes within a line
};

struct InputOptions {
  // Longest accepted line (record) in bytes; in `lines` format, the longest key.
  uint64_t max_key_bytes = kDefaultMaxKeyBytes;
  InputFormat format = InputFormat::kLines;
  std::string field;      // kNdjson: RFC 6901 JSON pointer; "" is the whole value
  char delimiter = '\t';  // kDelimited, kCsv
  uint32_t column = 1;    // kDelimited, kCsv: 1-based
  // kDelimited, kCsv: the first record of each input is a header, not a key. With column_name
  // the key is the column of that name in each input's header (exact match, CSV quotes removed;
  // the first of equal names); `column` is then unused.
  bool header = false;
  std::string column_name;  // implies header
  // Bad records (malformed JSON, missing field, too few columns) are counted and skipped instead
  // of being an error; more than max_bad_lines of them is still an error.
  bool skip_bad_lines = false;
  uint64_t max_bad_lines = std::numeric_limits<uint64_t>::max();
  Normaliser normaliser;
};

// Canonical text of the format options, for the filter file's `input_options` field
// (docs/FORMAT.md): "lines", "ndjson;field=/user/email", "delimited;delimiter=%09;column=3".
std::string input_options_text(const InputOptions& options);
// The same for people: "ndjson, field /user/email". Text it cannot parse is returned unchanged.
std::string describe_input_options(std::string_view text);
// "lines", "ndjson", "delimited", "csv".
const char* input_format_name(InputFormat format) noexcept;

struct InputStats {
  uint64_t lines = 0;          // lines read, empty and bad ones included
  uint64_t keys = 0;           // keys handed out
  uint64_t empty_lines = 0;    // lines skipped because they were empty (or blank, for ndjson)
  uint64_t empty_keys = 0;     // records skipped because their key was empty after normalisation
  uint64_t bad_lines = 0;      // records skipped as bad (only with skip_bad_lines)
  std::string first_bad_line;  // "<path>: line N: <reason>" of the first of them
  uint64_t bytes = 0;          // bytes read after decompression
};

// Up to kBatchSize keys; each view stays valid until the next call to KeyReader::next().
struct KeyBatch {
  static constexpr size_t kBatchSize = 4096;
  std::vector<std::string_view> keys;
  // The whole input record each key came from (the line, without its line ending).
  std::vector<std::string_view> records;
  // Storage for keys that are not a slice of their record (unescaped, normalised). Views into it
  // do not survive moving the batch (a short string lives inside it).
  std::string arena;
  // The read buffers the views point into, when the reader lends them (KeyReader::lend_buffers):
  // the batch then stays valid after the next call to next() with another batch.
  std::vector<std::shared_ptr<const std::vector<char>>> hold;
  void clear() {
    keys.clear();
    records.clear();
    arena.clear();
    hold.clear();
  }
};

// Whole lines [begin, end) of one regular file: a piece of an input that one thread reads while
// others read the rest (plan_line_ranges).
struct LineRange {
  std::string path;
  uint64_t begin = 0;  // 0, or just after a '\n'
  uint64_t end = 0;    // just after a '\n', or the file's size
};

// Splits the inputs into ranges of whole lines for `parts` threads: each regular file of at
// least 2 * min_bytes into about `parts` pieces (others whole). Returns nothing, so that the
// caller reads sequentially, when that is the better or the only way: fewer than two parts,
// standard input or any input that is not a regular file, a compressed input or a filter file
// (the sequential reader decompresses or refuses it), skip_bad_lines (its limit
// and first-bad-line report follow input order), or no line end within max_key_bytes + 2 bytes
// after a split point (a line too long, which the sequential reader then reports).
std::vector<LineRange> plan_line_ranges(const std::vector<std::string>& inputs,
                                        const InputOptions& options, unsigned parts,
                                        uint64_t min_bytes);

// A key input that is a filter file (bloomtool's, by its magic; DCSO's, by its header; Guava's, by
// a header that matches the file's size), plain or inside zstd or gzip: reading its bytes as keys
// is a mistake, such as a second filter given where keys are read. Code kBadInput; what() is
// "<input>: is a <format> filter file, not keys".
class FilterAsKeysError : public Error {
 public:
  FilterAsKeysError(std::string input, std::string format, const std::string& message)
      : Error(ErrorCode::kBadInput, message),
        input_(std::move(input)),
        format_(std::move(format)) {}
  const std::string& input() const noexcept { return input_; }    // as named in messages
  const std::string& format() const noexcept { return format_; }  // "bloomtool", "DCSO bloom", ...

 private:
  std::string input_;
  std::string format_;
};

class JsonField;

class ByteSource;

class KeyReader {
 public:
  // Reads the inputs in order; "-" (or an empty list) means standard input.
  KeyReader(std::vector<std::string> inputs, InputOptions options);
  // Reads key bytes held in memory (which must outlive the reader) like a file called `name`,
  // zstd recognised by its magic. For tests and fuzzing.
  static std::unique_ptr<KeyReader> from_memory(std::string_view bytes, std::string name,
                                                InputOptions options);
  // Reads one range of a file (from plan_line_ranges). Line numbers in its messages count from
  // the start of the range.
  static std::unique_ptr<KeyReader> for_range(const LineRange& range, InputOptions options);
  // Points a reader made by for_range at another range, from its start: stats and line numbers
  // begin again, the read buffer is kept (a thread that reads many ranges fills fresh memory
  // once, not once per range).
  void restart(const LineRange& range);
  ~KeyReader();
  KeyReader(const KeyReader&) = delete;
  KeyReader& operator=(const KeyReader&) = delete;

  // Makes every batch hold the read buffers its views point into (KeyBatch::hold) instead of
  // lending views that the next call to next() invalidates: batches handed to other threads need
  // no copy. A batch then also spans reads, up to `batch_keys` keys and about `batch_bytes` bytes
  // of buffers, as long as more input is ready without waiting (a slow pipe still gets its keys
  // through at once). Buffers come back for reuse when no batch holds them any more; all batches
  // must be cleared or destroyed on the thread that calls next().
  void lend_buffers(size_t batch_keys, size_t batch_bytes);
  bool lends_buffers() const noexcept { return lend_; }
  // Whether next() can hand out keys without waiting for input (a pipe's writer): a whole line
  // is buffered, or the input has bytes ready or has ended.
  bool input_ready() const;
  // With `stream_threads` above one, decompresses a zstd or gzip input on threads of its own,
  // ahead of the reading thread (open_byte_source says how many; set before the first next()).
  void decompress_ahead(unsigned stream_threads) noexcept { decompress_ahead_ = stream_threads; }

  // Fills `batch` with the next keys; returns false when every input is exhausted. Throws
  // kBadInput / kLimitExceeded / kIOError naming the input and line number.
  bool next(KeyBatch& batch);
  const InputStats& stats() const noexcept { return stats_; }
  // The input currently being read, as named in messages ("<stdin>" for standard input).
  const std::string& current_name() const noexcept { return name_; }
  // Bytes consumed from the input files so far: compressed bytes for zstd inputs, so that it
  // compares with total_input_bytes().
  uint64_t raw_bytes_read() const noexcept;
  // The summed size of the inputs when every one is a regular file (stdin redirected from a
  // file included); 0 when any size is unknown (a pipe, a terminal).
  uint64_t total_input_bytes() const;

 private:
  bool open_next_input();
  bool fill();  // reads more bytes; false at end of the current input
  bool next_records(KeyBatch& batch);
  // Takes the key out of a non-empty line of a non-trivial format and adds it to the batch.
  void add_record(std::string_view line, KeyBatch& batch);
  void bad_line(const std::string& reason);

  std::vector<std::string> inputs_;
  struct MemoryInput {
    std::string_view bytes;
  };
  std::optional<MemoryInput> memory_;
  std::optional<LineRange> range_;
  InputOptions options_;
  size_t next_input_ = 0;
  std::unique_ptr<ByteSource> source_;
  std::string name_;
  // The read buffer: shared with the batches that hold it (lend_buffers), and then never moved
  // or compacted; a fresh one (from chunks_, once no batch holds it) takes over instead.
  std::shared_ptr<std::vector<char>> chunk_;
  // Every buffer made (chunk_ among them), for reuse once no batch holds it.
  std::vector<std::shared_ptr<std::vector<char>>> chunks_;
  std::shared_ptr<std::vector<char>> take_chunk(size_t size);
  bool lend_ = false;
  unsigned decompress_ahead_ = 1;
  size_t batch_keys_ = KeyBatch::kBatchSize;
  size_t batch_chunks_ = 1;
  size_t begin_ = 0;  // first unconsumed byte
  size_t end_ = 0;    // one past the last valid byte
  bool eof_ = false;
  bool at_input_start_ = false;
  bool header_pending_ = false;  // the next line is the input's header (InputOptions::header)
  uint32_t column_ = 1;          // the key's column in this input
  void take_header(std::string_view line);
  uint64_t line_no_ = 0;   // line number within the current input
  uint64_t raw_done_ = 0;  // raw bytes of the inputs already closed
  bool plain_ = true;      // lines format without normalisation: every line is its own key
  std::unique_ptr<JsonField> json_;
  std::string field_scratch_;
  NormScratch norm_scratch_;
  std::vector<std::pair<size_t, size_t>> arena_keys_;  // (index in batch, offset in arena)
  InputStats stats_;
};

}  // namespace bloomtool
