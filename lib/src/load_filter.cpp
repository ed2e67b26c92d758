// Turns verified file contents into a Filter object, checking each kind's parameters against the
// payload before the filter is used.
#include "bloomtool/load_filter.h"

#include <algorithm>

#include "bloomtool/bloom.h"
#include "bloomtool/error.h"
#include "bloomtool/foreign_format.h"
#include "bloomtool/hash.h"
#include "bloomtool/model.h"
#include "bloomtool/scheme_bloom.h"
#include "bloomtool/xor_filter.h"

namespace bloomtool {

namespace {

[[noreturn]] void corrupt(const std::string& path, const std::string& why) {
  throw Error(ErrorCode::kCorrupt, path + ": corrupt: " + why);
}

std::unique_ptr<Filter> make_bloom(FilterFileContents& c, const std::string& path) {
  const FilterHeader& h = c.header;
  check_bloom_header(h, path);
  if (h.m % 64 != 0) {
    const uint64_t last = c.payload.data()[c.payload.size() - 1];
    if ((last >> (h.m % 64)) != 0) corrupt(path, "bits set beyond m");
  }
  return std::make_unique<BloomFilter>(h.m, h.k, static_cast<BloomVariant>(h.variant),
                                       std::move(c.payload));
}

// Hash ids 2-4 (format 1.1): a standard Bloom filter whose positions come from the key bytes.
std::unique_ptr<Filter> make_scheme_bloom(FilterFileContents& c, const std::string& path) {
  const FilterHeader& h = c.header;
  if (h.kind != FilterKind::kBloom || h.variant != 0) {
    throw Error(ErrorCode::kUnsupported,
                path + ": unsupported: hash scheme " + hash_scheme_name(h.hash_id) + " with " +
                    filter_kind_name(h.kind) + " variant " + std::to_string(h.variant) +
                    " (only the standard Bloom filter has it)");
  }
  const std::string why = scheme_geometry_problem(h.hash_id, h.m, h.k);
  if (!why.empty()) corrupt(path, why);
  if (h.seed != 0)
    corrupt(path, "seed must be 0 for hash scheme " + std::string(hash_scheme_name(h.hash_id)));
  if (h.payload_raw_bytes != BloomFilter::word_count(h.m) * 8) {
    corrupt(path, "payload length " + std::to_string(h.payload_raw_bytes) +
                      " does not match m=" + std::to_string(h.m));
  }
  if (h.m % 64 != 0 && (c.payload.data()[c.payload.size() - 1] >> (h.m % 64)) != 0)
    corrupt(path, "bits set beyond m");
  if (!h.source_format.empty()) {
    const SourceFormat src = decode_source_format(h.source_format, path);
    const bool dcso = h.hash_id == kHashDcsoFnv1;
    if (dcso != (src.source == SourceFormat::Source::kDcso))
      corrupt(path, "source format field does not match hash scheme " +
                        std::string(hash_scheme_name(h.hash_id)));
  }
  return std::make_unique<SchemeBloom>(h.hash_id, h.m, h.k, std::move(c.payload));
}

std::unique_ptr<Filter> make_xor(FilterFileContents& c, XorLayout layout, const std::string& path) {
  const FilterHeader& h = c.header;
  const char* kind = filter_kind_name(h.kind);
  if (h.variant != 0) {
    throw Error(ErrorCode::kUnsupported,
                path + ": unsupported: " + kind + " variant " + std::to_string(h.variant));
  }
  if (h.k != 8 && h.k != 16) {
    throw Error(ErrorCode::kUnsupported,
                path + ": unsupported: " + kind + " fingerprint width " + std::to_string(h.k));
  }
  XorParams p;
  const std::string why = xor_params_from_file(layout, h.k, h.m, h.kind_params, p);
  if (!why.empty()) corrupt(path, why);
  if (h.payload_raw_bytes != xor_payload_words(p) * 8) {
    corrupt(path, "payload length " + std::to_string(h.payload_raw_bytes) + " does not match " +
                      std::to_string(h.m) + " slots of " + std::to_string(h.k) + " bits");
  }
  try {
    return std::make_unique<XorFilter>(p, std::move(c.payload));
  } catch (const Error& e) {
    corrupt(path, e.what());
  }
}

}  // namespace

void check_bloom_header(const FilterHeader& h, const std::string& path) {
  if (h.variant > 1) {
    throw Error(ErrorCode::kUnsupported,
                path + ": unsupported: Bloom variant " + std::to_string(h.variant));
  }
  const auto variant = static_cast<BloomVariant>(h.variant);
  if (h.m == 0 || h.m > model::kMaxBits)
    corrupt(path, "m=" + std::to_string(h.m) + " is out of range");
  if (h.k == 0 || h.k > model::kMaxK)
    corrupt(path, "k=" + std::to_string(h.k) + " is out of range");
  if (BloomFilter::effective_bits(h.m, variant) != h.m)
    corrupt(path, "m is not a whole number of blocks");
  if (h.payload_raw_bytes != BloomFilter::word_count(h.m) * 8) {
    corrupt(path, "payload length " + std::to_string(h.payload_raw_bytes) +
                      " does not match m=" + std::to_string(h.m));
  }
}

LoadedFilter make_filter(FilterFileContents contents, const std::string& path) {
  LoadedFilter out;
  out.file_bytes = contents.file_bytes;
  if (is_key_scheme(contents.header.hash_id)) {
    out.filter = make_scheme_bloom(contents, path);
    out.header = std::move(contents.header);
    return out;
  }
  if (contents.header.hash_id != kHashXxh3_64) {
    throw Error(ErrorCode::kUnsupported,
                path + ": unsupported: hash id " + std::to_string(contents.header.hash_id));
  }
  switch (contents.header.kind) {
    case FilterKind::kBloom:
      out.filter = make_bloom(contents, path);
      break;
    case FilterKind::kXor:
      out.filter = make_xor(contents, XorLayout::kXor, path);
      break;
    case FilterKind::kBinaryFuse:
      out.filter = make_xor(contents, XorLayout::kFuse, path);
      break;
    default:
      throw Error(ErrorCode::kUnsupported,
                  path + ": unsupported: filter kind " + filter_kind_name(contents.header.kind));
  }
  out.header = std::move(contents.header);
  return out;
}

void filter_contains_keys(const LoadedFilter& filter, std::span<const std::string_view> keys,
                          uint8_t* out) {
  if (const auto* scheme = dynamic_cast<const SchemeBloom*>(filter.filter.get())) {
    scheme->contains_keys(keys, out);  // positions come from the key bytes, no seed
    return;
  }
  constexpr size_t kBatch = 256;
  uint64_t hashes[kBatch];
  for (size_t at = 0; at < keys.size(); at += kBatch) {
    const size_t n = std::min(kBatch, keys.size() - at);
    for (size_t i = 0; i < n; ++i) hashes[i] = hash_key(keys[at + i], filter.header.seed);
    filter.filter->contains_batch(std::span<const uint64_t>(hashes, n), out + at);
  }
}

LoadedFilter load_filter(const std::string& path) {
  return make_filter(read_filter_file(path), path);
}

}  // namespace bloomtool
