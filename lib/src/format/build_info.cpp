// What the library was built with: the versions of its dependencies, as compiled in and (for
// zstd, a shared library that may be upgraded underneath) as loaded at run time.
#include <fmt/format.h>
#include <simdjson.h>
#include <xxhash.h>
#include <zstd.h>

#include <string>

#include "bloomtool/version.h"

#define BLOOMTOOL_STR2(x) #x
#define BLOOMTOOL_STR(x) BLOOMTOOL_STR2(x)

namespace bloomtool {

namespace {

std::string compiler() {
#if defined(__clang__)
  return "clang " __clang_version__;
#elif defined(__GNUC__)
  return "gcc " __VERSION__;
#else
  return "unknown compiler";
#endif
}

}  // namespace

std::string build_dependencies() {
  std::string s;
  s += fmt::format("fmt {}.{}.{}\n", FMT_VERSION / 10000, FMT_VERSION / 100 % 100,
                   FMT_VERSION % 100);
  s += fmt::format("zstd {} (compiled against {})\n", ZSTD_versionString(), ZSTD_VERSION_STRING);
  s += "simdjson " BLOOMTOOL_STR(SIMDJSON_VERSION) "\n";
  s += fmt::format("xxHash {}.{}.{} (compiled in)\n", XXH_VERSION_MAJOR, XXH_VERSION_MINOR,
                   XXH_VERSION_RELEASE);
  s += "compiler " + compiler() + "\n";
  return s;
}

}  // namespace bloomtool
