// The text of `bloomtool --version`: the version on the first line (scripts read it), then the
// source commit and every library the program was built with.
#include <CLI/Version.hpp>

#include <string>

#include "bloomtool/version.h"
#include "common.h"

namespace bloomtool::cli {

std::string version_text() {
  std::string s =
      std::string("bloomtool ") + kToolVersion + "\ncommit " + build_commit() + "\nbuilt with:\n";
  std::string deps = "CLI11 " CLI11_VERSION "\n" + build_dependencies();
  for (size_t at = 0; at < deps.size();) {
    const size_t end = deps.find('\n', at);
    s += "  " + deps.substr(at, end - at) + "\n";
    at = end + 1;
  }
  s.pop_back();  // puts() adds the last newline
  return s;
}

}  // namespace bloomtool::cli
