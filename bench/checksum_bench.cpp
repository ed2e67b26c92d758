// The checksum of large buffers (lib/src/checksum.h): XXH3-64 through libxxhash's run-time
// dispatcher against the portable XXH3_64bits, over 64 KiB chunks (a raw payload's) of a 256 MiB
// buffer, three rounds, GB/s; the two must agree on every chunk (docs/PERFORMANCE.md, "Raw
// payloads").
//
//   checksum_bench [MIB]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "base/checksum.h"

int main(int argc, char** argv) {
  const size_t bytes = (argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 256) << 20;
  constexpr size_t kChunk = 65536;
  std::vector<unsigned char> buf(bytes);
  for (size_t i = 0; i < bytes; ++i) buf[i] = static_cast<unsigned char>(i * 131 + (i >> 9));
#ifdef BLOOMTOOL_XXH3_DISPATCH
  std::printf("dispatching checksum: yes\n");
#else
  std::printf("dispatching checksum: no (the library's portable XXH3 is used)\n");
#endif
  for (int round = 0; round < 3; ++round) {
    uint64_t plain = 0, fast = 0;
    auto t0 = std::chrono::steady_clock::now();
    for (size_t at = 0; at + kChunk <= bytes; at += kChunk) plain ^= XXH3_64bits(&buf[at], kChunk);
    auto t1 = std::chrono::steady_clock::now();
    for (size_t at = 0; at + kChunk <= bytes; at += kChunk)
      fast ^= bloomtool::detail::checksum_bytes(&buf[at], kChunk);
    auto t2 = std::chrono::steady_clock::now();
    const double a = std::chrono::duration<double>(t1 - t0).count();
    const double b = std::chrono::duration<double>(t2 - t1).count();
    std::printf("round %d: XXH3_64bits %.2f GB/s, checksum_bytes %.2f GB/s%s\n", round + 1,
                static_cast<double>(bytes) / a / 1e9, static_cast<double>(bytes) / b / 1e9,
                plain == fast ? "" : "  DIFFERENT VALUES");
    if (plain != fast) return 1;
  }
  return 0;
}
