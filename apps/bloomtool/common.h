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

#include "bloomtool/error.h"
#include "input_args.h"
#include "output_args.h"
#include "stdout_writer.h"

namespace bloomtool::cli {

// Exit statuses: 0 success, 1 a negative answer (query matched nothing, a stats gate failed),
// 2 any error.
inline constexpr int kExitOk = 0;
inline constexpr int kExitNegative = 1;
inline constexpr int kExitError = 2;

// The threat model in a few lines, the --help footer of the commands that sign or check signatures.
inline constexpr const char* kTrustFooter =
    "Trust: a signed file (keys from 'bloomtool keygen') is accepted against a trusted public key\n"
    "only if every byte is as signed; unsigned, other-key and altered files exit 2. Not protected:\n"
    "the secrecy of the key set (anyone holding the filter can test guessed keys), and the replay\n"
    "of an older file signed by the same key (gate on its age with stats). A random seed keeps false\n"
    "positives from being computed without the file. See man bloomtool-keygen.";

// A subcommand: its CLI11 app and the function that runs it once options are parsed.
struct Command {
  CLI::App* app = nullptr;
  std::function<int()> run;
  // Optional: sees the arguments before the parser does, those of this command starting at
  // args[from], and may take some out (query takes `--` and what follows it).
  std::function<void(std::vector<std::string>& args, size_t from)> preparse = {};
};

Command register_build(CLI::App& root);
Command register_merge(CLI::App& root);
Command register_assemble(CLI::App& root);
Command register_query(CLI::App& root);
Command register_build_static(CLI::App& root);
Command register_xor_build(CLI::App& root);  // build-static under its first name, not listed
Command register_size(CLI::App& root);
Command register_stats(CLI::App& root);
Command register_keygen(CLI::App& root);
Command register_convert(CLI::App& root);
Command register_completions(CLI::App& root);  // hidden: bash and zsh completion scripts

// What `bloomtool --version` prints: "bloomtool VERSION", then the commit and the libraries it
// was built with.
std::string version_text();

// Occupies standard descriptors the caller left closed (`<&-`, `>&-`, `2>&-`) with /dev/null, so
// files opened later cannot take their numbers: reading a closed stdin or writing a closed stdout
// then fails with EBADF instead of touching some other file; diagnostics to a closed stderr vanish.
void guard_standard_fds() noexcept;

// Runs `f()`; an Error it throws gets "<flag>: " before its message, so that library
// messages, which name values and fields, name the command-line flag too.
template <class F>
auto for_flag(std::string_view flag, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const Error& e) {
    throw Error(e.code(), std::string(flag) + ": " + e.what());
  }
}

// Prints "bloomtool: <message>" on stderr.
void warn(std::string_view message) noexcept;

}  // namespace bloomtool::cli
