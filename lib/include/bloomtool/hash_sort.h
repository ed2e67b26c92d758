// Sorting and deduplicating 64-bit key hashes: the step that turns a key stream into an exact
// distinct count (build without -n) and a duplicate-free set (xor-build).
#pragma once

#include <cstdint>
#include <vector>

namespace bloomtool {

// Sorts `hashes` ascending and removes repeats. LSD radix sort (8 passes of 8 bits) with one
// scratch array: linear time, about 2x the memory of the input at its peak.
void sort_unique(std::vector<uint64_t>& hashes);

}  // namespace bloomtool
