// HashSpill (lib/src/format/hash_spill.h) on its own: collecting random hashes within a memory
// budget and reading every partition back.
//
//   spill_bench N MEMORY THREADS BITS [TMPDIR]
//     N random 64-bit hashes (splitmix64, the same for any THREADS), added in batches of 4,096
//     from THREADS threads, with MEMORY bytes of budget (0: no limit); then the 2^BITS partitions
//     read back on THREADS threads. Prints one line: seconds adding (finish() included), seconds
//     reading, runs, spill bytes, distinct hashes read and an order-free checksum of them (the
//     same for any MEMORY and THREADS), and the peak RSS (ru_maxrss). Run under /usr/bin/time -v
//     for the kernel's own figure.
#include <sys/resource.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "format/hash_spill.h"

namespace {

uint64_t mix(uint64_t x) {
  uint64_t z = x * 0x9e3779b97f4a7c15ull + 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: spill_bench N MEMORY THREADS BITS [TMPDIR]\n");
    return 2;
  }
  const uint64_t n = std::strtoull(argv[1], nullptr, 10);
  const uint64_t memory = std::strtoull(argv[2], nullptr, 10);
  const unsigned threads = static_cast<unsigned>(std::strtoul(argv[3], nullptr, 10));
  const unsigned bits = static_cast<unsigned>(std::strtoul(argv[4], nullptr, 10));
  const std::string tmpdir = argc > 5 ? argv[5] : "";
  try {
    bloomtool::HashSpill spill({memory, tmpdir, n}, threads);
    const auto t0 = std::chrono::steady_clock::now();
    constexpr uint64_t kBatch = 4096;
    const uint64_t batches = (n + kBatch - 1) / kBatch;
    std::atomic<uint64_t> next{0};
    auto work = [&](unsigned t) {
      std::vector<uint64_t> batch(kBatch);
      for (uint64_t b; (b = next.fetch_add(1)) < batches;) {
        const uint64_t first = b * kBatch, len = std::min(kBatch, n - first);
        for (uint64_t i = 0; i < len; ++i) batch[i] = mix(first + i);
        spill.add(t, {batch.data(), len});
      }
    };
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work, t);
    work(0);
    for (auto& th : pool) th.join();
    spill.finish();
    const double add_s = seconds_since(t0);

    const auto t1 = std::chrono::steady_clock::now();
    std::atomic<uint64_t> part{0}, distinct{0}, sum{0};
    auto read = [&] {
      std::vector<uint64_t> out;
      uint64_t d = 0, s = 0;
      for (uint64_t p; (p = part.fetch_add(1)) < (uint64_t{1} << bits);) {
        spill.read(bits, p, out);
        d += out.size();
        for (uint64_t h : out) s += mix(h);
      }
      distinct += d;
      sum += s;
    };
    pool.clear();
    for (unsigned t = 1; t < threads; ++t) pool.emplace_back(read);
    read();
    for (auto& th : pool) th.join();
    const double read_s = seconds_since(t1);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    std::printf(
        "n=%llu memory=%llu threads=%u bits=%u add+finish=%.2fs read=%.2fs runs=%zu "
        "spill_bytes=%llu distinct=%llu checksum=%016llx peak_rss=%.1fMiB\n",
        static_cast<unsigned long long>(n), static_cast<unsigned long long>(memory), threads, bits,
        add_s, read_s, spill.runs(), static_cast<unsigned long long>(spill.spill_bytes()),
        static_cast<unsigned long long>(distinct.load()),
        static_cast<unsigned long long>(sum.load()), ru.ru_maxrss / 1024.0);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "spill_bench: %s\n", e.what());
    return 2;
  }
  return 0;
}
