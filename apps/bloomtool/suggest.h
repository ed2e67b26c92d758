// Help with typing: `bloomtool help [COMMAND]`, and unknown commands and options caught before
// parsing, each with the nearest known name ("did you mean build?"), so that a misspelt option is
// reported as unknown rather than as the required option it was meant to be.
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

namespace bloomtool::cli {

// The Damerau-Levenshtein distance (adjacent transpositions count one) between a and b.
size_t edit_distance(const std::string& a, const std::string& b);
// The candidate nearest to `word` when it is near enough to be a typo (at most 2 edits, and
// fewer than a third of the longer word's length plus one); empty otherwise.
std::optional<std::string> nearest_name(const std::string& word,
                                        const std::vector<std::string>& candidates);

// `args` (after the program name) as `help [COMMAND]` means them: "--help" or "COMMAND --help";
// `args` themselves when they do not start with "help". Throws kInvalidArgument for an unknown
// command.
std::vector<std::string> rewrite_help_command(CLI::App& root, const std::vector<std::string>& args);

// The usage error line for the first unknown command or option of `args` (long options, and
// single-letter short ones, up to a "--"), with a suggestion; empty when every name is known.
std::optional<std::string> unknown_name_error(CLI::App& root, const std::vector<std::string>& args);

}  // namespace bloomtool::cli
