// How fast can one core of this machine do random read-modify-writes into an array of a given
// size, prefetching a given number of accesses ahead? The bound under a standard Bloom filter's
// inserts (k scattered probes per key), quoted in docs/PERFORMANCE.md ("What bounds a build").
//
//   random_read_probe [MIB] [AHEAD...]     default: 12 MiB (a 10M-key, 1 % filter), 0 16 64
//
// The array is mapped with MADV_HUGEPAGE like bloomtool's filters; each access ors one bit into
// a word picked by mix64 of a counter. Prints ns per access (wall clock, one thread).
#include <sys/mman.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "keys/hash.h"

using bloomtool::mix64;
using bloomtool::reduce64;

int main(int argc, char** argv) {
  const size_t mib = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 12;
  std::vector<uint64_t> aheads;
  for (int i = 2; i < argc; ++i) aheads.push_back(std::strtoull(argv[i], nullptr, 10));
  if (aheads.empty()) aheads = {0, 16, 64};
  const size_t words = mib << 17;
  void* p = mmap(nullptr, words * 8, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return 2;
  madvise(p, words * 8, MADV_HUGEPAGE);
  auto* w = static_cast<uint64_t*>(p);
  std::memset(w, 0, words * 8);
  constexpr uint64_t kAccesses = 70000000;
  for (uint64_t ahead : aheads) {
    const auto t0 = std::chrono::steady_clock::now();
    for (uint64_t i = 0; i < kAccesses; ++i) {
      if (ahead != 0) __builtin_prefetch(&w[reduce64(mix64(i + ahead), words)], 1, 3);
      const uint64_t h = mix64(i);
      w[reduce64(h, words)] |= uint64_t{1} << (h & 63);
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("%zu MiB, prefetch %llu accesses ahead: %.2f ns/access\n", mib,
                static_cast<unsigned long long>(ahead), s * 1e9 / static_cast<double>(kAccesses));
  }
  return 0;
}
