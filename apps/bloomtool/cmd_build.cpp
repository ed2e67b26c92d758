// `bloomtool build`: parses the sizing options, builds a Bloom filter from the keys with
// build_bloom, checks the shrink guard, writes the file atomically and prints a summary on
// stderr. With -n the filter is sized up front and keys stream through; without -n the exact
// distinct count decides the size, and the requested p holds for input of any length.
#include <memory>

#include "filters/bloom_build.h"
#include "bloomtool/error.h"
#include "analysis/stats.h"
#include "build_args.h"
#include "build_compat.h"
#include "common.h"
#include "units_cli.h"
#include "written_json.h"

namespace bloomtool::cli {

namespace {

struct BuildOptions {
  std::string n, p, m, k;
  std::string variant;
  bool allow_overfill = false;
  std::string compat;
  bool gzip = false;
  KeyBuildArgs args;
};

BloomPlan make_plan(const BuildOptions& o) {
  BloomPlan plan;
  plan.variant = for_flag("--variant", [&] {
    return parse_bloom_variant(o.variant.empty() ? "standard" : o.variant.c_str());
  });
  plan.allow_overfill = o.allow_overfill;
  if (!o.n.empty()) {
    plan.capacity = parse_count(o.n, "-n");
    if (*plan.capacity == 0) throw Error(ErrorCode::kInvalidArgument, "-n: must be at least 1");
  }
  if (!o.p.empty()) plan.fpr = parse_probability(o.p, "-p");
  if (!o.m.empty()) {
    plan.bits = parse_size_bits(o.m, "-m");
    if (*plan.bits == 0 || *plan.bits > model::kMaxBits) {
      throw Error(ErrorCode::kInvalidArgument,
                  "-m: '" + o.m + "' is out of range (1 bit to 2^40 bits = 128GiB)");
    }
  }
  if (!o.k.empty()) {
    const uint64_t k = parse_count(o.k, "-k");
    if (k == 0 || k > model::kMaxK)
      throw Error(ErrorCode::kInvalidArgument, "-k: must be between 1 and 64");
    plan.hashes = static_cast<uint32_t>(k);
  }
  if (plan.fpr && plan.bits)
    throw Error(ErrorCode::kInvalidArgument, "-p and -m: give one of them, not both");
  if (!plan.fpr && !plan.bits) plan.fpr = 0.01;
  return plan;
}

void print_summary(const BuildOptions& o, const BloomBuild& r, const InputOptions& input_options,
                   uint64_t file_bytes) {
  if (o.args.out.json) return print_bloom_build_json(o.args, r, file_bytes);
  const auto& h = r.header;
  const BloomVariant variant = r.filter->variant();
  const double m = static_cast<double>(h.m);
  const double n = static_cast<double>(r.distinct);
  const double model_p = bloom_model_fpr(variant, m, n, h.k);
  fmt::print(stderr,
             "bloomtool: wrote {}: bloom ({})\n"
             "{}"
             "  keys added      {}\n"
             "  distinct keys   {} ({})\n"
             "  m               {}\n"
             "  k               {}\n"
             "  bits per key    {:.2f}\n"
             "  model p         {:.6g} for {} distinct keys\n"
             "  file size       {} ({} bytes)\n",
             o.args.out.name(), bloom_variant_name(variant),
             input_summary(h, input_options, r.input), r.input.keys, r.distinct,
             r.distinct_exact ? "exact" : "estimated from the fill", format_bits(h.m), h.k,
             r.distinct ? m / n : 0.0, model_p, r.distinct, format_bytes(file_bytes), file_bytes);
  // Judged against the rate these bits give, as `stats` does.
  if (!o.args.no_measure)
    print_quick_measurement(*r.filter, h.seed, bloom_fill(*r.filter).fpr, "fill p");
}

int run_build(const BuildOptions& o) {
  if (!o.compat.empty()) {
    return run_build_compat(
        CompatArgs{o.compat, o.gzip, o.n, o.p, o.m, o.k, o.variant, o.allow_overfill}, o.args);
  }
  if (o.gzip) throw Error(ErrorCode::kInvalidArgument, "--gzip: only with --compat dcso");
  const BloomPlan plan = make_plan(o);
  const InputOptions input_options = o.args.input.options();
  const OutputArgs::Prepared out = o.args.out.prepare(o.args.input.inputs);

  BloomBuild r;
  try {
    r = o.args.build_with_progress<OverfillError>(
        input_options, [&](KeyStream& keys) { return build_bloom(keys, plan, out.provenance); });
  } catch (const OverfillError& e) {
    throw Error(e.code(),
                fmt::format("{}: about {} distinct keys, more than 20% over -n {}; nothing written "
                            "(raise -n, or pass --allow-overfill)",
                            o.args.out.name(), e.distinct(), e.capacity()));
  } catch (const MemoryLimitError& e) {
    throw Error(e.code(), o.args.out.name() + ": " + e.what() + "; nothing written");
  }
  return publish(o.args.out, out, r.distinct, r,
                 [&](uint64_t file_bytes) { print_summary(o, r, input_options, file_bytes); });
}

}  // namespace

Command register_build(CLI::App& root) {
  auto o = std::make_shared<BuildOptions>();
  CLI::App* app = root.add_subcommand(
      "build", "Build a Bloom filter from keys (lines, an NDJSON field or a column)");
  app->add_option(
         "-n,--capacity", o->n,
         "Expected distinct keys (e.g. 10M). Omit it to size the filter exactly from the input")
      ->type_name("N");
  app->add_option("-p,--fpr", o->p, "Target false-positive rate: 0.01, 1%, 1e-4 (default 1%)")
      ->type_name("P");
  app->add_option("-m,--bits", o->m, "Filter size: bits (8M) or bytes (1MiB, 64MiB)")
      ->type_name("SIZE");
  app->add_option("-k,--hashes", o->k, "Hash functions per key (default: optimal for the size)")
      ->type_name("K");
  o->args.out.add_output(*app);
  app->add_option("--variant", o->variant, "standard, or blocked (all k bits in one 64-byte block)")
      ->type_name("VARIANT");
  app->add_option("--compat", o->compat,
                  "Write the file a peer loads, sized and hashed as the peer does: guava "
                  "(BloomFilter.readFrom) or dcso (DCSO bloom v1); needs -n")
      ->type_name("PEER");
  app->add_flag("--gzip", o->gzip, "With --compat dcso: gzip the file, as bloom --gzip does");
  app->add_flag("--allow-overfill", o->allow_overfill,
                "Write the filter even when distinct keys exceed -n by more than 20%");
  o->args.add_to(*app, "Print nothing but errors (no summary, no progress)",
                 "Worker threads (default: all cores); the output is the same for any number");
  return {app, [o] { return run_build(*o); }};
}

}  // namespace bloomtool::cli
