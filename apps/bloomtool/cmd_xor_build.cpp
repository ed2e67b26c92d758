// `bloomtool build-static` (and its first name, `xor-build`): parses the options, builds a static
// Ribbon, binary fuse or xor filter from the distinct key hashes with build_ribbon or build_xor,
// checks the shrink guard, writes the file atomically and prints a summary on stderr.
// Construction either succeeds within --max-attempts seeds or fails with exit status 2, leaving
// any previous output file untouched. build-static builds a Ribbon filter at 1% unless told
// otherwise; xor-build keeps its binary fuse default.
#include <cmath>
#include <memory>

#include "bloomtool/error.h"
#include "build_args.h"
#include "common.h"
#include "filters/ribbon_build.h"
#include "filters/xor_build.h"
#include "model/model.h"
#include "units_cli.h"
#include "written_json.h"

namespace bloomtool::cli {

namespace {

struct XorBuildCliOptions {
  const char* command = "build-static";
  const char* default_kind = "ribbon";  // when neither --kind nor a kind's own option says
  std::string kind;                     // --kind: ribbon, fuse or xor
  std::string p;                        // -p: Ribbon's rate
  std::string fingerprint;              // -f: fuse / xor
  std::string layout;                   // --layout: fuse / xor (xor-build's option)
  bool standard = false;                // --standard-ribbon: one layer, no bumping
  std::string max_attempts = std::to_string(kXorDefaultMaxAttempts);
  KeyBuildArgs args;
};

// The kind to build: --kind, else what -p (ribbon) or -f / --layout (fuse or the layout) imply,
// else the command's default. Options of another kind are refused.
std::string kind_of(const XorBuildCliOptions& o) {
  if (!o.layout.empty()) for_flag("--layout", [&] { return parse_xor_layout(o.layout); });
  std::string kind = o.kind;
  if (kind.empty() && !o.layout.empty()) kind = o.layout;
  if (kind.empty() && !o.fingerprint.empty()) kind = "fuse";
  if (kind.empty() && !o.p.empty()) kind = "ribbon";
  if (kind.empty()) kind = o.default_kind;
  if (kind != "ribbon" && kind != "fuse" && kind != "xor") {
    throw Error(ErrorCode::kInvalidArgument,
                "--kind: unknown kind '" + kind + "' (expected ribbon, fuse or xor)");
  }
  if (!o.layout.empty() && kind != o.layout) {
    throw Error(ErrorCode::kInvalidArgument,
                "--layout " + o.layout + " and --kind " + kind + ": give one of them");
  }
  if (kind == "ribbon" && !o.fingerprint.empty()) {
    throw Error(ErrorCode::kInvalidArgument,
                "--fingerprint: Ribbon filters take any rate with -p instead");
  }
  if (kind != "ribbon" && o.standard) {
    throw Error(ErrorCode::kInvalidArgument,
                "--standard-ribbon: " + kind + " filters have no Ribbon variant");
  }
  if (kind != "ribbon" && !o.p.empty()) {
    throw Error(ErrorCode::kInvalidArgument,
                "-p: " + kind +
                    " filters have p = 2^-8 or 2^-16 (--fingerprint); -p is for "
                    "--kind ribbon");
  }
  return kind;
}

uint32_t parse_attempts(const XorBuildCliOptions& o) {
  const uint64_t attempts = parse_count(o.max_attempts, "--max-attempts");
  if (attempts == 0 || attempts > 10000)
    throw Error(ErrorCode::kInvalidArgument, "--max-attempts: must be between 1 and 10000");
  return static_cast<uint32_t>(attempts);
}

RibbonBuildOptions parse_ribbon_options(const XorBuildCliOptions& o) {
  RibbonBuildOptions b;
  b.rate = o.p.empty() ? 0.01 : parse_probability(o.p, "-p");
  if (b.rate > kRibbonMaxRate || b.rate < kRibbonMinRate) {
    throw Error(ErrorCode::kInvalidArgument,
                "-p: a Ribbon filter's rate must be between 2^-30 (9.3e-10) and 50%, not " + o.p);
  }
  b.max_attempts = parse_attempts(o);
  b.variant = o.standard ? 0 : 1;
  return b;
}

XorBuildOptions parse_options(const XorBuildCliOptions& o, const std::string& kind) {
  XorBuildOptions b;
  b.layout = for_flag("--layout", [&] { return parse_xor_layout(kind); });
  if (o.fingerprint.empty() || o.fingerprint == "8") {
    b.fingerprint_bits = 8;
  } else if (o.fingerprint == "16") {
    b.fingerprint_bits = 16;
  } else {
    throw Error(ErrorCode::kInvalidArgument,
                "--fingerprint: must be 8 or 16, not '" + o.fingerprint + "'");
  }
  b.max_attempts = parse_attempts(o);
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
    f.command = o.command;
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

void print_ribbon_summary(const XorBuildCliOptions& o, const RibbonBuild& r,
                          const InputOptions& input_options, uint64_t file_bytes, double asked) {
  const RibbonFilter& filter = *r.built.filter;
  const RibbonParams& p = filter.params();
  const double model_p = ribbon_model_rate(p);
  if (o.args.out.json) {
    WrittenFacts f;
    f.command = o.command;
    f.header = &r.header;
    f.file_bytes = file_bytes;
    f.distinct_exact = true;
    if (!o.args.no_measure && p.slots != 0)
      f.measurement = quick_measurement(filter, r.header.seed, model_p);
    return print_written_json(o.args.out, f);
  }
  const double n = static_cast<double>(r.built.distinct);
  const double bits = static_cast<double>(p.solution_bits());
  std::string rows;
  if (p.layers.size() > 1) {
    std::string layers;
    for (const RibbonLayer& l : p.layers)
      layers += (layers.empty() ? "" : " + ") + std::to_string(l.slots);
    rows = fmt::format(
        "{} in {} layers ({}; {:.2f} % of the keys bumped from the first), {} and "
        "{} columns",
        p.slots, p.layers.size(), layers,
        100.0 * static_cast<double>(r.built.layer_keys.size() > 1 ? r.built.layer_keys[1] : 0) /
            std::max(1.0, static_cast<double>(r.built.distinct)),
        p.columns + 1, p.columns);
  } else {
    const RibbonLayer& l = p.layers[0];
    rows = l.upper_blocks == 0
               ? fmt::format("{} ({} blocks of 64, {} columns)", p.slots, l.blocks(), p.columns)
               : fmt::format("{} ({} of {} blocks of 64 with {} columns, the rest {})", p.slots,
                             l.upper_blocks, l.blocks(), p.columns + 1, p.columns);
  }
  const std::string per_key =
      r.built.distinct == 0
          ? std::string("0.00")
          : fmt::format("{:.2f} (lower bound {:.2f} for the model p: {:.3f}x)", bits / n,
                        std::log2(1.0 / model_p), bits / (n * std::log2(1.0 / model_p)));
  fmt::print(stderr,
             "bloomtool: wrote {}: Ribbon\n"
             "{}"
             "  keys added      {}\n"
             "  duplicates      {} (removed)\n"
             "  distinct keys   {} (exact)\n"
             "  rows            {}\n"
             "  bits per key    {}\n"
             "  model p         {:.6g} (asked for {:.6g})\n"
             "  attempts        {}\n"
             "  file size       {} ({} bytes)\n",
             o.args.out.name(), input_summary(r.header, input_options, r.input), r.input.keys,
             r.built.duplicates, r.built.distinct, rows, per_key,
             r.built.distinct == 0 ? 0.0 : model_p, asked, r.built.attempts,
             format_bytes(file_bytes), file_bytes);
  if (!o.args.no_measure && p.slots != 0) print_quick_measurement(filter, r.header.seed, model_p);
}

int run_ribbon_build(const XorBuildCliOptions& o) {
  const RibbonBuildOptions options = parse_ribbon_options(o);
  const InputOptions input_options = o.args.input.options();
  const OutputArgs::Prepared out = o.args.out.prepare(o.args.input.inputs);
  RibbonBuild r;
  try {
    r = o.args.build_with_progress<RibbonConstructionError>(input_options, [&](KeyStream& keys) {
      return build_ribbon(keys, options, out.provenance);
    });
  } catch (const RibbonConstructionError& e) {
    throw Error(e.code(), o.args.out.name() + ": " + e.what() + "; nothing written");
  }
  return publish(o.args.out, out, r.built.distinct, r, [&](uint64_t file_bytes) {
    print_ribbon_summary(o, r, input_options, file_bytes, options.rate);
  });
}

int run_xor_build(const XorBuildCliOptions& o) {
  const std::string kind = kind_of(o);
  if (kind == "ribbon") return run_ribbon_build(o);
  const XorBuildOptions options = parse_options(o, kind);
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

Command register_static(CLI::App& root, const char* name, const char* default_kind) {
  auto o = std::make_shared<XorBuildCliOptions>();
  o->command = name;
  o->default_kind = default_kind;
  const bool first_name = std::string(name) == "xor-build";
  CLI::App* app = root.add_subcommand(
      name,
      "Build a static Ribbon, binary fuse or xor filter from keys (lines, an NDJSON field or a "
      "column): smaller than Bloom, not mergeable");
  // The first name still works, but is not listed: build-static is the one to find.
  if (first_name) app->group("");
  o->args.out.add_output(*app);
  app->add_option("--kind", o->kind,
                  first_name ? "ribbon, fuse or xor (default fuse)"
                             : "ribbon (default: any rate, ~1.02 log2(1/p) bits/key), fuse "
                               "(binary fuse, p = 2^-f, ~1.13 f bits/key) or xor (~1.23 f)")
      ->type_name("KIND");
  app->add_option("-p,--fpr", o->p,
                  "Ribbon: target false-positive rate, 50% down to 2^-30: 0.01, 1%, 1e-4 "
                  "(default 1%)")
      ->type_name("P");
  app->add_option("-f,--fingerprint", o->fingerprint,
                  "fuse / xor: fingerprint bits, 8 or 16 (default 8): p = 2^-8 or 2^-16")
      ->type_name("BITS");
  app->add_flag("--standard-ribbon", o->standard,
                "Ribbon: one standard layer (format 1.2, ~1.05 log2(1/p) bits/key, a faster "
                "build) instead of bumped layers (1.3)");
  app->add_option("--layout", o->layout, "fuse or xor: the same as --kind (xor-build's option)")
      ->type_name("LAYOUT");
  app->add_option("--max-attempts", o->max_attempts,
                  "Seeds to try before construction gives up with exit status 2 (default 100)")
      ->type_name("N");
  o->args.add_to(*app, "Print nothing but errors",
                 "Threads reading and hashing keys (default: all cores); the output is the same "
                 "for any number");
  return {app, [o] { return run_xor_build(*o); }};
}

Command register_build_static(CLI::App& root) {
  return register_static(root, "build-static", "ribbon");
}

Command register_xor_build(CLI::App& root) {
  return register_static(root, "xor-build", "fuse");
}

}  // namespace bloomtool::cli
