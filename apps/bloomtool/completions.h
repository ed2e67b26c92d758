// The command tree as completion scripts see it, and the two script generators (bash in
// cmd_completions.cpp, zsh in completions_zsh.cpp).
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace bloomtool::cli {

// An option or positional as the scripts need it.
struct OptionInfo {
  std::vector<std::string> names;  // "-n", "--capacity"; empty for a positional
  std::string description;
  std::string value_name;  // empty for a flag
  bool repeatable = false;
  bool files = false;                // its value is a path
  bool directory = false;            // its value is a directory (DIR): only those are offered
  bool filter = false;               // its value is a filter file: *.bf and *.xf offered first
  std::vector<std::string> choices;  // the values it takes, when they are a fixed few
};

struct CommandInfo {
  std::string name;
  std::string description;
  std::vector<OptionInfo> options;
  std::vector<OptionInfo> positionals;
};

// One command (or the root) with its visible options and positionals.
CommandInfo describe(const CLI::App& app);
// The fixed values of an option ("--variant": standard, blocked), empty when free.
std::vector<std::string> value_choices(const std::string& long_name);
// The bash words that complete a value of `o`, for "$cur": a compgen of its choices, the filter
// or the file completion, or nothing.
std::string bash_value_completion(const OptionInfo& o);
// The visible subcommands of `root` with their options and positionals.
std::vector<CommandInfo> subcommands(const CLI::App& root);
// `v` joined with `sep`.
std::string join(const std::vector<std::string>& v, const char* sep);
// Option names, by whether they take a value, and of those whether the value is a path.
void names_by_kind(const CommandInfo& c, std::vector<std::string>& all,
                   std::vector<std::string>& path_valued, std::vector<std::string>& valued);

std::string bash_script(const CLI::App& root);
std::string zsh_script(const CLI::App& root);

}  // namespace bloomtool::cli
