// Keys joined by a separator byte, the batch layout bindings can make without a loop per key
// (Python: b"\n".join(keys)): `count` keys hold count - 1 separators, and key i runs from
// starts[i] to starts[i + 1] - 1 (the separator after it excluded).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "bloomtool/error.h"
#include "keys/batch_pipeline.h"

namespace bloomtool {

// A batch of at least this many keys (a C API call's) is split between threads.
inline constexpr size_t kParallelBatchKeys = size_t{1} << 16;

// Threads for a batch of `count` keys: 1 below kParallelBatchKeys, else up to one per 32,768 keys
// and at most `most` (0: every core).
inline unsigned batch_threads(size_t count, unsigned most = 0) noexcept {
  if (count < kParallelBatchKeys) return 1;
  const size_t cap = most != 0 ? most : default_thread_count();
  return static_cast<unsigned>(
      std::max<size_t>(1, std::min<size_t>(cap, count / (kParallelBatchKeys / 2))));
}

// The start of each key and, last, data.size() + 1; kInvalidArgument when `data` does not hold
// exactly `count` keys (count 0: data must be empty).
inline std::vector<uint64_t> separated_starts(std::string_view data, char separator, size_t count) {
  std::vector<uint64_t> starts;
  starts.reserve(count + 1);
  if (count > 0) starts.push_back(0);
  const char* begin = data.data();
  const char* end = begin + data.size();
  for (const char* at = begin; at < end && starts.size() <= count;) {
    const void* hit =
        std::memchr(at, static_cast<unsigned char>(separator), static_cast<size_t>(end - at));
    if (hit == nullptr) break;
    at = static_cast<const char*>(hit) + 1;
    starts.push_back(static_cast<uint64_t>(at - begin));
  }
  if (starts.size() != count || (count == 0 && !data.empty())) {
    char sep[8];
    std::snprintf(sep, sizeof sep, "0x%02x", static_cast<unsigned char>(separator));
    const std::string held = count == 0              ? std::string("at least 1")
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
