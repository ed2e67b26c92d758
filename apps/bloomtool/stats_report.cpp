// Rendering of `bloomtool stats` reports for people: aligned text rows (the JSON object for
// scripts is stats_json.cpp).
#include <fmt/format.h>

#include <cmath>

#include "filters/bloom.h"
#include "filters/key_rule.h"
#include "filters/ribbon.h"
#include "format/signature.h"
#include "keys/hash.h"
#include "model/model.h"
#include "stats_report.h"
#include "units_cli.h"

namespace bloomtool::cli {

namespace {

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

std::string hash_text(const FilterHeader& h) {
  // The peers' schemes take their positions from the key bytes alone: the seed field is unused.
  if (is_key_scheme(h.hash_id))
    return fmt::format("{} (positions from the key bytes; no seed)", hash_scheme_name(h.hash_id));
  return fmt::format("{}, seed {:#018x} ({})", hash_scheme_name(h.hash_id), h.seed,
                     h.seed == kDefaultSeed ? "public default" : "chosen at build");
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

std::optional<std::string> variant_name(const FilterHeader& h) {
  if (h.kind == FilterKind::kRibbon) return std::string(h.variant == 1 ? "bumped" : "standard");
  if (h.kind != FilterKind::kBloom) return std::nullopt;
  return bloom_variant_name(static_cast<BloomVariant>(h.variant));
}

void print_human(StdoutWriter& out, const Report& r, bool first) {
  const FilterHeader& h = r.header;
  const FilterStats& s = r.stats;
  const bool bloom = h.kind == FilterKind::kBloom;
  const bool foreign = std::string_view(r.file_format) != "bloomtool";
  std::string t;
  const auto row = [&t](std::string_view name, const std::string& value) {
    t += fmt::format("  {:<18}{}\n", name, value);
  };
  if (!first) t += "\n";
  t += r.path + "\n";
  const bool ribbon = h.kind == FilterKind::kRibbon;
  RibbonParams rp;
  if (ribbon)
    (void)ribbon_params_from_file(h.variant, h.k, h.m, h.kind_params, rp);  // checked when loaded
  if (bloom)
    row("kind", fmt::format("bloom, {} variant", *variant_name(h)));
  else if (ribbon && rp.mixed())
    row("kind",
        fmt::format("ribbon, {}- and {}-bit fingerprints (fractional: {:.3f} bits a row)", h.k,
                    h.k + 1, static_cast<double>(s.filter_bits) / static_cast<double>(h.m)));
  else
    row("kind", fmt::format("{}, {}-bit fingerprints", filter_kind_name(h.kind), h.k));
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
  row("hash", hash_text(h));
  if (bloom) {
    row("m", fmt::format("{} bits ({})", h.m, format_bytes(h.payload_raw_bytes)));
    row("k", fmt::format("{} hashes per key", h.k));
  } else if (ribbon) {
    if (rp.variant == 1 && rp.layers.size() > 1) {
      std::string layers;
      for (const RibbonLayer& l : rp.layers)
        layers += (layers.empty() ? "" : " + ") + std::to_string(l.slots);
      row("m", fmt::format("{} rows in {} layers ({}), {:.2f} % of the first layer's starts "
                           "bumped = {} bits ({})",
                           h.m, rp.layers.size(), layers,
                           100.0 * static_cast<double>(rp.layers[0].bumped) /
                               static_cast<double>(rp.layers[0].starts()),
                           s.filter_bits, format_bytes(h.payload_raw_bytes)));
    } else {
      const RibbonLayer l = rp.layers.empty() ? RibbonLayer{} : rp.layers[0];
      row("m", l.upper_blocks == 0
                   ? fmt::format("{} rows of {} bits = {} bits ({})", h.m, h.k, s.filter_bits,
                                 format_bytes(h.payload_raw_bytes))
                   : fmt::format("{} rows, {} blocks of 64: {} of {} bits, the rest of {} = {} "
                                 "bits ({})",
                                 h.m, l.blocks(), l.upper_blocks, h.k + 1, h.k, s.filter_bits,
                                 format_bytes(h.payload_raw_bytes)));
    }
  } else {
    row("m", fmt::format("{} slots of {} bits = {} bits ({})", h.m, h.k, s.filter_bits,
                         format_bytes(h.payload_raw_bytes)));
  }
  if (s.partitions) {
    const PartitionFacts& pf = *s.partitions;
    const std::string which =
        pf.count == pf.total
            ? fmt::format("{} (by the top {} hash bits)", pf.count, pf.bits)
            : fmt::format(
                  "{}-{} of {} (by the top {} hash bits; a part file: assemble the parts "
                  "to query them)",
                  pf.first, pf.first + pf.count - 1, pf.total, pf.bits);
    row("partitions",
        fmt::format("{}, {} to {} keys each, {} to {}", which, pf.min_keys, pf.max_keys,
                    format_bytes(pf.min_bytes), format_bytes(pf.max_bytes)));
    row("partition spread",
        fmt::format("{} (expected {:.0f} ± {:.0f} keys a partition for a uniform hash)",
                    pf.balanced ? "consistent" : "DEVIATES", pf.expected_keys, pf.sd));
  }
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
    const std::string implied = s.distinct_from_fill ? fmt::format("{:.0f}", *s.distinct_from_fill)
                                                     : std::string("unbounded (every bit is set)");
    if (foreign) {
      // Neither peer records a distinct count: the header's figure is the fill's estimate.
      row("distinct keys",
          s.distinct_from_fill
              ? fmt::format("{} estimated from the fill (a {} file records no distinct count)",
                            implied, r.file_format)
              : fmt::format("unbounded: every bit is set (a {} file records no distinct count)",
                            r.file_format));
    } else {
      row("distinct keys",
          fmt::format("{} recorded; {} implied by the fill", h.distinct_estimate, implied));
    }
    if (s.reachable_bits) {
      row("reachable bits",
          fmt::format("{} of the {} ({} never sets a bit at or above 2^31); fill and rates are "
                      "over these{}",
                      *s.reachable_bits, h.m, hash_scheme_name(h.hash_id),
                      s.unreachable_set_bits == 0
                          ? std::string()
                          : fmt::format("; {} bits set beyond them", s.unreachable_set_bits)));
    }
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
  if (!s.model_breaks.empty())
    row("model warning", s.model_breaks + "; only a measurement (--measure) tells the real rate");
  if (s.below_min_size) {
    row("small filter",
        fmt::format("m = {} bits is below {} bits, the smallest size bloomtool now builds for k = "
                    "{}: a key's positions often coincide; the rates above account for that",
                    h.m, model::min_standard_bits(h.k), h.k));
  }
  if (s.lower_bound_bits && s.lower_bound_ratio && *s.lower_bound_bits >= 0.5) {
    row("lower bound", fmt::format("{:.0f} bits (n log2(1/p)); this filter uses {:.3f}x that",
                                   *s.lower_bound_bits, *s.lower_bound_ratio));
  } else if (s.distinct_keys == 0) {
    row("lower bound", "n/a (no keys)");
  } else {
    row("lower bound",
        fmt::format("n/a (at the model's rate {:.4g} nearly every non-member passes, and a filter "
                    "that weak needs no bits)",
                    s.model_fpr));
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
  t += growth_rows(r);
  for (const GateResult& g : r.gates) {
    row(std::string("gate ") + g.option,
        fmt::format(
            "{}: {}",
            g.status == GateStatus::kNotApplicable ? "not applicable" : status_name(g.status),
            g.message));
  }
  out.write(t);
}

}  // namespace bloomtool::cli
