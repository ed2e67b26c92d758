// `bloomtool xor-build`: reads keys, keeps one 64-bit hash per key, builds a static binary fuse
// (default) or xor filter from the distinct hashes, writes it atomically and prints a summary on
// stderr. Construction either succeeds within --max-attempts seeds or fails with exit status 2,
// leaving any previous output file untouched.
#include <algorithm>
#include <cmath>
#include <memory>
#include <span>

#include "bloomtool/batch_pipeline.h"
#include "bloomtool/error.h"
#include "bloomtool/filter_file.h"
#include "bloomtool/hash.h"
#include "bloomtool/model.h"
#include "bloomtool/output_target.h"
#include "bloomtool/stats.h"
#include "bloomtool/units.h"
#include "bloomtool/version.h"
#include "bloomtool/word_buffer.h"
#include "bloomtool/xor_filter.h"
#include "common.h"
#include "progress.h"

namespace bloomtool::cli {

namespace {

struct XorBuildCliOptions {
  std::string output;
  std::string fingerprint = "8";
  std::string layout = "fuse";
  std::string max_attempts = std::to_string(kXorDefaultMaxAttempts);
  std::string label;
  std::string created;
  bool quiet = false;
  bool no_measure = false;
  unsigned threads = 0;
  InputArgs input;
  ShrinkGuardArgs guard;
};

XorBuildOptions parse_options(const XorBuildCliOptions& o) {
  XorBuildOptions b;
  b.layout = parse_xor_layout(o.layout);
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

int run_xor_build(const XorBuildCliOptions& o) {
  const XorBuildOptions options = parse_options(o);
  const InputOptions input_options = o.input.options();
  const int64_t created = creation_time(o.created);
  check_output_path(o.output, o.input.inputs);
  const ShrinkLimits shrink_limits = o.guard.limits(o.output);
  const std::string out_name = output_name(o.output);

  KeyReader reader(o.input.inputs, input_options);
  const bool show_progress = want_progress(o.input.progress, o.quiet, false);
  Progress progress(reader, show_progress, o.input.progress);
  // The hashes grow in a mapped buffer that doubles by moving pages, never by copying them.
  WordBuffer hashes;
  size_t count = 0;
  const uint64_t seed = kDefaultSeed;
  const unsigned threads = o.threads != 0 ? o.threads : default_thread_count();
  auto append = [](WordBuffer& buf, size_t& used, const uint64_t* h, size_t n) {
    if (used + n > buf.size())
      buf.resize(std::max<size_t>({2 * buf.size(), used + n, size_t{1} << 18}));
    std::copy(h, h + n, buf.data() + used);
    used += n;
  };
  const std::vector<LineRange> ranges =
      show_progress ? std::vector<LineRange>{}
                    : plan_line_ranges(o.input.inputs, input_options, threads, kMinRangeBytes);
  InputStats in = {};
  if (!ranges.empty()) {
    // Each thread collects its own hashes: together the same set, in an order that does not
    // change the filter.
    std::vector<WordBuffer> parts(threads);
    std::vector<size_t> used(threads, 0);
    std::vector<std::vector<uint64_t>> scratch(threads);
    in = run_range_pipeline(o.input.inputs, ranges, input_options, threads,
                            [&](KeyBatch& b, unsigned t) {
                              std::vector<uint64_t>& h = scratch[t];
                              h.resize(b.keys.size());
                              for (size_t i = 0; i < b.keys.size(); ++i)
                                h[i] = hash_key(b.keys[i], seed);
                              append(parts[t], used[t], h.data(), h.size());
                            });
    hashes = std::move(parts[0]);
    count = used[0];
    for (size_t t = 1; t < parts.size(); ++t) {
      append(hashes, count, parts[t].data(), used[t]);
      parts[t] = WordBuffer();
    }
  } else {
    run_batch_pipeline(
        reader, threads,
        [seed](WorkBatch& b) {
          b.hashes.resize(b.keys.size());
          for (size_t i = 0; i < b.keys.size(); ++i) b.hashes[i] = hash_key(b.keys[i], seed);
        },
        [&](WorkBatch& b) {
          append(hashes, count, b.hashes.data(), b.hashes.size());
          progress.tick();
          return true;
        });
    in = reader.stats();
  }
  progress.finish();
  XorBuildResult built;
  try {
    built = build_xor_filter(std::span<uint64_t>(hashes.data(), count), options);
  } catch (const Error& e) {
    if (e.code() != ErrorCode::kLimitExceeded) throw;
    throw Error(e.code(), out_name + ": " + e.what() + "; nothing written");
  }
  hashes = WordBuffer();
  check_shrink(shrink_limits, o.output, built.distinct);
  const XorFilter& filter = *built.filter;
  const XorParams& p = filter.params();

  FilterHeader h;
  h.kind = xor_filter_kind(options.layout);
  h.variant = 0;
  h.hash_id = kHashXxh3_64;
  h.seed = seed;
  h.m = p.slots;
  h.k = p.fingerprint_bits;
  h.kind_params = p.kind_params();
  h.lines_read = in.lines;
  h.keys_added = in.keys;
  h.empty_lines = in.empty_lines;
  h.distinct_estimate = built.distinct;
  h.created_unix = created;
  h.tool_version = std::string("bloomtool ") + kToolVersion;
  h.label = o.label;
  h.normalisation = input_options.normaliser.to_string();
  h.input_options = input_options_text(input_options);
  const uint64_t file_bytes =
      write_filter_file(o.output, h, filter.words(), filter.words().size() * 8);

  if (!o.quiet) {
    const double bits = static_cast<double>(p.slots) * p.fingerprint_bits;
    const std::string geometry =
        options.layout == XorLayout::kFuse
            ? fmt::format("{} segments of {}", p.segment_count + 2, p.segment_length)
            : fmt::format("3 blocks of {}", p.segment_length);
    std::string input_lines =
        fmt::format("  input           {}\n", describe_input_options(h.input_options));
    if (!input_options.normaliser.empty()) {
      input_lines += fmt::format("  normalisation   {}\n", input_options.normaliser.describe());
    }
    input_lines += fmt::format("  lines read      {}\n  empty lines     {} (skipped)\n", in.lines,
                               in.empty_lines);
    if (in.empty_keys != 0) {
      input_lines += fmt::format("  empty keys      {} (skipped)\n", in.empty_keys);
    }
    if (input_options.skip_bad_lines) {
      input_lines += fmt::format("  bad lines       {} (skipped{}{})\n", in.bad_lines,
                                 in.bad_lines != 0 ? "; first: " : "", in.first_bad_line);
    }
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
               out_name, layout_title(options.layout), p.fingerprint_bits, input_lines, in.keys,
               built.duplicates, built.distinct, p.slots, geometry,
               built.distinct ? bits / static_cast<double>(built.distinct) : 0.0,
               p.fingerprint_bits, model::xor_fpr(p.fingerprint_bits), p.fingerprint_bits,
               built.attempts, format_bytes(file_bytes), file_bytes);
    if (!o.no_measure) {
      const FprMeasurement fm = measure_fpr(filter, h.seed, kQuickProbes, kDefaultProbeSeed,
                                            model::xor_fpr(p.fingerprint_bits));
      fmt::print(stderr, "  measured p      {}\n", describe_measurement(fm));
    }
  }
  return kExitOk;
}

}  // namespace

Command register_xor_build(CLI::App& root) {
  auto o = std::make_shared<XorBuildCliOptions>();
  CLI::App* app = root.add_subcommand(
      "xor-build",
      "Build a static binary fuse or xor filter from keys (lines, an NDJSON field or a column)");
  app->add_option("-o,--output", o->output, "Output file, written atomically; '-' for stdout")
      ->required()
      ->type_name("OUT");
  app->add_option("-f,--fingerprint", o->fingerprint,
                  "Fingerprint bits, 8 or 16 (default 8): p = 2^-8 or 2^-16")
      ->type_name("BITS");
  app->add_option("--layout", o->layout,
                  "fuse (binary fuse, default: ~1.13 f bits/key) or xor (~1.23 f bits/key)")
      ->type_name("LAYOUT");
  app->add_option("--max-attempts", o->max_attempts,
                  "Seeds to try before construction gives up with exit status 2 (default 100)")
      ->type_name("N");
  app->add_option("--label", o->label, "Free text stored in the file (shown by stats)")
      ->type_name("TEXT");
  app->add_option("--created", o->created,
                  "Creation time to record (Unix seconds or 2024-01-31T12:00:00Z); default "
                  "SOURCE_DATE_EPOCH, else now")
      ->type_name("TIME");
  o->guard.add_to(*app);
  app->add_flag("-q,--quiet", o->quiet, "Print nothing but errors");
  app->add_flag("--no-measure", o->no_measure,
                "Skip the quick measurement of the false-positive rate (100,000 probes)");
  app->add_option("--threads", o->threads,
                  "Threads reading and hashing keys (default: all cores); the output is the same "
                  "for any number")
      ->type_name("T");
  o->input.add_to(*app, "Key files ('-' or none: stdin); zstd-compressed files are recognised");
  return {app, [o] { return run_xor_build(*o); }};
}

}  // namespace bloomtool::cli
