// The public models and sizing (bloomtool/sizing.h), by the functions `build`, `xor-build` and
// `size` use.
#include <cmath>

#include "api/facts.h"
#include "bloomtool/error.h"
#include "bloomtool/sizing.h"
#include "filters/bloom.h"
#include "filters/bloom_build.h"
#include "filters/xor_filter.h"
#include "model/model.h"

namespace bloomtool {

namespace {

BloomVariant variant_of(Kind kind) {
  return kind == Kind::kBlockedBloom ? BloomVariant::kBlocked512 : BloomVariant::kStandard;
}

}  // namespace

double model_rate(Kind kind, uint64_t m, uint32_t k, uint64_t n) {
  if (!is_bloom(kind)) {
    if (k != 8 && k != 16) throw FieldError("k", "fingerprint bits must be 8 or 16");
    return model::xor_fpr(k);
  }
  if (m == 0) throw FieldError("m", "must be at least 1");
  if (k == 0 || k > model::kMaxK) throw FieldError("k", "must be between 1 and 64");
  return bloom_model_fpr(variant_of(kind), static_cast<double>(m), static_cast<double>(n), k);
}

FilterSize size_for(Kind kind, uint64_t n, double p) {
  if (n == 0) throw FieldError("n", "must be at least 1");
  if (!(p > 0.0 && p < 1.0)) throw FieldError("p", "must be between 0 and 1");
  FilterSize s;
  if (is_bloom(kind)) {
    BloomPlan plan;
    plan.capacity = n;
    plan.fpr = p;
    plan.variant = variant_of(kind);
    model::BloomSize b;
    try {
      b = bloom_size_for(plan, n);
    } catch (const Error& e) {
      throw FieldError("p", e.what());
    }
    s.m = b.m_bits;
    s.k = b.k;
    s.bytes = BloomFilter::word_count(b.m_bits) * 8;
    s.rate = bloom_model_fpr(plan.variant, static_cast<double>(s.m), static_cast<double>(n), s.k);
    return s;
  }
  const uint32_t f = model::xor_fpr(8) <= p ? 8 : model::xor_fpr(16) <= p ? 16 : 0;
  if (f == 0) throw FieldError("p", "below 2^-16, the rate of 16-bit fingerprints");
  const XorParams x = xor_params_for(kind == Kind::kXor ? XorLayout::kXor : XorLayout::kFuse, f, n);
  s.m = x.slots;
  s.k = f;
  s.bytes = xor_payload_words(x) * 8;
  s.rate = model::xor_fpr(f);
  return s;
}

}  // namespace bloomtool
