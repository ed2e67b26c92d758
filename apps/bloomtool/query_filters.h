// Which filters `query` asks, and where its keys come from. Without -f, the first positional
// argument is the filter and the others are inputs, as always — unless a `--` has positional
// arguments before it and at least one after it: then those before it are the filters and those
// after it the inputs (`query d1.bf d2.bf -- keys`, `-` for stdin). With -f/--filter (repeatable),
// every positional argument is an input. A filter read from stdin ('-') leaves the keys to files.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "api/load_filter.h"

namespace bloomtool::cli {

// The rules above for --help.
inline constexpr const char* kSeveralFiltersHelp =
    "Several filters: 'query F1 F2... -- INPUT...' (the positional arguments before '--' are the\n"
    "filters when at least one argument follows '--'; '-' there reads keys from stdin), or\n"
    "'query -f F1 -f F2 [INPUT...]'. Otherwise the first positional argument is the filter and the\n"
    "others are inputs. A record matches when any filter may contain its key (--all: every\n"
    "filter). --which prints 'F1,F2<TAB>record' (the filters that may contain the key, as named;\n"
    "none: empty). Exit status: 0 a record matched, 1 none did, 2 an error.";

struct QueryFilterArgs {
  std::string positional;            // FILTER, or with -f the first INPUT
  std::vector<std::string> flagged;  // -f/--filter, in order
  // The arguments after the first `--` (taken out before parsing: see take_positional_mark);
  // empty when there was none.
  std::optional<std::vector<std::string>> after_mark;

  CLI::Option* positional_opt = nullptr;

  void add_to(CLI::App& app);
};

// Takes the first `--` after args[from] (the arguments after the subcommand's name) and every
// argument after it out of `args`, into after_mark; a `--` that is the value of an option of
// `app` stays. The parser then sees the arguments before `--` only, which is what tells filters
// from inputs apart (the parser itself does not say where `--` was).
void take_positional_mark(const CLI::App& app, std::vector<std::string>& args, size_t from,
                          QueryFilterArgs& out);

struct QueryFilters {
  std::vector<std::string> paths;   // as given; "-" is standard input
  std::vector<std::string> names;   // what --which prints for each filter: the path as given
  std::vector<std::string> inputs;  // key inputs (none: standard input)
};

// Splits the command line into filters and key inputs; throws kInvalidArgument (a usage error)
// when no filter is given, standard input is asked for twice, or, with `which`, a filter's name
// holds a comma, tab or line end that would make the --which column ambiguous.
QueryFilters resolve_query_filters(const QueryFilterArgs& args,
                                   const std::vector<std::string>& positional_inputs, bool which);

// Loads every filter, in order, with `load` (load_filter by default: files, or '-' for standard
// input). The first that fails ends the run with its error.
std::vector<LoadedFilter> load_query_filters(
    const std::vector<std::string>& paths,
    const std::function<LoadedFilter(const std::string&)>& load = load_filter);

}  // namespace bloomtool::cli
