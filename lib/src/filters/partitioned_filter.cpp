// The partition table of a partitioned static filter and the filter that answers queries over it
// (partitioned_filter.h). Each partition is an ordinary filter of its kind made by the kind's
// entry in kKinds from a header of its own, over a view of the shared payload; the partitioned
// filter only routes hashes.
#include "filters/partitioned_filter.h"

#include <xxhash.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include "bloomtool/error.h"
#include "filters/filter_kinds.h"

namespace bloomtool {

namespace {

[[noreturn]] void corrupt(const std::string& path, const std::string& why) {
  throw Error(ErrorCode::kCorrupt, path + ": corrupt: " + why);
}

// A kind's error about one partition, "<path>: corrupt: <why>", as "<path>: corrupt: partition i:
// <why>".
[[noreturn]] void rethrow_in_partition(const Error& e, const std::string& path,
                                       const std::string& name) {
  std::string msg = e.what();
  const std::string prefix = path + ": ";
  if (msg.rfind(prefix, 0) == 0) msg.erase(0, prefix.size());
  const size_t colon = msg.find(": ");
  if (colon != std::string::npos &&
      (msg.compare(0, colon, "corrupt") == 0 || msg.compare(0, colon, "unsupported") == 0)) {
    msg.insert(colon + 2, name + ": ");
  } else {
    msg = name + ": " + msg;
  }
  throw Error(e.code(), prefix + msg);
}

const FilterKindEntry* kind_entry(FilterKind kind) noexcept {
  for (const FilterKindEntry& e : filter_kinds())
    if (e.kind == kind) return &e;
  return nullptr;
}

// Routes hashes to the partitions' filters.
class PartitionedFilter final : public Filter {
 public:
  PartitionedFilter(uint64_t seed, unsigned bits, WordBuffer payload,
                    std::vector<std::unique_ptr<Filter>> parts, std::vector<uint64_t> offsets)
      : Filter(KeyRule{kHashXxh3_64, seed}),
        bits_(bits),
        payload_(std::move(payload)),
        parts_(std::move(parts)),
        offsets_(std::move(offsets)) {}

  bool contains_hash(uint64_t h) const noexcept override {
    return parts_[partition_of(h, bits_)]->contains_hash(partition_hash(h));
  }

  // A block of hashes at a time is grouped by partition (a stable counting sort on the partition
  // number, one pass per 8 bits), and each partition's run goes to its filter's own batched
  // lookup, which prefetches; the answers go back to the callers' order.
  void contains_batch(std::span<const uint64_t> hashes, uint8_t* out) const noexcept override {
    constexpr size_t kBlock = 2048;
    uint16_t part[kBlock];
    uint16_t order[kBlock];
    uint16_t tmp[kBlock];
    uint64_t gathered[kBlock];
    uint8_t answers[kBlock];
    for (size_t start = 0; start < hashes.size(); start += kBlock) {
      const size_t n = std::min(kBlock, hashes.size() - start);
      const uint64_t* h = hashes.data() + start;
      for (size_t j = 0; j < n; ++j) part[j] = static_cast<uint16_t>(partition_of(h[j], bits_));
      if (bits_ <= 8) {
        sort_pass(part, nullptr, order, n, 0);
      } else {
        sort_pass(part, nullptr, tmp, n, 0);
        sort_pass(part, tmp, order, n, 8);
      }
      for (size_t j = 0; j < n; ++j) gathered[j] = partition_hash(h[order[j]]);
      for (size_t run = 0; run < n;) {
        const uint16_t p = part[order[run]];
        size_t end = run + 1;
        while (end < n && part[order[end]] == p) ++end;
        parts_[p]->contains_batch({gathered + run, end - run}, answers + run);
        run = end;
      }
      for (size_t j = 0; j < n; ++j) out[start + order[j]] = answers[j];
    }
  }

  void visit_probed_words(std::span<const uint64_t> hashes, WordVisitor visit,
                          void* ctx) const noexcept override {
    struct Shifted {
      WordVisitor visit;
      void* ctx;
      uint64_t offset;
      static void call(void* c, uint64_t word) noexcept {
        const auto* s = static_cast<const Shifted*>(c);
        s->visit(s->ctx, s->offset + word);
      }
    };
    for (const uint64_t h : hashes) {
      const uint64_t p = partition_of(h, bits_);
      Shifted s{visit, ctx, offsets_[p]};
      const uint64_t mapped = partition_hash(h);
      parts_[p]->visit_probed_words({&mapped, 1}, &Shifted::call, &s);
    }
  }

  std::span<const uint64_t> words() const noexcept override { return payload_.span(); }

 private:
  // One stable counting-sort pass over 8 bits of the partition numbers (from bit `shift`): the
  // indices `in` (nullptr: 0..n-1) in that order go to `out`.
  static void sort_pass(const uint16_t* part, const uint16_t* in, uint16_t* out, size_t n,
                        unsigned shift) noexcept {
    uint32_t count[257] = {};
    for (size_t j = 0; j < n; ++j) ++count[((part[j] >> shift) & 0xFF) + 1];
    for (size_t b = 1; b < 257; ++b) count[b] += count[b - 1];
    for (size_t j = 0; j < n; ++j) {
      const uint16_t i = in != nullptr ? in[j] : static_cast<uint16_t>(j);
      out[count[(part[i] >> shift) & 0xFF]++] = i;
    }
  }

  unsigned bits_;
  WordBuffer payload_;
  std::vector<std::unique_ptr<Filter>> parts_;
  std::vector<uint64_t> offsets_;
};

std::string range_text(uint64_t first, uint64_t count) {
  return count == 1 ? std::to_string(first)
                    : std::to_string(first) + "-" + std::to_string(first + count - 1);
}

}  // namespace

uint32_t partition_entry_words(FilterKind kind) noexcept {
  const FilterKindEntry* e = kind_entry(kind);
  return e == nullptr || e->partition_params == 0 ? 0
                                                  : kPartitionEntryFixedWords + e->partition_params;
}

uint64_t partition_checksum(std::span<const uint64_t> words) noexcept {
  if constexpr (std::endian::native == std::endian::little) {
    return XXH3_64bits(words.data(), words.size() * 8);
  } else {
    XXH3_state_t* st = XXH3_createState();
    XXH3_64bits_reset(st);
    for (const uint64_t w : words) {
      const uint64_t le = __builtin_bswap64(w);
      XXH3_64bits_update(st, &le, 8);
    }
    const uint64_t r = XXH3_64bits_digest(st);
    XXH3_freeState(st);
    return r;
  }
}

FilterHeader partition_header(const FilterHeader& whole, const PartitionEntry& e) {
  FilterHeader h;
  h.kind = whole.kind;
  h.variant = whole.variant;
  h.hash_id = whole.hash_id;
  h.seed = whole.seed;
  h.k = whole.k;
  h.m = e.m;
  h.kind_params = e.kind_params;
  h.payload_raw_bytes = e.word_count * 8;
  h.distinct_estimate = e.keys;
  return h;
}

PartitionSummary summarize_partitions(const FilterHeader& whole,
                                      std::span<const PartitionEntry> entries) {
  PartitionSummary s;
  const FilterKindEntry* kind = kind_entry(whole.kind);
  double weighted = 0, plain = 0;
  for (const PartitionEntry& e : entries) {
    const FilterHeader h = partition_header(whole, e);
    s.m += e.m;
    s.keys += e.keys;
    s.filter_bits += kind->filter_bits(h);
    const double rate = kind->model_fpr(h, static_cast<double>(e.keys));
    weighted += rate * static_cast<double>(e.keys);
    plain += rate;
  }
  if (!entries.empty()) {
    s.model_rate = s.keys != 0 ? weighted / static_cast<double>(s.keys)
                               : plain / static_cast<double>(entries.size());
  }
  return s;
}

std::vector<uint64_t> encode_partition_table(FilterKind kind,
                                             std::span<const PartitionEntry> entries) {
  const uint32_t e_words = partition_entry_words(kind);
  std::vector<uint64_t> t;
  t.reserve(entries.size() * e_words);
  for (const PartitionEntry& e : entries) {
    t.insert(t.end(), {e.keys, e.word_offset, e.word_count, e.checksum, e.m});
    t.insert(t.end(), e.kind_params.begin(), e.kind_params.end());
    t.resize(t.size() + (e_words - kPartitionEntryFixedWords - e.kind_params.size()), 0);
  }
  return t;
}

std::vector<PartitionEntry> read_partition_table(const FilterHeader& h,
                                                 std::span<const uint64_t> table,
                                                 const std::string& path) {
  const PartitionsField& f = *h.partitions;
  const uint32_t e_words = partition_entry_words(h.kind);
  if (e_words == 0)
    corrupt(path, std::string("a partitioned ") + filter_kind_name(h.kind) + " filter");
  if (f.entry_words != e_words) {
    corrupt(path, "partition table entries of " + std::to_string(f.entry_words) + " words (a " +
                      filter_kind_name(h.kind) + " entry has " + std::to_string(e_words) + ")");
  }
  const uint64_t total_words = h.payload_raw_bytes / 8;
  const uint64_t table_words = uint64_t{f.count} * e_words;
  if (table_words > total_words || table.size() != table_words) {
    corrupt(path, "partition table of " + std::to_string(f.count) + " entries does not fit a " +
                      std::to_string(h.payload_raw_bytes) + "-byte payload");
  }
  const FilterKindEntry& kind = filter_kind_entry(h.kind, path);
  std::vector<PartitionEntry> entries(f.count);
  uint64_t next = table_words;
  for (uint32_t i = 0; i < f.count; ++i) {
    const uint64_t* w = table.data() + uint64_t{i} * e_words;
    PartitionEntry& e = entries[i];
    e.keys = w[0];
    e.word_offset = w[1];
    e.word_count = w[2];
    e.checksum = w[3];
    e.m = w[4];
    e.kind_params.assign(w + kPartitionEntryFixedWords, w + e_words);
    const std::string name = "partition " + std::to_string(f.first + i);
    if (e.word_offset != next || e.word_count == 0 || e.word_count > total_words - next) {
      corrupt(path, name + ": payload words " + std::to_string(e.word_offset) + "+" +
                        std::to_string(e.word_count) + " do not follow at word " +
                        std::to_string(next) + " within " + std::to_string(total_words));
    }
    next += e.word_count;
    try {
      kind.check_header(partition_header(h, e), path);
    } catch (const Error& err) {
      rethrow_in_partition(err, path, name);
    }
  }
  if (next != total_words) {
    corrupt(path, "partitions end at word " + std::to_string(next) + ", the payload at " +
                      std::to_string(total_words));
  }
  const PartitionSummary s = summarize_partitions(h, entries);
  if (s.m != h.m)
    corrupt(path, "m=" + std::to_string(h.m) + " is not the partitions' " + std::to_string(s.m));
  if (s.keys != h.distinct_estimate) {
    corrupt(path, std::to_string(h.distinct_estimate) + " distinct keys recorded, the partitions " +
                      "hold " + std::to_string(s.keys));
  }
  if (s.filter_bits != f.filter_bits) {
    corrupt(path, "filter bits " + std::to_string(f.filter_bits) + " are not the partitions' " +
                      std::to_string(s.filter_bits));
  }
  if (!(std::fabs(s.model_rate - f.model_rate) <= 1e-12 * std::max(s.model_rate, 1e-300))) {
    corrupt(path, "model rate " + std::to_string(f.model_rate) + " is not the partitions' " +
                      std::to_string(s.model_rate));
  }
  return entries;
}

std::unique_ptr<Filter> make_partitioned_filter(const FilterHeader& h, WordBuffer payload,
                                                const std::string& path, const RawPayloadView* lazy,
                                                bool built) {
  const PartitionsField& f = *h.partitions;
  if (!f.whole()) {
    throw Error(ErrorCode::kUnsupported,
                path + ": unsupported: a part file holding partitions " +
                    range_text(f.first, f.count) + " of " + std::to_string(f.partitions()) +
                    " answers for some keys only; assemble the parts into one file first");
  }
  const uint32_t e_words = partition_entry_words(h.kind);
  const uint64_t table_words = uint64_t{f.count} * e_words;
  if (e_words == 0 || table_words > payload.size()) {
    (void)read_partition_table(h, {}, path);  // throws the reason
  }
  // A lazily read payload: the table's chunks are read and checked, and copied out.
  std::vector<uint64_t> lazy_table;
  std::span<const uint64_t> table(payload.data(), table_words);
  if (lazy != nullptr) {
    std::vector<uint64_t> c;
    for (uint64_t i = 0; i <= (table_words * 8 - 1) / lazy->chunk_bytes(); ++i) c.push_back(i);
    lazy->pin(c);
    lazy_table.assign(payload.data(), payload.data() + table_words);
    lazy->unpin(c);
    table = lazy_table;
  }
  const std::vector<PartitionEntry> entries = read_partition_table(h, table, path);
  const FilterKindEntry& kind = filter_kind_entry(h.kind, path);
  std::vector<std::unique_ptr<Filter>> parts(entries.size());
  std::vector<uint64_t> offsets(entries.size());
  for (size_t i = 0; i < entries.size(); ++i) {
    const PartitionEntry& e = entries[i];
    const std::string name = "partition " + std::to_string(i);
    offsets[i] = e.word_offset;
    uint64_t* words = payload.data() + e.word_offset;
    if (lazy == nullptr && !built && partition_checksum({words, e.word_count}) != e.checksum)
      corrupt(path, name + ": checksum mismatch");
    // The kind's checks read the partition's last word (padding after the last fingerprint).
    const uint64_t last =
        (e.word_offset + e.word_count - 1) * 8 / (lazy != nullptr ? lazy->chunk_bytes() : 1);
    const std::span<const uint64_t> pins(&last, lazy != nullptr ? 1 : 0);
    if (lazy != nullptr) lazy->pin(pins);
    try {
      parts[i] = kind.make(partition_header(h, e), WordBuffer::borrow(words, e.word_count), path);
    } catch (const Error& err) {
      if (lazy != nullptr) lazy->unpin(pins);
      rethrow_in_partition(err, path, name);
    }
    if (lazy != nullptr) lazy->unpin(pins);
  }
  return std::make_unique<PartitionedFilter>(h.seed, f.bits, std::move(payload), std::move(parts),
                                             std::move(offsets));
}

}  // namespace bloomtool
