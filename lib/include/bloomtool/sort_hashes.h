// Sorting and de-duplicating key hashes, the first step of every build that needs the exact set
// of distinct keys.
#pragma once

#include <cstdint>
#include <vector>

namespace bloomtool {

// Sorts `hashes` ascending and removes repeats in place; returns the number removed. Large inputs
// use an LSD radix sort with a scratch array of the same size (16 bytes per hash at the peak).
uint64_t sort_unique_hashes(std::vector<uint64_t>& hashes);

}  // namespace bloomtool
