/* A C program over libbloomtool.so.0: open a filter file, ask about keys one at a time and in one
 * batch, print the facts. Compile: cc c_query.c $(pkg-config --cflags --libs bloomtool-c)
 *   c_query FILTER KEY...   prints "KEY: maybe present|absent" per key, then the facts */
#include <bloomtool/bloomtool_c.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: c_query FILTER KEY...\n");
    return 2;
  }
  bloomtool_filter* filter = NULL;
  if (bloomtool_open(argv[1], &filter) != BLOOMTOOL_OK) {
    fprintf(stderr, "c_query: %s\n", bloomtool_last_error()); /* the CLI's wording */
    return 2;
  }
  for (int i = 2; i < argc; ++i) {
    const int r = bloomtool_contains(filter, argv[i], strlen(argv[i]));
    if (r < 0) {
      fprintf(stderr, "c_query: %s\n", bloomtool_last_error());
      return 2;
    }
    printf("%s: %s\n", argv[i], r ? "maybe present" : "absent");
  }

  /* The same keys as one batch: all bytes in one buffer, key i at offsets[i] .. offsets[i+1]. */
  const size_t count = (size_t)(argc - 2);
  uint64_t* offsets = malloc((count + 1) * sizeof *offsets);
  uint8_t* results = malloc(count + 1);
  size_t total = 0;
  for (size_t i = 0; i < count; ++i) total += strlen(argv[i + 2]);
  char* keys = malloc(total + 1);
  offsets[0] = 0;
  for (size_t i = 0; i < count; ++i) {
    const size_t len = strlen(argv[i + 2]);
    memcpy(keys + offsets[i], argv[i + 2], len);
    offsets[i + 1] = offsets[i] + len;
  }
  if (bloomtool_contains_many(filter, keys, offsets, count, results) != BLOOMTOOL_OK) {
    fprintf(stderr, "c_query: %s\n", bloomtool_last_error());
    return 2;
  }
  size_t present = 0;
  for (size_t i = 0; i < count; ++i) present += results[i];

  bloomtool_info info = {.size = sizeof info}; /* the size member first: the ABI's version check */
  bloomtool_get_info(filter, &info);
  printf("%zu of %zu maybe present; %s filter, m=%llu, k=%u, n=%llu, model p=%.3g\n", present,
         count, info.kind, (unsigned long long)info.m, info.k,
         (unsigned long long)info.distinct_keys, info.model_fpr);
  free(keys);
  free(offsets);
  free(results);
  bloomtool_close(filter);
  return 0;
}
