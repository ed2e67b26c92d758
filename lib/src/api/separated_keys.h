// Keys joined by a separator byte, the batch layout bindings can make without a loop per key
// (Python: b"\n".join(keys)): `count` keys hold count - 1 separators, and key i runs from
// starts[i] to starts[i + 1] - 1 (the separator after it excluded).
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "bloomtool/error.h"

namespace bloomtool {

// The start of each key and, last, data.size() + 1; kInvalidArgument when `data` does not hold
// exactly `count` keys (count 0: data must be empty).
inline std::vector<uint64_t> separated_starts(std::string_view data, char separator,
                                              size_t count) {
  std::vector<uint64_t> starts;
  starts.reserve(count + 1);
  if (count > 0) starts.push_back(0);
  const char* begin = data.data();
  const char* end = begin + data.size();
  for (const char* at = begin; at < end && starts.size() <= count;) {
    const void* hit = std::memchr(at, static_cast<unsigned char>(separator),
                                  static_cast<size_t>(end - at));
    if (hit == nullptr) break;
    at = static_cast<const char*>(hit) + 1;
    starts.push_back(static_cast<uint64_t>(at - begin));
  }
  if (starts.size() != count || (count == 0 && !data.empty())) {
    char sep[8];
    std::snprintf(sep, sizeof sep, "0x%02x", static_cast<unsigned char>(separator));
    const std::string held = count == 0                ? std::string("at least 1")
                             : starts.size() > count ? "more than " + std::to_string(count)
                                                     : std::to_string(starts.size());
    throw Error(ErrorCode::kInvalidArgument, "data: holds " + held +
                                                 " keys separated by the byte " + sep +
                                                 ", the count says " + std::to_string(count));
  }
  starts.push_back(data.size() + 1);
  return starts;
}

}  // namespace bloomtool
