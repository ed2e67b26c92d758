// Options for reading keys (inputs, input format, bad-line policy, --progress, key normalisation),
// shared by the commands that read keys.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include <memory>

#include "keys/key_reader.h"
#include "keys/key_stream.h"

namespace bloomtool::cli {

// Options for reading keys, shared by build, query and xor-build: inputs, input format, bad-line
// policy, --progress and, for the commands that build filters, key normalisation.
struct InputArgs {
  std::vector<std::string> inputs;
  std::string max_key_bytes = std::to_string(kDefaultMaxKeyBytes);
  std::string format;
  std::string field;
  std::string delimiter;
  std::string column;
  bool header = false;
  bool skip_bad_lines = false;
  std::string max_bad_lines;
  bool progress = false;
  bool trim = false;
  bool lowercase = false;
  std::vector<std::string> strip_prefixes;
  std::string normalize;

  // `normalisation`: also offer --trim, --lowercase, --strip-prefix and --normalize (builders;
  // query takes the normalisation from the filter file instead).
  void add_to(CLI::App& app, const char* inputs_help, bool normalisation = true);
  // The parsed options; throws kInvalidArgument on inconsistent or malformed values.
  InputOptions options() const;

 private:
  // --header (input_header.cpp): registered, and checked against the format parsed into `o`.
  void add_header_flag(CLI::App& app);
  void check_header_flag(InputOptions& o) const;
  CLI::Option* field_opt_ = nullptr;
  CLI::Option* delimiter_opt_ = nullptr;
  CLI::Option* column_opt_ = nullptr;
};

// Prints the skipped bad lines, if any, as one diagnostic: "bloomtool: skipped N bad lines
// (first: ...)".
void report_bad_lines(const InputStats& stats);

// Opens a key stream; an input option the library refuses is reported under its flag
// ("--field: ...").
std::unique_ptr<KeyStream> open_key_stream(const std::vector<std::string>& inputs,
                                           const InputOptions& options,
                                           const KeyStreamOptions& stream_options = {});

}  // namespace bloomtool::cli
