// Command-line usage rules that hold for every subcommand: no option takes an empty or blank value,
// --threads is a sane count, and the parser's errors become one "<option>: <reason>" line.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace bloomtool::cli {

// Most threads a command starts; more is refused as a usage error.
inline constexpr unsigned kMaxThreads = 1024;

// Adds to every value-taking option (positionals included) of every subcommand of `root` a check
// that rejects an empty or blank value, so an unset shell variable cannot switch a gate or a guard
// off; --threads also gets a range check (0 = all cores, at most kMaxThreads).
void add_value_checks(CLI::App& root);

// Makes the spellings of a value agree, in the arguments of `app` from args[from] up to a `--`:
// "--name=" (an empty value) becomes "--name" "", so that it is refused as "--name ''" is instead
// of taking the next argument as its value, and "-x=VALUE" becomes "-x" "VALUE" as "--name=VALUE"
// is "--name" "VALUE" (without this the value of -o=out.bf would be "=out.bf"). The value that
// follows an option is skipped, so "--label --x=" keeps "--x=" as the label.
void split_attached_values(const CLI::App& app, std::vector<std::string>& args, size_t from);

// The parser's error as one line, "<option>: <reason>; see 'bloomtool CMD --help'". `args` are the
// command-line arguments after the program name.
std::string describe_usage_error(const CLI::ParseError& e, CLI::App& root,
                                 const std::vector<std::string>& args);

}  // namespace bloomtool::cli
