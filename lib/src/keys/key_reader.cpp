// Line splitting for KeyReader, and the per-line work of the richer formats. The buffer holds at
// least one whole line: it grows geometrically up to the key limit plus one read block and no
// further, so a multi-gigabyte line costs bounded memory (at most about 1.5 times that, while the
// buffer moves) and a clear error. Views handed out in a batch point
// into the current buffer contents or the batch's own arena; the buffer is compacted only between
// batches, and arena views are fixed up once the batch is complete, since the arena may move while
// it grows. A `lines` input without normalisation takes a path that does nothing but split.
#include "keys/key_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <functional>

#include "base/unique_fd.h"
#include "bloomtool/error.h"
#include "keys/byte_source.h"
#include "keys/record_fields.h"

namespace bloomtool {

namespace {
constexpr size_t kReadBlock = 1u << 20;
// Memory inputs start small so that tests and fuzzing cross buffer boundaries often.
constexpr size_t kMemoryFirstBlock = 512;
constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";

std::string line_too_long(const std::string& name, uint64_t line_no, uint64_t limit,
                          bool lines_format) {
  return name + ": line " + std::to_string(line_no) +
         (lines_format ? ": key longer than the maximum key length ("
                       : ": line longer than the maximum line length (") +
         std::to_string(limit) + " bytes)";
}

std::string describe_delimiter(std::string_view encoded) {
  std::string d;
  if (!percent_decode(encoded, d) || d.size() != 1) return std::string(encoded);
  if (d == "\t") return "tab";
  if (d == " ") return "space";
  const unsigned char c = static_cast<unsigned char>(d[0]);
  if (c < 0x20 || c > 0x7E) {
    static constexpr char kHex[] = "0123456789abcdef";
    return std::string("byte 0x") + kHex[c >> 4] + kHex[c & 15];
  }
  return "'" + d + "'";
}
}  // namespace

const char* input_format_name(InputFormat format) noexcept {
  switch (format) {
    case InputFormat::kLines:
      return "lines";
    case InputFormat::kNdjson:
      return "ndjson";
    case InputFormat::kDelimited:
      return "delimited";
    case InputFormat::kCsv:
      return "csv";
  }
  return "lines";
}

std::string input_options_text(const InputOptions& o) {
  std::string out = input_format_name(o.format);
  switch (o.format) {
    case InputFormat::kLines:
      break;
    case InputFormat::kNdjson:
      out += ";field=" + percent_encode(o.field);
      break;
    case InputFormat::kDelimited:
    case InputFormat::kCsv:
      out += ";delimiter=" + percent_encode(std::string_view(&o.delimiter, 1));
      if (!o.column_name.empty())
        out += ";column_name=" + percent_encode(o.column_name);
      else
        out += ";column=" + std::to_string(o.column);
      if (o.header || !o.column_name.empty()) out += ";header=1";
      break;
  }
  return out;
}

std::string describe_input_options(std::string_view text) {
  std::string out;
  size_t start = 0;
  for (bool first = true;; first = false) {
    const size_t semi = text.find(';', start);
    const std::string_view part =
        text.substr(start, semi == std::string_view::npos ? std::string_view::npos : semi - start);
    if (first) {
      if (part != "lines" && part != "ndjson" && part != "delimited" && part != "csv") {
        return std::string(text);
      }
      out = part;
    } else {
      const size_t eq = part.find('=');
      if (eq == std::string_view::npos) return std::string(text);
      const std::string_view name = part.substr(0, eq);
      const std::string_view value = part.substr(eq + 1);
      std::string decoded;
      if (name == "field" && percent_decode(value, decoded)) {
        out += decoded.empty() ? ", the whole line" : ", field " + decoded;
      } else if (name == "delimiter") {
        out += ", delimiter " + describe_delimiter(value);
      } else if (name == "column") {
        out += ", column " + std::string(value);
      } else if (name == "column_name" && percent_decode(value, decoded)) {
        out += ", column '" + decoded + "'";
      } else if (name == "header" && value == "1") {
        out += ", first line a header";
      } else {
        return std::string(text);
      }
    }
    if (semi == std::string_view::npos) break;
    start = semi + 1;
  }
  return out;
}

KeyReader::KeyReader(std::vector<std::string> inputs, InputOptions options)
    : inputs_(std::move(inputs)), options_(std::move(options)) {
  if (inputs_.empty()) inputs_.push_back("-");
  if (options_.max_key_bytes == 0 || options_.max_key_bytes > kMaxMaxKeyBytes) {
    throw FieldError("max_key_bytes", "must be between 1 and 1GiB");
  }
  switch (options_.format) {
    case InputFormat::kLines:
      break;
    case InputFormat::kNdjson:
      json_ = std::make_unique<JsonField>(options_.field);
      break;
    case InputFormat::kDelimited:
    case InputFormat::kCsv:
      if (options_.column == 0) {
        throw FieldError("column", "columns are numbered from 1");
      }
      if (options_.delimiter == '\n' || options_.delimiter == '\r' ||
          (options_.format == InputFormat::kCsv && options_.delimiter == '"')) {
        throw FieldError("delimiter",
                         "a line ending or (for csv) a double quote cannot be a delimiter");
      }
      break;
  }
  plain_ = options_.format == InputFormat::kLines && options_.normaliser.empty();
}

std::unique_ptr<KeyReader> KeyReader::from_memory(std::string_view bytes, std::string name,
                                                  InputOptions options) {
  auto reader =
      std::make_unique<KeyReader>(std::vector<std::string>{std::move(name)}, std::move(options));
  reader->memory_ = MemoryInput{bytes};
  return reader;
}

std::unique_ptr<KeyReader> KeyReader::for_range(const LineRange& range, InputOptions options) {
  auto reader =
      std::make_unique<KeyReader>(std::vector<std::string>{range.path}, std::move(options));
  reader->range_ = range;
  return reader;
}

void KeyReader::restart(const LineRange& range) {
  inputs_.assign(1, range.path);
  range_ = range;
  next_input_ = 0;
  source_.reset();
  begin_ = end_ = 0;
  eof_ = false;
  line_no_ = raw_done_ = 0;
  stats_ = InputStats{};
  // A buffer grown for one long line goes: the next range starts with an ordinary one.
  if (chunk_ && chunk_->size() > kReadBlock + kJsonPadding) chunk_.reset();
}

std::vector<LineRange> plan_line_ranges(const std::vector<std::string>& inputs,
                                        const InputOptions& options, unsigned parts,
                                        uint64_t min_bytes) {
  // A column chosen by name is found in each file's header, which only the first piece holds.
  if (parts < 2 || inputs.empty() || options.skip_bad_lines || !options.column_name.empty())
    return {};
  std::vector<LineRange> ranges;
  std::vector<char> buf(64 * 1024);
  for (const std::string& path : inputs) {
    if (path == "-") return {};
    // A FIFO is not opened here: opening and closing it could leave its writer without a reader
    // (SIGPIPE) before the sequential reader opens it.
    struct stat path_st;
    if (::stat(path.c_str(), &path_st) != 0 || !S_ISREG(path_st.st_mode)) return {};
    const UniqueFd file(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!file) return {};  // the sequential reader reports it
    const int fd = file.get();
    struct stat st;
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return {};
    const uint64_t size = static_cast<uint64_t>(st.st_size);
    // Compressed inputs and filter files go to the sequential reader, which decompresses or
    // refuses them.
    const ssize_t head = ::pread(fd, buf.data(), kSniffBytes, 0);
    if (head < 0 ||
        classify_input_head(std::string_view(buf.data(), static_cast<size_t>(head)), size).kind !=
            InputKind::kText) {
      return {};
    }
    const uint64_t pieces = size < 2 * min_bytes ? 1 : std::min<uint64_t>(parts, size / min_bytes);
    uint64_t begin = 0;
    bool ok = true;
    for (uint64_t i = 1; i < pieces && ok; ++i) {
      // The piece ends just after the first line end at or past the nominal split point.
      uint64_t pos = std::max(begin, size / pieces * i);
      const uint64_t give_up = pos + options.max_key_bytes + 2;
      uint64_t cut = 0;
      // A small first read (lines are short, and a wide file has a hundred cuts or more), then
      // the whole buffer at a time.
      size_t want = 4096;
      while (cut == 0 && pos < size && pos < give_up) {
        const ssize_t r = ::pread(fd, buf.data(), want, static_cast<off_t>(pos));
        want = buf.size();
        if (r <= 0) break;
        const void* nl = std::memchr(buf.data(), '\n', static_cast<size_t>(r));
        if (nl != nullptr)
          cut = pos + static_cast<uint64_t>(static_cast<const char*>(nl) - buf.data()) + 1;
        pos += static_cast<uint64_t>(r);
      }
      if (cut == 0) {
        ok = pos >= size;  // no line end before the end of the file: the rest is one piece
        break;
      }
      ranges.push_back({path, begin, cut});
      begin = cut;
    }
    if (!ok) return {};
    if (begin < size || size == 0) ranges.push_back({path, begin, size});
  }
  if (ranges.size() < 2) return {};
  return ranges;
}

KeyReader::~KeyReader() = default;

uint64_t KeyReader::raw_bytes_read() const noexcept {
  return raw_done_ + (source_ ? source_->raw_bytes_read() : 0);
}

uint64_t KeyReader::total_input_bytes() const {
  uint64_t total = 0;
  for (const std::string& path : inputs_) {
    struct stat st;
    const int rc = path == "-" ? ::fstat(STDIN_FILENO, &st) : ::stat(path.c_str(), &st);
    if (rc != 0 || !S_ISREG(st.st_mode)) return 0;
    total += static_cast<uint64_t>(st.st_size);
  }
  return total;
}

bool KeyReader::open_next_input() {
  if (next_input_ == inputs_.size()) return false;
  const std::string& path = inputs_[next_input_++];
  if (memory_) {
    name_ = path;
    source_ = open_memory_source(memory_->bytes, name_);
  } else if (range_) {
    name_ = path;
    source_ = open_range_source(path, name_, range_->begin, range_->end);
  } else {
    name_ = path == "-" ? "<stdin>" : path;
    source_ = open_byte_source(path, name_, decompress_ahead_);
  }
  // The next input starts at the front of a buffer: not one that batches still hold.
  if (!chunk_ || chunk_.use_count() > 2)
    chunk_ = take_chunk((memory_ ? kMemoryFirstBlock : kReadBlock) + kJsonPadding);
  begin_ = end_ = 0;
  eof_ = false;
  at_input_start_ = !range_ || range_->begin == 0;  // a byte-order mark can only start a file
  header_pending_ = at_input_start_ && (options_.header || !options_.column_name.empty());
  column_ = options_.column;
  line_no_ = 0;
  return true;
}

std::shared_ptr<std::vector<char>> KeyReader::take_chunk(size_t size) {
  std::shared_ptr<std::vector<char>> chunk;
  for (auto& c : chunks_) {
    if (c.use_count() == 1 && c != chunk_) {  // held by no batch (batches live on this thread)
      // One grown for a long line goes: the next one starts with an ordinary size.
      if (c->size() > size && c->size() > kReadBlock + kJsonPadding)
        c = std::make_shared<std::vector<char>>();
      chunk = c;
      break;
    }
  }
  if (!chunk) chunk = chunks_.emplace_back(std::make_shared<std::vector<char>>());
  chunk->resize(size);
  return chunk;
}

bool KeyReader::fill() {
  // Make room: move the partial line to the front, grow within the bound if still full. The last
  // kJsonPadding bytes of the buffer are never read into: simdjson may read past a line's end.
  // A buffer that a batch holds is not touched below end_: reads go to its free end while it has
  // room, then the partial line moves to a fresh buffer.
  std::vector<char>* buf = chunk_.get();
  size_t size = buf->size();
  if (end_ - begin_ + kJsonPadding == size) {
    // One partial line fills the buffer, and next() has checked it is within the key limit:
    // grow geometrically (a long line costs linear time), up to the limit plus one read. Past
    // half the cap, go straight to it, so old and new buffer together stay under 1.5 times it.
    const uint64_t cap = options_.max_key_bytes + 2 + kUtf8Bom.size() + kReadBlock + kJsonPadding;
    const uint64_t twice = uint64_t{size} * 2;
    size = static_cast<size_t>(twice > cap / 2 ? cap : twice);
  }
  if (chunk_.use_count() > 2) {  // held by a batch besides chunk_ and chunks_
    if (size != buf->size() ||
        buf->size() - kJsonPadding - end_ < (buf->size() - kJsonPadding) / 4) {
      std::shared_ptr<std::vector<char>> fresh = take_chunk(size);
      std::memcpy(fresh->data(), buf->data() + begin_, end_ - begin_);
      end_ -= begin_;
      begin_ = 0;
      chunk_ = std::move(fresh);
      buf = chunk_.get();
    }
  } else {
    if (begin_ != 0) {
      std::memmove(buf->data(), buf->data() + begin_, end_ - begin_);
      end_ -= begin_;
      begin_ = 0;
    }
    if (size != buf->size()) buf->resize(size);
  }
  const size_t r = source_->read(buf->data() + end_, buf->size() - kJsonPadding - end_);
  stats_.bytes += r;
  end_ += r;
  return r != 0;
}

bool KeyReader::input_ready() const {
  if (!source_ || eof_) return true;
  if (begin_ < end_ && std::memchr(chunk_->data() + begin_, '\n', end_ - begin_) != nullptr)
    return true;
  return source_->ready();
}

void KeyReader::lend_buffers(size_t batch_keys, size_t batch_bytes) {
  lend_ = true;
  batch_keys_ = std::max<size_t>(batch_keys, 1);
  batch_chunks_ = std::max<size_t>(batch_bytes / kReadBlock, 1);
}

bool KeyReader::next(KeyBatch& batch) {
  batch.clear();
  arena_keys_.clear();
  const bool more = next_records(batch);
  for (const auto& [index, offset] : arena_keys_) {
    batch.keys[index] = std::string_view(batch.arena.data() + offset, batch.keys[index].size());
  }
  if (lend_ && !batch.records.empty() && (batch.hold.empty() || batch.hold.back() != chunk_))
    batch.hold.push_back(chunk_);
  return more;
}

bool KeyReader::next_records(KeyBatch& batch) {
  const uint64_t limit = options_.max_key_bytes;
  const bool lines_format = options_.format == InputFormat::kLines;
  size_t scan_from = begin_;
  while (batch.records.size() < batch_keys_) {
    if (!source_) {
      if (!open_next_input()) return !batch.keys.empty();
      scan_from = begin_;
    }
    const char* base = chunk_->data();
    const void* nl =
        scan_from < end_ ? std::memchr(base + scan_from, '\n', end_ - scan_from) : nullptr;
    size_t line_end;
    if (nl != nullptr) {
      line_end = static_cast<size_t>(static_cast<const char*>(nl) - base);
    } else if (eof_) {
      if (begin_ == end_) {
        // The next input starts at the front of a buffer: one this batch does not point into.
        if (lend_ && !batch.records.empty() && (batch.hold.empty() || batch.hold.back() != chunk_))
          batch.hold.push_back(chunk_);
        raw_done_ += source_->raw_bytes_read();
        source_.reset();
        continue;
      }
      line_end = end_;
    } else {
      // Need more bytes. A line longer than the limit (plus CR, plus a BOM on the first line)
      // is refused before it grows.
      if (end_ - begin_ > limit + 1 + (at_input_start_ ? kUtf8Bom.size() : 0)) {
        throw Error(ErrorCode::kLimitExceeded,
                    line_too_long(name_, line_no_ + 1, limit, lines_format));
      }
      // Compaction would move bytes the batch points at: hand out what there is first, unless
      // the batch holds the buffer, may grow, and more bytes are there without a wait.
      if (!batch.records.empty()) {
        if (!lend_ || batch.hold.size() >= batch_chunks_ || !source_->ready()) return true;
        if (batch.hold.empty() || batch.hold.back() != chunk_) batch.hold.push_back(chunk_);
      }
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
      throw Error(ErrorCode::kLimitExceeded, line_too_long(name_, line_no_, limit, lines_format));
    }
    if (header_pending_) {
      header_pending_ = false;
      take_header(line);
      continue;
    }
    if (line.empty()) {
      ++stats_.empty_lines;
      continue;
    }
    if (plain_) {
      ++stats_.keys;
      batch.keys.push_back(line);
      batch.records.push_back(line);
    } else {
      add_record(line, batch);
    }
  }
  return true;
}

void KeyReader::add_record(std::string_view line, KeyBatch& batch) {
  std::string_view key = line;
  std::string reason;
  FieldResult result = FieldResult::kKey;
  switch (options_.format) {
    case InputFormat::kLines:
      break;
    case InputFormat::kNdjson:
      result = json_->extract(line, field_scratch_, key, reason);
      break;
    case InputFormat::kDelimited:
    case InputFormat::kCsv:
      result = delimited_field(line, options_.delimiter, column_,
                               options_.format == InputFormat::kCsv, field_scratch_, key, reason);
      break;
  }
  if (result == FieldResult::kBlank) {
    ++stats_.empty_lines;
    return;
  }
  if (result == FieldResult::kBad) {
    bad_line(reason);
    return;
  }
  if (!options_.normaliser.empty()) key = options_.normaliser.apply(key, norm_scratch_);
  if (key.empty()) {
    ++stats_.empty_keys;
    return;
  }
  ++stats_.keys;
  const std::less<const char*> before;
  if (before(key.data(), chunk_->data()) || !before(key.data(), chunk_->data() + end_)) {
    arena_keys_.emplace_back(batch.keys.size(), batch.arena.size());
    batch.arena.append(key);
  }
  batch.keys.push_back(key);
  batch.records.push_back(line);
}

// The header line of an input: skipped; with a column name, the key's column in this input.
void KeyReader::take_header(std::string_view line) {
  if (options_.column_name.empty()) return;
  const bool quoted = options_.format == InputFormat::kCsv;
  std::string scratch, reason;
  for (uint32_t c = 1;; ++c) {
    std::string_view name;
    if (delimited_field(line, options_.delimiter, c, quoted, scratch, name, reason) ==
        FieldResult::kBad)
      break;
    if (name == options_.column_name) {
      column_ = c;
      return;
    }
    if (c == UINT32_MAX) break;
  }
  throw Error(ErrorCode::kBadInput, name_ + ": line " + std::to_string(line_no_) +
                                        ": the header has no column named '" +
                                        options_.column_name + "'");
}

void KeyReader::bad_line(const std::string& reason) {
  std::string message = name_ + ": line " + std::to_string(line_no_) + ": " + reason;
  if (!options_.skip_bad_lines) throw Error(ErrorCode::kBadInput, message);
  ++stats_.bad_lines;
  if (stats_.first_bad_line.empty()) stats_.first_bad_line = message;
  if (stats_.bad_lines > options_.max_bad_lines) {
    throw Error(ErrorCode::kLimitExceeded,
                message + " (bad line " + std::to_string(stats_.bad_lines) + ", more than the " +
                    std::to_string(options_.max_bad_lines) + " allowed)");
  }
}

}  // namespace bloomtool
