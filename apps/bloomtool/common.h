// Pieces every subcommand shares: the command registry, input options, buffered stdout that
// ends quietly on a closed pipe, and diagnostics on stderr.
#pragma once

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bloomtool/key_reader.h"

namespace bloomtool::cli {

// Regular files of at least twice this size are split at line ends and read by all threads.
inline constexpr uint64_t kMinRangeBytes = uint64_t{1} << 20;
// Pieces that `query` splits regular files into (results stay in input order, so threads read
// a few pieces ahead of the output): files of twice this size and more are split.
inline constexpr uint64_t kQueryRangeBytes = uint64_t{4} << 20;
// Memory that threads building a Bloom filter may spend on private copies of it.
inline constexpr uint64_t kMaxPrivateCopyBytes = uint64_t{32} << 20;

// Exit statuses (DESIGN.md section 3).
inline constexpr int kExitOk = 0;
inline constexpr int kExitNegative = 1;
inline constexpr int kExitError = 2;

// A subcommand: its CLI11 app and the function that runs it once options are parsed.
struct Command {
  CLI::App* app = nullptr;
  std::function<int()> run;
};

Command register_build(CLI::App& root);
Command register_merge(CLI::App& root);
Command register_query(CLI::App& root);
Command register_xor_build(CLI::App& root);
Command register_size(CLI::App& root);
Command register_stats(CLI::App& root);
Command register_completions(CLI::App& root);  // hidden: bash and zsh completion scripts

// What `bloomtool --version` prints: "bloomtool VERSION", then the commit and the libraries it
// was built with.
std::string version_text();

// Options for reading keys, shared by build, query and xor-build: inputs, input format, bad-line
// policy, --progress and, for the commands that build filters, key normalisation.
struct InputArgs {
  std::vector<std::string> inputs;
  std::string max_key_bytes = std::to_string(kDefaultMaxKeyBytes);
  std::string format;
  std::string field;
  std::string delimiter;
  std::string column;
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
  CLI::Option* field_opt_ = nullptr;
  CLI::Option* delimiter_opt_ = nullptr;
  CLI::Option* column_opt_ = nullptr;
};

// Prints the skipped bad lines, if any, as one diagnostic: "bloomtool: skipped N bad lines
// (first: ...)".
void report_bad_lines(const InputStats& stats);

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

// Thrown by StdoutWriter when the reader of stdout has gone away (EPIPE); main() ends quietly.
struct BrokenPipe {};

// Buffered writes to standard output.
class StdoutWriter {
 public:
  StdoutWriter();
  ~StdoutWriter();
  void write(std::string_view s);
  void line(std::string_view s) {
    write(s);
    put('\n');
  }
  void put(char c) {
    if (used_ == buf_.size()) flush();
    buf_[used_++] = c;
  }
  void flush();

 private:
  std::vector<char> buf_;
  size_t used_ = 0;
};

// Occupies standard descriptors the caller left closed (`<&-`, `>&-`, `2>&-`) with /dev/null, so
// files opened later cannot take their numbers: reading a closed stdin or writing a closed stdout
// then fails with EBADF instead of touching some other file; diagnostics to a closed stderr vanish.
void guard_standard_fds() noexcept;

// Prints "bloomtool: <message>" on stderr.
void warn(std::string_view message) noexcept;

// Creation time for new files: --created, else SOURCE_DATE_EPOCH, else now.
int64_t creation_time(const std::string& created_option);

// Fails early, before any input is read, when OUT cannot be written: a missing or unwritable
// directory for the final target of its symbolic links, a directory, socket or block device in
// its place, a closed stdout for "-", or OUT being one of `inputs` (none: stdin) — allowed for a
// regular file with `allow_in_place` (merge -o a.bf a.bf b.bf).
void check_output_path(const std::string& path, const std::vector<std::string>& inputs,
                       bool allow_in_place = false);

}  // namespace bloomtool::cli
