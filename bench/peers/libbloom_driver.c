/* A tiny driver so libbloom (Debian libbloom-dev) can be timed like a command-line tool.
 *   libbloom_driver build N P OUT < keys     add every line, write the bit array to OUT
 *   libbloom_driver query N P FILTER < keys  load the bit array, print lines that may be present
 * libbloom 1.6 has no file format of its own; OUT is its raw bit array. */
#include <bloom.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: libbloom_driver build|query N P FILE < keys\n");
    return 2;
  }
  struct bloom b;
  if (bloom_init(&b, atoi(argv[2]), atof(argv[3])) != 0) return 2;
  int build = strcmp(argv[1], "build") == 0;
  if (!build) {
    FILE* f = fopen(argv[4], "rb");
    if (!f || fread(b.bf, 1, b.bytes, f) != (size_t)b.bytes) return 2;
    fclose(f);
  }
  char* line = NULL;
  size_t cap = 0;
  ssize_t len;
  static char outbuf[1 << 16];
  setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
  while ((len = getline(&line, &cap, stdin)) > 0) {
    if (line[len - 1] == '\n') --len;
    if (build) {
      bloom_add(&b, line, (int)len);
    } else if (bloom_check(&b, line, (int)len)) {
      fwrite(line, 1, (size_t)len, stdout);
      fputc('\n', stdout);
    }
  }
  if (build) {
    FILE* f = fopen(argv[4], "wb");
    if (!f || fwrite(b.bf, 1, b.bytes, f) != (size_t)b.bytes || fclose(f) != 0) return 2;
  }
  free(line);
  bloom_free(&b);
  return 0;
}
