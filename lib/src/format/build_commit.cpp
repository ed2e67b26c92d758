// The source commit of the build, in a file of its own: the header it includes is regenerated
// whenever the commit changes, and only this file is then recompiled.
#include "bloomtool/version.h"
#include "git_commit.h"

namespace bloomtool {

const char* build_commit() noexcept {
  return BLOOMTOOL_GIT_COMMIT;
}

}  // namespace bloomtool
