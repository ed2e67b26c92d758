// A C++ service's view: open a filter file once with bloomtool::open_filter (any format bloomtool
// reads), then ask about keys as `bloomtool query` would (each key normalised as the file says).
// Link bloomtool::bloomtool.
//   reader_query FILTER KEY...   prints "KEY: maybe present|absent" per key, then the facts
#include <bloomtool/filter.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <string_view>
#include <vector>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: reader_query FILTER KEY...\n");
    return 2;
  }
  try {
    const bloomtool::Reader filter = bloomtool::open_filter(argv[1]);  // every check query makes
    for (int i = 2; i < argc; ++i)
      std::printf("%s: %s\n", argv[i], filter.contains(argv[i]) ? "maybe present" : "absent");

    // Many keys in one call (thread-safe: any number of threads may share `filter`).
    const std::vector<std::string_view> keys(argv + 2, argv + argc);
    std::vector<uint8_t> flags(keys.size());
    filter.contains_many(keys, flags.data());
    size_t present = 0;
    for (uint8_t f : flags) present += f;

    const bloomtool::FilterInfo& info = filter.info();
    std::printf("%zu of %zu maybe present; %s filter, m=%llu, k=%u, n=%llu, model p=%.3g\n",
                present, keys.size(), info.kind.c_str(), static_cast<unsigned long long>(info.m),
                info.k, static_cast<unsigned long long>(info.distinct_keys), info.model_fpr);
  } catch (const bloomtool::Error& e) {
    std::fprintf(stderr, "reader_query: %s\n", e.what());  // the CLI's wording
    return 2;
  }
  return 0;
}
