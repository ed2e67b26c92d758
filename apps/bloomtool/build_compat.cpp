// `build --compat`: option checks, the build, the atomic write and the summary.
#include "build_compat.h"

#include "analysis/stats.h"
#include "bloomtool/error.h"
#include "common.h"
#include "filters/bloom.h"
#include "filters/bloom_build.h"
#include "interop/compat_build.h"
#include "interop/dcso_codec.h"
#include "model/model.h"
#include "units_cli.h"
#include "written_json.h"

namespace bloomtool::cli {

namespace {

[[noreturn]] void refuse(const std::string& flag, const std::string& format, const char* why) {
  throw Error(ErrorCode::kInvalidArgument, flag + ": not with --compat " + format + ": " + why);
}

CompatPlan make_plan(const CompatArgs& c, const KeyBuildArgs& args) {
  CompatPlan plan;
  plan.format = for_flag("--compat", [&] { return parse_file_format(c.format); });
  if (plan.format == FileFormat::kBloomtool) {
    throw Error(ErrorCode::kInvalidArgument, "--compat: 'bloomtool' is not a peer (guava or dcso)");
  }
  if (c.n.empty()) {
    throw Error(ErrorCode::kInvalidArgument,
                "-n: required with --compat " + c.format + " (the peer sizes its filter from n)");
  }
  if (!c.variant.empty() && c.variant != "standard")
    refuse("--variant", c.format, "the peer's filter is a standard Bloom filter");
  if (c.gzip && plan.format != FileFormat::kDcso)
    refuse("--gzip", c.format, "only DCSO files are gzip-compressed");
  if (args.out.codec != "zstd") refuse("--codec", c.format, "the peer's file has no payload codec");
  if (!args.out.sign.empty()) refuse("--sign", c.format, "the peer's file has no signature");
  if (!args.out.guard.max_shrink.empty())
    refuse("--max-shrink", c.format, "the peer's file keeps no count to compare with");
  if (!args.out.label.empty()) refuse("--label", c.format, "the peer's file has no label");
  if (!args.out.created.empty())
    refuse("--created", c.format, "the peer's file has no creation time");
  // The peer hashes with its own fixed scheme: a seed would be silently unused, and the file as
  // predictable as an unseeded one.
  if (args.seed) refuse("--seed", c.format, "the peer's hash scheme has no seed");
  if (!args.input.options().normaliser.empty())
    refuse("key normalisation", c.format, "the peer's file cannot record it");
  plan.capacity = parse_count(c.n, "-n");
  if (plan.capacity == 0) throw Error(ErrorCode::kInvalidArgument, "-n: must be at least 1");
  if (!c.p.empty()) plan.fpr = parse_probability(c.p, "-p");
  if (!c.m.empty()) {
    if (!c.p.empty())
      throw Error(ErrorCode::kInvalidArgument, "-p and -m: give one of them, not both");
    plan.bits = parse_size_bits(c.m, "-m");
  }
  if (!c.k.empty()) {
    const uint64_t k = parse_count(c.k, "-k");
    if (k == 0 || k > 255)
      throw Error(ErrorCode::kInvalidArgument, "-k: must be between 1 and 255");
    plan.hashes = static_cast<uint32_t>(k);
  }
  plan.allow_overfill = c.allow_overfill;
  try {
    compat_size(plan);  // refuse impossible sizes before any input is read
  } catch (const FieldError& e) {
    const std::string flag = e.field() == "n/p" ? "-n/-p" : "-" + e.field();
    throw Error(ErrorCode::kInvalidArgument, flag + ": " + e.reason());
  }
  return plan;
}

void print_summary(const CompatArgs& c, const KeyBuildArgs& args, const CompatBuild& r,
                   const CompatPlan& plan, uint64_t file_bytes) {
  const FilterHeader& h = r.filter.header;
  const bool dcso = plan.format == FileFormat::kDcso;
  const double m = static_cast<double>(h.m);
  const double n = r.distinct_from_fill;
  if (args.out.json) {
    const BloomFilter& sf = *r.filter.filter->bloom();
    WrittenFacts f;
    f.command = "build";
    f.header = &h;
    f.file_bytes = file_bytes;
    f.file_format = dcso ? "dcso" : "guava";
    f.distinct_exact = false;
    f.set_bits = sf.set_bit_count();
    f.fill_fpr = model::bloom_fill_fpr(static_cast<double>(*f.set_bits), m, h.k);
    if (!args.no_measure) {
      f.measurement = quick_measurement(sf, 0, *f.fill_fpr);
      f.expected_from = "fill";
    }
    return print_written_json(args.out, f);
  }
  fmt::print(stderr,
             "bloomtool: wrote {}: {}\n"
             "{}"
             "  keys added      {}\n"
             "{}"
             "  distinct keys   {:.0f} (estimated from the fill)\n"
             "  m               {}\n"
             "  k               {}\n"
             "  model p         {:.6g} for {:.0f} distinct keys\n"
             "  file size       {} ({} bytes)\n",
             args.out.name(),
             dcso ? (c.gzip ? "DCSO bloom v1 filter, gzip" : "DCSO bloom v1 filter")
                  : "Guava BloomFilter (MURMUR128_MITZ_64, writeTo format)",
             input_summary(h, args.input.options(), r.input), r.input.keys,
             dcso ? fmt::format("  counted (N)     {} (keys that set a new bit)\n", r.counted)
                  : std::string(),
             n, format_bits(h.m), h.k, model::bloom_fpr(m, n, h.k), n, format_bytes(file_bytes),
             file_bytes);
  if (!args.no_measure) {
    const BloomFilter& f = *r.filter.filter->bloom();
    print_quick_measurement(
        f, 0, model::bloom_fill_fpr(static_cast<double>(f.set_bit_count()), m, h.k), "fill p");
  }
}

}  // namespace

int run_build_compat(const CompatArgs& c, const KeyBuildArgs& args) {
  const CompatPlan plan = make_plan(c, args);
  const OutputArgs::Prepared out = args.out.prepare(args.input.inputs);
  CompatBuild r;
  try {
    r = args.build_with_progress<OverfillError>(
        args.input.options(), [&](KeyStream& keys) { return build_compat(keys, plan); });
  } catch (const OverfillError& e) {
    throw Error(e.code(),
                fmt::format("{}: about {} distinct keys, more than 20% over -n {}; nothing written "
                            "(raise -n, or pass --allow-overfill)",
                            args.out.name(), e.distinct(), e.capacity()));
  }
  if (plan.format == FileFormat::kDcso && dcso::m_degrades_sequence(r.filter.header.m)) {
    warn(
        fmt::format("{}: m = {} is a power of two: DCSO's index sequence then gives far more "
                    "false positives than its model (stats --measure shows it); choose another m",
                    args.out.name(), r.filter.header.m));
  }
  if (r.non_utf8_keys != 0) {
    warn(
        fmt::format("{}: {} of {} keys are not valid UTF-8; a service using Guava's "
                    "Funnels.stringFunnel(UTF_8) will not find them (it hashes a Java String's "
                    "UTF-8 bytes, never these; Funnels.byteArrayFunnel() hashes the bytes as "
                    "they are)",
                    args.out.name(), r.non_utf8_keys, r.input.keys));
  }
  ForeignWriteOptions wopt;
  wopt.gzip = c.gzip;
  const std::vector<uint8_t> bytes = encode_foreign(r.filter, plan.format, args.out.name(), wopt);
  check_shrink(out.limits, args.out.output,
               static_cast<uint64_t>(std::max(0.0, r.distinct_from_fill)));
  const uint64_t file_bytes = write_output_bytes(args.out.output, bytes);
  if (!args.out.quiet) print_summary(c, args, r, plan, file_bytes);
  return 0;
}

}  // namespace bloomtool::cli
