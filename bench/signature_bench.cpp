// Cost of signing and verifying filter files (bench/signature_bench.sh): a Bloom filter sized for
// N keys at 1% (default 10,000,000) filled with N random hashes is written unsigned and signed,
// then read with and without its signature verified; and BLAKE2b-512 throughput over a large
// buffer, which is what verifying a raw (uncompressed) payload of any size costs per byte. Times
// are the best of R repetitions, in CPU time of this thread and wall clock.
//
//   signature_bench DIR [N] [R]     (DIR: a scratch directory for the files)
#include <sodium.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "filters/bloom.h"
#include "filters/bloom_build.h"
#include "keys/hash.h"
#include "api/load_filter.h"
#include "format/signature.h"

using namespace bloomtool;

namespace {

struct Times {
  double cpu = 1e300, wall = 1e300;
};

double cpu_now() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

template <class F>
Times best_of(int reps, F&& f) {
  Times t;
  for (int i = 0; i < reps; ++i) {
    const double c0 = cpu_now();
    const auto w0 = std::chrono::steady_clock::now();
    f();
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
    t.cpu = std::min(t.cpu, cpu_now() - c0);
    t.wall = std::min(t.wall, wall);
  }
  return t;
}

void row(const char* what, const Times& t) {
  std::printf("  %-44s cpu %9.2f ms   wall %9.2f ms\n", what, t.cpu * 1e3, t.wall * 1e3);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fputs("usage: signature_bench DIR [N] [REPS]\n", stderr);
    return 2;
  }
  const std::string dir = argv[1];
  const uint64_t n = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 10000000;
  const int reps = argc > 3 ? std::atoi(argv[3]) : 5;

  BloomPlan plan;
  plan.fpr = 0.01;
  const model::BloomSize size = bloom_size_for(plan, n);
  BloomFilter f(size.m_bits, size.k, BloomVariant::kStandard);
  for (uint64_t i = 0; i < n; ++i) f.add(mix64(i + 0x1234));
  FilterHeader h;
  h.kind = FilterKind::kBloom;
  h.hash_id = kHashXxh3_64;
  h.seed = kDefaultSeed;
  h.m = f.bits();
  h.k = f.k();
  h.distinct_estimate = n;

  std::array<uint8_t, kKeySeedBytes> seed{};
  seed[0] = 1;
  const SigningKey key(seed, "bench.key");
  const PublicKey pub = parse_public_key(
      [&] {
        static std::string t = public_key_file_text(key.public_key());
        return std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(t.data()), t.size());
      }(),
      "bench.pub");
  WriteOptions sign;
  sign.signing_key = &key;
  const std::string plain = dir + "/plain.bf", signed_path = dir + "/signed.bf";
  uint64_t bytes = 0;

  std::printf("bloom filter for %llu keys at 1%%: m = %llu bits (%.1f MiB), k = %u\n",
              static_cast<unsigned long long>(n), static_cast<unsigned long long>(h.m),
              static_cast<double>(f.words().size() * 8) / (1 << 20), h.k);
  const Times w_plain = best_of(reps, [&] {
    FilterHeader c = h;
    bytes = write_filter_file(plain, c, f.words(), f.words().size() * 8);
  });
  const Times w_signed = best_of(reps, [&] {
    FilterHeader c = h;
    write_filter_file(signed_path, c, f.words(), f.words().size() * 8, sign);
  });
  std::printf("file: %llu bytes\n", static_cast<unsigned long long>(bytes));
  row("write, unsigned", w_plain);
  row("write, signed (--sign)", w_signed);
  row("  signing: the difference", {w_signed.cpu - w_plain.cpu, w_signed.wall - w_plain.wall});
  const Times r_plain = best_of(reps, [&] { load_filter(plain); });
  const Times r_signed = best_of(reps, [&] { load_verified_filter(signed_path, pub); });
  row("load, no key", r_plain);
  row("load, signature verified (--trusted-key)", r_signed);
  row("  verifying: the difference", {r_signed.cpu - r_plain.cpu, r_signed.wall - r_plain.wall});

  // BLAKE2b-512 over 256 MiB in memory: the per-byte cost of verifying a raw payload.
  std::vector<uint8_t> big(size_t{256} << 20, 0x5a);
  uint8_t digest[64];
  const Times hash = best_of(
      reps, [&] { crypto_generichash(digest, sizeof digest, big.data(), big.size(), nullptr, 0); });
  row("BLAKE2b-512 of 256 MiB", hash);
  std::printf("  BLAKE2b-512 throughput: %.2f GB/s (cpu), %.2f GB/s (wall)\n",
              static_cast<double>(big.size()) / hash.cpu / 1e9,
              static_cast<double>(big.size()) / hash.wall / 1e9);
  return 0;
}
