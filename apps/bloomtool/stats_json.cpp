// Rendering of `bloomtool stats` reports for scripts: one stable JSON object per file (the text
// rows for people are stats_report.cpp).
#include <fmt/format.h>

#include <cmath>

#include "filters/bloom.h"
#include "filters/key_rule.h"
#include "format/signature.h"
#include "keys/hash.h"
#include "model/model.h"
#include "stats_report.h"
#include "units_cli.h"

namespace bloomtool::cli {

void write_measured_rate(JsonWriter& j, const FprMeasurement& m) {
  j.field("probes", m.probes);
  j.field("false_positives", m.false_positives);
  j.field("rate", m.rate);
  j.field("ci95_low", m.ci95.low);
  j.field("ci95_high", m.ci95.high);
  j.field("ci999_low", m.ci999.low);
  j.field("ci999_high", m.ci999.high);
}

void write_json(JsonWriter& j, const Report& r, uint64_t probe_seed, const std::string& negatives) {
  j.begin_object();
  j.field("path", r.path);
  if (r.error) {
    j.field("error", std::string(r.error->what()));
    j.field("error_code", error_code_name(r.error->code()));
    j.end_object();
    return;
  }
  const FilterHeader& h = r.header;
  const FilterStats& s = r.stats;
  j.field("kind", filter_kind_name(h.kind));
  j.field("variant", variant_name(h));
  j.field("file_format", r.file_format);
  j.field("format_version", fmt::format("{}.{}", h.major, h.minor));
  j.field("tool_version", h.tool_version);
  j.field("created", format_timestamp(h.created_unix));
  j.field("created_unix", h.created_unix);
  j.field("age_seconds", r.age_seconds);
  j.field("label", h.label);
  j.field("normalisation", h.normalisation);
  j.field("input_options", h.input_options);
  j.field("hash", hash_scheme_name(h.hash_id));
  j.field("seed", fmt::format("{:#018x}", h.seed));
  j.field("seed_default", h.seed == kDefaultSeed);
  j.field("seed_used", !is_key_scheme(h.hash_id));  // the peers' schemes hash the key bytes alone
  j.field("m", h.m);
  j.field("k", h.k);
  j.field("filter_bits", s.filter_bits);
  j.key("partitions");
  if (s.partitions) {
    const PartitionFacts& pf = *s.partitions;
    j.begin_object();
    j.field("count", pf.count);
    j.field("first", pf.first);
    j.field("of", pf.total);
    j.field("part_file", pf.count != pf.total);
    j.field("bits", pf.bits);
    j.field("min_keys", pf.min_keys);
    j.field("max_keys", pf.max_keys);
    j.field("min_bytes", pf.min_bytes);
    j.field("max_bytes", pf.max_bytes);
    j.field("expected_keys", pf.expected_keys);
    j.field("sd", pf.sd);
    j.field("verdict", pf.balanced ? "consistent" : "deviates");
    j.end_object();
  } else {
    j.null();
  }
  j.field("lines_read", h.lines_read);
  j.field("empty_lines", h.empty_lines);
  j.field("keys_added", h.keys_added);
  j.field("distinct_keys", s.distinct_keys);
  j.field("distinct_from_fill", s.distinct_from_fill);
  j.field("set_bits", s.set_bits);
  j.field("fill", s.fill);
  j.field("bits_per_key", s.bits_per_key);
  j.field("model_fpr", s.model_fpr);
  j.field("fill_fpr", s.fill_fpr);
  j.field("reachable_bits", s.reachable_bits);
  j.field("unreachable_set_bits", s.unreachable_set_bits);
  j.field("model_holds", s.model_breaks.empty());
  j.key("model_warning");
  if (s.model_breaks.empty())
    j.null();
  else
    j.value(s.model_breaks);
  j.key("fill_check");
  if (s.fill_check) {
    j.begin_object();
    j.field("expected_set_bits", s.fill_check->expected_set_bits);
    j.field("sd", s.fill_check->sd);
    j.field("low", std::ceil(s.fill_check->interval.low));
    j.field("high", std::floor(s.fill_check->interval.high));
    j.field("verdict", s.fill_check->consistent ? "consistent" : "deviates");
    j.end_object();
  } else {
    // Same shape for every kind; no fill, so every member is null.
    j.begin_object();
    for (const char* name : {"expected_set_bits", "sd", "low", "high", "verdict"})
      j.key(name).null();
    j.end_object();
  }
  j.field("below_min_size", s.below_min_size);
  j.key("min_bits");
  if (h.kind == FilterKind::kBloom && h.variant == static_cast<uint32_t>(BloomVariant::kStandard))
    j.value(model::min_standard_bits(h.k));
  else
    j.null();
  // A filter that passes (nearly) every non-member has no meaningful lower bound: null.
  const bool bound = s.lower_bound_bits && s.lower_bound_ratio && *s.lower_bound_bits >= 0.5;
  j.field("lower_bound_bits", bound ? s.lower_bound_bits : std::nullopt);
  j.field("lower_bound_ratio", bound ? s.lower_bound_ratio : std::nullopt);
  write_growth_json(j, r);
  j.field("file_bytes", r.file_bytes);
  j.field("payload_stored_bytes", h.payload_stored_bytes);
  j.field("payload_raw_bytes", h.payload_raw_bytes);
  const bool foreign = std::string_view(r.file_format) != "bloomtool";
  j.key("codec");
  if (foreign)
    j.null();
  else
    j.value(payload_codec_name(h.codec));
  j.key("chunk_bytes");
  if (h.codec == PayloadCodec::kRawChunked)
    j.value(h.raw_chunk_bytes);
  else
    j.null();
  j.field("checksums", foreign ? "none" : "verified");
  j.key("signature").begin_object();
  j.field("signed", h.signature.has_value());
  j.key("algorithm");
  if (!h.signature)
    j.null();
  else if (h.signature->algorithm == kSignatureEd25519Blake2b)
    j.value("ed25519-blake2b512");
  else
    j.value(fmt::format("unknown {}", h.signature->algorithm));
  j.key("key_id");
  if (h.signature && h.signature->algorithm == kSignatureEd25519Blake2b)
    j.value(key_id_hex(h.signature->key_id));
  else
    j.null();
  j.field("verified", r.signature_verified);
  j.end_object();
  j.key("measurement");
  if (r.measured) {
    const FprMeasurement& m = r.measured->m;
    j.begin_object();
    j.field("source", r.measured->from_negatives ? "negatives" : "generated");
    j.key("negatives_file");
    if (r.measured->from_negatives)
      j.value(negatives);
    else
      j.null();
    j.key("seed");
    if (r.measured->from_negatives)
      j.null();
    else
      j.value(probe_seed);
    write_measured_rate(j, m);
    j.field("model_fpr", s.model_fpr);
    j.field("expected_fpr", m.expected_fpr);
    j.field("expected_from", s.fill_fpr ? "fill" : "model");
    j.field("verdict", m.consistent ? "consistent" : "deviates");
    j.end_object();
  } else {
    j.null();
  }
  j.key("gates").begin_array();
  for (const GateResult& g : r.gates) {
    j.begin_object();
    j.field("name", g.name);
    if (g.whole_limit) {
      j.field("limit", *g.whole_limit);
      j.field("value", g.whole_value);
    } else {
      j.field("limit", g.limit);
      j.field("value", g.value);
    }
    j.field("status", status_name(g.status));
    j.field("message", g.message);
    j.end_object();
  }
  j.end_array();
  j.key("failed_gates").begin_array();
  for (const GateResult& g : r.gates)
    if (g.status == GateStatus::kFailed) j.value(g.name);
  j.end_array();
  j.field("ok", r.gates_passed());
  j.end_object();
}

}  // namespace bloomtool::cli
