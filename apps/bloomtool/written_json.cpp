// The --json summary of the commands that write a filter (written_json.h).
#include "written_json.h"

#include <fmt/format.h>

#include <cstdio>

#include "json_writer.h"
#include "keys/hash.h"
#include "stats_report.h"
#include "stdout_writer.h"

namespace bloomtool::cli {

FprMeasurement quick_measurement(const Filter& filter, uint64_t seed, double expected_fpr) {
  return measure_fpr(filter, seed, kQuickProbes, kDefaultProbeSeed, expected_fpr);
}

void print_bloom_build_json(const KeyBuildArgs& args, const BloomBuild& r, uint64_t file_bytes) {
  WrittenFacts f;
  f.command = "build";
  f.header = &r.header;
  f.file_bytes = file_bytes;
  f.distinct_exact = r.distinct_exact;
  const BloomFill fill = bloom_fill(*r.filter);
  f.set_bits = fill.set_bits;
  f.fill_fpr = fill.fpr;
  // Judged against the rate these bits give, as `stats` does.
  if (!args.no_measure) {
    f.measurement = quick_measurement(*r.filter, r.header.seed, fill.fpr);
    f.expected_from = "fill";
  }
  print_written_json(args.out, f);
}

void print_convert_json(const OutputArgs& out, const std::string& input, const char* to_format,
                        const ConvertResult& r) {
  WrittenFacts f;
  f.command = "convert";
  f.header = &r.header;
  f.file_bytes = r.output_bytes;
  f.file_format = to_format;
  f.inputs = {input};
  f.input_bytes = r.input_bytes;
  print_written_json(out, f);
}

void print_written_json(const OutputArgs& out, const WrittenFacts& f) {
  const FilterHeader& h = *f.header;
  const bool foreign = std::string_view(f.file_format) != "bloomtool";
  const uint64_t filter_bits = header_filter_bits(h);
  const double n = static_cast<double>(h.distinct_estimate);
  const double model_fpr = model_fpr_for(h, n);
  JsonWriter j;
  j.begin_object();
  j.field("command", f.command);
  j.field("path", out.output);
  if (!f.inputs.empty()) {
    j.key("inputs").begin_array();
    for (const std::string& in : f.inputs) j.value(in);
    j.end_array();
  }
  j.field("kind", filter_kind_name(h.kind));
  j.field("variant", variant_name(h));
  j.field("file_format", f.file_format);
  j.field("hash", hash_scheme_name(h.hash_id));
  j.field("seed", fmt::format("{:#018x}", h.seed));
  j.field("seed_default", h.seed == kDefaultSeed);
  j.field("label", h.label);
  j.field("normalisation", h.normalisation);
  j.field("input_options", h.input_options);
  j.field("m", h.m);
  j.field("k", h.k);
  j.field("filter_bits", filter_bits);
  j.field("lines_read", h.lines_read);
  j.field("empty_lines", h.empty_lines);
  j.field("keys_added", h.keys_added);
  j.field("distinct_keys", h.distinct_estimate);
  j.key("partitions");
  if (h.partitions) {
    j.begin_object();
    j.field("count", h.partitions->partitions());
    j.field("bits", uint64_t{h.partitions->bits});
    j.field("first", uint64_t{h.partitions->first});
    j.field("held", uint64_t{h.partitions->count});
    j.end_object();
  } else {
    j.null();
  }
  if (f.distinct_exact) j.field("distinct_exact", *f.distinct_exact);
  j.field("set_bits", f.set_bits);
  j.key("fill");
  if (f.set_bits)
    j.value(static_cast<double>(*f.set_bits) / static_cast<double>(h.m));
  else
    j.null();
  j.field("fill_fpr", f.fill_fpr);
  j.key("bits_per_key");
  if (h.distinct_estimate > 0)
    j.value(static_cast<double>(filter_bits) / n);
  else
    j.null();
  j.field("model_fpr", model_fpr);
  j.field("file_bytes", f.file_bytes);
  if (f.input_bytes) j.field("input_bytes", *f.input_bytes);
  j.key("codec");
  if (foreign)
    j.null();
  else
    j.value(payload_codec_name(h.codec));
  j.key("measurement");
  if (f.measurement) {
    const FprMeasurement& m = *f.measurement;
    j.begin_object();
    j.field("source", "generated");
    j.key("negatives_file").null();
    j.field("seed", kDefaultProbeSeed);
    write_measured_rate(j, m);
    j.field("model_fpr", model_fpr);
    j.field("expected_fpr", m.expected_fpr);
    j.field("expected_from", f.expected_from);
    j.field("verdict", m.consistent ? "consistent" : "deviates");
    j.end_object();
  } else {
    j.null();
  }
  j.end_object();
  // Standard output carries the filter with -o -: the object goes to standard error then.
  if (out.output == "-") {
    fmt::print(stderr, "{}\n", j.str());
    return;
  }
  StdoutWriter w;
  w.line(j.str());
  w.flush();
}

}  // namespace bloomtool::cli
