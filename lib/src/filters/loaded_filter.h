// A filter with the header of the file it came from: what opening a filter file of any format
// gives (load_filter.h for bloomtool files, foreign_format.h for the peers').
#pragma once

#include <cstdint>
#include <memory>

#include "filters/filter.h"
#include "format/filter_file.h"
#include "format/raw_payload.h"

namespace bloomtool {

struct LoadedFilter {
  FilterHeader header;
  // Set for a raw (codec 2) file opened by load_filter: the open file and the cache of its
  // verified chunks. `filter` reads the chunks in the view's memory, so it is declared after this.
  std::shared_ptr<const RawPayloadView> raw;
  std::unique_ptr<Filter> filter;
  uint64_t file_bytes = 0;
};

}  // namespace bloomtool
