// Sorting and deduplicating 64-bit key hashes: the step that turns a key stream into an exact
// distinct count (build without -n) and a duplicate-free set (xor-build).
#pragma once

#include <cstdint>
#include <vector>

namespace bloomtool {

// Sorts `hashes` ascending and removes repeats. Large inputs use a two-level MSD radix sort with
// one scratch array: linear time, 16 bytes per hash at the peak.
void sort_unique(std::vector<uint64_t>& hashes);

}  // namespace bloomtool
