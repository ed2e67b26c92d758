// Options and summary lines shared by the commands that build filters from keys.
#include "build_args.h"

#include <fmt/format.h>

#include "bloomtool/stats.h"

namespace bloomtool::cli {

void KeyBuildArgs::add_to(CLI::App& app, const char* quiet_help, const char* threads_help) {
  out.add_to(app, "Free text stored in the file (shown by stats)", quiet_help);
  app.add_option("--threads", threads, threads_help)->type_name("T");
  app.add_flag("--no-measure", no_measure,
               "Skip the quick measurement of the false-positive rate (100,000 probes)");
  input.add_to(app, "Key files ('-' or none: stdin); zstd-compressed files are recognised");
}

std::unique_ptr<KeyStream> KeyBuildArgs::open_keys(const InputOptions& options) const {
  KeyStreamOptions so;
  so.threads = threads;
  return open_key_stream(input.inputs, options, so);
}

std::string input_summary(const FilterHeader& header, const InputOptions& options,
                          const InputStats& in) {
  std::string lines =
      fmt::format("  input           {}\n", describe_input_options(header.input_options));
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
