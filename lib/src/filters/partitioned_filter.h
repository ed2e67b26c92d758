// Partitioned static filters (format 1.3, docs/FORMAT.md "Partitioned static filters"): P = 2^bits
// independent xor, binary fuse or Ribbon filters of one kind and fingerprint width, partition i
// over the keys whose 64-bit hash has top bits i. A query takes the partition from the hash it
// already has and asks that partition's filter (made by the kind's own entry in kKinds,
// filter_kinds.h) with the hash remapped by partition_hash; so the rate is the partitions'
// key-weighted mean rate and one more indirection is the whole cost.
//
// The payload is the partition table (P entries of entry_words u64) followed by each partition's
// payload in partition order. A table entry is
//   keys, word_offset, word_count, checksum, m, kind parameters...
// with word_offset counted from the start of the payload and checksum the XXH3-64 of the
// partition's words as little-endian bytes. This file reads, checks and writes the table and
// makes the query-side filter; partitioned_build.h builds one.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "base/word_buffer.h"
#include "filters/filter.h"
#include "format/filter_file.h"
#include "format/raw_payload.h"

namespace bloomtool {

// Words of a table entry before the kind parameters.
inline constexpr uint32_t kPartitionEntryFixedWords = 5;

// The partition of hash h in a file of 2^bits partitions (bits 1 to 16).
inline uint64_t partition_of(uint64_t h, unsigned bits) noexcept {
  return h >> (64 - bits);
}
// The hash a partition's filter holds and is asked for key hash h. Every hash of a partition has
// the same top bits, which the kinds' mappings (and a fingerprint taken from few bits) would waste:
// multiplying by an odd constant is a bijection (distinct hashes stay distinct) that spreads
// every bit of h over the top bits and keeps the low bits as random as h's.
inline constexpr uint64_t kPartitionHashMultiplier = 0x9E3779B97F4A7C15;
inline uint64_t partition_hash(uint64_t h) noexcept {
  return h * kPartitionHashMultiplier;
}

struct PartitionEntry {
  uint64_t keys = 0;         // distinct key hashes the partition holds
  uint64_t word_offset = 0;  // from the start of the payload
  uint64_t word_count = 0;
  uint64_t checksum = 0;  // XXH3-64 of the partition's words (little-endian bytes)
  uint64_t m = 0;         // the partition's m (slots or rows)
  std::vector<uint64_t> kind_params;
};

// Table entry words for a kind: kPartitionEntryFixedWords + its partition parameters; 0 for a kind
// that is not partitioned.
uint32_t partition_entry_words(FilterKind kind) noexcept;

// XXH3-64 of words as little-endian bytes.
uint64_t partition_checksum(std::span<const uint64_t> words) noexcept;

// The header of one partition as an unpartitioned file of the whole file's kind would have it
// (what the kind's check and factory take): kind, k, seed and rule of `whole`, m, kind parameters,
// payload length and distinct keys of the entry.
FilterHeader partition_header(const FilterHeader& whole, const PartitionEntry& entry);

// What the table's entries add up to: recorded in the header (m, distinct keys, field 10's rate and
// filter bits) and checked against the table when the file is read.
struct PartitionSummary {
  uint64_t m = 0;
  uint64_t keys = 0;
  uint64_t filter_bits = 0;
  double model_rate = 0;  // key-weighted mean of the partitions' model rates (plain mean: no keys)
};
PartitionSummary summarize_partitions(const FilterHeader& whole,
                                      std::span<const PartitionEntry> entries);

// The table's `count` entries as words (host order), offsets as given.
std::vector<uint64_t> encode_partition_table(FilterKind kind,
                                             std::span<const PartitionEntry> entries);

// Reads the table of a header with field 10 from `table` (the payload's first count·entry_words
// words) and checks it against the header before anything is allocated for a partition: the entry
// size for the kind, offsets contiguous from the end of the table to the end of the payload, every
// partition's own header (its kind's check), and the sums recorded in the header. Throws kCorrupt
// or kUnsupported naming `path`.
std::vector<PartitionEntry> read_partition_table(const FilterHeader& header,
                                                 std::span<const uint64_t> table,
                                                 const std::string& path);

// The filter of a partitioned file: checks the header and the table, verifies each partition's
// checksum when the payload is in memory (lazy == nullptr; a lazily read raw payload is verified
// chunk by chunk instead, as each chunk is read), and makes every partition's filter through its
// kind's entry. Refuses a part file (field 10 holding fewer than all partitions) as kUnsupported:
// it answers for some keys only. `built`: the table's checksums were just computed from these
// very words (a build), so they are not read again.
std::unique_ptr<Filter> make_partitioned_filter(const FilterHeader& header, WordBuffer payload,
                                                const std::string& path, const RawPayloadView* lazy,
                                                bool built = false);

}  // namespace bloomtool
