// Turns verified file contents into a Filter object, checking each kind's parameters against the
// payload before the filter is used. A raw (codec 2) file is read a chunk at a time
// (RawPayloadView): its filter reads the words of the view's verified chunks, and the chunks a
// batch of probes lands in are read, checked and pinned before the batch is answered.
#include "api/load_filter.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <vector>

#include "bloomtool/error.h"
#include "filters/filter_kinds.h"
#include "filters/ribbon.h"
#include "interop/foreign_format.h"
#include "keys/hash.h"

namespace bloomtool {

namespace {

[[noreturn]] void corrupt(const std::string& path, const std::string& why) {
  throw Error(ErrorCode::kCorrupt, path + ": corrupt: " + why);
}

// The kind's filter (filter_kinds.h), field 7 checked against a peer's rule.
std::unique_ptr<Filter> instantiate(const FilterHeader& h, WordBuffer payload,
                                    const std::string& path) {
  std::unique_ptr<Filter> f = make_filter_of_kind(h, std::move(payload), path);
  check_source_format(h, path);
  return f;
}

}  // namespace

LoadedFilter make_raw_filter(std::shared_ptr<const RawPayloadView> view, const std::string& path) {
  LoadedFilter out;
  out.file_bytes = view->file_bytes();
  out.header = view->header();
  const FilterHeader& h = out.header;
  if (view->chunk_count() == 0 || h.payload_raw_bytes % 8 != 0)
    corrupt(path, "raw payload of " + std::to_string(h.payload_raw_bytes) + " bytes");
  // The kind's checks may read the last payload word (bits above m, padding after the last
  // fingerprint): its chunk is pinned while they run. A partitioned file's factory reads the
  // chunks of its table and of each partition's last word itself.
  if (h.partitions) {
    out.filter = make_filter_of_kind(h, WordBuffer::borrow(view->words(), h.payload_raw_bytes / 8),
                                     path, view.get());
    out.raw = std::move(view);
    return out;
  }
  const uint64_t last = view->chunk_count() - 1;
  const bool reads_last = h.kind != FilterKind::kBloom || h.m % 64 != 0;
  std::vector<uint64_t> pins;
  if (reads_last) pins.push_back(last);
  // A bumped Ribbon filter copies its layers' codes (1/32 of a word a row) when it is made.
  RibbonParams ribbon;
  if (h.kind == FilterKind::kRibbon && h.variant == 1 &&
      ribbon_params_from_file(h.variant, h.k, h.m, h.kind_params, ribbon).empty() &&
      ribbon_payload_words(ribbon) * 8 == h.payload_raw_bytes) {
    for (const auto& [first, end] : ribbon_code_words(ribbon)) {
      for (uint64_t c = first * 8 / view->chunk_bytes(); c <= (end * 8 - 1) / view->chunk_bytes();
           ++c)
        if (c != last || !reads_last) pins.push_back(c);
    }
  }
  view->pin(pins);
  try {
    out.filter = instantiate(h, WordBuffer::borrow(view->words(), h.payload_raw_bytes / 8), path);
  } catch (...) {
    view->unpin(pins);
    throw;
  }
  view->unpin(pins);
  out.raw = std::move(view);
  return out;
}

namespace {

bool is_regular_file(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// The chunks of a raw payload that a group of consecutive keys probes, pinned while the group is
// answered. Groups are cut so that one pins at most the view's pin_limit() chunk references (but
// always at least one key), which bounds the memory a query batch holds whatever its size.
class ChunkGroups {
 public:
  explicit ChunkGroups(const RawPayloadView& view)
      : view_(view), word_shift_(static_cast<unsigned>(std::countr_zero(view.chunk_bytes() / 8))) {}
  ChunkGroups(const ChunkGroups&) = delete;
  ChunkGroups& operator=(const ChunkGroups&) = delete;
  ~ChunkGroups() { release(); }

  // Answers items [0, count): probes(i, *this) adds item i's words through add_word; answer(begin,
  // end) answers items [begin, end) while their chunks are pinned.
  template <typename Probes, typename Answer>
  void run(size_t count, Probes&& probes, Answer&& answer) {
    size_t begin = 0;
    for (size_t i = 0; i < count; ++i) {
      const size_t before = refs_.size();
      probes(i);
      if (refs_.size() > view_.pin_limit() && i > begin) {
        refs_.resize(before);
        answer_group(begin, i, answer);
        begin = i;
        probes(i);
      }
    }
    if (begin < count) answer_group(begin, count, answer);
  }
  void add_word(uint64_t word) {
    const uint64_t chunk = word >> word_shift_;
    if (refs_.empty() || refs_.back() != chunk) refs_.push_back(chunk);
  }
  static void visit(void* ctx, uint64_t word) noexcept {
    auto* self = static_cast<ChunkGroups*>(ctx);
    try {
      self->add_word(word);
    } catch (...) {  // out of memory: answer_group finds out
      self->failed_ = true;
    }
  }

 private:
  template <typename Answer>
  void answer_group(size_t begin, size_t end, Answer& answer) {
    if (failed_) throw std::bad_alloc();
    std::sort(refs_.begin(), refs_.end());
    refs_.erase(std::unique(refs_.begin(), refs_.end()), refs_.end());
    view_.pin(refs_);
    pinned_ = true;
    answer(begin, end);
    release();
  }
  void release() noexcept {
    if (pinned_) view_.unpin(refs_);
    pinned_ = false;
    refs_.clear();
  }

  const RawPayloadView& view_;
  unsigned word_shift_;
  std::vector<uint64_t> refs_;
  bool pinned_ = false;
  bool failed_ = false;
};

}  // namespace

LoadedFilter make_filter(FilterFileContents contents, const std::string& path) {
  LoadedFilter out;
  out.file_bytes = contents.file_bytes;
  out.filter = instantiate(contents.header, std::move(contents.payload), path);
  out.header = std::move(contents.header);
  return out;
}

void filter_contains_hashes(const LoadedFilter& filter, std::span<const uint64_t> hashes,
                            uint8_t* out) {
  const RawPayloadView* view = filter.raw.get();
  // A filter of a peer's rule answers hashes without reading a word (filter.h).
  if (view == nullptr || view->all_resident() || !filter.filter->rule().takes_key_hash())
    return filter.filter->contains_batch(hashes, out);
  ChunkGroups groups(*view);
  groups.run(
      hashes.size(),
      [&](size_t i) {
        filter.filter->visit_probed_words(hashes.subspan(i, 1), &ChunkGroups::visit, &groups);
      },
      [&](size_t begin, size_t end) {
        filter.filter->contains_batch(hashes.subspan(begin, end - begin), out + begin);
      });
}

void verify_whole_payload(const LoadedFilter& filter) {
  if (filter.raw) filter.raw->load_all();
}

void filter_contains_keys(const LoadedFilter& filter, std::span<const std::string_view> keys,
                          uint8_t* out) {
  const Filter& f = *filter.filter;
  if (!f.rule().takes_key_hash()) {
    // Probes from the key bytes (no seed): a raw payload's chunks from the keys' words.
    const RawPayloadView* view = filter.raw.get();
    if (view == nullptr || view->all_resident()) return f.contains_keys(keys, out);
    ChunkGroups groups(*view);
    groups.run(
        keys.size(),
        [&](size_t i) { f.visit_key_words(keys.subspan(i, 1), &ChunkGroups::visit, &groups); },
        [&](size_t begin, size_t end) {
          f.contains_keys(keys.subspan(begin, end - begin), out + begin);
        });
    return;
  }
  constexpr size_t kBatch = 256;
  uint64_t hashes[kBatch];
  for (size_t at = 0; at < keys.size(); at += kBatch) {
    const size_t n = std::min(kBatch, keys.size() - at);
    for (size_t i = 0; i < n; ++i) hashes[i] = hash_key(keys[at + i], filter.header.seed);
    filter_contains_hashes(filter, std::span<const uint64_t>(hashes, n), out + at);
  }
}

LoadedFilter load_filter_as(const std::string& path, FileFormat format, bool keep_source) {
  if (format == FileFormat::kBloomtool) return load_filter(path);
  return read_foreign_file(path, format, keep_source);
}

LoadedFilter load_filter(const std::string& path) {
  if (path == "-") return load_filter_from_fd(STDIN_FILENO, "<stdin>");
  if constexpr (std::endian::native == std::endian::little) {
    // Pipes and devices are read once, whole: only regular files are looked at twice.
    if (is_regular_file(path) && read_filter_header(path).codec == PayloadCodec::kRawChunked)
      return make_raw_filter(std::make_shared<const RawPayloadView>(path), path);
  }
  return make_filter(read_filter_file(path), path);
}

// A filter that arrives through a pipe (`build -o - | bloomtool stats -`): read whole and checked
// by the stream reader, then instantiated.
LoadedFilter load_filter_from_fd(int fd, const std::string& name) {
  return make_filter(read_filter_stream(fd, name), name);
}

}  // namespace bloomtool
