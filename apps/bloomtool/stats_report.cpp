// Rendering of `bloomtool stats` reports: aligned text rows for people, one stable JSON object
// per file for scripts.
#include <fmt/format.h>

#include <cmath>

#include "bloomtool/bloom.h"
#include "bloomtool/hash.h"
#include "bloomtool/model.h"
#include "bloomtool/scheme_bloom.h"
#include "bloomtool/signature.h"
#include "stats_report.h"
#include "units_cli.h"

namespace bloomtool::cli {

namespace {

std::optional<std::string> variant_name(const FilterHeader& h) {
  if (h.kind != FilterKind::kBloom) return std::nullopt;
  return bloom_variant_name(static_cast<BloomVariant>(h.variant));
}
std::string fmt_opt(const std::optional<double>& v, const char* spec = "{:.4g}") {
  return v ? fmt::format(fmt::runtime(spec), *v) : std::string("n/a");
}

// Header text as it may be shown on a terminal: control bytes become \xNN.
std::string printable(std::string_view text) {
  std::string out;
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7F)
      out += fmt::format("\\x{:02x}", u);
    else
      out += c;
  }
  return out;
}

const char* seed_origin(uint64_t seed) {
  return seed == kDefaultSeed ? "public default" : "chosen at build";
}

std::string signature_text(const Report& r) {
  const auto& sig = r.header.signature;
  if (!sig) return "none (unsigned)";
  if (sig->algorithm != kSignatureEd25519Blake2b)
    return fmt::format("unknown algorithm {} (not verified)", sig->algorithm);
  if (r.signature_verified)
    return fmt::format("verified: signed by the trusted key {}", key_id_hex(sig->key_id));
  return fmt::format("signed by key {} (not verified: give --verify-signature KEY.pub)",
                     key_id_hex(sig->key_id));
}

std::string human_age(int64_t seconds) {
  if (seconds < 0)
    return fmt::format("{} s in the future", uint64_t{0} - static_cast<uint64_t>(seconds));
  if (seconds < 120) return fmt::format("{} s ago", seconds);
  if (seconds < 7200) return fmt::format("{} min ago", seconds / 60);
  if (seconds < 172800) return fmt::format("{:.1f} h ago", static_cast<double>(seconds) / 3600.0);
  return fmt::format("{:.1f} days ago", static_cast<double>(seconds) / 86400.0);
}
}  // namespace

void print_human(StdoutWriter& out, const Report& r, bool first) {
  const FilterHeader& h = r.header;
  const FilterStats& s = r.stats;
  const bool bloom = h.kind == FilterKind::kBloom;
  std::string t;
  const auto row = [&t](std::string_view name, const std::string& value) {
    t += fmt::format("  {:<18}{}\n", name, value);
  };
  if (!first) t += "\n";
  t += r.path + "\n";
  row("kind", bloom ? fmt::format("bloom, {} variant", *variant_name(h))
                    : fmt::format("{}, {}-bit fingerprints", filter_kind_name(h.kind), h.k));
  if (std::string_view(r.file_format) != "bloomtool")
    row("format", fmt::format("{} file, read directly", r.file_format));
  else
    row("format",
        fmt::format("{}.{}, written by {}", h.major, h.minor,
                    h.tool_version.empty() ? "an unknown tool" : printable(h.tool_version)));
  if (std::string_view(r.file_format) != "bloomtool" && h.created_unix == 0)
    row("created", "unknown (the format records no time, and standard input has none)");
  else
    row("created",
        fmt::format("{} ({})", format_timestamp(h.created_unix), human_age(r.age_seconds)));
  row("label", h.label.empty() ? "(none)" : printable(h.label));
  row("normalisation", h.normalisation.empty() ? "none" : printable(h.normalisation));
  row("input options", h.input_options.empty() ? "(not recorded)" : printable(h.input_options));
  row("hash", fmt::format("{}, seed {:#018x} ({})", hash_scheme_name(h.hash_id), h.seed,
                          seed_origin(h.seed)));
  if (bloom) {
    row("m", fmt::format("{} bits ({})", h.m, format_bytes(h.payload_raw_bytes)));
    row("k", fmt::format("{} hashes per key", h.k));
  } else {
    row("m", fmt::format("{} slots of {} bits = {} bits ({})", h.m, h.k, s.filter_bits,
                         format_bytes(h.payload_raw_bytes)));
  }
  const bool foreign = std::string_view(r.file_format) != "bloomtool";
  if (foreign) {
    row("lines read", fmt::format("(not recorded in a {} file)", r.file_format));
    row("keys added", h.hash_id == kHashDcsoFnv1
                          ? fmt::format("{} (DCSO's N: adds that set a new bit)", h.keys_added)
                          : std::string("(not recorded in a guava file)"));
  } else {
    row("lines read", fmt::format("{} ({} empty, skipped)", h.lines_read, h.empty_lines));
    row("keys added", fmt::format("{}", h.keys_added));
  }
  if (bloom) {
    row("distinct keys",
        fmt::format("{} recorded; {} implied by the fill", h.distinct_estimate,
                    s.distinct_from_fill ? fmt::format("{:.0f}", *s.distinct_from_fill)
                                         : std::string("unbounded (every bit is set)")));
    row("set bits", fmt::format("{} (fill {:.2f}%)", *s.set_bits, 100.0 * *s.fill));
  } else {
    row("distinct keys", fmt::format("{}", h.distinct_estimate));
  }
  row("bits per key", fmt_opt(s.bits_per_key, "{:.3f}"));
  if (s.fill_check) {
    const FillCheck& c = *s.fill_check;
    row("fill check",
        fmt::format(
            "{}: {} set bits; {} distinct keys give {:.0f} (99.9% interval {:.0f} to {:.0f})",
            c.consistent ? "consistent" : "deviates", *s.set_bits, s.distinct_keys,
            c.expected_set_bits, std::ceil(c.interval.low), std::floor(c.interval.high)));
  }
  row("model p", fmt::format("{:.4g} for {} distinct keys", s.model_fpr, s.distinct_keys));
  if (s.fill_fpr) row("fill p", fmt::format("{:.4g} (the rate these bits give)", *s.fill_fpr));
  if (s.below_min_size) {
    row("small filter",
        fmt::format("m = {} bits is below {} bits, the smallest size bloomtool now builds for k = "
                    "{}: a key's positions often coincide; the rates above account for that",
                    h.m, model::min_standard_bits(h.k), h.k));
  }
  if (s.lower_bound_bits) {
    row("lower bound", fmt::format("{:.0f} bits (n log2(1/p)); this filter uses {:.3f}x that",
                                   *s.lower_bound_bits, *s.lower_bound_ratio));
  } else {
    row("lower bound", "n/a (no keys)");
  }
  if (foreign) {
    row("file size", fmt::format("{} ({} bytes)", format_bytes(r.file_bytes), r.file_bytes));
    row("checksums", fmt::format("none (a {} file has none)", r.file_format));
    row("signature", signature_text(r));
  } else {
    row("file size",
        fmt::format("{} ({} bytes); payload {} stored, {} raw; codec {}{}",
                    format_bytes(r.file_bytes), r.file_bytes, format_bytes(h.payload_stored_bytes),
                    format_bytes(h.payload_raw_bytes), payload_codec_name(h.codec),
                    h.codec == PayloadCodec::kRawChunked
                        ? fmt::format(" ({} chunks)", format_bytes(h.raw_chunk_bytes))
                        : std::string()));
    row("checksums", "verified");
    row("signature", signature_text(r));
  }
  if (r.measured) {
    row(r.measured->from_negatives ? "measured p (neg)" : "measured p",
        describe_measurement(r.measured->m, s.fill_fpr ? "fill p" : "model"));
  }
  for (const GateResult& g : r.gates) {
    row(std::string("gate ") + g.option,
        fmt::format(
            "{}: {}",
            g.status == GateStatus::kNotApplicable ? "not applicable" : status_name(g.status),
            g.message));
  }
  out.write(t);
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
  j.field("m", h.m);
  j.field("k", h.k);
  j.field("filter_bits", s.filter_bits);
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
  j.field("lower_bound_bits", s.lower_bound_bits);
  j.field("lower_bound_ratio", s.lower_bound_ratio);
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
    j.field("probes", m.probes);
    j.field("false_positives", m.false_positives);
    j.field("rate", m.rate);
    j.field("ci95_low", m.ci95.low);
    j.field("ci95_high", m.ci95.high);
    j.field("ci999_low", m.ci999.low);
    j.field("ci999_high", m.ci999.high);
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
