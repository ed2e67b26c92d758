// Options of the commands that write a filter file: creation time, early checks of the output
// path, and the shrink guard against publishing a filter built from truncated input.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "format/build_header.h"
#include "format/filter_file.h"
#include "format/signature.h"

namespace bloomtool::cli {

// Guards for cron jobs against publishing a filter built from truncated input: --min-keys N and
// --max-shrink PCT (compared with the distinct keys recorded in the file being replaced).
struct ShrinkLimits {
  uint64_t min_keys = 0;
  std::optional<double> max_shrink;  // a fraction in [0, 1]
};
struct ShrinkGuardArgs {
  std::string min_keys;
  std::string max_shrink;
  void add_to(CLI::App& app);
  // Parses the options; --max-shrink needs a file output (not "-").
  ShrinkLimits limits(const std::string& output) const;
};
// Throws kLimitExceeded, naming `output`, when `distinct` keys break a limit; nothing is written
// then. An existing output that cannot be read as a filter fails --max-shrink too.
void check_shrink(const ShrinkLimits& limits, const std::string& output, uint64_t distinct);

// Creation time for new files: --created, else SOURCE_DATE_EPOCH, else now.
int64_t creation_time(const std::string& created_option);

// Fails early, before any input is read, when OUT cannot be written: a missing or unwritable
// directory for the final target of its symbolic links, a directory, socket or block device in
// its place, a closed stdout for "-", or OUT being one of `inputs` (none: stdin) — allowed for a
// regular file with `allow_in_place` (merge -o a.bf a.bf b.bf).
void check_output_path(const std::string& path, const std::vector<std::string>& inputs,
                       bool allow_in_place = false);

// -o, --codec, --label, --created, the shrink guard, --sign and -q: the options of every command
// writes a filter file.
struct OutputArgs {
  std::string output;
  std::string codec = "zstd";
  std::string label;
  std::string created;
  std::string sign;  // secret key file
  bool quiet = false;
  bool json = false;  // --json: the summary as one JSON object (written_json.h)
  ShrinkGuardArgs guard;

  // Registers -o (required) and --codec.
  void add_output(CLI::App& app);
  // Registers --json.
  void add_json(CLI::App& app);
  // Registers --sign and the trust footer of --help.
  void add_sign(CLI::App& app);
  // Registers --label, --created, --min-keys, --max-shrink, --sign, --json and -q.
  void add_to(CLI::App& app, const char* label_help, const char* quiet_help);

  struct Prepared {
    BuildProvenance provenance;
    ShrinkLimits limits;
    std::shared_ptr<const SigningKey> signing_key;  // --sign, read before any input
    PayloadCodec codec = PayloadCodec::kZstd;       // --codec
    WriteOptions write_options() const {
      WriteOptions w;
      w.codec = codec;
      w.signing_key = signing_key.get();
      return w;
    }
  };
  // Parses the options and checks the output path against `inputs` (see check_output_path),
  // before any input is read.
  Prepared prepare(const std::vector<std::string>& inputs, bool allow_in_place = false) const;
  // The output as messages name it: "<stdout>" for "-".
  std::string name() const;
};

// Prints "  signed          by key ID (KEY)" on stderr: the summary line of a signed file.
void print_signed_line(const SigningKey& key);

// The last steps of every command that writes a filter: the shrink guard on `distinct` keys, the
// atomic write of `built` to -o, then, unless -q, `summary(file_bytes)`. Returns the exit status.
template <class Built, class Summary>
int publish(const OutputArgs& args, const OutputArgs::Prepared& prepared, uint64_t distinct,
            Built& built, Summary&& summary) {
  check_shrink(prepared.limits, args.output, distinct);
  const uint64_t file_bytes = built.write(args.output, prepared.write_options());
  if (!args.quiet) {
    summary(file_bytes);
    if (prepared.signing_key) print_signed_line(*prepared.signing_key);
  }
  return 0;
}

}  // namespace bloomtool::cli
