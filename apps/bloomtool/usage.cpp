// Usage rules shared by every subcommand: empty and blank option values are errors (an unset
// variable in `--max-fpr "$LIMIT"` must fail, not disable the gate), and CLI11's parse errors are
// rewritten into the tool's one-line "<option>: <reason>" form.
#include "usage.h"

#include <algorithm>
#include <cctype>
#include <regex>

#include <fmt/format.h>

namespace bloomtool::cli {

namespace {

bool blank(const std::string& s) {
  return s.find_first_not_of(" \t\r\n\v\f") == std::string::npos;
}

// A space is a meaningful delimiter, so --delimiter only refuses an empty value.
bool blank_allowed(const CLI::Option& opt) {
  return opt.check_lname("delimiter");
}

// --field '' is RFC 6901's pointer to the whole value: the whole line, as without --field.
bool empty_allowed(const CLI::Option& opt) {
  return opt.check_lname("field");
}

CLI::Validator non_blank(bool allow_spaces, bool allow_empty) {
  return CLI::Validator(
      [allow_spaces, allow_empty](std::string& value) -> std::string {
        if (value.empty()) return allow_empty ? "" : "empty value";
        if (!allow_spaces && blank(value)) return "blank value";
        return "";
      },
      "", "NONBLANK");
}

bool is_flag(const CLI::Option& opt) {
  return opt.get_expected_max() == 0 || opt.get_type_size_max() == 0;
}

CLI::Validator thread_count() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        if (value.find_first_not_of("0123456789") != std::string::npos)
          return fmt::format("'{}' is not a whole number of threads (0: all cores)", value);
        const size_t digits = value.size() - std::min(value.find_first_not_of('0'), value.size());
        if (digits > 5 || std::stoul(value) > kMaxThreads)
          return fmt::format("'{}' is more than the {} threads allowed", value, kMaxThreads);
        return "";
      },
      "", "THREADS");
}

std::string command_list(CLI::App& root) {
  std::string out;
  for (const CLI::App* sub : root.get_subcommands({})) {
    if (sub->get_group().empty()) continue;  // hidden
    if (!out.empty()) out += ", ";
    out += sub->get_name();
  }
  return out;
}

// The first argument that names a subcommand, or empty.
std::string command_of(CLI::App& root, const std::vector<std::string>& args) {
  for (const std::string& a : args) {
    for (const CLI::App* sub : root.get_subcommands({})) {
      if (sub->get_name() == a) return a;
    }
  }
  return {};
}

std::string reason_of(const CLI::ParseError& e, CLI::App& root,
                      const std::vector<std::string>& args, const std::string& command) {
  const std::string what = e.what();
  std::smatch m;
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&e) != nullptr) {
    static const std::regex at_most(R"(^(\S+): At Most (\d+) required but received (\d+)$)");
    static const std::regex at_least(R"(^(\S+): At least (\d+) required but received (\d+)$)");
    static const std::regex missing(R"(^(\S+): (\d+) required (\S+) missing$)");
    static const std::regex exactly(
        R"(^Expected (exactly|at least) (\d+) arguments to (\S+), got (\d+)$)");
    if (std::regex_match(what, m, at_most)) {
      if (m[2] == "1")
        return fmt::format("{}: given {} times; give it once", m[1].str(), m[3].str());
      return fmt::format("{}: at most {} values, got {}", m[1].str(), m[2].str(), m[3].str());
    }
    if (std::regex_match(what, m, at_least))
      return fmt::format("{}: needs at least {} values, got {}", m[1].str(), m[2].str(),
                         m[3].str());
    if (std::regex_match(what, m, missing)) return m[1].str() + ": needs a value";
    if (std::regex_match(what, m, exactly))
      return fmt::format("{}: needs {} {} values, got {}", m[3].str(), m[1].str(), m[2].str(),
                         m[4].str());
  } else if (dynamic_cast<const CLI::ConversionError*>(&e) != nullptr) {
    static const std::regex convert(R"(^Could not convert: (\S+) = (.*)$)");
    static const std::regex flag(
        R"(^(\S+): (too many inputs for a flag|Should be true/false or a number)$)");
    if (std::regex_match(what, m, convert))
      return fmt::format("{}: '{}' is not a valid value", m[1].str(), m[2].str());
    if (std::regex_match(what, m, flag)) return m[1].str() + ": is a flag and takes no value";
  } else if (dynamic_cast<const CLI::RequiredError*>(&e) != nullptr) {
    static const std::regex required(R"(^(\S+) is required$)");
    if (what == "A subcommand is required") {
      if (!args.empty() && !args[0].empty() && args[0][0] != '-') {
        return fmt::format("{}: unknown command (commands: {})", args[0], command_list(root));
      }
      return fmt::format("no command given (commands: {})", command_list(root));
    }
    if (std::regex_match(what, m, required)) {
      std::string name = m[1].str();
      if (name[0] == '-') return name + ": required";
      for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      return name + ": argument required";
    }
  } else if (dynamic_cast<const CLI::ExcludesError*>(&e) != nullptr) {
    static const std::regex excludes(R"(^(\S+) excludes (\S+)$)");
    if (std::regex_match(what, m, excludes))
      return fmt::format("{}: cannot be combined with {}", m[1].str(), m[2].str());
  } else if (dynamic_cast<const CLI::RequiresError*>(&e) != nullptr) {
    static const std::regex requires_(R"(^(\S+) requires (\S+)$)");
    if (std::regex_match(what, m, requires_))
      return fmt::format("{}: needs {} as well", m[1].str(), m[2].str());
  } else if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr) {
    // CLI11 lists the unexpected arguments last to first.
    static const std::regex extras(
        R"(^The following arguments? (?:was|were) not expected: (?:.* )?(\S+)$)");
    if (std::regex_match(what, m, extras)) {
      const std::string arg = m[1].str();
      if (command.empty() && !arg.empty() && arg[0] != '-')
        return fmt::format("{}: unknown command (commands: {})", arg, command_list(root));
      if (arg.size() > 1 && arg[0] == '-') return arg + ": unknown option";
      return arg + ": unexpected argument";
    }
  }
  return what;  // ValidationError and the rest are already "<option>: <reason>"
}

}  // namespace

void add_value_checks(CLI::App& root) {
  for (CLI::App* sub : root.get_subcommands({})) {
    for (CLI::Option* opt : sub->get_options()) {
      if (opt->get_type_size_max() == 0) continue;  // a flag
      if (opt->get_name() == "--help" || opt->get_name() == "--help-all") continue;
      opt->check(non_blank(blank_allowed(*opt), empty_allowed(*opt)));
      if (opt->check_lname("threads")) opt->check(thread_count());
    }
  }
}

void split_attached_values(const CLI::App& app, std::vector<std::string>& args, size_t from) {
  auto insert_value = [&](size_t i, std::string value) {
    args.insert(args.begin() + static_cast<std::ptrdiff_t>(i) + 1, std::move(value));
  };
  for (size_t i = from; i < args.size(); ++i) {
    const std::string a = args[i];
    if (a == "--") return;  // the rest are positional arguments
    if (a.size() < 2 || a[0] != '-') continue;
    if (a[1] == '-') {
      const size_t eq = a.find('=');
      const CLI::Option* opt = app.get_option_no_throw(a.substr(0, eq));
      if (opt == nullptr || is_flag(*opt)) continue;
      if (eq == std::string::npos) {
        i += static_cast<size_t>(std::max(opt->get_expected_min(), 0));  // its value(s)
      } else if (eq + 1 == a.size()) {
        // "--label=" gives the empty value, which the checks then judge as they judge
        // "--label ''", instead of letting the parser take the next argument as the value.
        args[i] = a.substr(0, eq);
        insert_value(i, "");
        ++i;
      }
      continue;
    }
    // "-qo FILE", "-qoFILE", "-qo=FILE": flags, then at most one option that takes a value.
    for (size_t j = 1; j < a.size(); ++j) {
      const CLI::Option* opt = app.get_option_no_throw(std::string("-") + a[j]);
      if (opt == nullptr) break;
      if (is_flag(*opt)) continue;
      if (j + 1 == a.size()) {
        i += static_cast<size_t>(std::max(opt->get_expected_min(), 0));
      } else if (a[j + 1] == '=') {
        args[i] = a.substr(0, j + 1);
        insert_value(i, a.substr(j + 2));
        ++i;
      }
      break;
    }
  }
}

std::string describe_usage_error(const CLI::ParseError& e, CLI::App& root,
                                 const std::vector<std::string>& args) {
  const std::string command = command_of(root, args);
  const std::string reason = reason_of(e, root, args, command);
  return fmt::format("{}; see 'bloomtool {}--help'", reason, command.empty() ? "" : command + " ");
}

}  // namespace bloomtool::cli
