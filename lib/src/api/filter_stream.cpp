// Filter files that arrive through a pipe (`build -o - | bloomtool stats -`), read whole and
// checked by the filter file reader (read_filter_stream, filter_file.h), then instantiated.
#include "api/load_filter.h"
#include "format/filter_file.h"

namespace bloomtool {

LoadedFilter load_filter_from_fd(int fd, const std::string& name) {
  return make_filter(read_filter_stream(fd, name), name);
}

}  // namespace bloomtool
