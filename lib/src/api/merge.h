// Union (bitwise OR) and intersection (bitwise AND) of Bloom filter files with identical geometry.
// A union is exact: OR-ing filters built from parts of a key set gives the bits of one filter built
// from the whole set, which is what makes building by shards possible.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "format/build_header.h"
#include "format/filter_file.h"
#include "base/word_buffer.h"

namespace bloomtool {

enum class MergeOp { kUnion, kIntersect };

// Throws kInvalidArgument when `other` cannot be merged with `first`, naming the first field that
// differs, both values and both files: "<other_path>: cannot merge: k is 7 here but 10 in
// <first_path>". Fields, in order: kind, variant, m, k, hash id, seed, normalisation, input
// options, kind parameters. Xor and binary fuse filters are refused whatever the other file.
void check_mergeable(const FilterHeader& first, const std::string& first_path,
                     const FilterHeader& other, const std::string& other_path);

struct MergedFilter {
  // Geometry, hash and key options of the inputs; lines_read and empty_lines summed; keys_added
  // summed for a union, the smallest input's for an intersection (an upper bound either way);
  // distinct_estimate from the result's fill. label, tool_version and created are left empty.
  FilterHeader header;
  WordBuffer words;
  uint64_t set_bits = 0;
  // False-positive rate implied by the result's bits: (X/m)^k for standard filters, the mean of
  // (X_b/512)^k over blocks for blocked ones.
  double fill_fpr = 0;

  // Writes the result to `path` atomically ("-": standard output), signed if `options` say so;
  // returns the bytes written.
  uint64_t write(const std::string& path, const WriteOptions& options = {});
};

// Checks every header against the first before reading any payload, then streams each payload in
// chunks into one word array, so memory stays near one filter. One path may be "-": standard
// input, read whole at once (a stream cannot be read twice) and named "<stdin>" in messages. Throws
// bloomtool::Error naming the file at fault; `paths` must hold at least one path.
MergedFilter merge_filter_files(const std::vector<std::string>& paths, MergeOp op);
// The same, with the result's creation time, tool version and label filled in.
MergedFilter merge_filter_files(const std::vector<std::string>& paths, MergeOp op,
                                const BuildProvenance& provenance);

}  // namespace bloomtool
