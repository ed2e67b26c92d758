// Options and summary lines shared by the commands that build filters from keys.
#include "build_args.h"

#include <fmt/format.h>

#include <charconv>

#include "analysis/stats.h"
#include "bloomtool/error.h"
#include "filters/key_rule.h"
#include "format/signature.h"

namespace bloomtool::cli {

void KeyBuildArgs::add_to(CLI::App& app, const char* quiet_help, const char* threads_help) {
  out.add_to(app, "Free text stored in the file (shown by stats)", quiet_help);
  app.add_option("--threads", threads, threads_help)->type_name("T");
  app.add_flag("--no-measure", no_measure,
               "Skip the quick measurement of the false-positive rate (100,000 probes)");
  app.add_option("--seed", seed,
                 "Hash seed: 'random' (from the OS; false positives cannot be computed without "
                 "the file) or 16 hex digits (the same for every shard to merge); default: the "
                 "public seed")
      ->type_name("SEED");
  input.add_to(app, "Key files ('-' or none: stdin); zstd and gzip are decompressed");
}

std::unique_ptr<KeyStream> KeyBuildArgs::open_keys(const InputOptions& options) const {
  KeyStreamOptions so;
  so.threads = threads;
  so.seed = parse_build_seed(seed);
  return open_key_stream(input.inputs, options, so);
}

uint64_t parse_build_seed(const std::optional<std::string>& seed) {
  if (!seed) return kDefaultSeed;
  const std::string& text = *seed;
  if (text == "random") return random_seed();
  const bool prefixed = text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
  const char* begin = text.data() + (prefixed ? 2 : 0);
  const char* end = text.data() + text.size();
  uint64_t v = 0;
  const auto [ptr, ec] = std::from_chars(begin, end, v, 16);
  if (begin == end || ec != std::errc() || ptr != end || end - begin > 16) {
    throw Error(ErrorCode::kInvalidArgument,
                "--seed: '" + text + "' is not 'random' or a hex number of 1 to 16 digits");
  }
  return v;
}

std::string input_summary(const FilterHeader& header, const InputOptions& options,
                          const InputStats& in) {
  std::string lines =
      fmt::format("  input           {}\n", describe_input_options(header.input_options));
  // The peers' schemes hash the key bytes alone: their seed field is unused, not chosen.
  if (header.seed != kDefaultSeed && !is_key_scheme(header.hash_id))
    lines += fmt::format("  hash seed       {:#018x} (not the public default)\n", header.seed);
  if (!options.normaliser.empty()) {
    lines += fmt::format("  normalisation   {}\n", options.normaliser.describe());
  }
  lines += fmt::format("  lines read      {}\n  empty lines     {} (skipped)\n", in.lines,
                       in.empty_lines);
  if (in.empty_keys != 0) {
    lines += fmt::format("  empty keys      {} (skipped)\n", in.empty_keys);
  }
  if (options.skip_bad_lines) {
    lines += fmt::format("  bad lines       {} (skipped{}{})\n", in.bad_lines,
                         in.bad_lines != 0 ? "; first: " : "", in.first_bad_line);
  }
  return lines;
}

void print_quick_measurement(const Filter& filter, uint64_t seed, double expected_fpr,
                             const char* expected_name) {
  const FprMeasurement fm =
      measure_fpr(filter, seed, kQuickProbes, kDefaultProbeSeed, expected_fpr);
  fmt::print(stderr, "  measured p      {}\n", describe_measurement(fm, expected_name));
}

}  // namespace bloomtool::cli
