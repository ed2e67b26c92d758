// `bloomtool build --compat guava|dcso`: a filter in the peer's own file format, sized and
// hashed as the peer does it (lib compat_build.h).
#pragma once

#include <string>

#include "build_args.h"

namespace bloomtool::cli {

struct CompatArgs {
  std::string format;  // --compat: guava or dcso ("" when not given)
  bool gzip = false;   // --gzip (dcso)
  std::string n, p, m, k, variant;
  bool allow_overfill = false;
};

int run_build_compat(const CompatArgs& c, const KeyBuildArgs& args);

}  // namespace bloomtool::cli
