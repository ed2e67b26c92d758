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

#include "base/word_buffer.h"
#include "bloomtool/error.h"
#include "filters/filter.h"
#include "format/filter_file.h"

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
  // returns them); keys are hashed with `seed` (the file's). Throws kCorrupt when the parameters
  // are inconsistent, words has the wrong size or a padding byte after the last fingerprint is
  // not zero.
  XorFilter(const XorParams& params, WordBuffer words, uint64_t seed = 0);

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

}  // namespace bloomtool
