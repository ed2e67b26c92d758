// Every filter kind a bloomtool file may hold, registered in one table (filter_kinds.cpp): the
// kind's id and name, the check of its header fields, the factory that makes its filter (its key
// rule or structure) from a checked header and the payload words, and its model. Opening a file
// (load_filter.h), stats (stats.h) and merge find a kind here and nowhere else.
//
// Adding a kind: its id in FilterKind (format/filter_file.h, with filter_kind_name); its filter,
// a Filter (filter.h) answering keys, in filters/; its model in model/; one entry in the table.
#pragma once

#include <memory>
#include <span>
#include <string>

#include "base/word_buffer.h"
#include "filters/filter.h"
#include "format/filter_file.h"
#include "format/raw_payload.h"

namespace bloomtool {

struct FilterKindEntry {
  FilterKind kind;
  // Checks the header's kind-specific fields (variant, hash id, m, k, kind_params, payload
  // length) before any payload is read; throws kCorrupt or kUnsupported naming `path`.
  void (*check_header)(const FilterHeader& header, const std::string& path);
  // The filter of a header that check_header accepted, adopting the payload words; throws
  // kCorrupt naming `path` when the words disagree with the header.
  std::unique_ptr<Filter> (*make)(const FilterHeader& header, WordBuffer payload,
                                  const std::string& path);
  // The model's false-positive rate for n distinct keys.
  double (*model_fpr)(const FilterHeader& header, double n);
  // The bits that hold the filter (fingerprints, solution or bit array) of a checked header.
  uint64_t (*filter_bits)(const FilterHeader& header);
  // Kind parameters each partition of a partitioned file records in its table entry
  // (partitioned_filter.h); 0: the kind is not partitioned.
  uint32_t partition_params;
};

// The registered kinds.
std::span<const FilterKindEntry> filter_kinds() noexcept;
// The entry of the header's kind; throws kUnsupported naming `path` for a kind not registered.
const FilterKindEntry& filter_kind_entry(FilterKind kind, const std::string& path);

// The key rules a file may name, and the kinds each goes with (key_rule.h): xxh3 with every kind,
// a peer's rule with the standard Bloom filter only. Throws kUnsupported naming `path`.
void check_key_rule(const FilterHeader& header, const std::string& path);

// check_key_rule, the kind's check_header, then its make: the filter of verified file contents.
// A partitioned file (field 10) is made by make_partitioned_filter (partitioned_filter.h), each
// partition by its kind's entry; `lazy` is the raw view whose chunks `payload` borrows (nullptr
// when the payload is in memory and verified).
std::unique_ptr<Filter> make_filter_of_kind(const FilterHeader& header, WordBuffer payload,
                                            const std::string& path,
                                            const RawPayloadView* lazy = nullptr);

// A Bloom header's own checks (every key rule): variant, m, k, and the payload length m implies.
// Throws kCorrupt or kUnsupported naming `path`.
void check_bloom_header(const FilterHeader& header, const std::string& path);

}  // namespace bloomtool
