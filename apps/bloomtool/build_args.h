// What `build` and `xor-build` share: the output options, --threads, --no-measure and the input
// options; opening the key stream with progress; and the summary lines both print.
#pragma once

#include <CLI/CLI.hpp>

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "filters/filter.h"
#include "format/filter_file.h"
#include "keys/key_stream.h"
#include "input_args.h"
#include "output_args.h"
#include "progress.h"

namespace bloomtool::cli {

struct KeyBuildArgs {
  OutputArgs out;
  unsigned threads = 0;
  bool no_measure = false;
  std::optional<std::string> seed;  // --seed: "random" or hex; none: the public default
  InputArgs input;

  // Registers everything but -o and the command's own options.
  void add_to(CLI::App& app, const char* quiet_help, const char* threads_help);
  // The key stream over the inputs, hashed with the --seed seed (drawn here for "random").
  std::unique_ptr<KeyStream> open_keys(const InputOptions& options) const;

  // Runs build(keys) over the inputs with the progress line, if wanted, and returns its result.
  // A construction that fails for a reason the command reports itself (`Refusal`) still draws
  // the final progress state first.
  template <class Refusal, class Build>
  auto build_with_progress(const InputOptions& options, Build&& build) const {
    std::unique_ptr<KeyStream> keys = open_keys(options);
    Progress progress(*keys, want_progress(input.progress, out.quiet, false), input.progress);
    try {
      auto r = build(*keys);
      progress.finish();
      return r;
    } catch (const Refusal&) {
      progress.finish();
      throw;
    }
  }
};

// The hash seed --seed asks for: the public default without one, one from the operating system's
// random source for "random", else 1 to 16 hex digits (an optional 0x before them).
uint64_t parse_build_seed(const std::optional<std::string>& seed);

// The summary lines about the input: "  input  ...", normalisation, lines read, empty lines,
// empty keys and bad lines, each ending in a newline.
std::string input_summary(const FilterHeader& header, const InputOptions& options,
                          const InputStats& stats);

// Prints "  measured p  ..." for a quick measurement of `filter`, judged against `expected_fpr`
// (named `expected_name` in the line: "model", "fill p").
void print_quick_measurement(const Filter& filter, uint64_t seed, double expected_fpr,
                             const char* expected_name = "model");

}  // namespace bloomtool::cli
