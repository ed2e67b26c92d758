// The query interface every filter kind implements, so `query` and `stats` treat Bloom, xor and
// binary fuse filters alike. Queries take the 64-bit key hash from hash.h and never throw.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace bloomtool {

class Filter {
 public:
  virtual ~Filter() = default;
  // True if the key whose hash is h may be in the set; false means definitely absent.
  virtual bool contains_hash(uint64_t h) const noexcept = 0;
  // out[i] = contains_hash(hashes[i]); implementations prefetch to overlap memory latency.
  virtual void contains_batch(std::span<const uint64_t> hashes, uint8_t* out) const noexcept;
};

}  // namespace bloomtool
