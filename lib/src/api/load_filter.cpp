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
#include "filters/bloom.h"
#include "filters/ribbon.h"
#include "filters/scheme_bloom.h"
#include "filters/xor_filter.h"
#include "interop/foreign_format.h"
#include "keys/hash.h"
#include "model/model.h"

namespace bloomtool {

namespace {

[[noreturn]] void corrupt(const std::string& path, const std::string& why) {
  throw Error(ErrorCode::kCorrupt, path + ": corrupt: " + why);
}

std::unique_ptr<Filter> make_bloom(const FilterHeader& h, WordBuffer& payload,
                                   const std::string& path) {
  check_bloom_header(h, path);
  if (h.m % 64 != 0) {
    const uint64_t last = payload.data()[payload.size() - 1];
    if ((last >> (h.m % 64)) != 0) corrupt(path, "bits set beyond m");
  }
  return std::make_unique<BloomFilter>(h.m, h.k, static_cast<BloomVariant>(h.variant),
                                       std::move(payload));
}

// Hash ids 2-4 (format 1.1): a standard Bloom filter whose positions come from the key bytes.
std::unique_ptr<Filter> make_scheme_bloom(const FilterHeader& h, WordBuffer& payload,
                                          const std::string& path) {
  if (h.kind != FilterKind::kBloom || h.variant != 0) {
    throw Error(ErrorCode::kUnsupported,
                path + ": unsupported: hash scheme " + hash_scheme_name(h.hash_id) + " with " +
                    filter_kind_name(h.kind) + " variant " + std::to_string(h.variant) +
                    " (only the standard Bloom filter has it)");
  }
  const std::string why = scheme_geometry_problem(h.hash_id, h.m, h.k);
  if (!why.empty()) corrupt(path, why);
  if (h.seed != 0)
    corrupt(path, "seed must be 0 for hash scheme " + std::string(hash_scheme_name(h.hash_id)));
  if (h.payload_raw_bytes != BloomFilter::word_count(h.m) * 8) {
    corrupt(path, "payload length " + std::to_string(h.payload_raw_bytes) +
                      " does not match m=" + std::to_string(h.m));
  }
  if (h.m % 64 != 0 && (payload.data()[payload.size() - 1] >> (h.m % 64)) != 0)
    corrupt(path, "bits set beyond m");
  if (!h.source_format.empty()) {
    const SourceFormat src = decode_source_format(h.source_format, path);
    const bool dcso = h.hash_id == kHashDcsoFnv1;
    if (dcso != (src.source == SourceFormat::Source::kDcso))
      corrupt(path, "source format field does not match hash scheme " +
                        std::string(hash_scheme_name(h.hash_id)));
  }
  return std::make_unique<SchemeBloom>(h.hash_id, h.m, h.k, std::move(payload));
}

std::unique_ptr<Filter> make_xor(const FilterHeader& h, WordBuffer& payload, XorLayout layout,
                                 const std::string& path) {
  const char* kind = filter_kind_name(h.kind);
  if (h.variant != 0) {
    throw Error(ErrorCode::kUnsupported,
                path + ": unsupported: " + kind + " variant " + std::to_string(h.variant));
  }
  if (h.k != 8 && h.k != 16) {
    throw Error(ErrorCode::kUnsupported,
                path + ": unsupported: " + kind + " fingerprint width " + std::to_string(h.k));
  }
  XorParams p;
  const std::string why = xor_params_from_file(layout, h.k, h.m, h.kind_params, p);
  if (!why.empty()) corrupt(path, why);
  if (h.payload_raw_bytes != xor_payload_words(p) * 8) {
    corrupt(path, "payload length " + std::to_string(h.payload_raw_bytes) + " does not match " +
                      std::to_string(h.m) + " slots of " + std::to_string(h.k) + " bits");
  }
  try {
    return std::make_unique<XorFilter>(p, std::move(payload));
  } catch (const Error& e) {
    corrupt(path, e.what());
  }
}

std::unique_ptr<Filter> make_ribbon(const FilterHeader& h, WordBuffer& payload,
                                    const std::string& path) {
  if (h.variant != 0) {
    throw Error(ErrorCode::kUnsupported,
                path + ": unsupported: ribbon variant " + std::to_string(h.variant));
  }
  RibbonParams p;
  const std::string why = ribbon_params_from_file(h.k, h.m, h.kind_params, p);
  if (!why.empty()) corrupt(path, why);
  if (h.payload_raw_bytes != ribbon_payload_words(p) * 8) {
    corrupt(path, "payload length " + std::to_string(h.payload_raw_bytes) + " does not match " +
                      std::to_string(h.m) + " rows of " + std::to_string(h.k) + " columns");
  }
  try {
    return std::make_unique<RibbonFilter>(p, std::move(payload));
  } catch (const Error& e) {
    corrupt(path, e.what());
  }
}

}  // namespace

void check_bloom_header(const FilterHeader& h, const std::string& path) {
  if (h.variant > 1) {
    throw Error(ErrorCode::kUnsupported,
                path + ": unsupported: Bloom variant " + std::to_string(h.variant));
  }
  const auto variant = static_cast<BloomVariant>(h.variant);
  if (h.m == 0 || h.m > model::kMaxBits)
    corrupt(path, "m=" + std::to_string(h.m) + " is out of range");
  if (h.k == 0 || h.k > model::kMaxK)
    corrupt(path, "k=" + std::to_string(h.k) + " is out of range");
  if (BloomFilter::effective_bits(h.m, variant) != h.m)
    corrupt(path, "m is not a whole number of blocks");
  if (h.payload_raw_bytes != BloomFilter::word_count(h.m) * 8) {
    corrupt(path, "payload length " + std::to_string(h.payload_raw_bytes) +
                      " does not match m=" + std::to_string(h.m));
  }
}

namespace {

std::unique_ptr<Filter> instantiate(const FilterHeader& h, WordBuffer payload,
                                    const std::string& path) {
  if (is_key_scheme(h.hash_id)) return make_scheme_bloom(h, payload, path);
  if (h.hash_id != kHashXxh3_64) {
    throw Error(ErrorCode::kUnsupported,
                path + ": unsupported: hash id " + std::to_string(h.hash_id));
  }
  switch (h.kind) {
    case FilterKind::kBloom:
      return make_bloom(h, payload, path);
    case FilterKind::kXor:
      return make_xor(h, payload, XorLayout::kXor, path);
    case FilterKind::kBinaryFuse:
      return make_xor(h, payload, XorLayout::kFuse, path);
    case FilterKind::kRibbon:
      return make_ribbon(h, payload, path);
  }
  throw Error(ErrorCode::kUnsupported,
              path + ": unsupported: filter kind " + filter_kind_name(h.kind));
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
  // fingerprint): its chunk is pinned while they run.
  const uint64_t last = view->chunk_count() - 1;
  const bool reads_last = h.kind != FilterKind::kBloom || h.m % 64 != 0;
  const std::span<const uint64_t> pins(&last, reads_last ? 1 : 0);
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
  // A filter of a peer's scheme answers hashes without reading a word (scheme_bloom.h).
  if (view == nullptr || view->all_resident() ||
      dynamic_cast<const SchemeBloom*>(filter.filter.get()) != nullptr)
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
  if (const auto* scheme = dynamic_cast<const SchemeBloom*>(filter.filter.get())) {
    // Positions come from the key bytes (no seed): a raw payload's chunks from the positions.
    const RawPayloadView* view = filter.raw.get();
    if (view == nullptr || view->all_resident()) return scheme->contains_keys(keys, out);
    std::vector<uint64_t> positions(scheme->k());
    ChunkGroups groups(*view);
    groups.run(
        keys.size(),
        [&](size_t i) {
          scheme->positions(keys[i], positions.data());
          for (const uint64_t p : positions) groups.add_word(p / 64);
        },
        [&](size_t begin, size_t end) {
          scheme->contains_keys(keys.subspan(begin, end - begin), out + begin);
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

LoadedFilter load_filter(const std::string& path) {
  if (path == "-") return load_filter_from_fd(STDIN_FILENO, "<stdin>");
  if constexpr (std::endian::native == std::endian::little) {
    // Pipes and devices are read once, whole: only regular files are looked at twice.
    if (is_regular_file(path) && read_filter_header(path).codec == PayloadCodec::kRawChunked)
      return make_raw_filter(std::make_shared<const RawPayloadView>(path), path);
  }
  return make_filter(read_filter_file(path), path);
}

}  // namespace bloomtool
