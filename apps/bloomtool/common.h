// Pieces every subcommand shares: the command registry, exit statuses, diagnostics on stderr, and
// the option groups and stdout writer of input_args.h, output_args.h and stdout_writer.h.
#pragma once

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "input_args.h"
#include "output_args.h"
#include "stdout_writer.h"

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

// Occupies standard descriptors the caller left closed (`<&-`, `>&-`, `2>&-`) with /dev/null, so
// files opened later cannot take their numbers: reading a closed stdin or writing a closed stdout
// then fails with EBADF instead of touching some other file; diagnostics to a closed stderr vanish.
void guard_standard_fds() noexcept;

// Prints "bloomtool: <message>" on stderr.
void warn(std::string_view message) noexcept;

}  // namespace bloomtool::cli
