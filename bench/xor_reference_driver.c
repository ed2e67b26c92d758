/* Times one call of binary_fuse8_populate or binary_fuse16_populate from
 * FastFilter/xor_singleheader (the C reference implementation of binary fuse filters) on N distinct
 * random 64-bit keys. bench/xor_reference_bench.sh compiles it against a corrected copy of that
 * header, which is not part of this repository, and runs it interleaved with bloomtool's own
 * construction.
 *
 *   xor_reference_driver fuse8|fuse16 N SEED
 *
 * One construction per process, so the peak resident set is that of one construction. Prints one
 * line: "reference <fuse8|fuse16> <N> <thread CPU s> <wall s> <peak RSS bytes>". The keys are
 * splitmix64(SEED + (i + 1) * 0x9E3779B97F4A7C15) for i in [0, N): distinct, because the
 * splitmix64 finaliser is a bijection; xor_build_bench's "random" mode makes the same keys. After
 * timing, every 7th key is looked up: a false negative exits 1. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "binaryfusefilter.h"

static uint64_t mix(uint64_t x) {
  x = (x ^ (x >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
  x = (x ^ (x >> 27)) * UINT64_C(0x94D049BB133111EB);
  return x ^ (x >> 31);
}

static double seconds(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char** argv) {
  if (argc != 4 || (strcmp(argv[1], "fuse8") != 0 && strcmp(argv[1], "fuse16") != 0)) {
    fprintf(stderr, "usage: xor_reference_driver fuse8|fuse16 N SEED\n");
    return 2;
  }
  const int fuse8 = strcmp(argv[1], "fuse8") == 0;
  const uint32_t n = (uint32_t)strtoul(argv[2], NULL, 10);
  const uint64_t seed = strtoull(argv[3], NULL, 10);
  uint64_t* keys = malloc((size_t)n * sizeof *keys);
  if (keys == NULL) return 2;
  for (uint32_t i = 0; i < n; ++i)
    keys[i] = mix(seed + (i + UINT64_C(1)) * UINT64_C(0x9E3779B97F4A7C15));

  binary_fuse8_t f8;
  binary_fuse16_t f16;
  int ok;
  const double cpu0 = seconds(CLOCK_THREAD_CPUTIME_ID), wall0 = seconds(CLOCK_MONOTONIC);
  if (fuse8) {
    ok = binary_fuse8_allocate(n, &f8) && binary_fuse8_populate(keys, n, &f8);
  } else {
    ok = binary_fuse16_allocate(n, &f16) && binary_fuse16_populate(keys, n, &f16);
  }
  const double cpu = seconds(CLOCK_THREAD_CPUTIME_ID) - cpu0,
               wall = seconds(CLOCK_MONOTONIC) - wall0;
  if (!ok) {
    fprintf(stderr, "xor_reference_driver: construction failed\n");
    return 1;
  }
  for (uint32_t i = 0; i < n; i += 7) {
    if (fuse8 ? !binary_fuse8_contain(keys[i], &f8) : !binary_fuse16_contain(keys[i], &f16)) {
      fprintf(stderr, "xor_reference_driver: false negative\n");
      return 1;
    }
  }
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("reference %s %u %.6f %.6f %.0f\n", argv[1], n, cpu, wall, (double)ru.ru_maxrss * 1024.0);
  if (fuse8)
    binary_fuse8_free(&f8);
  else
    binary_fuse16_free(&f16);
  free(keys);
  return 0;
}
