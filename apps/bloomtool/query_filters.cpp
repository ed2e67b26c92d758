// The filters of `query` on the command line: the positional FILTER or the repeatable -f, the
// rules that keep them apart from the key inputs, and their loading.
#include "query_filters.h"

#include <algorithm>

#include "bloomtool/error.h"

namespace bloomtool::cli {

namespace {

[[noreturn]] void usage(const std::string& message) {
  throw Error(ErrorCode::kInvalidArgument, message);
}

// Whether the option named by `token` ("--name", "-x" or a cluster "-abx") takes the next
// argument as its value.
bool takes_next_argument(const CLI::App& app, const std::string& token) {
  if (token.size() > 2 && token[1] == '-') {
    if (token.find('=') != std::string::npos) return false;
    const CLI::Option* opt = app.get_option_no_throw(token);
    return opt != nullptr && opt->get_expected_min() > 0;
  }
  for (size_t i = 1; i < token.size(); ++i) {  // -abx: flags a and b, then x
    const CLI::Option* opt = app.get_option_no_throw(std::string("-") + token[i]);
    if (opt == nullptr) return false;
    if (opt->get_expected_min() > 0) return i + 1 == token.size();  // else -xVALUE
  }
  return false;
}

// Inputs after `--` skip the parser, so they get its checks here, with its words.
void check_value(const std::string& value) {
  if (value.find_first_not_of(" \t\r\n\v\f") != std::string::npos) return;
  usage(std::string("inputs: ") + (value.empty() ? "empty" : "blank") +
        " value; see 'bloomtool query --help'");
}

}  // namespace

void QueryFilterArgs::add_to(CLI::App& app) {
  positional_opt = app.add_option("filter", positional,
                                  "Filter file (any kind bloomtool writes; '-': stdin); see "
                                  "'Several filters' below")
                       ->type_name("FILTER");
  app.add_option("-f,--filter", flagged,
                 "Query this filter (repeatable); with -f every positional argument is an INPUT")
      ->type_name("FILTER")
      ->allow_extra_args(false);
}

void take_positional_mark(const CLI::App& app, std::vector<std::string>& args, size_t from,
                          QueryFilterArgs& out) {
  for (size_t i = from; i < args.size(); ++i) {
    if (args[i] == "--") {
      out.after_mark.emplace(args.begin() + static_cast<std::ptrdiff_t>(i) + 1, args.end());
      args.resize(i);
      return;
    }
    if (args[i].size() > 1 && args[i][0] == '-' && takes_next_argument(app, args[i])) ++i;
  }
}

QueryFilters resolve_query_filters(const QueryFilterArgs& args,
                                   const std::vector<std::string>& positional_inputs, bool which) {
  QueryFilters q;
  // The positional arguments before `--` (all of them when there is none), then those after it.
  std::vector<std::string> before;
  if (args.positional_opt != nullptr && args.positional_opt->count() > 0)
    before.push_back(args.positional);
  before.insert(before.end(), positional_inputs.begin(), positional_inputs.end());
  const std::vector<std::string> after = args.after_mark.value_or(std::vector<std::string>{});
  for (const std::string& a : after) check_value(a);

  if (!args.flagged.empty()) {
    q.paths = args.flagged;
    q.inputs = before;
    q.inputs.insert(q.inputs.end(), after.begin(), after.end());
  } else if (!before.empty() && !after.empty()) {
    q.paths = before;
    q.inputs = after;
  } else {
    std::vector<std::string> all = before;
    all.insert(all.end(), after.begin(), after.end());
    if (all.empty()) {
      usage(
          "FILTER: argument required (or several: FILTER... -- INPUT..., or -f FILTER); see "
          "'bloomtool query --help'");
    }
    q.paths = {all.front()};
    q.inputs.assign(all.begin() + 1, all.end());
  }
  q.names = q.paths;

  const auto stdin_filters = std::count(q.paths.begin(), q.paths.end(), "-");
  if (stdin_filters > 1) usage("-: standard input can be read only once; give one filter as '-'");
  if (stdin_filters == 1 &&
      (q.inputs.empty() || std::find(q.inputs.begin(), q.inputs.end(), "-") != q.inputs.end())) {
    usage(
        "-: the filter is read from standard input, so the keys cannot be; give them as INPUT "
        "files");
  }
  if (which) {
    for (const std::string& name : q.names) {
      if (name.find_first_of(",\t\n\r") == std::string::npos) continue;
      usage("--which: the filter name '" + name +
            "' holds a comma, tab or line end, which would make the output ambiguous; give the "
            "file under another name (a symbolic link)");
    }
  }
  return q;
}

std::vector<LoadedFilter> load_query_filters(
    const std::vector<std::string>& paths,
    const std::function<LoadedFilter(const std::string&)>& load) {
  std::vector<LoadedFilter> filters;
  filters.reserve(paths.size());
  for (const std::string& path : paths) filters.push_back(load(path));
  return filters;
}

}  // namespace bloomtool::cli
