// `bloomtool xor-build`: parses the options, builds a static binary fuse (default) or xor filter
// from the distinct key hashes with build_xor, checks the shrink guard, writes the file atomically
// and prints a summary on stderr. Construction either succeeds within --max-attempts seeds or
// fails with exit status 2, leaving any previous output file untouched.
#include <memory>

#include "bloomtool/error.h"
#include "model/model.h"
#include "filters/xor_build.h"
#include "build_args.h"
#include "common.h"
#include "units_cli.h"
#include "written_json.h"

namespace bloomtool::cli {

namespace {

struct XorBuildCliOptions {
  std::string fingerprint = "8";
  std::string layout = "fuse";
  std::string max_attempts = std::to_string(kXorDefaultMaxAttempts);
  KeyBuildArgs args;
};

XorBuildOptions parse_options(const XorBuildCliOptions& o) {
  XorBuildOptions b;
  b.layout = for_flag("--layout", [&] { return parse_xor_layout(o.layout); });
  if (o.fingerprint == "8") {
    b.fingerprint_bits = 8;
  } else if (o.fingerprint == "16") {
    b.fingerprint_bits = 16;
  } else {
    throw Error(ErrorCode::kInvalidArgument,
                "--fingerprint: must be 8 or 16, not '" + o.fingerprint + "'");
  }
  const uint64_t attempts = parse_count(o.max_attempts, "--max-attempts");
  if (attempts == 0 || attempts > 10000)
    throw Error(ErrorCode::kInvalidArgument, "--max-attempts: must be between 1 and 10000");
  b.max_attempts = static_cast<uint32_t>(attempts);
  return b;
}

const char* layout_title(XorLayout layout) {
  return layout == XorLayout::kFuse ? "binary fuse" : "xor";
}

void print_summary(const XorBuildCliOptions& o, const XorBuild& r,
                   const InputOptions& input_options, uint64_t file_bytes) {
  const XorFilter& filter = *r.built.filter;
  if (o.args.out.json) {
    WrittenFacts f;
    f.command = "xor-build";
    f.header = &r.header;
    f.file_bytes = file_bytes;
    f.distinct_exact = true;
    if (!o.args.no_measure) {
      f.measurement = quick_measurement(filter, r.header.seed,
                                        model::xor_fpr(filter.params().fingerprint_bits));
    }
    return print_written_json(o.args.out, f);
  }
  const XorParams& p = filter.params();
  const double bits = static_cast<double>(p.slots) * p.fingerprint_bits;
  const std::string geometry =
      p.layout == XorLayout::kFuse
          ? fmt::format("{} segments of {}", p.segment_count + 2, p.segment_length)
          : fmt::format("3 blocks of {}", p.segment_length);
  fmt::print(stderr,
             "bloomtool: wrote {}: {} ({}-bit fingerprints)\n"
             "{}"
             "  keys added      {}\n"
             "  duplicates      {} (removed)\n"
             "  distinct keys   {} (exact)\n"
             "  slots           {} ({})\n"
             "  bits per key    {:.2f} (lower bound {} for the model p)\n"
             "  model p         {:.6g} (2^-{})\n"
             "  attempts        {}\n"
             "  file size       {} ({} bytes)\n",
             o.args.out.name(), layout_title(p.layout), p.fingerprint_bits,
             input_summary(r.header, input_options, r.input), r.input.keys, r.built.duplicates,
             r.built.distinct, p.slots, geometry,
             r.built.distinct ? bits / static_cast<double>(r.built.distinct) : 0.0,
             p.fingerprint_bits, model::xor_fpr(p.fingerprint_bits), p.fingerprint_bits,
             r.built.attempts, format_bytes(file_bytes), file_bytes);
  if (!o.args.no_measure)
    print_quick_measurement(filter, r.header.seed, model::xor_fpr(p.fingerprint_bits));
}

int run_xor_build(const XorBuildCliOptions& o) {
  const XorBuildOptions options = parse_options(o);
  const InputOptions input_options = o.args.input.options();
  const OutputArgs::Prepared out = o.args.out.prepare(o.args.input.inputs);

  XorBuild r;
  try {
    r = o.args.build_with_progress<XorConstructionError>(
        input_options, [&](KeyStream& keys) { return build_xor(keys, options, out.provenance); });
  } catch (const XorConstructionError& e) {
    throw Error(e.code(), o.args.out.name() + ": " + e.what() + "; nothing written");
  }
  return publish(o.args.out, out, r.built.distinct, r,
                 [&](uint64_t file_bytes) { print_summary(o, r, input_options, file_bytes); });
}

}  // namespace

Command register_xor_build(CLI::App& root) {
  auto o = std::make_shared<XorBuildCliOptions>();
  CLI::App* app = root.add_subcommand(
      "xor-build",
      "Build a static binary fuse or xor filter from keys (lines, an NDJSON field or a column)");
  o->args.out.add_output(*app);
  app->add_option("-f,--fingerprint", o->fingerprint,
                  "Fingerprint bits, 8 or 16 (default 8): p = 2^-8 or 2^-16")
      ->type_name("BITS");
  app->add_option("--layout", o->layout,
                  "fuse (binary fuse, default: ~1.13 f bits/key) or xor (~1.23 f bits/key)")
      ->type_name("LAYOUT");
  app->add_option("--max-attempts", o->max_attempts,
                  "Seeds to try before construction gives up with exit status 2 (default 100)")
      ->type_name("N");
  o->args.add_to(*app, "Print nothing but errors",
                 "Threads reading and hashing keys (default: all cores); the output is the same "
                 "for any number");
  return {app, [o] { return run_xor_build(*o); }};
}

}  // namespace bloomtool::cli
