// Line splitting for KeyReader. The buffer holds at least one whole line: it grows up to the key
// limit plus one read block and no further, so a multi-gigabyte line costs bounded memory and a
// clear error. Views handed out in a batch all point into the current buffer contents; the
// buffer is compacted only between batches.
#include "bloomtool/key_reader.h"

#include <cstring>

#include "bloomtool/error.h"
#include "byte_source.h"

namespace bloomtool {

namespace {
constexpr size_t kReadBlock = 1u << 20;
constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";
}  // namespace

KeyReader::KeyReader(std::vector<std::string> inputs, InputOptions options)
    : inputs_(std::move(inputs)), options_(options) {
  if (inputs_.empty()) inputs_.push_back("-");
  if (options_.max_key_bytes == 0 || options_.max_key_bytes > kMaxMaxKeyBytes) {
    throw Error(ErrorCode::kInvalidArgument, "--max-key-bytes must be between 1 and 1GiB");
  }
  buf_.resize(kReadBlock);
}

KeyReader::~KeyReader() = default;

bool KeyReader::open_next_input() {
  if (next_input_ == inputs_.size()) return false;
  const std::string& path = inputs_[next_input_++];
  name_ = path == "-" ? "<stdin>" : path;
  source_ = open_byte_source(path, name_);
  begin_ = end_ = 0;
  eof_ = false;
  at_input_start_ = true;
  line_no_ = 0;
  return true;
}

bool KeyReader::fill() {
  // Make room: move the partial line to the front, grow within the bound if still full.
  if (begin_ != 0) {
    std::memmove(buf_.data(), buf_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  if (end_ == buf_.size()) buf_.resize(buf_.size() + kReadBlock);
  const size_t r = source_->read(buf_.data() + end_, buf_.size() - end_);
  stats_.bytes += r;
  end_ += r;
  return r != 0;
}

bool KeyReader::next(KeyBatch& batch) {
  batch.clear();
  const uint64_t limit = options_.max_key_bytes;
  size_t scan_from = begin_;
  while (batch.keys.size() < KeyBatch::kBatchSize) {
    if (!source_) {
      if (!open_next_input()) return !batch.keys.empty();
      scan_from = begin_;
    }
    const char* base = buf_.data();
    const void* nl =
        scan_from < end_ ? std::memchr(base + scan_from, '\n', end_ - scan_from) : nullptr;
    size_t line_end;
    if (nl != nullptr) {
      line_end = static_cast<size_t>(static_cast<const char*>(nl) - base);
    } else if (eof_) {
      if (begin_ == end_) {
        source_.reset();
        continue;
      }
      line_end = end_;
    } else {
      // Need more bytes. A line longer than the limit (plus CR) is refused before it grows.
      if (end_ - begin_ > limit + 1) {
        throw Error(ErrorCode::kLimitExceeded, name_ + ": line " + std::to_string(line_no_ + 1) +
                                                   ": key longer than --max-key-bytes (" +
                                                   std::to_string(limit) + " bytes)");
      }
      if (!batch.keys.empty()) return true;  // compaction would move bytes the batch points at
      const size_t scanned = end_ - begin_;
      if (!fill()) eof_ = true;
      scan_from = begin_ + scanned;
      continue;
    }
    std::string_view line(base + begin_, line_end - begin_);
    begin_ = line_end < end_ ? line_end + 1 : end_;
    scan_from = begin_;
    ++line_no_;
    ++stats_.lines;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (at_input_start_) {
      at_input_start_ = false;
      if (line.substr(0, kUtf8Bom.size()) == kUtf8Bom) line.remove_prefix(kUtf8Bom.size());
    }
    if (line.size() > limit) {
      throw Error(ErrorCode::kLimitExceeded, name_ + ": line " + std::to_string(line_no_) +
                                                 ": key longer than --max-key-bytes (" +
                                                 std::to_string(limit) + " bytes)");
    }
    if (line.empty()) {
      ++stats_.empty_lines;
      continue;
    }
    ++stats_.keys;
    batch.keys.push_back(line);
    batch.records.push_back(line);
  }
  return true;
}

}  // namespace bloomtool
