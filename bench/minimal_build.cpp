// The least a one-thread Bloom build can do, as the yardstick for bloomtool's own (bench/run.sh):
// read() 1 MiB at a time (a pipe's buffer raised to 1 MiB, as bloomtool does), split lines with
// memchr, hash each with XXH3-64 and bloomtool's seed, and insert in batches of 4096 with the
// memory of later inserts prefetched: one cache line per key, 32 keys ahead (blocked), or k
// scattered bits per key, 64 positions ahead (standard). Nothing else: no threads, no options, no
// file written. The filter has bloomtool's m, k and bit layout, so its set-bit count, printed at
// the end, equals that of `bloomtool build --threads 1 -n N -p P` on the same input.
//
//   minimal_build standard|blocked FILE N P
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <vector>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "filters/bloom_build.h"
#include "keys/hash.h"

using bloomtool::mix64;
using bloomtool::reduce64;

namespace {

constexpr size_t kRead = size_t{1} << 20;
constexpr size_t kBatch = 4096;
constexpr size_t kAheadPositions = 64;
constexpr size_t kAheadBlocked = 32;  // keys

struct Filter {
  uint64_t* w;
  uint64_t m;
  uint32_t k;
  bool blocked;
  std::vector<uint64_t> pos;  // standard: one batch's positions

  template <typename Fn>
  void positions(uint64_t h, Fn&& fn) const {  // standard: enhanced double hashing
    uint64_t a = h, b = mix64(h) | 1;
    for (uint32_t i = 0; i < k; ++i) {
      fn(reduce64(a, m));
      a += b;
      b += i;
    }
  }
  uint64_t* block(uint64_t h) const { return w + reduce64(h, m / 512) * 8; }

  void insert(const uint64_t* h, size_t n) {
    if (blocked) {
      for (size_t j = 0; j < n; ++j) {
        if (j + kAheadBlocked < n) __builtin_prefetch(block(h[j + kAheadBlocked]), 1, 3);
        uint64_t* b = block(h[j]);
        uint64_t state = h[j] ^ 0x5851F42D4C957F2Dull, x = mix64(state);
        for (uint32_t i = 0, left = 7; i < k; ++i, --left, x >>= 9) {
          if (left == 0) x = mix64(state += 0x9E3779B97F4A7C15ull), left = 7;
          b[(x & 511) >> 6] |= uint64_t{1} << (x & 63);
        }
      }
    } else {
      // All the batch's positions first, then each set with the one kAheadPositions later
      // prefetched.
      pos.clear();
      for (size_t j = 0; j < n; ++j) positions(h[j], [&](uint64_t p) { pos.push_back(p); });
      for (size_t i = 0; i < pos.size(); ++i) {
        if (i + kAheadPositions < pos.size())
          __builtin_prefetch(&w[pos[i + kAheadPositions] >> 6], 1, 3);
        w[pos[i] >> 6] |= uint64_t{1} << (pos[i] & 63);
      }
    }
  }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: minimal_build standard|blocked FILE N P\n");
    return 2;
  }
  bloomtool::BloomPlan plan;
  plan.variant = std::string_view(argv[1]) == "blocked" ? bloomtool::BloomVariant::kBlocked512
                                                        : bloomtool::BloomVariant::kStandard;
  plan.capacity = std::strtoull(argv[3], nullptr, 10);
  plan.fpr = std::strtod(argv[4], nullptr);
  const bloomtool::model::BloomSize s = bloomtool::bloom_size_for(plan, *plan.capacity);
  Filter f;
  f.blocked = plan.variant == bloomtool::BloomVariant::kBlocked512;
  f.m = f.blocked ? (s.m_bits + 511) / 512 * 512 : s.m_bits;
  f.k = s.k;
  const size_t bytes = (f.m + 63) / 64 * 8;
  void* mem = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) return 1;
  madvise(mem, bytes, MADV_HUGEPAGE);
  f.w = static_cast<uint64_t*>(mem);

  const int fd = open(argv[2], O_RDONLY);
  if (fd < 0) return 1;
  fcntl(fd, F_SETPIPE_SZ, 1 << 20);  // a pipe's buffer as bloomtool raises it (a file: no effect)
  std::vector<char> buf(2 * kRead);
  std::vector<uint64_t> hashes(kBatch);
  size_t have = 0, n = 0;
  auto add = [&](const char* p, size_t len) {
    if (len == 0) return;
    hashes[n++] = XXH3_64bits_withSeed(p, len, bloomtool::kDefaultSeed);
    if (n == kBatch) f.insert(hashes.data(), n), n = 0;
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
    have = end - p;
    std::memmove(buf.data(), p, have);
  }
  add(buf.data(), have);
  f.insert(hashes.data(), n);
  uint64_t set = 0;
  for (size_t i = 0; i < bytes / 8; ++i) set += std::popcount(f.w[i]);
  std::printf("%s m=%llu k=%u bits set %llu\n", argv[1], static_cast<unsigned long long>(f.m), f.k,
              static_cast<unsigned long long>(set));
  return 0;
}
