// bloomtool's entry point: registers the subcommands, parses argv, runs the chosen command, and is
// the one place where errors are caught and printed ("bloomtool: <message>", exit 2).
#include <signal.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <new>

#include "bloomtool/error.h"
#include "bloomtool/version.h"
#include "common.h"
#include "suggest.h"
#include "temp_files.h"
#include "usage.h"

namespace {

void on_fatal_signal(int sig) {
  bloomtool::cli::remove_temp_files();
  signal(sig, SIG_DFL);
  raise(sig);
}

// Writes help or version text to stdout; a failed write (a full disk, a closed descriptor) is an
// error, not a silent success.
int print_text(const std::string& text) {
  std::fputs(text.c_str(), stdout);
  if (std::fflush(stdout) == 0 && !std::ferror(stdout)) return bloomtool::cli::kExitOk;
  const int e = errno;
  if (e == EPIPE) return bloomtool::cli::kExitOk;
  bloomtool::cli::warn(std::string("<stdout>: ") +
                       (e == EBADF ? "standard output is closed" : std::strerror(e)));
  return bloomtool::cli::kExitError;
}

void install_signal_handlers() {
  signal(SIGPIPE, SIG_IGN);  // a closed stdout becomes EPIPE, handled quietly
  bloomtool::cli::install_temp_file_table();
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) signal(sig, on_fatal_signal);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace bloomtool;
  using namespace bloomtool::cli;
  guard_standard_fds();
  install_signal_handlers();

  CLI::App app{
      "bloomtool: build, query and check probabilistic membership filters (Bloom, xor, binary "
      "fuse)"};
  app.name("bloomtool");
  app.set_version_flag("-V,--version", version_text());
  app.require_subcommand(1);
  app.footer(
      "Exit status: 0 success (query: something matched), 1 negative answer, 2 error.\n"
      "Run 'bloomtool COMMAND --help' or 'man bloomtool-COMMAND' for a command's options.");

  std::vector<Command> commands;
  commands.push_back(register_build(app));
  commands.push_back(register_build_static(app));
  commands.push_back(register_xor_build(app));
  commands.push_back(register_query(app));
  commands.push_back(register_merge(app));
  commands.push_back(register_assemble(app));
  commands.push_back(register_stats(app));
  commands.push_back(register_size(app));
  commands.push_back(register_keygen(app));
  commands.push_back(register_convert(app));
  commands.push_back(register_completions(app));
  add_value_checks(app);

  std::vector<std::string> args(argv + 1, argv + argc);
  // `bloomtool help [COMMAND]`, and unknown names caught (with a suggestion) before the parser
  // could report a misspelt option as the required one it was meant to be (suggest.h).
  try {
    args = rewrite_help_command(app, args);
  } catch (const Error& e) {
    warn(e.what());
    return kExitError;
  }
  if (const auto unknown = unknown_name_error(app, args)) {
    warn(*unknown);
    return kExitError;
  }
  std::vector<std::string> to_parse = args;
  // The command's name is the first argument that is not an option (the root has only flags).
  const auto name = std::find_if(to_parse.begin(), to_parse.end(),
                                 [](const std::string& a) { return a.empty() || a[0] != '-'; });
  for (const Command& c : commands) {
    if (name == to_parse.end() || *name != c.app->get_name()) continue;
    const size_t from = static_cast<size_t>(name - to_parse.begin()) + 1;
    split_attached_values(*c.app, to_parse, from);
    if (c.preparse) c.preparse(to_parse, from);
    break;
  }
  std::reverse(to_parse.begin(), to_parse.end());  // the parser takes them last to first

  try {
    app.parse(to_parse);
  } catch (const CLI::CallForHelp&) {
    return print_text(app.help());
  } catch (const CLI::CallForAllHelp&) {
    return print_text(app.help("", CLI::AppFormatMode::All));
  } catch (const CLI::CallForVersion& e) {
    return print_text(std::string(e.what()) + "\n");
  } catch (const CLI::ParseError& e) {
    warn(describe_usage_error(e, app, args));
    return kExitError;
  }

  try {
    for (const Command& c : commands) {
      if (c.app->parsed()) return c.run();
    }
    return kExitError;
  } catch (const BrokenPipe&) {
    return kExitOk;  // the reader of stdout went away (| head): end quietly
  } catch (const Error& e) {
    warn(e.what());
    return kExitError;
  } catch (const std::bad_alloc&) {
    warn("out of memory");
    return kExitError;
  } catch (const std::exception& e) {
    warn(e.what());
    return kExitError;
  }
}
