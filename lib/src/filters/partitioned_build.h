// Building a static filter (binary fuse, xor or Ribbon) partitioned by the top bits of the key
// hashes (partitioned_filter.h): the key stream's threads hand their hashes to a HashSpill
// (format/hash_spill.h: in memory within a budget, sorted runs in a temporary file beyond it); then
// the partitions are built in parallel, one a thread at a time, each from its own hashes (xor and
// fuse held in memory: split by partition in one pass, not sorted, repeats removed by each
// partition's construction; otherwise read back sorted and distinct), and laid out behind the
// partition table in partition order. The file is the same for any thread count and memory budget,
// since each partition depends on the set of its own keys only.
//
// One partition range of the P (a part file) is what one host of an across-hosts build writes;
// assemble_partitions joins the part files of all ranges into the file a single build writes.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "filters/hashed_keys.h"
#include "filters/ribbon_build.h"
#include "filters/xor_build.h"
#include "format/build_header.h"
#include "format/hash_spill.h"

namespace bloomtool {

// Partitions when none are asked for (xor and binary fuse; Ribbon is partitioned only when asked,
// into standard Ribbon partitions): none (a plain file) up to kAutoPartitionKeys hashes, else
// the fewest powers of two that keep each partition at or under that many (at most 2^16).
// Measured in docs/PERFORMANCE.md ("Partitioned static filters").
inline constexpr uint64_t kAutoPartitionKeys = uint64_t{1} << 21;
unsigned default_partition_bits(uint64_t hashes) noexcept;

struct StaticBuildOptions {
  FilterKind kind = FilterKind::kBinaryFuse;  // kXor, kBinaryFuse or kRibbon
  XorBuildOptions xor_options;                // fingerprint bits and attempts (xor, fuse)
  RibbonBuildOptions ribbon_options;          // rate and attempts (Ribbon)
  // log2 of the partition count: 0 for a plain (unpartitioned) file, 1 to 16, or
  // std::nullopt for default_partition_bits of the hashes read.
  std::optional<unsigned> partition_bits;
  // The partitions to build: [first, first + count); count 0: all. A range short of all of them
  // makes a part file (requires partition_bits).
  uint32_t first = 0;
  uint32_t count = 0;
  SpillOptions spill;  // the hash source's memory budget and temporary directory
};

struct StaticBuild {
  FilterHeader header;             // complete but for the payload fields
  InputStats input;                // what the key stream read
  uint64_t distinct = 0;           // distinct hashes held
  uint64_t duplicates = 0;         // hashes removed as repeats
  uint32_t attempts = 0;           // seeds tried (partitioned: the most any partition needed)
  unsigned partition_bits = 0;     // 0: a plain file
  uint64_t largest_partition = 0;  // distinct keys of the largest partition
  uint64_t spill_bytes = 0;        // bytes of hashes spilled to the temporary file (0: none)
  size_t spill_runs = 0;           // sorted runs they were written in
  // The query side of a whole file (nullptr for a part file); a partitioned filter owns payload.
  std::unique_ptr<Filter> filter;
  WordBuffer payload;  // a part file's payload
  // A plain file: the kind's own build of all the hashes.
  std::optional<XorBuild> plain_xor;
  std::optional<RibbonBuild> plain_ribbon;

  std::span<const uint64_t> words() const noexcept;
  // Writes the file to `path` atomically ("-": standard output); returns the bytes written.
  uint64_t write(const std::string& path, const WriteOptions& options = {});
};

// Reads every key of `keys` into the hash source and builds the filter. Throws the kinds'
// construction errors (XorConstructionError, RibbonConstructionError), kInvalidArgument for a
// bad partition range, and the stream's input errors.
StaticBuild build_static(const HashedKeys& keys, const StaticBuildOptions& options,
                         const BuildProvenance& provenance);

// A part file read for assembly: its header and payload.
struct PartFile {
  std::string path;
  FilterHeader header;
  WordBuffer payload;
};

// Joins part files that together hold every partition exactly once into the whole file's header
// and payload, byte for byte what one build of all partitions gives (created: `created` when set,
// else the newest part's). Throws kInvalidArgument naming the part that does not belong: another
// kind, width, rate, seed, partition count, input, label or tool version, a partition held twice
// or one missing.
struct AssembledFile {
  FilterHeader header;
  WordBuffer payload;
  // Writes the file to `path` atomically ("-": standard output); returns the bytes written.
  uint64_t write(const std::string& path, const WriteOptions& options = {});
};
AssembledFile assemble_partitions(std::span<PartFile> parts, std::optional<int64_t> created,
                                  std::optional<std::string> label);
// The same over part files read from `paths` (each read whole and verified, as read_filter_file
// reads it; a file named twice is refused).
AssembledFile assemble_part_files(const std::vector<std::string>& paths,
                                  std::optional<int64_t> created, std::optional<std::string> label);

}  // namespace bloomtool
