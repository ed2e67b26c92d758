// The least a one-thread query can do, as the yardstick for `bloomtool query` on a pipe
// (bench/pipe_bench.sh): load the filter as bloomtool does (load_filter: a zstd payload is
// decompressed whole), then read() 1 MiB at a time (a pipe's buffer raised to 1 MiB), split lines
// with memchr, hash each with XXH3-64 and the filter's seed, probe in batches of 4096 with the
// filter's own contains_batch (which prefetches), and count the keys that may be present, or with
// --absent write the absent ones to stdout in 1 MiB writes. Nothing else: no threads, no options,
// no normalisation (the filter must have none), no per-key checks. Its count equals that of
// `bloomtool query --count` on the same input.
//
//   minimal_query count|absent FILTER FILE
#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <vector>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "api/load_filter.h"

namespace {

constexpr size_t kRead = size_t{1} << 20;
constexpr size_t kBatch = 4096;

bool write_all(const char* p, size_t n) {
  while (n != 0) {
    const ssize_t w = ::write(STDOUT_FILENO, p, n);
    if (w < 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: minimal_query count|absent FILTER FILE\n");
    return 2;
  }
  const bool absent = std::string_view(argv[1]) == "absent";
  const bloomtool::LoadedFilter f = bloomtool::load_filter(argv[2]);
  const uint64_t seed = f.header.seed;

  const int fd = open(argv[3], O_RDONLY);
  if (fd < 0) return 1;
  fcntl(fd, F_SETPIPE_SZ, 1 << 20);  // a pipe's buffer as bloomtool raises it (a file: no effect)
  std::vector<char> buf(2 * kRead);
  // A batch's keys point into the read buffer, so a batch is probed before the buffer moves.
  std::vector<std::string_view> keys(kBatch);
  std::vector<uint64_t> hashes(kBatch);
  std::vector<uint8_t> hit(kBatch);
  std::vector<char> out;
  out.reserve(2 * kRead);
  size_t have = 0, n = 0;
  uint64_t present = 0;
  auto probe = [&] {
    f.filter->contains_batch({hashes.data(), n}, hit.data());
    for (size_t i = 0; i < n; ++i) {
      present += hit[i];
      if (absent && hit[i] == 0) {
        out.insert(out.end(), keys[i].begin(), keys[i].end());
        out.push_back('\n');
      }
    }
    if (out.size() >= kRead) {
      if (!write_all(out.data(), out.size())) std::exit(1);
      out.clear();
    }
    n = 0;
  };
  auto add = [&](const char* p, size_t len) {
    if (len == 0) return;
    keys[n] = std::string_view(p, len);
    hashes[n++] = XXH3_64bits_withSeed(p, len, seed);
    if (n == kBatch) probe();
  };
  for (;;) {
    if (have + kRead > buf.size()) buf.resize(have + kRead);  // a line longer than a read
    const ssize_t r = read(fd, buf.data() + have, kRead);
    if (r < 0) return 1;
    if (r == 0) break;
    const char* p = buf.data();
    const char* end = p + have + r;
    while (const char* nl = static_cast<const char*>(std::memchr(p, '\n', end - p))) {
      add(p, nl - p);
      p = nl + 1;
    }
    probe();  // the keys point into buf, which moves next
    have = end - p;
    std::memmove(buf.data(), p, have);
  }
  add(buf.data(), have);
  probe();
  if (!write_all(out.data(), out.size())) return 1;
  if (!absent) std::printf("%llu\n", static_cast<unsigned long long>(present));
  return 0;
}
