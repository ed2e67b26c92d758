// Partitioned static builds and the assembly of part files (partitioned_build.h).
//
// Memory: the hash source holds the hashes (8 bytes a key in memory; the spill module bounds
// that). Xor and fuse hashes of a whole file of up to 16 partitions are bucketed as they arrive
// (HashBuckets) and built from where they are; other xor and fuse hashes held in memory are split
// by partition into buffers that take over the source's pages as the split frees them
// (SplitHashes), so they are never held twice; otherwise each build thread reads one partition's
// sorted hashes at a time. Either way a build thread holds one partition's construction state at
// a time (in one arena it keeps from partition to partition), so with partitions of ~2^21 keys
// the construction's peak is threads × ~30 MiB rather than the ~24 bytes a key of an
// unpartitioned construction. The built partitions (the filter's own size) are copied behind the
// table once all are done, each freed as it is copied.
#include "filters/partitioned_build.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <utility>
#include <vector>

#include "base/run_threads.h"
#include "bloomtool/error.h"
#include "filters/hash_buckets.h"
#include "filters/partitioned_filter.h"
#include "keys/hash_sort.h"

namespace bloomtool {

namespace {

[[noreturn]] void invalid(const std::string& why) {
  throw Error(ErrorCode::kInvalidArgument, why);
}

// One built partition: the table entry (offset not yet known) and the filter holding its words.
struct BuiltPartition {
  PartitionEntry entry;
  std::unique_ptr<Filter> filter;
  uint32_t attempts = 0;
};

// A built partition: its table entry (offset not yet known) from its construction's result.
template <typename Result>
BuiltPartition built_partition(Result r) {
  BuiltPartition b;
  b.entry.keys = r.distinct;
  b.entry.m = r.filter->params().slots;
  b.entry.kind_params = r.filter->params().kind_params();
  b.attempts = r.attempts;
  b.filter = std::move(r.filter);
  const std::span<const uint64_t> w = b.filter->words();
  b.entry.word_count = w.size();
  b.entry.checksum = partition_checksum(w);
  return b;
}

// A partition's xor or fuse construction: one thread, the build thread's arena.
XorBuildOptions partition_xor_options(const StaticBuildOptions& o, uint64_t seed, bool distinct,
                                      WordBuffer& arena) {
  XorBuildOptions xo = o.xor_options;
  xo.layout = o.kind == FilterKind::kXor ? XorLayout::kXor : XorLayout::kFuse;
  xo.threads = 1;
  xo.assume_distinct = distinct;
  xo.arena = &arena;
  xo.hash_seed = seed;
  return xo;
}

// A partition of sorted distinct hashes (read back from the hash source), remapped.
BuiltPartition build_sorted(std::vector<uint64_t>& hashes, const StaticBuildOptions& o,
                            uint64_t seed, WordBuffer& arena) {
  if (o.kind == FilterKind::kRibbon) {
    RibbonBuildOptions ro = o.ribbon_options;
    // A partition is a standard Ribbon (variant 0): a bumped one's parameters (per layer) do not
    // fit the partition table's fixed entries.
    ro.variant = 0;
    ro.threads = 1;
    ro.assume_distinct = true;
    ro.hash_seed = seed;
    return built_partition(build_ribbon_filter(hashes, ro));
  }
  return built_partition(build_xor_filter(hashes, partition_xor_options(o, seed, true, arena)));
}

// A set held in memory, split by partition instead of sorted: parts[i][t] holds used[i][t]
// hashes, those of thread t's share of the input in partition first + i, each remapped by
// partition_hash (repeats kept, in input order). A filter depends only on the set of its hashes,
// never on their order, so construction (which groups and de-duplicates them) gives the bytes
// that sorted partitions give. The input's pages are given back as the split passes them, so the
// parts fill pages just freed: fresh pages cost a kernel page clear each (far more on a virtual
// machine whose host has taken them back), and the hashes are never held twice.
struct SplitHashes {
  std::vector<std::vector<WordBuffer>> parts;
  std::vector<std::vector<size_t>> used;
};

SplitHashes split_partitions(WordBuffer all, size_t n, unsigned bits, uint32_t first,
                             uint32_t count, unsigned threads) {
  if (n < (size_t{1} << 18)) threads = 1;
  const int shift = 64 - static_cast<int>(bits);
  const uint64_t* in = all.data();
  auto slice = [&](unsigned t) {
    return std::pair{n / threads * t, t + 1 == threads ? n : n / threads * (t + 1)};
  };
  SplitHashes s;
  s.parts.resize(count);
  s.used.assign(count, std::vector<size_t>(threads, 0));
  for (std::vector<WordBuffer>& p : s.parts) p.resize(threads);
  detail::run_threads(threads, [&](unsigned t) {
    const auto [begin, end] = slice(t);
    std::vector<size_t> c(count, 0);
    for (size_t i = begin; i < end; ++i) ++c[(in[i] >> shift) - first];
    std::vector<uint64_t*> to(count);
    for (uint32_t p = 0; p < count; ++p) {
      s.used[p][t] = c[p];
      s.parts[p][t] = WordBuffer(c[p]);
      to[p] = s.parts[p][t].data();
    }
    // 2 MiB of the input at a time (a huge page), then its pages go back.
    constexpr size_t kChunkWords = (size_t{2} << 20) / sizeof(uint64_t);
    const size_t phase = reinterpret_cast<uintptr_t>(in) / sizeof(uint64_t) % kChunkWords;
    for (size_t i = begin; i < end;) {
      const size_t stop = std::min(end, ((i + phase) / kChunkWords + 1) * kChunkWords - phase);
      for (size_t j = i; j < stop; ++j) {
        const uint64_t h = in[j];
        *to[(h >> shift) - first]++ = partition_hash(h);
      }
      all.release_pages(i, stop);
      i = stop;
    }
  });
  return s;
}

uint32_t fingerprint_k(const StaticBuildOptions& o) {
  return o.kind == FilterKind::kRibbon ? ribbon_params_for(0, o.ribbon_options.rate, 0).columns
                                       : o.xor_options.fingerprint_bits;
}

// The options of the plain xor or fuse filter of all the hashes, on the build's threads.
XorBuildOptions plain_xor_options(const StaticBuildOptions& o, const HashedKeys& keys) {
  XorBuildOptions xo = o.xor_options;
  xo.layout = o.kind == FilterKind::kXor ? XorLayout::kXor : XorLayout::kFuse;
  xo.threads = keys.threads;
  xo.hash_seed = keys.seed;
  return xo;
}

// Makes `built` the build's plain xor or fuse file.
void take_plain_xor(StaticBuild& r, XorBuildResult built, const StaticBuildOptions& o,
                    const HashedKeys& keys, const BuildProvenance& provenance) {
  XorBuild b;
  b.built = std::move(built);
  b.input = r.input;
  b.header = xor_file_header(o.kind, b.built, keys.seed, r.input, *keys.input, provenance);
  r.header = b.header;
  r.distinct = b.built.distinct;
  r.attempts = b.built.attempts;
  r.duplicates = b.built.duplicates;
  r.largest_partition = r.distinct;
  r.plain_xor = std::move(b);
}

// The plain (unpartitioned) file of all the hashes.
void build_plain(StaticBuild& r, HashSpill& spill, const StaticBuildOptions& o,
                 const HashedKeys& keys, const BuildProvenance& provenance) {
  // In memory, the spill's own sorted hashes are built from in place (no copy: 8 bytes a key
  // less at the construction's peak); spilled ones are read back into one array.
  std::vector<uint64_t> read_back;
  std::span<uint64_t> hashes;
  if (spill.spilled()) {
    spill.read(0, 0, read_back);
    hashes = read_back;
  } else {
    hashes = spill.held();
  }
  const uint64_t duplicates = spill.size() - hashes.size();
  if (o.kind == FilterKind::kRibbon) {
    RibbonBuild b;
    RibbonBuildOptions ro = o.ribbon_options;
    ro.threads = keys.threads;
    ro.assume_distinct = true;
    ro.hash_seed = keys.seed;
    b.built = build_ribbon_filter(hashes, ro);
    b.built.duplicates = duplicates;
    b.input = r.input;
    b.header = ribbon_file_header(b.built, keys.seed, r.input, *keys.input, provenance);
    r.header = b.header;
    r.distinct = b.built.distinct;
    r.attempts = b.built.attempts;
    r.plain_ribbon = std::move(b);
  } else {
    XorBuildOptions xo = plain_xor_options(o, keys);
    xo.assume_distinct = true;
    XorBuildResult built = build_xor_filter(hashes, xo);
    built.duplicates = duplicates;
    take_plain_xor(r, std::move(built), o, keys, provenance);
  }
  r.duplicates = duplicates;
  r.largest_partition = r.distinct;
}

// Lays the entries' partitions out behind their table: offsets filled in, words copied (each
// partition's filter freed once copied).
WordBuffer lay_out(FilterKind kind, std::vector<BuiltPartition>& built,
                   std::vector<PartitionEntry>& entries) {
  const uint64_t table_words = built.size() * uint64_t{partition_entry_words(kind)};
  uint64_t at = table_words;
  entries.clear();
  for (BuiltPartition& b : built) {
    b.entry.word_offset = at;
    at += b.entry.word_count;
    entries.push_back(b.entry);
  }
  WordBuffer payload(at);
  const std::vector<uint64_t> table = encode_partition_table(kind, entries);
  std::copy(table.begin(), table.end(), payload.data());
  for (BuiltPartition& b : built) {
    const std::span<const uint64_t> w = b.filter->words();
    std::copy(w.begin(), w.end(), payload.data() + b.entry.word_offset);
    b.filter.reset();
  }
  return payload;
}

void set_partitions_field(FilterHeader& h, unsigned bits, uint32_t first,
                          std::span<const PartitionEntry> entries, uint64_t payload_words) {
  PartitionsField f;
  f.bits = bits;
  f.entry_words = partition_entry_words(h.kind);
  f.first = first;
  f.count = static_cast<uint32_t>(entries.size());
  h.partitions = f;
  const PartitionSummary s = summarize_partitions(h, entries);
  h.partitions->model_rate = s.model_rate;
  h.partitions->filter_bits = s.filter_bits;
  h.m = s.m;
  h.distinct_estimate = s.keys;
  h.kind_params.clear();
  h.payload_raw_bytes = payload_words * 8;
}

}  // namespace

unsigned default_partition_bits(uint64_t hashes) noexcept {
  if (hashes <= kAutoPartitionKeys) return 0;
  const uint64_t parts = (hashes + kAutoPartitionKeys - 1) / kAutoPartitionKeys;
  return std::min<unsigned>(kMaxPartitionBits, static_cast<unsigned>(std::bit_width(parts - 1)));
}

std::span<const uint64_t> StaticBuild::words() const noexcept {
  if (plain_xor) return plain_xor->built.filter->words();
  if (plain_ribbon) return plain_ribbon->built.filter->words();
  if (filter) return filter->words();
  return payload.span();
}

uint64_t StaticBuild::write(const std::string& path, const WriteOptions& options) {
  const std::span<const uint64_t> w = words();
  return write_filter_file(path, header, w, w.size() * 8, options);
}

StaticBuild build_static(const HashedKeys& keys, const StaticBuildOptions& o,
                         const BuildProvenance& provenance) {
  if (o.kind != FilterKind::kXor && o.kind != FilterKind::kBinaryFuse &&
      o.kind != FilterKind::kRibbon) {
    invalid("a static build makes xor, binary fuse or Ribbon filters");
  }
  if (o.partition_bits && *o.partition_bits > kMaxPartitionBits)
    invalid("partition bits " + std::to_string(*o.partition_bits) + " are more than 16");
  const bool ranged = o.first != 0 || o.count != 0;
  if (ranged) {
    if (!o.partition_bits || *o.partition_bits == 0)
      invalid("a partition range needs a partition count");
    const uint64_t parts = uint64_t{1} << *o.partition_bits;
    if (o.count == 0 || o.first >= parts || o.count > parts - o.first) {
      invalid("partitions " + std::to_string(o.first) + " to " +
              std::to_string(uint64_t{o.first} + o.count - 1) + " are not within 0 to " +
              std::to_string(parts - 1));
    }
  }
  if (o.kind == FilterKind::kRibbon) (void)ribbon_params_for(0, o.ribbon_options.rate);
  const unsigned threads = std::max(1u, keys.threads);

  // A part file keeps only its own partitions' hashes. A whole xor or fuse file of up to
  // 2^kPartBits partitions (or of one, automatically) is built from hashes bucketed as they
  // arrive (HashBuckets), unless they would pass the spill's run buffer: then, as for every other
  // build, they go to the spill, the bucketed ones first.
  HashSpill spill(o.spill, threads);
  StaticBuild r;
  std::optional<HashBuckets> buckets;
  if (!ranged && o.kind != FilterKind::kRibbon &&
      (!o.partition_bits ||
       (*o.partition_bits >= 1 && *o.partition_bits <= HashBuckets::kPartBits))) {
    const uint64_t cap = spill.run_capacity();
    buckets.emplace(threads, cap == UINT64_MAX ? 0 : cap);
  }
  {
    const unsigned range_bits = ranged ? *o.partition_bits : 0;
    const uint64_t lo = o.first, hi = uint64_t{o.first} + o.count;
    std::vector<std::vector<uint64_t>> kept(ranged ? threads : 0);
    std::shared_mutex mode;  // adds share it; moving the buckets to the spill takes it alone
    bool bucketing = buckets.has_value();
    r.input = keys.for_each([&](const HashedBatch& b) {
      std::span<const uint64_t> hashes = b.hashes;
      if (buckets) {
        {
          const std::shared_lock<std::shared_mutex> shared(mode);
          if (bucketing) {
            hashes = hashes.subspan(buckets->add(b.thread, hashes));
            if (hashes.empty()) return;
          }
        }
        {
          const std::unique_lock<std::shared_mutex> alone(mode);
          if (bucketing) {
            buckets->drain([&](std::span<const uint64_t> h) { spill.add(b.thread, h); });
            bucketing = false;
          }
        }
        return spill.add(b.thread, hashes);
      }
      if (!ranged) return spill.add(b.thread, hashes);
      std::vector<uint64_t>& k = kept[b.thread];
      k.clear();
      for (const uint64_t h : hashes) {
        const uint64_t p = partition_of(h, range_bits);
        if (p >= lo && p < hi) k.push_back(h);
      }
      spill.add(b.thread, k);
    });
    if (!bucketing) buckets.reset();
  }
  const uint64_t added = buckets ? buckets->size() : spill.size();

  // Ribbon is partitioned only when asked: partitions are standard Ribbon, about 3 % larger than
  // the bumped filter an unpartitioned build makes.
  const unsigned bits = o.partition_bits                ? *o.partition_bits
                        : o.kind == FilterKind::kRibbon ? 0
                                                        : default_partition_bits(added);
  if (buckets && bits == 0) {
    // One plain filter, built from the buckets' hashes turned back where they are (construction
    // groups them and removes repeats itself; the bytes are those of the sorted path).
    WordBuffer scratch;
    XorBuildResult built =
        build_xor_filter(buckets->unmap_all(), scratch, plain_xor_options(o, keys));
    buckets.reset();
    take_plain_xor(r, std::move(built), o, keys, provenance);
    return r;
  }
  if (buckets && bits > HashBuckets::kPartBits) {
    buckets->drain([&](std::span<const uint64_t> h) { spill.add(0, h); });
    buckets.reset();
  }
  const uint32_t first = ranged ? o.first : 0;
  const uint32_t count = bits == 0 ? 1
                         : ranged  ? o.count
                                   : static_cast<uint32_t>(uint64_t{1} << bits);
  // Xor and fuse partitions held in memory are bucketed or split, not sorted (SplitHashes);
  // Ribbon's and spilled ones are read back sorted and distinct.
  std::optional<SplitHashes> split;
  if (buckets) {
    // Nothing went to the spill.
  } else if (bits != 0 && o.kind != FilterKind::kRibbon) {
    WordBuffer all;
    if (spill.finish_unsorted(all)) {
      const uint64_t n = spill.size();
      split = split_partitions(std::move(all), n, bits, first, count, threads);
    }
  } else {
    spill.finish();
  }
  r.spill_bytes = spill.spill_bytes();
  r.spill_runs = spill.runs();
  if (bits == 0) {
    build_plain(r, spill, o, keys, provenance);
    return r;
  }

  // Partitions one a thread at a time, in any order; each lands in its own slot. Until a built
  // partition has had repeats, the others speculate that they have none (XorBuildOptions::
  // speculate: same bytes, less work when right; a look at a sample and at the first hashes
  // vetoes it). So an input with few repeats, too few for the sample to show, costs each thread
  // at most one attempt that fails.
  std::vector<BuiltPartition> built(count);
  std::atomic<uint32_t> next{0};
  std::atomic<bool> repeats{false};
  detail::run_threads(std::min<unsigned>(threads, count), [&](unsigned) {
    std::vector<uint64_t> read_back;
    WordBuffer arena;    // the construction's working memory, kept from one partition to the next
    WordBuffer grouped;  // bucketed hashes grouped, when they are
    for (uint32_t i = next++; i < count; i = next++) {
      if (buckets) {
        XorBuildOptions xo = partition_xor_options(o, keys.seed, false, arena);
        xo.speculate = !repeats.load();
        // The repeat sample (top bits zero) lies in the partition's first sweep.
        static_assert(kRepeatSampleBits >= HashBuckets::kOrderBits);
        const std::vector<std::span<const uint64_t>> pieces =
            buckets->partition(bits, i, &xo.sample_parts);
        XorBuildResult xr = build_xor_filter(pieces, grouped, xo);
        if (xr.duplicates != 0) repeats.store(true);
        built[i] = built_partition(std::move(xr));
      } else if (split) {
        XorBuildOptions xo = partition_xor_options(o, keys.seed, false, arena);
        xo.speculate = !repeats.load();
        XorBuildResult xr = build_xor_filter(split->parts[i], split->used[i], xo);
        if (xr.duplicates != 0) repeats.store(true);
        built[i] = built_partition(std::move(xr));
        split->parts[i].clear();
      } else {
        spill.read(bits, first + i, read_back);
        // Every hash of a partition has the same top bits: the partition's filter holds them
        // remapped.
        for (uint64_t& h : read_back) h = partition_hash(h);
        built[i] = build_sorted(read_back, o, keys.seed, arena);
      }
    }
  });
  split.reset();
  buckets.reset();

  for (const BuiltPartition& b : built) {
    r.attempts = std::max(r.attempts, b.attempts);
    r.largest_partition = std::max(r.largest_partition, b.entry.keys);
  }
  std::vector<PartitionEntry> entries;
  WordBuffer payload = lay_out(o.kind, built, entries);

  BuildFacts facts;
  facts.kind = o.kind;
  facts.seed = keys.seed;
  facts.k = fingerprint_k(o);
  r.header = make_filter_header(facts, r.input, *keys.input, provenance);
  set_partitions_field(r.header, bits, first, entries, payload.size());
  r.distinct = r.header.distinct_estimate;
  r.duplicates = added - r.distinct;
  r.partition_bits = bits;
  if (r.header.partitions->whole()) {
    r.filter =
        make_partitioned_filter(r.header, std::move(payload), "<built filter>", nullptr, true);
  } else {
    r.payload = std::move(payload);
  }
  return r;
}

AssembledFile assemble_partitions(std::span<PartFile> parts, std::optional<int64_t> created,
                                  std::optional<std::string> label) {
  if (parts.empty()) invalid("no part files to assemble");
  for (const PartFile& p : parts) {
    if (!p.header.partitions)
      invalid(p.path + ": not a part file of a partitioned build (no partition table)");
  }
  std::vector<const PartFile*> order;
  for (const PartFile& p : parts) order.push_back(&p);
  std::sort(order.begin(), order.end(), [](const PartFile* a, const PartFile* b) {
    return a->header.partitions->first < b->header.partitions->first;
  });
  const PartFile& base = *order.front();
  const FilterHeader& b = base.header;
  const PartitionsField& bf = *b.partitions;
  const auto differ = [&](const PartFile& p, const char* what, const std::string& mine,
                          const std::string& theirs) {
    if (mine != theirs) {
      invalid(p.path + ": does not belong with " + base.path + ": " + what + " " + mine + " vs " +
              theirs);
    }
  };
  uint32_t expect = 0;
  for (const PartFile* pp : order) {
    const PartFile& p = *pp;
    const FilterHeader& h = p.header;
    const PartitionsField& f = *h.partitions;
    differ(p, "kind", filter_kind_name(h.kind), filter_kind_name(b.kind));
    differ(p, "k", std::to_string(h.k), std::to_string(b.k));
    differ(p, "seed", std::to_string(h.seed), std::to_string(b.seed));
    differ(p, "hash id", std::to_string(h.hash_id), std::to_string(b.hash_id));
    differ(p, "partition count", std::to_string(f.partitions()), std::to_string(bf.partitions()));
    differ(p, "normalisation", "'" + h.normalisation + "'", "'" + b.normalisation + "'");
    differ(p, "input options", "'" + h.input_options + "'", "'" + b.input_options + "'");
    differ(p, "lines read", std::to_string(h.lines_read), std::to_string(b.lines_read));
    differ(p, "keys added", std::to_string(h.keys_added), std::to_string(b.keys_added));
    differ(p, "empty lines", std::to_string(h.empty_lines), std::to_string(b.empty_lines));
    differ(p, "tool version", "'" + h.tool_version + "'", "'" + b.tool_version + "'");
    if (!label) differ(p, "label", "'" + h.label + "'", "'" + b.label + "'");
    if (f.first != expect) {
      if (f.first < expect) {
        invalid(p.path + ": partition " + std::to_string(f.first) + " is held by another part too");
      }
      invalid("partition " + std::to_string(expect) + " is in none of the parts (" + p.path +
              " starts at " + std::to_string(f.first) + ")");
    }
    expect = f.first + f.count;
  }
  if (expect != bf.partitions()) {
    invalid("partitions " + std::to_string(expect) + " to " + std::to_string(bf.partitions() - 1) +
            " are in none of the parts");
  }

  std::vector<BuiltPartition> built;
  built.reserve(bf.partitions());
  for (const PartFile* pp : order) {
    const std::vector<PartitionEntry> entries = read_partition_table(
        pp->header,
        {pp->payload.data(),
         std::min<size_t>(pp->payload.size(),
                          uint64_t{pp->header.partitions->count} * partition_entry_words(b.kind))},
        pp->path);
    for (const PartitionEntry& e : entries) {
      const std::span<const uint64_t> w(pp->payload.data() + e.word_offset, e.word_count);
      if (partition_checksum(w) != e.checksum)
        throw Error(ErrorCode::kCorrupt, pp->path + ": corrupt: a partition's checksum mismatch");
      BuiltPartition bp;
      bp.entry = e;
      built.push_back(std::move(bp));
    }
  }
  // Laid out as build_static lays out: the table, then each part's partitions in order.
  AssembledFile out;
  std::vector<PartitionEntry> entries;
  uint64_t at = built.size() * uint64_t{partition_entry_words(b.kind)};
  for (BuiltPartition& bp : built) {
    bp.entry.word_offset = at;
    at += bp.entry.word_count;
    entries.push_back(bp.entry);
  }
  out.payload = WordBuffer(at);
  const std::vector<uint64_t> table = encode_partition_table(b.kind, entries);
  std::copy(table.begin(), table.end(), out.payload.data());
  size_t i = 0;
  for (const PartFile* pp : order) {
    const std::vector<PartitionEntry> own =
        read_partition_table(pp->header,
                             {pp->payload.data(), uint64_t{pp->header.partitions->count} *
                                                      partition_entry_words(b.kind)},
                             pp->path);
    for (const PartitionEntry& e : own) {
      std::copy(pp->payload.data() + e.word_offset,
                pp->payload.data() + e.word_offset + e.word_count,
                out.payload.data() + entries[i++].word_offset);
    }
  }
  FilterHeader h;
  h.kind = b.kind;
  h.variant = b.variant;
  h.hash_id = b.hash_id;
  h.seed = b.seed;
  h.k = b.k;
  h.lines_read = b.lines_read;
  h.keys_added = b.keys_added;
  h.empty_lines = b.empty_lines;
  h.normalisation = b.normalisation;
  h.input_options = b.input_options;
  h.tool_version = b.tool_version;
  h.label = label ? *label : b.label;
  h.created_unix = b.created_unix;
  for (const PartFile& p : parts) h.created_unix = std::max(h.created_unix, p.header.created_unix);
  if (created) h.created_unix = *created;
  set_partitions_field(h, bf.bits, 0, entries, out.payload.size());
  out.header = std::move(h);
  return out;
}

uint64_t AssembledFile::write(const std::string& path, const WriteOptions& options) {
  return write_filter_file(path, header, payload.span(), payload.size() * 8, options);
}

AssembledFile assemble_part_files(const std::vector<std::string>& paths,
                                  std::optional<int64_t> created,
                                  std::optional<std::string> label) {
  std::vector<PartFile> parts;
  for (size_t i = 0; i < paths.size(); ++i) {
    if (std::find(paths.begin(), paths.begin() + static_cast<std::ptrdiff_t>(i), paths[i]) !=
        paths.begin() + static_cast<std::ptrdiff_t>(i)) {
      invalid(paths[i] + ": named twice");
    }
    // Only a part file's header is read before the next one is checked, so a wrong file is
    // refused before any payload is read.
    const FilterHeader h = read_filter_header(paths[i]);
    if (!h.partitions)
      invalid(paths[i] + ": not a part file of a partitioned build (no partition table)");
  }
  for (const std::string& path : paths) {
    FilterFileContents c = read_filter_file(path);
    parts.push_back({path, std::move(c.header), std::move(c.payload)});
  }
  return assemble_partitions(parts, created, std::move(label));
}

}  // namespace bloomtool
