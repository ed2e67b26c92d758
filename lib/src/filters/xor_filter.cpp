// Queries of xor and binary fuse filters, their parameters and the checks that keep a filter read
// from a file consistent with its header. A key is looked up by computing its three slots and its
// fingerprint (xor_mapping.h) and comparing the fingerprint with the xor of the three slots;
// batched queries compute the slots of a group of keys and prefetch them before reading any.
#include "filters/xor_filter.h"

#include <algorithm>
#include <bit>
#include <string>

#include "bloomtool/error.h"
#include "filters/xor_mapping.h"
#include "model/model.h"

namespace bloomtool {

namespace {

using detail::FuseMapping;
using detail::Slots;
using detail::XorMapping;

constexpr uint64_t kMaxSegmentLength = uint64_t{1} << 18;
constexpr size_t kGroup = 16;

// Calls fn(Fp{}, mapping) with the fingerprint type and slot mapping of the parameters.
template <typename Fn>
decltype(auto) with_mapping(const XorParams& p, Fn&& fn) {
  if (p.layout == XorLayout::kFuse) {
    const FuseMapping m{p.seed, p.segment_length, p.segment_count * p.segment_length};
    return p.fingerprint_bits == 8 ? fn(uint8_t{}, m) : fn(uint16_t{}, m);
  }
  const XorMapping m{p.seed, p.segment_length};
  return p.fingerprint_bits == 8 ? fn(uint8_t{}, m) : fn(uint16_t{}, m);
}

template <typename Fp>
inline bool matches(const uint8_t* f, const Slots& s, uint64_t h, uint64_t seed) noexcept {
  const Fp x = static_cast<Fp>(detail::load_fp<Fp>(f, s.p0) ^ detail::load_fp<Fp>(f, s.p1) ^
                               detail::load_fp<Fp>(f, s.p2));
  return x == detail::fingerprint<Fp>(h, seed);
}

}  // namespace

const char* xor_layout_name(XorLayout layout) noexcept {
  return layout == XorLayout::kXor ? "xor" : "fuse";
}

XorLayout parse_xor_layout(const std::string& name) {
  if (name == "fuse") return XorLayout::kFuse;
  if (name == "xor") return XorLayout::kXor;
  throw Error(ErrorCode::kInvalidArgument, "unknown layout '" + name + "' (expected fuse or xor)");
}

FilterKind xor_filter_kind(XorLayout layout) noexcept {
  return layout == XorLayout::kXor ? FilterKind::kXor : FilterKind::kBinaryFuse;
}

std::vector<uint64_t> XorParams::kind_params() const {
  if (layout == XorLayout::kFuse) return {segment_length, segment_count, slots, seed};
  return {segment_length, seed};
}

XorParams xor_params_for(XorLayout layout, uint32_t fingerprint_bits, uint64_t n) {
  if (fingerprint_bits != 8 && fingerprint_bits != 16) {
    throw Error(ErrorCode::kInvalidArgument,
                "fingerprint width " + std::to_string(fingerprint_bits) + " is not 8 or 16");
  }
  XorParams p;
  p.layout = layout;
  p.fingerprint_bits = fingerprint_bits;
  if (n > model::kMaxBits / fingerprint_bits) {
    throw Error(ErrorCode::kInvalidArgument,
                std::to_string(n) + " keys need more than 2^40 bits of fingerprints");
  }
  if (layout == XorLayout::kFuse) {
    const model::FuseGeometry g = model::fuse_geometry(n);
    p.slots = g.array_length;
    p.segment_length = g.segment_length;
    p.segment_count = g.segment_count;
  } else {
    p.slots = model::xor_slots(n);
    p.segment_length = p.slots / 3;
    p.segment_count = 1;
  }
  if (p.slots > model::kMaxBits / fingerprint_bits) {
    throw Error(ErrorCode::kInvalidArgument,
                std::to_string(n) + " keys need more than 2^40 bits of fingerprints");
  }
  return p;
}

std::string xor_params_from_file(XorLayout layout, uint32_t fingerprint_bits, uint64_t m,
                                 const std::vector<uint64_t>& kind_params, XorParams& out) {
  if (fingerprint_bits != 8 && fingerprint_bits != 16)
    return "fingerprint width " + std::to_string(fingerprint_bits) + " is not 8 or 16";
  XorParams p;
  p.layout = layout;
  p.fingerprint_bits = fingerprint_bits;
  const uint64_t max_slots = model::kMaxBits / fingerprint_bits;
  if (layout == XorLayout::kFuse) {
    if (kind_params.size() != 4) return "binary fuse filters need 4 kind parameters";
    p.segment_length = kind_params[0];
    p.segment_count = kind_params[1];
    p.slots = kind_params[2];
    p.seed = kind_params[3];
    if (!std::has_single_bit(p.segment_length) || p.segment_length > kMaxSegmentLength)
      return "segment length " + std::to_string(p.segment_length) +
             " is not a power of two <= 2^18";
    if (p.segment_count == 0 || p.segment_count > max_slots)
      return "segment count " + std::to_string(p.segment_count) + " is out of range";
    if (p.slots != (p.segment_count + 2) * p.segment_length)
      return "array length " + std::to_string(p.slots) +
             " is not (segment count + 2) * segment length";
  } else {
    if (kind_params.size() != 2) return "xor filters need 2 kind parameters";
    p.segment_length = kind_params[0];
    p.segment_count = 1;
    p.seed = kind_params[1];
    if (p.segment_length == 0 || p.segment_length > max_slots)
      return "block length " + std::to_string(p.segment_length) + " is out of range";
    p.slots = 3 * p.segment_length;
  }
  if (p.slots != m)
    return "m=" + std::to_string(m) + " does not match the kind parameters (" +
           std::to_string(p.slots) + " slots)";
  if (p.slots > max_slots) return "m=" + std::to_string(m) + " exceeds 2^40 bits of fingerprints";
  out = p;
  return {};
}

uint64_t xor_payload_words(const XorParams& p) noexcept {
  return (p.slots * p.fingerprint_bits + 63) / 64;
}

XorFilter::XorFilter(const XorParams& params, WordBuffer words, uint64_t seed)
    : Filter(KeyRule{kHashXxh3_64, seed}), params_(params), words_(std::move(words)) {
  XorParams checked;
  const std::string why = xor_params_from_file(params.layout, params.fingerprint_bits, params.slots,
                                               params.kind_params(), checked);
  if (!why.empty()) throw Error(ErrorCode::kCorrupt, why);
  if (words_.size() != xor_payload_words(params_)) {
    throw Error(ErrorCode::kCorrupt, "fingerprint array of " + std::to_string(words_.size()) +
                                         " words does not match " + std::to_string(params_.slots) +
                                         " slots");
  }
  const auto* bytes = reinterpret_cast<const uint8_t*>(words_.data());
  for (uint64_t i = params_.slots * params_.fingerprint_bits / 8; i < words_.size() * 8; ++i) {
    if (bytes[i ^ detail::kByteFlip] != 0)
      throw Error(ErrorCode::kCorrupt, "padding after the last fingerprint is not zero");
  }
}

bool XorFilter::contains_hash(uint64_t h) const noexcept {
  const auto* f = reinterpret_cast<const uint8_t*>(words_.data());
  return with_mapping(params_, [&](auto fp, const auto& map) {
    return matches<decltype(fp)>(f, map.slots(h), h, map.seed);
  });
}

void XorFilter::visit_probed_words(std::span<const uint64_t> hashes, WordVisitor visit,
                                   void* ctx) const noexcept {
  with_mapping(params_, [&](auto fp, const auto& map) {
    constexpr uint64_t kBytes = sizeof(decltype(fp));
    for (const uint64_t h : hashes) {
      const Slots s = map.slots(h);
      for (const uint64_t slot : {s.p0, s.p1, s.p2}) visit(ctx, slot * kBytes / 8);
    }
  });
}

void XorFilter::contains_batch(std::span<const uint64_t> hashes, uint8_t* out) const noexcept {
  const auto* f = reinterpret_cast<const uint8_t*>(words_.data());
  with_mapping(params_, [&](auto fp, const auto& map) {
    using Fp = decltype(fp);
    Slots s[kGroup];
    for (size_t start = 0; start < hashes.size(); start += kGroup) {
      const size_t end = std::min(hashes.size(), start + kGroup);
      for (size_t j = start; j < end; ++j) {
        s[j - start] = map.slots(hashes[j]);
        __builtin_prefetch(f + s[j - start].p0 * sizeof(Fp), 0, 0);
        __builtin_prefetch(f + s[j - start].p1 * sizeof(Fp), 0, 0);
        __builtin_prefetch(f + s[j - start].p2 * sizeof(Fp), 0, 0);
      }
      for (size_t j = start; j < end; ++j)
        out[j] = matches<Fp>(f, s[j - start], hashes[j], map.seed) ? 1 : 0;
    }
  });
}

}  // namespace bloomtool
