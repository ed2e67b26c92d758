// Command-line usage rules that hold for every subcommand: no option takes an empty or blank value,
// --threads is a sane count, and the parser's errors become one "<option>: <reason>" line.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace bloomtool::cli {

// Most threads a command starts; more is refused as a usage error.
inline constexpr unsigned kMaxThreads = 1024;

// Adds to every value-taking option (positionals included) of every subcommand of `root` a check
// that rejects an empty or blank value, so an unset shell variable cannot switch a gate or a guard
// off; --threads also gets a range check (0 = all cores, at most kMaxThreads).
void add_value_checks(CLI::App& root);

// The parser's error as one line, "<option>: <reason>; see 'bloomtool CMD --help'". `args` are the
// command-line arguments after the program name.
std::string describe_usage_error(const CLI::ParseError& e, CLI::App& root,
                                 const std::vector<std::string>& args);

}  // namespace bloomtool::cli
