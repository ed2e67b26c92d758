// A Bloom filter that takes keys and answers queries while it is being built: the C API's builder
// for a Bloom plan sized up front (n, or m and k), so that bindings can offer a mutable filter
// (add, contains, union, intersection, the distinct keys from the fill) and still write the very
// file `bloomtool build` writes for the same keys and plan. Not thread-safe: the caller serialises
// (large batches use threads of their own inside one call).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bloomtool/build.h"
#include "filters/bloom.h"
#include "format/filter_file.h"
#include "keys/key_reader.h"
#include "keys/normalise.h"

namespace bloomtool {

// Checks `plan` as Builder does (FieldError naming the member); defined in builder.cpp.
void check_plan(const Plan& plan);

class LiveBloom {
 public:
  // True when `plan` is a Bloom plan that sizes the filter up front (what LiveBloom builds).
  static bool fits(const Plan& plan) noexcept;
  // Checks `plan` as Builder does (FieldError naming the member) and makes the empty filter.
  explicit LiveBloom(const Plan& plan);
  // The filter of a bloomtool Bloom file image (checked as open_filter checks it), to add more
  // keys to: its counts, label, creation time and normalisation carry on. `name` names it in
  // messages. Throws kUnsupported for another kind or hash scheme.
  LiveBloom(std::span<const uint8_t> image, const std::string& name);

  void add(std::string_view key);
  // Key i is data[offsets[i], offsets[i + 1]) (offsets checked by the caller); hashed first, then
  // inserted (or tested) a few thousand at a time, which lets the filter prefetch their words. A
  // batch of 65,536 keys or more is split between threads (the bits are the same).
  void add_many(const char* data, std::span<const uint64_t> offsets);
  // Keys separated by a byte: key i is data[starts[i], starts[i + 1] - 1) (separated_starts).
  void add_separated(std::string_view data, std::span<const uint64_t> starts);
  bool contains(std::string_view key) const;
  void contains_many(const char* data, std::span<const uint64_t> offsets, uint8_t* out) const;
  void contains_separated(std::string_view data, std::span<const uint64_t> starts,
                          uint8_t* out) const;
  // Ors (or ands) the bits of `other`, which must have the same variant, m, k, seed and
  // normalisation (kInvalidArgument naming the first that differs); the counts add up.
  void merge(const LiveBloom& other, bool intersect);
  // Distinct keys estimated from the fill, as the file records them.
  uint64_t distinct() const;
  uint64_t lines() const noexcept { return stats_.lines; }

  // The file (the builder stays as it is and takes more keys); `written`, when given, receives the
  // file's header (its facts).
  uint64_t write(const std::string& path, const OutputOptions& output,
                 FilterHeader* written = nullptr) const;
  std::vector<uint8_t> encode(const OutputOptions& output) const;
  uint64_t empty_keys() const noexcept { return stats_.empty_keys; }

 private:
  FilterHeader header() const;
  template <typename KeyAt>
  void add_keys(size_t count, const KeyAt& key_at);
  template <typename KeyAt>
  void contains_keys(size_t count, const KeyAt& key_at, uint8_t* out) const;
  std::unique_ptr<BloomFilter> filter_;
  FilterHeader template_;  // kind, geometry, provenance, normalisation, input options
  Normaliser normaliser_;
  mutable NormScratch scratch_;
  InputStats stats_;
  std::optional<uint64_t> capacity_;
  bool allow_overfill_ = false;
  unsigned threads_ = 0;        // the plan's: most threads for one batch (0: every core)
  unsigned write_threads_ = 1;  // the writer's (the file does not depend on them)
};

}  // namespace bloomtool
