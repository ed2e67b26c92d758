// Reading keys from files or standard input: zstd-compressed inputs are recognised by their magic
// bytes, lines are split with memchr in large blocks (LF or CRLF, last line may lack a newline),
// and keys are handed out in batches of views into the reader's buffer, with no per-key
// allocation. Lines longer than the configured maximum are an error, so memory stays bounded.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace bloomtool {

inline constexpr uint64_t kDefaultMaxKeyBytes = 1ull << 20;  // 1 MiB
inline constexpr uint64_t kMaxMaxKeyBytes = 1ull << 30;      // 1 GiB

struct InputOptions {
  uint64_t max_key_bytes = kDefaultMaxKeyBytes;
};

struct InputStats {
  uint64_t lines = 0;        // lines read, empty ones included
  uint64_t keys = 0;         // keys handed out
  uint64_t empty_lines = 0;  // lines skipped because they were empty
  uint64_t bytes = 0;        // bytes read after decompression
};

// Up to kBatchSize keys; each view stays valid until the next call to KeyReader::next().
struct KeyBatch {
  static constexpr size_t kBatchSize = 4096;
  std::vector<std::string_view> keys;
  // The whole input record each key came from (for `lines` input, the key itself).
  std::vector<std::string_view> records;
  void clear() {
    keys.clear();
    records.clear();
  }
};

class ByteSource;

class KeyReader {
 public:
  // Reads the inputs in order; "-" (or an empty list) means standard input.
  KeyReader(std::vector<std::string> inputs, InputOptions options);
  ~KeyReader();
  KeyReader(const KeyReader&) = delete;
  KeyReader& operator=(const KeyReader&) = delete;

  // Fills `batch` with the next keys; returns false when every input is exhausted. Throws
  // kBadInput / kLimitExceeded / kIOError naming the input and line number.
  bool next(KeyBatch& batch);
  const InputStats& stats() const noexcept { return stats_; }
  // The input currently being read, as named in messages ("<stdin>" for standard input).
  const std::string& current_name() const noexcept { return name_; }

 private:
  bool open_next_input();
  bool fill();  // reads more bytes; false at end of the current input

  std::vector<std::string> inputs_;
  InputOptions options_;
  size_t next_input_ = 0;
  std::unique_ptr<ByteSource> source_;
  std::string name_;
  std::vector<char> buf_;
  size_t begin_ = 0;  // first unconsumed byte
  size_t end_ = 0;    // one past the last valid byte
  bool eof_ = false;
  bool at_input_start_ = false;
  uint64_t line_no_ = 0;  // line number within the current input
  InputStats stats_;
};

}  // namespace bloomtool
