// Sorting and deduplicating 64-bit key hashes: the step that turns a key stream into an exact
// distinct count (build without -n) and a duplicate-free set (xor-build).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace bloomtool {

// Sorts `hashes` ascending and removes repeats. Large inputs use a two-level MSD radix sort with
// one scratch array: linear time, 16 bytes per hash at the peak.
void sort_unique(std::vector<uint64_t>& hashes);

// Sorts src[0, n), whose hashes agree on the bits at and above bit `shift`, into dst[0, n)
// ascending: one scatter by the next 11 bits, then insertion sort of the short runs (a bucket of
// an MSD radix sort, small enough for the L2 cache; the spill's run sort uses it too).
void sort_radix_bucket(const uint64_t* src, uint64_t* dst, size_t n, int shift);

// Removes repeats from data[0, n) and groups the distinct hashes, now at the front, by their top
// bits: ascending from group to group, in order of first appearance within a group of about
// 2,000 hashes (the groups are the top clamp(bit_width(n / 2048), 1, 16) bits; below 8,192
// hashes the result is simply sorted). Cheaper than sorting; enough to give a pass over the hashes
// locality in anything indexed by their top bits. `scratch` must hold n words. Returns the number
// of distinct hashes. Runs on up to `threads` threads (inputs of 2^18 hashes and more); the result
// is the same for any count.
size_t group_unique(uint64_t* data, size_t n, uint64_t* scratch, unsigned threads = 1);

// The same over the hashes of several arrays (`parts`, taken one after another): the distinct
// hashes go to data[0, count), which must hold all the parts' hashes and may be the first part's
// own array (nothing is joined first). `scratch` must hold as many words.
size_t group_unique(std::span<const std::span<const uint64_t>> parts, uint64_t* data,
                    uint64_t* scratch, unsigned threads = 1);

// The same grouping without removing repeats (for hashes known to be distinct): data[0, n) ends
// up grouped by the same top bits, in order of appearance within a group (below 8,192 hashes:
// sorted).
void group_by_top_bits(uint64_t* data, size_t n, uint64_t* scratch, unsigned threads = 1);
void group_by_top_bits(std::span<const std::span<const uint64_t>> parts, uint64_t* data,
                       uint64_t* scratch, unsigned threads = 1);

// True when the hashes of `parts` whose top six bits are zero (every copy of them: about one
// random hash in 64) and the first 4,096 others hold some hash twice, or are crafted to defeat
// the check's table. A look for repeats that costs a pass over the hashes and a table of a
// sixty-fourth of them: it finds many repeats anywhere (such as a key given a million times)
// and repeats that come close together.
bool sample_has_repeats(std::span<const std::span<const uint64_t>> parts);
// The number of top bits that are zero in a hash of sample_has_repeats's sample.
inline constexpr int kRepeatSampleBits = 6;

// The number of top bits the two functions above group n hashes by (from 8,192 hashes on; below
// that they sort, which groups by any number of bits).
int group_top_bits(size_t n);

}  // namespace bloomtool
