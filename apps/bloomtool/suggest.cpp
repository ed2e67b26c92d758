// `bloomtool help`, and "did you mean" for unknown commands and options (suggest.h).
#include "suggest.h"

#include <fmt/format.h>

#include <algorithm>

#include "bloomtool/error.h"

namespace bloomtool::cli {

namespace {

std::vector<CLI::App*> visible_commands(CLI::App& root) {
  std::vector<CLI::App*> out;
  for (CLI::App* sub : root.get_subcommands({}))
    if (!sub->get_group().empty()) out.push_back(sub);
  return out;
}

CLI::App* find_command(CLI::App& root, const std::string& name) {
  for (CLI::App* sub : root.get_subcommands({}))
    if (sub->get_name() == name) return sub;
  return nullptr;
}

std::string command_names(CLI::App& root) {
  std::string s;
  for (CLI::App* sub : visible_commands(root)) s += (s.empty() ? "" : ", ") + sub->get_name();
  return s;
}

std::string unknown_command(CLI::App& root, const std::string& name) {
  std::vector<std::string> names;
  for (CLI::App* sub : visible_commands(root)) names.push_back(sub->get_name());
  const auto near = nearest_name(name, names);
  return fmt::format("{}: unknown command{} (commands: {}); see 'bloomtool --help'", name,
                     near ? "; did you mean " + *near + "?" : std::string(), command_names(root));
}

struct KnownOption {
  std::string name;  // "--output", "-o"
  bool takes_value = false;
};

std::vector<KnownOption> known_options(const CLI::App& app) {
  std::vector<KnownOption> out;
  for (const CLI::Option* opt : app.get_options()) {
    const bool value = opt->get_items_expected_max() > 0;  // flags expect no items
    for (const std::string& l : opt->get_lnames()) out.push_back({"--" + l, value});
    for (const std::string& s : opt->get_snames()) out.push_back({"-" + s, value});
  }
  return out;
}

}  // namespace

size_t edit_distance(const std::string& a, const std::string& b) {
  const size_t n = a.size(), m = b.size();
  std::vector<std::vector<size_t>> d(n + 1, std::vector<size_t>(m + 1));
  for (size_t i = 0; i <= n; ++i) d[i][0] = i;
  for (size_t j = 0; j <= m; ++j) d[0][j] = j;
  for (size_t i = 1; i <= n; ++i) {
    for (size_t j = 1; j <= m; ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[n][m];
}

std::optional<std::string> nearest_name(const std::string& word,
                                        const std::vector<std::string>& candidates) {
  // Typos are short: do not spend quadratic time on a long argument.
  if (word.size() > 64) return std::nullopt;
  std::optional<std::string> best;
  size_t best_distance = SIZE_MAX;
  for (const std::string& c : candidates) {
    const size_t d = edit_distance(word, c);
    const size_t longer = std::max(word.size(), c.size());
    if (d == 0 || d > 2 || 3 * d > longer + 1) continue;
    if (d < best_distance) {
      best = c;
      best_distance = d;
    }
  }
  return best;
}

std::vector<std::string> rewrite_help_command(CLI::App& root,
                                              const std::vector<std::string>& args) {
  if (args.empty() || args[0] != "help") return args;
  if (args.size() == 1) return {"--help"};
  if (args.size() > 2) {
    throw Error(ErrorCode::kInvalidArgument, "help: give one command; see 'bloomtool --help'");
  }
  CLI::App* sub = find_command(root, args[1]);
  if (sub == nullptr || sub->get_group().empty())
    throw Error(ErrorCode::kInvalidArgument, "help: " + unknown_command(root, args[1]));
  return {args[1], "--help"};
}

std::optional<std::string> unknown_name_error(CLI::App& root,
                                              const std::vector<std::string>& args) {
  CLI::App* command = nullptr;
  bool value_next = false;
  for (const std::string& arg : args) {
    if (value_next) {  // the value of the option before
      value_next = false;
      continue;
    }
    if (arg == "--") break;  // positionals only from here
    const bool long_option = arg.size() > 2 && arg.compare(0, 2, "--") == 0;
    const bool short_option = arg.size() == 2 && arg[0] == '-' && arg[1] != '-';
    if (!long_option && !short_option) {
      if (command != nullptr || arg.empty() || arg[0] == '-') continue;
      command = find_command(root, arg);
      if (command == nullptr) return unknown_command(root, arg);
      continue;
    }
    const CLI::App& app = command != nullptr ? *command : root;
    const std::string name = arg.substr(0, arg.find('='));
    const std::vector<KnownOption> known = known_options(app);
    const auto it = std::find_if(known.begin(), known.end(),
                                 [&](const KnownOption& k) { return k.name == name; });
    if (it != known.end()) {
      value_next = it->takes_value && name.size() == arg.size();
      continue;
    }
    std::vector<std::string> names;
    for (const KnownOption& k : known)
      if (k.name.size() > 2) names.push_back(k.name);
    const auto near = long_option ? nearest_name(name, names) : std::nullopt;
    const std::string where = command != nullptr ? command->get_name() + " " : "";
    return fmt::format("{}: unknown option{}; see 'bloomtool {}--help'", name,
                       near ? "; did you mean " + *near + "?" : std::string(), where);
  }
  return std::nullopt;
}

}  // namespace bloomtool::cli
