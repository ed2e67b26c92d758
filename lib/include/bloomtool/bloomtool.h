// The library's entry header: `#include <bloomtool/bloomtool.h>` declares the whole public API.
//   filter.h   open_filter (path or bytes, any format) -> Reader: contains, contains_many, info
//   info.h     FilterInfo, read_filter_info: a file's facts without its payload
//   build.h    Plan, build_filter (keys from files) and Builder (keys in memory)
//   merge.h    merge_filters, convert_file
//   sizing.h   model_rate, size_for
//   error.h    bloomtool::Error and its ErrorCode
//   version.h  the library's version
//   bloomtool_c.h  the C API (libbloomtool.so.0), which the static library implements too
// Each header also stands alone. Everything else is the library's own and not installed.
#pragma once

#include "bloomtool/bloomtool_c.h"
#include "bloomtool/build.h"
#include "bloomtool/error.h"
#include "bloomtool/filter.h"
#include "bloomtool/info.h"
#include "bloomtool/merge.h"
#include "bloomtool/sizing.h"
#include "bloomtool/version.h"
