// Static xor filters (Graf & Lemire 2020) and 3-wise binary fuse filters (Graf & Lemire 2022) with
// 8- or 16-bit fingerprints, over the 64-bit key hash of hash.h. Built once from the whole key
// set: a key may be present iff the xor of its three fingerprint slots equals its fingerprint,
// so p = 2^-f at about 1.23 f (xor) or 1.125 f (binary fuse) bits per key.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "bloomtool/error.h"
#include "filters/filter.h"
#include "format/filter_file.h"
#include "base/word_buffer.h"

namespace bloomtool {

enum class XorLayout : uint32_t { kXor = 0, kFuse = 1 };

// "xor" or "fuse"; parse_xor_layout throws kInvalidArgument on other names.
const char* xor_layout_name(XorLayout layout) noexcept;
XorLayout parse_xor_layout(const std::string& name);
// The file kind of a layout (kXor or kBinaryFuse).
FilterKind xor_filter_kind(XorLayout layout) noexcept;

// Everything a query needs besides the fingerprints.
struct XorParams {
  XorLayout layout = XorLayout::kFuse;
  uint32_t fingerprint_bits = 8;  // 8 or 16
  uint64_t slots = 0;             // fingerprint slots (the file's m)
  uint64_t segment_length = 0;    // fuse: a power of two, at most 2^18; xor: block length
  uint64_t segment_count = 0;     // fuse: segments a key's first slot may fall in; xor: 1
  uint64_t seed = 0;              // mapping seed settled on by construction

  // The file header's kind_params (docs/FORMAT.md).
  std::vector<uint64_t> kind_params() const;
};

// The geometry for n distinct keys, seed 0. Throws kInvalidArgument when fingerprint_bits is not
// 8 or 16 or the filter would exceed 2^40 bits.
XorParams xor_params_for(XorLayout layout, uint32_t fingerprint_bits, uint64_t n);

// Reads parameters back from a header's fields; returns an empty string when they are consistent,
// else the reason they are not (for a "corrupt" message).
std::string xor_params_from_file(XorLayout layout, uint32_t fingerprint_bits, uint64_t m,
                                 const std::vector<uint64_t>& kind_params, XorParams& out);

// 64-bit payload words that hold the fingerprints: ceil(slots * bits / 64).
uint64_t xor_payload_words(const XorParams& p) noexcept;

class XorFilter final : public Filter {
 public:
  // Adopts fingerprints laid out as in the file payload (words in host order, as filter_file.h
  // returns them). Throws kCorrupt when the parameters are inconsistent, words has the wrong size
  // or a padding byte after the last fingerprint is not zero.
  XorFilter(const XorParams& params, WordBuffer words);

  bool contains_hash(uint64_t h) const noexcept override;
  void contains_batch(std::span<const uint64_t> hashes, uint8_t* out) const noexcept override;

  const XorParams& params() const noexcept { return params_; }
  std::span<const uint64_t> words() const noexcept override { return words_.span(); }
  void visit_probed_words(std::span<const uint64_t> hashes, WordVisitor visit,
                          void* ctx) const noexcept override;

 private:
  XorParams params_;
  WordBuffer words_;
};

inline constexpr uint32_t kXorDefaultMaxAttempts = 100;

struct XorBuildOptions {
  XorLayout layout = XorLayout::kFuse;
  uint32_t fingerprint_bits = 8;
  uint32_t max_attempts = kXorDefaultMaxAttempts;  // seeds tried before giving up, at least 1
  // Threads for grouping, de-duplication, counting and assignment (peeling is sequential);
  // 0 or 1: the calling thread alone. The filter is the same for any count.
  unsigned threads = 1;
  // The caller guarantees that the hashes are distinct: they are grouped by their top bits but
  // not de-duplicated. With repeats, construction fails after max_attempts seeds.
  bool assume_distinct = false;
};

// Seconds spent in each step of construction, attempts that failed included: grouping by top
// bits and removing repeats; the counting pass (slot counts and hash xors); peeling; assignment
// (clearing the fingerprints and filling them in).
struct XorPhaseTimes {
  double group = 0, count = 0, peel = 0, assign = 0;
};

struct XorBuildResult {
  std::unique_ptr<XorFilter> filter;
  uint64_t distinct = 0;    // distinct hashes the filter holds
  uint64_t duplicates = 0;  // hashes removed as repeats
  uint32_t attempts = 0;    // seeds tried, the last one successful
  XorPhaseTimes cpu;        // CPU time of the calling thread (helper threads not included)
  XorPhaseTimes wall;       // wall-clock time
};

// Thrown (code kLimitExceeded) when no mapping seed works within the allowed attempts.
class XorConstructionError : public Error {
 public:
  explicit XorConstructionError(const std::string& message)
      : Error(ErrorCode::kLimitExceeded, message) {}
};

// Removes repeats from `hashes` in place (the distinct hashes end up, grouped by their top bits,
// in the first result.distinct entries; the rest is left undefined), then builds the filter,
// trying a new mapping seed whenever the key set does not peel. Throws XorConstructionError
// ("construction failed after N attempts") when no seed works within options.max_attempts,
// kInvalidArgument on bad options. Deterministic: the same set of hashes, in any order and with
// any repeats, always gives the same filter.
XorBuildResult build_xor_filter(std::span<uint64_t> hashes, const XorBuildOptions& options);

// The same for a vector, which is then resized to the distinct hashes.
XorBuildResult build_xor_filter(std::vector<uint64_t>& hashes, const XorBuildOptions& options);

// The same for hashes held in several buffers, parts[i] holding counts[i] of them (a key
// stream's threads each fill one): they are never joined into one array first. The first buffer
// grows to hold them all and ends up with the distinct hashes at its front; the others are freed
// once grouping has read them, before construction needs its memory.
XorBuildResult build_xor_filter(std::vector<WordBuffer>& parts, std::span<const size_t> counts,
                                const XorBuildOptions& options);

}  // namespace bloomtool
