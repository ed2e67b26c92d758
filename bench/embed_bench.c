/* In-process query speed through the C API (libbloomtool.so.0), for bench/embed_bench.sh:
 *   embed_bench FILTER KEYFILE [REPS]
 * reads KEYFILE (one key per line) into one buffer with offsets, then on one thread:
 *   batch   bloomtool_contains_many over all keys, REPS times (default 7): median keys/s
 *   single  bloomtool_contains key by key, REPS times: median ns per key
 * and prints "batch_keys_per_s=... single_ns=... present=..." (present: keys answered 1). Times
 * are the thread's CPU time (CLOCK_THREAD_CPUTIME_ID), so that other work on a shared machine
 * does not count as ours; wall-clock figures are printed too (batch_wall_keys_per_s,
 * single_wall_ns). */
#define _POSIX_C_SOURCE 200809L
#include <bloomtool/bloomtool_c.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double clock_of(clockid_t id) {
  struct timespec t;
  clock_gettime(id, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}
static double now(void) {
  return clock_of(CLOCK_THREAD_CPUTIME_ID);
}
static double wall(void) {
  return clock_of(CLOCK_MONOTONIC);
}

static int cmp_double(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

static double median(double* v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return v[n / 2];
}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: embed_bench FILTER KEYFILE [REPS]\n");
    return 2;
  }
  const int reps = argc > 3 ? atoi(argv[3]) : 7;
  bloomtool_filter* f = NULL;
  if (bloomtool_open(argv[1], &f) != BLOOMTOOL_OK) {
    fprintf(stderr, "embed_bench: %s\n", bloomtool_last_error());
    return 2;
  }
  FILE* in = fopen(argv[2], "rb");
  if (in == NULL) {
    perror(argv[2]);
    return 2;
  }
  fseek(in, 0, SEEK_END);
  const long size = ftell(in);
  fseek(in, 0, SEEK_SET);
  char* text = malloc((size_t)size + 1);
  if (text == NULL || fread(text, 1, (size_t)size, in) != (size_t)size) return 2;
  fclose(in);
  size_t count = 0;
  for (long i = 0; i < size; ++i) count += text[i] == '\n';
  char* keys = malloc((size_t)size + 1);
  uint64_t* offsets = malloc((count + 1) * sizeof *offsets);
  uint8_t* results = malloc(count);
  size_t n = 0, out = 0, start = 0;
  offsets[0] = 0;
  for (long i = 0; i < size; ++i) {
    if (text[i] != '\n') continue;
    memcpy(keys + out, text + start, (size_t)i - start);
    out += (size_t)i - start;
    offsets[++n] = out;
    start = (size_t)i + 1;
  }

  double* t = malloc((size_t)reps * sizeof *t);
  double* w = malloc((size_t)reps * sizeof *w);
  size_t present = 0;
  bloomtool_contains_many(f, keys, offsets, n, results); /* warm-up */
  for (int r = 0; r < reps; ++r) {
    const double w0 = wall(), t0 = now();
    if (bloomtool_contains_many(f, keys, offsets, n, results) != BLOOMTOOL_OK) {
      fprintf(stderr, "embed_bench: %s\n", bloomtool_last_error());
      return 2;
    }
    t[r] = now() - t0;
    w[r] = wall() - w0;
  }
  for (size_t i = 0; i < n; ++i) present += results[i];
  const double batch = (double)n / median(t, reps), batch_wall = (double)n / median(w, reps);

  size_t single_present = 0;
  for (int r = 0; r < reps; ++r) {
    single_present = 0;
    const double w0 = wall(), t0 = now();
    for (size_t i = 0; i < n; ++i)
      single_present +=
          (size_t)bloomtool_contains(f, keys + offsets[i], offsets[i + 1] - offsets[i]);
    t[r] = now() - t0;
    w[r] = wall() - w0;
  }
  const double single_ns = median(t, reps) * 1e9 / (double)n;
  const double single_wall_ns = median(w, reps) * 1e9 / (double)n;
  if (single_present != present) {
    fprintf(stderr, "embed_bench: single and batch answers differ\n");
    return 1;
  }
  printf(
      "keys=%zu batch_keys_per_s=%.0f single_ns=%.1f present=%zu batch_wall_keys_per_s=%.0f "
      "single_wall_ns=%.1f\n",
      n, batch, single_ns, present, batch_wall, single_wall_ns);
  bloomtool_close(f);
  free(t);
  free(w);
  free(text);
  free(keys);
  free(offsets);
  free(results);
  return 0;
}
