/* How long faulting in fresh anonymous memory takes: maps MIB MiB, touches one byte per 4 KiB page
 * and prints the milliseconds. With "thp" the mapping asks for 2 MiB pages (MADV_HUGEPAGE), as
 * bloomtool's filters do. Run it twice in a row and then after a pause to see whether the machine
 * charges extra for memory it has not used lately (docs/PERFORMANCE.md, "Fresh memory").
 *
 *   fresh_memory MIB [thp]
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3 || (argc == 3 && strcmp(argv[2], "thp") != 0)) {
    fprintf(stderr, "usage: fresh_memory MIB [thp]\n");
    return 2;
  }
  const size_t bytes = (size_t)strtoull(argv[1], NULL, 10) << 20;
  const int thp = argc == 3;
  char* p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    perror("mmap");
    return 1;
  }
  if (thp) madvise(p, bytes, MADV_HUGEPAGE);
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  for (size_t i = 0; i < bytes; i += 4096) p[i] = 1;
  clock_gettime(CLOCK_MONOTONIC, &b);
  printf("%zu MiB, %s pages: %.1f ms\n", bytes >> 20, thp ? "2 MiB" : "4 KiB",
         (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6);
  munmap(p, bytes);
  return 0;
}
