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
  // The payload words, host order, as the file stores them (default: none).
  virtual std::span<const uint64_t> words() const noexcept;
  // Calls visit(ctx, w) with the index w of every payload word contains_batch(hashes) may read
  // (some more than once), so that a lazily verified payload can check them first. The default
  // visits nothing: right for a filter without words().
  using WordVisitor = void (*)(void* ctx, uint64_t word) noexcept;
  virtual void visit_probed_words(std::span<const uint64_t> hashes, WordVisitor visit,
                                  void* ctx) const noexcept;
};

}  // namespace bloomtool
