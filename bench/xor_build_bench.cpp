// Construction speed and memory of binary fuse 8 filters (bench/xor_build_bench.sh runs it).
//
//   xor_build_bench speed [N] [REPS]   ns/key for building from N precomputed key hashes
//                                      ("hashing excluded") and from N keys in memory, hashing
//                                      each with XXH3 first ("hashing included"); best of REPS
//   xor_build_bench memory [N]         hashes N keys straight into a vector, builds once and
//                                      prints the peak resident set per key (ru_maxrss / N)
//
// Keys are "bench-key-<i>" for i in [0, N): distinct, short, like real identifiers.
#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bloomtool/hash.h"
#include "bloomtool/xor_filter.h"

using namespace bloomtool;
using Clock = std::chrono::steady_clock;

namespace {

// Wall-clock and CPU time of this process: on a shared machine the CPU time is the better
// figure, since the wall clock also counts time the scheduler gave to other processes.
struct Stamp {
  Clock::time_point wall;
  double cpu;
};

double cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

Stamp now() {
  return {Clock::now(), cpu_seconds()};
}

struct Elapsed {
  double wall = 1e300, cpu = 1e300;
  void keep_best(const Stamp& t0) {
    wall = std::min(wall, std::chrono::duration<double>(Clock::now() - t0.wall).count());
    cpu = std::min(cpu, cpu_seconds() - t0.cpu);
  }
};

XorBuildResult build(std::vector<uint64_t>& hashes) {
  XorBuildOptions o;
  o.layout = XorLayout::kFuse;
  o.fingerprint_bits = 8;
  return build_xor_filter(hashes, o);
}

int speed(uint64_t n, int reps) {
  std::string text;  // all keys back to back
  std::vector<uint64_t> ends;
  ends.reserve(n);
  for (uint64_t i = 0; i < n; ++i) {
    text += "bench-key-";
    text += std::to_string(i);
    ends.push_back(text.size());
  }
  std::vector<uint64_t> hashes(n);
  Elapsed build_time, total_time;
  uint32_t attempts = 0;
  for (int r = 0; r < reps; ++r) {
    // Hashing excluded: the timer covers de-duplication, peeling and assignment.
    hashes.assign(n, 0);
    uint64_t begin = 0;
    for (uint64_t i = 0; i < n; ++i) {
      hashes[i] = hash_key(std::string_view(text).substr(begin, ends[i] - begin), kDefaultSeed);
      begin = ends[i];
    }
    Stamp t0 = now();
    XorBuildResult b = build(hashes);
    build_time.keep_best(t0);
    attempts = b.attempts;
    b.filter.reset();
    // Hashing included.
    hashes.assign(n, 0);
    t0 = now();
    begin = 0;
    for (uint64_t i = 0; i < n; ++i) {
      hashes[i] = hash_key(std::string_view(text).substr(begin, ends[i] - begin), kDefaultSeed);
      begin = ends[i];
    }
    b = build(hashes);
    total_time.keep_best(t0);
  }
  const double nd = static_cast<double>(n);
  std::printf("binary fuse 8, %llu keys, best of %d (first run's attempts: %u)\n",
              static_cast<unsigned long long>(n), reps, attempts);
  std::printf("  construction, hashing excluded  %6.1f ns/key CPU  %6.1f ns/key wall\n",
              build_time.cpu * 1e9 / nd, build_time.wall * 1e9 / nd);
  std::printf("  construction, hashing included  %6.1f ns/key CPU  %6.1f ns/key wall\n",
              total_time.cpu * 1e9 / nd, total_time.wall * 1e9 / nd);
  return 0;
}

int memory(uint64_t n) {
  std::vector<uint64_t> hashes;
  hashes.reserve(n);
  std::string key;
  for (uint64_t i = 0; i < n; ++i) {
    key = "bench-key-";
    key += std::to_string(i);
    hashes.push_back(hash_key(key, kDefaultSeed));
  }
  XorBuildResult b = build(hashes);
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  const double peak = static_cast<double>(ru.ru_maxrss) * 1024.0;
  std::printf("binary fuse 8, %llu keys: peak RSS %.1f MiB = %.2f bytes/key (%llu slots)\n",
              static_cast<unsigned long long>(n), peak / 1048576.0, peak / static_cast<double>(n),
              static_cast<unsigned long long>(b.filter->params().slots));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "speed";
  const uint64_t n = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 10000000;
  if (mode == "speed") return speed(n, argc > 3 ? std::atoi(argv[3]) : 3);
  if (mode == "memory") return memory(n);
  std::fprintf(stderr, "usage: xor_build_bench speed [N] [REPS] | memory [N]\n");
  return 2;
}
