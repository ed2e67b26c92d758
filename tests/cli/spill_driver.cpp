// Drives HashSpill (lib/src/format/hash_spill.h) for spill_test.sh.
//
//   spill_driver TMPDIR MEMORY N THREADS [EXPECTED]
//     Adds N pseudo-random hashes (the same for any THREADS; every tenth one twice) from THREADS
//     threads with MEMORY bytes of budget, EXPECTED telling the count up front; then reads the 16
//     partitions of 4 bits and prints "runs=R distinct=D checksum=C", C an order-free checksum of
//     what was read (the same for any MEMORY and THREADS).
//     N = 0: adds without end, printing "spilling" once the first run is in the file, then a
//     batch a millisecond, until a signal ends it.
//   Errors: "spill_driver: <message>" on stderr, exit 2.
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "bloomtool/error.h"
#include "format/hash_spill.h"

namespace {

uint64_t mix(uint64_t x) {
  uint64_t z = x * 0x9e3779b97f4a7c15ull + 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: spill_driver TMPDIR MEMORY N THREADS [EXPECTED]\n");
    return 2;
  }
  // A shell starts background commands with SIGINT ignored; the test sends it on purpose.
  ::signal(SIGINT, SIG_DFL);
  const uint64_t memory = std::strtoull(argv[2], nullptr, 10);
  const uint64_t n = std::strtoull(argv[3], nullptr, 10);
  const unsigned threads = static_cast<unsigned>(std::strtoul(argv[4], nullptr, 10));
  const uint64_t expected = argc > 5 ? std::strtoull(argv[5], nullptr, 10) : 0;
  try {
    bloomtool::HashSpill spill({memory, argv[1], expected}, threads);
    constexpr uint64_t kBatch = 1000;
    if (n == 0) {
      std::vector<uint64_t> batch(kBatch);
      bool told = false;
      for (uint64_t b = 0;; ++b) {
        for (uint64_t i = 0; i < kBatch; ++i) batch[i] = mix(b * kBatch + i);
        spill.add(static_cast<unsigned>(b % threads), batch);
        if (spill.spilled()) {
          if (!told) std::printf("spilling\n");
          std::fflush(stdout);
          told = true;
          ::usleep(1000);
        }
      }
    }
    auto work = [&](unsigned t) {
      std::vector<uint64_t> batch;
      for (uint64_t first = t * kBatch; first < n; first += threads * kBatch) {
        batch.clear();
        for (uint64_t i = first; i < std::min(n, first + kBatch); ++i) {
          batch.push_back(mix(i));
          if (i % 10 == 0) batch.push_back(mix(i));
        }
        spill.add(t, batch);
      }
    };
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work, t);
    work(0);
    for (auto& th : pool) th.join();
    spill.finish();
    uint64_t distinct = 0, sum = 0;
    std::vector<uint64_t> out;
    for (uint64_t p = 0; p < 16; ++p) {
      spill.read(4, p, out);
      distinct += out.size();
      for (uint64_t h : out) sum += mix(h);
    }
    std::printf("runs=%zu distinct=%llu checksum=%016llx\n", spill.runs(),
                static_cast<unsigned long long>(distinct), static_cast<unsigned long long>(sum));
  } catch (const bloomtool::Error& e) {
    std::fprintf(stderr, "spill_driver: %s\n", e.what());
    return 2;
  }
  return 0;
}
