// `bloomtool build-static` (and its first name, `xor-build`): parses the options, builds a static
// Ribbon, binary fuse or xor filter from the distinct key hashes with build_static,
// checks the shrink guard, writes the file atomically and prints a summary on stderr.
// Construction either succeeds within --max-attempts seeds or fails with exit status 2, leaving
// any previous output file untouched. build-static builds a Ribbon filter at 1% unless told
// otherwise; xor-build keeps its binary fuse default.
#include <bit>
#include <cmath>
#include <memory>

#include "bloomtool/error.h"
#include "build_args.h"
#include "common.h"
#include "filters/partitioned_build.h"
#include "filters/ribbon_build.h"
#include "filters/xor_build.h"
#include "format/hash_spill.h"
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
  std::string memory;      // --memory: the hash budget (parse_spill_options)
  std::string tmpdir;      // --tmpdir: where hashes that do not fit are spilled
  std::string partitions;  // --partitions: auto, 1 or a power of two 2..65536
  std::string part;        // --part: I or I-J, one host's share
  KeyBuildArgs args;
};

// The smallest --memory: runs much larger than their 512 KiB index (hash_spill.h).
constexpr uint64_t kMinMemory = uint64_t{16} << 20;

// The default --memory: half the memory available when the build starts (MemAvailable plus free
// swap, within the address-space and data limits), at least kMinMemory; 0 (no limit) when the
// system does not tell.
uint64_t default_memory() {
  const uint64_t avail = available_memory_bytes();
  return avail == UINT64_MAX ? 0 : std::max(avail / 2, kMinMemory);
}

// --memory and --tmpdir as the hash spill takes them (format/hash_spill.h), checked before any
// key is read: a size the machine cannot give, or a directory where no temporary file can be
// created, is refused here.
SpillOptions parse_spill_options(const XorBuildCliOptions& o) {
  SpillOptions s;
  if (o.memory.empty()) {
    s.memory_bytes = default_memory();
  } else {
    s.memory_bytes = parse_size_bytes(o.memory, "--memory");
    if (s.memory_bytes < kMinMemory) {
      throw Error(ErrorCode::kInvalidArgument, "--memory: must be at least 16MiB, not " + o.memory);
    }
    const uint64_t avail = available_memory_bytes();
    if (s.memory_bytes > avail) {
      throw Error(ErrorCode::kInvalidArgument,
                  fmt::format("--memory: {} is more than the memory available ({})",
                              format_bytes(s.memory_bytes), format_bytes(avail)));
    }
  }
  s.tmpdir = spill_directory(o.tmpdir);
  try {
    check_spill_directory(s.tmpdir);
  } catch (const Error& e) {
    if (!o.tmpdir.empty()) throw;
    // A directory the user did not name: say where it came from.
    throw Error(e.code(), std::string(e.what()) +
                              (s.tmpdir == "/tmp" ? " (--tmpdir DIR chooses another)"
                                                  : " ($TMPDIR; --tmpdir DIR chooses another)"));
  }
  return s;
}

// --partitions and --part as the build's partition bits and range.
void parse_partitions(const XorBuildCliOptions& o, StaticBuildOptions& b) {
  if (!o.partitions.empty() && o.partitions != "auto") {
    const uint64_t p = parse_count(o.partitions, "--partitions");
    if (p == 0 || p > 65536 || !std::has_single_bit(p)) {
      throw Error(ErrorCode::kInvalidArgument,
                  "--partitions: must be auto, 1 or a power of two from 2 to 65536, not '" +
                      o.partitions + "'");
    }
    b.partition_bits = static_cast<unsigned>(std::countr_zero(p));
  }
  if (o.part.empty()) return;
  if (!b.partition_bits || *b.partition_bits == 0) {
    throw Error(ErrorCode::kInvalidArgument,
                "--part: give the partition count too (--partitions P, the same on every host)");
  }
  const uint64_t parts = uint64_t{1} << *b.partition_bits;
  const size_t dash = o.part.find('-');
  const uint64_t lo = parse_count(o.part.substr(0, dash), "--part");
  const uint64_t hi =
      dash == std::string::npos ? lo : parse_count(o.part.substr(dash + 1), "--part");
  if (lo > hi || hi >= parts) {
    throw Error(ErrorCode::kInvalidArgument,
                "--part: '" + o.part + "' is not I or I-J with I <= J < " + std::to_string(parts));
  }
  b.first = static_cast<uint32_t>(lo);
  b.count = static_cast<uint32_t>(hi - lo + 1);
}

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

// The summary of a partitioned build (a whole file or one host's part file).
void print_partitioned_summary(const XorBuildCliOptions& o, const StaticBuild& r,
                               const InputOptions& input_options, uint64_t file_bytes) {
  const FilterHeader& h = r.header;
  const PartitionsField& f = *h.partitions;
  const double model_p = h.partitions->model_rate;
  const bool measure = !o.args.no_measure && r.filter != nullptr && r.distinct != 0;
  if (o.args.out.json) {
    WrittenFacts w;
    w.command = o.command;
    w.header = &r.header;
    w.file_bytes = file_bytes;
    w.distinct_exact = true;
    if (measure) w.measurement = quick_measurement(*r.filter, h.seed, model_p);
    return print_written_json(o.args.out, w);
  }
  const std::string title =
      h.kind == FilterKind::kRibbon
          ? std::string("Ribbon")
          : fmt::format("{} ({}-bit fingerprints)",
                        h.kind == FilterKind::kXor ? "xor" : "binary fuse", h.k);
  const std::string held =
      f.whole() ? fmt::format("{} (by the top {} hash bits; largest {} keys)", f.partitions(),
                              f.bits, r.largest_partition)
                : fmt::format("{}-{} of {} (a part file: join all parts with bloomtool assemble)",
                              f.first, f.first + f.count - 1, f.partitions());
  const double n = static_cast<double>(r.distinct);
  fmt::print(stderr,
             "bloomtool: wrote {}: {}, partitioned\n"
             "{}"
             "  keys added      {}\n"
             "  duplicates      {} (removed{})\n"
             "  distinct keys   {} (exact{})\n"
             "  partitions      {}\n"
             "  {:<16}{}\n"
             "  bits per key    {:.2f} (lower bound {:.2f} for the model p)\n"
             "  model p         {:.6g} (key-weighted mean over the partitions)\n"
             "  attempts        {} (the most any partition needed)\n"
             "  file size       {} ({} bytes)\n",
             o.args.out.name(), title, input_summary(h, input_options, r.input), r.input.keys,
             r.duplicates, f.whole() ? "" : "; of these partitions' keys", r.distinct,
             f.whole() ? "" : "; in these partitions", held,
             h.kind == FilterKind::kRibbon ? "rows" : "slots", h.m,
             r.distinct ? static_cast<double>(f.filter_bits) / n : 0.0,
             model_p > 0 ? std::log2(1.0 / model_p) : 0.0, r.distinct ? model_p : 0.0, r.attempts,
             format_bytes(file_bytes), file_bytes);
  if (measure) print_quick_measurement(*r.filter, h.seed, model_p);
}

// The summary's last line when hashes went to disk (--memory): how many bytes, in how many runs,
// where (the file has no name and is gone once the build ends).
void print_spill_summary(const XorBuildCliOptions& o, const StaticBuild& r,
                         const SpillOptions& spill) {
  if (r.spill_bytes == 0 || o.args.out.quiet || o.args.out.json) return;
  fmt::print(stderr, "  spilled         {} ({} bytes) of hashes in {} sorted runs under {}\n",
             format_bytes(r.spill_bytes), r.spill_bytes, r.spill_runs, spill.tmpdir);
}

int run_static_build(const XorBuildCliOptions& o, const std::string& kind) {
  StaticBuildOptions options;
  double asked_rate = 0;
  if (kind == "ribbon") {
    options.kind = FilterKind::kRibbon;
    options.ribbon_options = parse_ribbon_options(o);
    asked_rate = options.ribbon_options.rate;
  } else {
    options.xor_options = parse_options(o, kind);
    options.kind = xor_filter_kind(options.xor_options.layout);
  }
  parse_partitions(o, options);
  options.spill = parse_spill_options(o);
  const InputOptions input_options = o.args.input.options();
  const OutputArgs::Prepared out = o.args.out.prepare(o.args.input.inputs);
  StaticBuild r;
  try {
    r = o.args.build_with_progress<Error>(input_options, [&](KeyStream& keys) {
      return build_static(hashed_keys(keys), options, out.provenance);
    });
  } catch (const XorConstructionError& e) {
    throw Error(e.code(), o.args.out.name() + ": " + e.what() + "; nothing written");
  } catch (const RibbonConstructionError& e) {
    throw Error(e.code(), o.args.out.name() + ": " + e.what() + "; nothing written");
  }
  if (r.plain_xor) {
    return publish(o.args.out, out, r.distinct, *r.plain_xor, [&](uint64_t file_bytes) {
      print_summary(o, *r.plain_xor, input_options, file_bytes);
      print_spill_summary(o, r, options.spill);
    });
  }
  if (r.plain_ribbon) {
    return publish(o.args.out, out, r.distinct, *r.plain_ribbon, [&](uint64_t file_bytes) {
      print_ribbon_summary(o, *r.plain_ribbon, input_options, file_bytes, asked_rate);
      print_spill_summary(o, r, options.spill);
    });
  }
  return publish(o.args.out, out, r.distinct, r, [&](uint64_t file_bytes) {
    print_partitioned_summary(o, r, input_options, file_bytes);
    print_spill_summary(o, r, options.spill);
  });
}

int run_xor_build(const XorBuildCliOptions& o) {
  return run_static_build(o, kind_of(o));
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
  app->add_option("--partitions", o->partitions,
                  "Split the keys by their hash into P independent filters built in parallel: "
                  "auto (default: fuse and xor in partitions of at most 2^21 keys, none below; "
                  "Ribbon none), 1 (none) or a power of two from 2 to 65536 (Ribbon partitions "
                  "are standard Ribbon)")
      ->type_name("P");
  app->add_option("--part", o->part,
                  "Build only partition I or partitions I-J of --partitions P (one host's share; "
                  "join the parts with bloomtool assemble)")
      ->type_name("I[-J]");
  app->add_option("--max-attempts", o->max_attempts,
                  "Seeds to try before construction gives up with exit status 2 (default 100)")
      ->type_name("N");
  app->add_option("--memory", o->memory,
                  "Most memory for key hashes; beyond it they are spilled to a temporary file: "
                  "512MiB, 4GiB, 4GB (default: half the memory available, at least 16MiB)")
      ->type_name("SIZE");
  app->add_option("--tmpdir", o->tmpdir,
                  "Directory for the temporary file of spilled hashes (default $TMPDIR, else "
                  "/tmp); the file has no name and goes with the process, however it ends")
      ->type_name("DIR");
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
