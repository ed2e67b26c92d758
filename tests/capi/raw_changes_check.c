/* A raw (codec 2) filter changed under an open C API handle, driven by raw_changes_test.sh:
 *   raw_changes_check truncate LIVE KEYFILE        open LIVE, query the first key, truncate LIVE
 *   raw_changes_check rewrite LIVE KEYFILE OTHER   ... or overwrite it in place with OTHER's bytes
 * then query every key of KEYFILE (members of LIVE as it was): by batch, which must fail with
 * BLOOMTOOL_ERR_CORRUPT, and key by key, where each answer must be 1 (from a chunk verified
 * before the change) or that error, never 0. Prints "<status name>: <message>" of the batch and
 * "single: N found, M errors"; exit 0 when all of that holds, 1 otherwise. */
#define _POSIX_C_SOURCE 200809L
#include <bloomtool/bloomtool_c.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char* slurp(const char* path, size_t* len) {
  FILE* f = fopen(path, "rb");
  if (f == NULL) return NULL;
  size_t cap = 1 << 16, n = 0;
  char* buf = malloc(cap);
  size_t r;
  while (buf != NULL && (r = fread(buf + n, 1, cap - n, f)) > 0) {
    n += r;
    if (n == cap) buf = realloc(buf, cap *= 2);
  }
  fclose(f);
  *len = n;
  return buf;
}

int main(int argc, char** argv) {
  if (argc < 4 || (strcmp(argv[1], "rewrite") == 0 && argc != 5)) {
    fputs("usage: raw_changes_check truncate|rewrite LIVE KEYFILE [OTHER]\n", stderr);
    return 2;
  }
  size_t len = 0;
  char* text = slurp(argv[3], &len);
  if (text == NULL) return 2;
  /* Keys: the lines of KEYFILE, as offsets into text. */
  size_t count = 0;
  for (size_t i = 0; i < len; ++i) count += text[i] == '\n';
  uint64_t* offsets = malloc((count + 1) * sizeof *offsets);
  uint8_t* results = malloc(count + 1);
  char* packed = malloc(len + 1);
  size_t at = 0, k = 0, start = 0;
  for (size_t i = 0; i < len; ++i) {
    if (text[i] != '\n') continue;
    offsets[k++] = at;
    memcpy(packed + at, text + start, i - start);
    at += i - start;
    start = i + 1;
  }
  offsets[k] = at;

  bloomtool_filter* f = NULL;
  bloomtool_status s = bloomtool_open(argv[2], &f);
  if (s != BLOOMTOOL_OK) {
    printf("open: %s: %s\n", bloomtool_status_name(s), bloomtool_last_error());
    return 1;
  }
  int ok = 1;
  if (bloomtool_contains(f, packed, (size_t)(offsets[1] - offsets[0])) != 1) {
    fputs("FAIL: the first key is not found before the change\n", stderr);
    ok = 0;
  }
  if (strcmp(argv[1], "truncate") == 0) {
    if (truncate(argv[2], 100000) != 0) return 2;
  } else {
    size_t other_len = 0;
    char* other = slurp(argv[4], &other_len);
    int fd = open(argv[2], O_WRONLY);
    if (other == NULL || fd < 0 || pwrite(fd, other, other_len, 0) != (ssize_t)other_len) return 2;
    close(fd);
    free(other);
  }
  s = bloomtool_contains_many(f, packed, offsets, count, results);
  printf("%s: %s\n", bloomtool_status_name(s), s == BLOOMTOOL_OK ? "" : bloomtool_last_error());
  if (s != BLOOMTOOL_ERR_CORRUPT) ok = 0;
  size_t found = 0, errors = 0;
  for (size_t i = 0; i < count; ++i) {
    const int r = bloomtool_contains(f, packed + offsets[i], (size_t)(offsets[i + 1] - offsets[i]));
    if (r == 1) {
      ++found;
    } else if (r == -BLOOMTOOL_ERR_CORRUPT) {
      ++errors;
    } else {
      fprintf(stderr, "FAIL: key %zu answered %d\n", i, r);
      ok = 0;
    }
  }
  printf("single: %zu found, %zu errors\n", found, errors);
  if (errors == 0) ok = 0;
  bloomtool_close(f);
  free(text);
  free(packed);
  free(offsets);
  free(results);
  return ok ? 0 : 1;
}
