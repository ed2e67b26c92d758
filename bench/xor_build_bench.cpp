// Construction speed and memory of binary fuse 8 filters (bench/xor_build_bench.sh runs it).
//
//   xor_build_bench speed [N] [REPS]   ns/key for building from N precomputed key hashes
//                                      ("hashing excluded") and from N keys in memory, hashing
//                                      each with XXH3 first ("hashing included"); best of REPS
//   xor_build_bench memory [N]         hashes N keys straight into a vector, builds once and
//                                      prints the peak resident set per key (ru_maxrss / N)
//   xor_build_bench random N SEED FP THREADS DEDUP
//                                      one binary fuse FP (8 or 16) construction from N distinct
//                                      random 64-bit hashes, the keys xor_reference_driver.c
//                                      makes for SEED, on THREADS threads; DEDUP 1: with
//                                      de-duplication, 0: assume_distinct (grouping only). Prints
//                                      one line (read by bench/xor_reference_bench.sh): thread
//                                      CPU and wall seconds, peak RSS bytes, then the CPU and wall
//                                      seconds of each phase (group, count, peel, assign)
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

#include "filters/xor_construct.h"
#include "keys/hash.h"

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

int random_keys(uint64_t n, uint64_t seed, uint32_t fp, unsigned threads, bool dedup) {
  std::vector<uint64_t> hashes(n);
  for (uint64_t i = 0; i < n; ++i) hashes[i] = mix64(seed + (i + 1) * 0x9E3779B97F4A7C15ull);
  XorBuildOptions o;
  o.layout = XorLayout::kFuse;
  o.fingerprint_bits = fp;
  o.threads = threads;
  o.assume_distinct = !dedup;
  timespec c0, c1;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
  const auto w0 = Clock::now();
  XorBuildResult b = build_xor_filter(std::span<uint64_t>(hashes), o);
  const double wall = std::chrono::duration<double>(Clock::now() - w0).count();
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
  const double cpu = static_cast<double>(c1.tv_sec - c0.tv_sec) +
                     static_cast<double>(c1.tv_nsec - c0.tv_nsec) * 1e-9;
  if (b.distinct != n) {
    std::fprintf(stderr, "xor_build_bench: %llu distinct of %llu\n",
                 static_cast<unsigned long long>(b.distinct), static_cast<unsigned long long>(n));
    return 1;
  }
  for (uint64_t i = 0; i < n; i += 7) {
    if (!b.filter->contains_hash(mix64(seed + (i + 1) * 0x9E3779B97F4A7C15ull))) {
      std::fprintf(stderr, "xor_build_bench: false negative\n");
      return 1;
    }
  }
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  std::printf("bloomtool fuse%u %llu %.6f %.6f %.0f %.6f %.6f %.6f %.6f %.6f %.6f %.6f %.6f\n", fp,
              static_cast<unsigned long long>(n), cpu, wall,
              static_cast<double>(ru.ru_maxrss) * 1024.0, b.cpu.group, b.cpu.count, b.cpu.peel,
              b.cpu.assign, b.wall.group, b.wall.count, b.wall.peel, b.wall.assign);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "speed";
  const uint64_t n = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 10000000;
  if (mode == "speed") return speed(n, argc > 3 ? std::atoi(argv[3]) : 3);
  if (mode == "memory") return memory(n);
  if (mode == "random" && argc == 7) {
    return random_keys(n, std::strtoull(argv[3], nullptr, 10),
                       static_cast<uint32_t>(std::atoi(argv[4])),
                       static_cast<unsigned>(std::atoi(argv[5])), std::atoi(argv[6]) != 0);
  }
  std::fprintf(stderr,
               "usage: xor_build_bench speed [N] [REPS] | memory [N] | random N SEED FP THREADS "
               "DEDUP\n");
  return 2;
}
