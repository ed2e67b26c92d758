// The table of filter kinds (filter_kinds.h) and each kind's header check, factory and model.
#include "filters/filter_kinds.h"

#include "bloomtool/error.h"
#include "filters/bloom.h"
#include "filters/key_rule.h"
#include "filters/partitioned_filter.h"
#include "filters/ribbon.h"
#include "filters/xor_filter.h"
#include "keys/hash.h"
#include "model/index_model.h"
#include "model/model.h"

namespace bloomtool {

namespace {

[[noreturn]] void kind_corrupt(const std::string& path, const std::string& why) {
  throw Error(ErrorCode::kCorrupt, path + ": corrupt: " + why);
}

[[noreturn]] void kind_unsupported(const std::string& path, const std::string& why) {
  throw Error(ErrorCode::kUnsupported, path + ": unsupported: " + why);
}

// Bloom: the xxh3 rule (standard or blocked layout) or a peer's rule (hash ids 2-4, format 1.1:
// standard layout, positions from the key bytes).
void check_bloom(const FilterHeader& h, const std::string& path) {
  if (!is_key_scheme(h.hash_id)) return check_bloom_header(h, path);
  const std::string why = scheme_geometry_problem(h.hash_id, h.m, h.k);
  if (!why.empty()) kind_corrupt(path, why);
  if (h.seed != 0)
    kind_corrupt(path,
                 "seed must be 0 for hash scheme " + std::string(hash_scheme_name(h.hash_id)));
  if (h.payload_raw_bytes != BloomFilter::word_count(h.m) * 8) {
    kind_corrupt(path, "payload length " + std::to_string(h.payload_raw_bytes) +
                           " does not match m=" + std::to_string(h.m));
  }
}

std::unique_ptr<Filter> make_bloom(const FilterHeader& h, WordBuffer payload,
                                   const std::string& path) {
  if (h.m % 64 != 0) {
    const uint64_t last = payload.data()[payload.size() - 1];
    if ((last >> (h.m % 64)) != 0) kind_corrupt(path, "bits set beyond m");
  }
  return std::make_unique<BloomFilter>(KeyRule{h.hash_id, h.seed}, h.m, h.k,
                                       static_cast<BloomVariant>(h.variant), std::move(payload));
}

double bloom_model_fpr(const FilterHeader& h, double n) {
  // The peers' rules: the textbook model for their real geometry (a rule that departs from it,
  // DCSO with a power-of-two m, shows as a measurement that deviates).
  if (is_key_scheme(h.hash_id)) {
    return model::bloom_fpr(static_cast<double>(scheme_reachable_bits(h.hash_id, h.m)), n, h.k);
  }
  return h.variant == static_cast<uint32_t>(BloomVariant::kBlocked512)
             ? model::blocked_fpr(static_cast<double>(h.m), n, h.k)
             : model::standard_scheme_fpr(h.m, n, h.k);
}

// Xor and binary fuse: the xxh3 rule; the structure of xor_filter.h.
XorLayout xor_layout_of(FilterKind kind) {
  return kind == FilterKind::kXor ? XorLayout::kXor : XorLayout::kFuse;
}

XorParams xor_params(const FilterHeader& h, const std::string& path) {
  const char* kind = filter_kind_name(h.kind);
  if (h.variant != 0)
    kind_unsupported(path, std::string(kind) + " variant " + std::to_string(h.variant));
  if (h.k != 8 && h.k != 16)
    kind_unsupported(path, std::string(kind) + " fingerprint width " + std::to_string(h.k));
  XorParams p;
  const std::string why = xor_params_from_file(xor_layout_of(h.kind), h.k, h.m, h.kind_params, p);
  if (!why.empty()) kind_corrupt(path, why);
  if (h.payload_raw_bytes != xor_payload_words(p) * 8) {
    kind_corrupt(path, "payload length " + std::to_string(h.payload_raw_bytes) +
                           " does not match " + std::to_string(h.m) + " slots of " +
                           std::to_string(h.k) + " bits");
  }
  return p;
}

void check_xor(const FilterHeader& h, const std::string& path) {
  xor_params(h, path);
}

std::unique_ptr<Filter> make_xor(const FilterHeader& h, WordBuffer payload,
                                 const std::string& path) {
  const XorParams p = xor_params(h, path);
  try {
    return std::make_unique<XorFilter>(p, std::move(payload), h.seed);
  } catch (const Error& e) {
    kind_corrupt(path, e.what());
  }
}

double xor_model_fpr(const FilterHeader& h, double) {
  // n does not enter: a non-member passes when its f-bit fingerprint matches.
  return model::xor_fpr(h.k);
}

// Ribbon: the xxh3 rule; the structure of ribbon.h, the model of model/ribbon_model.h.
RibbonParams ribbon_params(const FilterHeader& h, const std::string& path) {
  if (h.variant > 1) kind_unsupported(path, "ribbon variant " + std::to_string(h.variant));
  RibbonParams p;
  const std::string why = ribbon_params_from_file(h.variant, h.k, h.m, h.kind_params, p);
  if (!why.empty()) kind_corrupt(path, why);
  if (h.payload_raw_bytes != ribbon_payload_words(p) * 8) {
    kind_corrupt(path, "payload length " + std::to_string(h.payload_raw_bytes) +
                           " does not match " + std::to_string(h.m) + " rows of " +
                           std::to_string(h.k) + " columns");
  }
  return p;
}

void check_ribbon(const FilterHeader& h, const std::string& path) {
  ribbon_params(h, path);
}

std::unique_ptr<Filter> make_ribbon(const FilterHeader& h, WordBuffer payload,
                                    const std::string& path) {
  const RibbonParams p = ribbon_params(h, path);
  try {
    return std::make_unique<RibbonFilter>(p, std::move(payload), h.seed);
  } catch (const Error& e) {
    kind_corrupt(path, e.what());
  }
}

double ribbon_model_fpr(const FilterHeader& h, double) {
  // n does not enter either: each start's block decides how many fingerprint bits are compared,
  // or (bumped Ribbon) that the next layer answers; the header states the starts bumped.
  RibbonParams p;
  if (h.variant > 1 || !ribbon_params_from_file(h.variant, h.k, h.m, h.kind_params, p).empty())
    return 1.0;
  return ribbon_model_rate(p);
}

uint64_t bloom_filter_bits(const FilterHeader& h) {
  return h.m;
}

uint64_t xor_filter_bits(const FilterHeader& h) {
  return h.m * h.k;
}

uint64_t ribbon_filter_bits(const FilterHeader& h) {
  RibbonParams p;
  if (h.variant > 1 || !ribbon_params_from_file(h.variant, h.k, h.m, h.kind_params, p).empty())
    return 0;
  return p.solution_bits();
}

constexpr FilterKindEntry kKinds[] = {
    {FilterKind::kBloom, check_bloom, make_bloom, bloom_model_fpr, bloom_filter_bits, 0},
    {FilterKind::kXor, check_xor, make_xor, xor_model_fpr, xor_filter_bits, 2},
    {FilterKind::kBinaryFuse, check_xor, make_xor, xor_model_fpr, xor_filter_bits, 4},
    {FilterKind::kRibbon, check_ribbon, make_ribbon, ribbon_model_fpr, ribbon_filter_bits, 2},
};

}  // namespace

std::span<const FilterKindEntry> filter_kinds() noexcept {
  return kKinds;
}

const FilterKindEntry& filter_kind_entry(FilterKind kind, const std::string& path) {
  for (const FilterKindEntry& e : kKinds)
    if (e.kind == kind) return e;
  kind_unsupported(path, std::string("filter kind ") + filter_kind_name(kind));
}

// The key rules a file may name, and the kinds each goes with: xxh3 with every kind, a peer's
// rule with the standard Bloom filter only.
void check_key_rule(const FilterHeader& h, const std::string& path) {
  if (is_key_scheme(h.hash_id)) {
    if (h.kind != FilterKind::kBloom || h.variant != 0) {
      kind_unsupported(path, "hash scheme " + std::string(hash_scheme_name(h.hash_id)) + " with " +
                                 filter_kind_name(h.kind) + " variant " +
                                 std::to_string(h.variant) +
                                 " (only the standard Bloom filter has it)");
    }
  } else if (h.hash_id != kHashXxh3_64) {
    kind_unsupported(path, "hash id " + std::to_string(h.hash_id));
  }
}

std::unique_ptr<Filter> make_filter_of_kind(const FilterHeader& h, WordBuffer payload,
                                            const std::string& path, const RawPayloadView* lazy) {
  check_key_rule(h, path);
  if (h.partitions) return make_partitioned_filter(h, std::move(payload), path, lazy);
  const FilterKindEntry& kind = filter_kind_entry(h.kind, path);
  kind.check_header(h, path);
  return kind.make(h, std::move(payload), path);
}

void check_bloom_header(const FilterHeader& h, const std::string& path) {
  if (h.variant > 1) kind_unsupported(path, "Bloom variant " + std::to_string(h.variant));
  const auto variant = static_cast<BloomVariant>(h.variant);
  if (h.m == 0 || h.m > model::kMaxBits)
    kind_corrupt(path, "m=" + std::to_string(h.m) + " is out of range");
  if (h.k == 0 || h.k > model::kMaxK)
    kind_corrupt(path, "k=" + std::to_string(h.k) + " is out of range");
  if (BloomFilter::effective_bits(h.m, variant) != h.m)
    kind_corrupt(path, "m is not a whole number of blocks");
  if (h.payload_raw_bytes != BloomFilter::word_count(h.m) * 8) {
    kind_corrupt(path, "payload length " + std::to_string(h.payload_raw_bytes) +
                           " does not match m=" + std::to_string(h.m));
  }
}

}  // namespace bloomtool
