// Should bloomtool add a split-block or a register-blocked Bloom layout next to its 512-bit
// blocked one? This measures the three at the same memory: insert and query time per key and the
// false-positive rate each reaches, for N keys (default 10,000,000) at the size bloomtool's
// blocked variant picks for p = 1 %.
//
//   layout_bench [N] [REPS] [SCALE]
//
// SCALE (default 1) gives split256 and reg64 SCALE times the memory, to find what they need to
// match blocked512's rate.
//
// blocked512  bloomtool's variant (BloomFilter, --variant blocked): one 512-bit block per key,
//             k bits in it from a splitmix64 stream.
// split256    split-block (as in Apache Parquet / Impala): one 256-bit block per key, one bit
//             in each of its eight 32-bit words, each from a 32-bit multiply (k = 8 fixed).
// reg64       register-blocked: one 64-bit word per key, k bits in it (k from the blocked model).
//
// Keys are random 64-bit hashes (splitmix64 of a counter); non-members are disjoint ones.
// Times are best-of-REPS CPU time of one thread, inserts and queries in batches with the
// block of key i + 32 prefetched.
#include <time.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "filters/bloom.h"
#include "keys/hash.h"
#include "model/model.h"
#include "base/word_buffer.h"

using namespace bloomtool;

namespace {

constexpr size_t kAhead = 32;

double cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// Split-block: 8 x 32-bit words per 256-bit block; word i gets bit (salt_i * h32) >> 27.
constexpr uint32_t kSalt[8] = {0x47b6137bU, 0x44974d91U, 0x8824ad5bU, 0xa2b7289dU,
                               0x705495c7U, 0x2df1424bU, 0x9efc4947U, 0x5c6bfb31U};

struct Split256 {
  explicit Split256(uint64_t m_bits) : blocks(m_bits / 256), words(blocks * 4) {}
  uint64_t blocks;
  WordBuffer words;
  uint32_t* block(uint64_t h) {
    return reinterpret_cast<uint32_t*>(words.data()) + reduce64(h, blocks) * 8;
  }
  void add(uint64_t h) {
    uint32_t* b = block(h);
    const uint32_t x = static_cast<uint32_t>(h);
    for (int i = 0; i < 8; ++i) b[i] |= uint32_t{1} << ((kSalt[i] * x) >> 27);
  }
  bool contains(uint64_t h) {
    const uint32_t* b = block(h);
    const uint32_t x = static_cast<uint32_t>(h);
    uint32_t missing = 0;
    for (int i = 0; i < 8; ++i) missing |= (uint32_t{1} << ((kSalt[i] * x) >> 27)) & ~b[i];
    return missing == 0;
  }
  const void* line(uint64_t h) { return block(h); }
};

// Register-blocked: one 64-bit word per key; k bit positions of 6 bits each from mix64(h).
struct Reg64 {
  Reg64(uint64_t m_bits, uint32_t k) : count(m_bits / 64), k(k), words(count) {}
  uint64_t count;
  uint32_t k;
  WordBuffer words;
  uint64_t mask(uint64_t h) const {
    uint64_t x = mix64(h), m = 0;
    for (uint32_t i = 0; i < k; ++i) {
      if (i % 10 == 9) x = mix64(x);
      m |= uint64_t{1} << (x & 63);
      x >>= 6;
    }
    return m;
  }
  uint64_t* word(uint64_t h) { return words.data() + reduce64(h, count); }
  void add(uint64_t h) { *word(h) |= mask(h); }
  bool contains(uint64_t h) { return (mask(h) & ~*word(h)) == 0; }
  const void* line(uint64_t h) { return word(h); }
};

template <typename F>
void run(const char* name, F& f, const std::vector<uint64_t>& keys,
         const std::vector<uint64_t>& others, double& insert_ns, double& query_ns, double& fpr) {
  const size_t n = keys.size();
  double t0 = cpu_seconds();
  for (size_t i = 0; i < n; ++i) {
    if (i + kAhead < n) __builtin_prefetch(f.line(keys[i + kAhead]), 1, 3);
    f.add(keys[i]);
  }
  insert_ns = std::min(insert_ns, (cpu_seconds() - t0) * 1e9 / static_cast<double>(n));
  uint64_t found = 0, fp = 0;
  for (uint64_t h : keys) found += f.contains(h);
  t0 = cpu_seconds();
  for (size_t i = 0; i < others.size(); ++i) {
    if (i + kAhead < others.size()) __builtin_prefetch(f.line(others[i + kAhead]), 0, 3);
    fp += f.contains(others[i]);
  }
  query_ns = std::min(query_ns, (cpu_seconds() - t0) * 1e9 / static_cast<double>(others.size()));
  fpr = static_cast<double>(fp) / static_cast<double>(others.size());
  if (found != n) {
    std::fprintf(stderr, "%s: %llu false negatives\n", name,
                 static_cast<unsigned long long>(n - found));
    std::exit(1);
  }
}

// BloomFilter's own batched calls (they prefetch internally).
struct Blocked512 {
  Blocked512(uint64_t m_bits, uint32_t k) : f(m_bits, k, BloomVariant::kBlocked512) {}
  BloomFilter f;
};

}  // namespace

int main(int argc, char** argv) {
  const uint64_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 10000000;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 3;
  const double scale = argc > 3 ? std::atof(argv[3]) : 1.0;
  std::vector<uint64_t> keys(n), others(n);
  for (uint64_t i = 0; i < n; ++i) {
    keys[i] = mix64(2 * i + 1);
    others[i] = mix64(2 * i + 2);
  }
  const model::BloomSize s = model::blocked_size(n, 0.01);
  const uint64_t m = BloomFilter::effective_bits(s.m_bits, BloomVariant::kBlocked512);
  const double bits_per_key = static_cast<double>(m) / static_cast<double>(n);
  // Optimal k for a word-sized block is about the standard filter's (m/n) ln 2.
  const uint32_t reg_k = static_cast<uint32_t>(std::lround(bits_per_key * std::log(2.0)));
  std::printf(
      "%llu keys, %llu bits (%.2f bits/key, bloomtool's blocked size for p = 1%%), "
      "best of %d, one thread\n",
      static_cast<unsigned long long>(n), static_cast<unsigned long long>(m), bits_per_key, reps);
  std::printf("| layout | k | insert ns/key | query ns/key (non-members) | measured FPR |\n");
  std::printf("|---|---:|---:|---:|---:|\n");

  {
    double ins = 1e9, qry = 1e9, fpr = 0;
    for (int r = 0; r < reps; ++r) {
      Blocked512 b(m, s.k);
      double t0 = cpu_seconds();
      b.f.add_batch(keys);
      ins = std::min(ins, (cpu_seconds() - t0) * 1e9 / static_cast<double>(n));
      std::vector<uint8_t> out(n);
      b.f.contains_batch(keys, out.data());
      if (std::count(out.begin(), out.end(), 1) != static_cast<long>(n)) return 1;
      t0 = cpu_seconds();
      b.f.contains_batch(others, out.data());
      qry = std::min(qry, (cpu_seconds() - t0) * 1e9 / static_cast<double>(n));
      fpr = static_cast<double>(std::count(out.begin(), out.end(), 1)) / static_cast<double>(n);
    }
    std::printf("| blocked512 (bloomtool), %.2f bits/key | %u | %.1f | %.1f | %.5f |\n",
                bits_per_key, s.k, ins, qry, fpr);
  }
  {
    double ins = 1e9, qry = 1e9, fpr = 0;
    for (int r = 0; r < reps; ++r) {
      Split256 f(static_cast<uint64_t>(static_cast<double>(m) * scale));
      run("split256", f, keys, others, ins, qry, fpr);
    }
    std::printf("| split256, %.2f bits/key | 8 | %.1f | %.1f | %.5f |\n", bits_per_key * scale, ins,
                qry, fpr);
  }
  {
    double ins = 1e9, qry = 1e9, fpr = 0;
    for (int r = 0; r < reps; ++r) {
      Reg64 f(static_cast<uint64_t>(static_cast<double>(m) * scale), reg_k);
      run("reg64", f, keys, others, ins, qry, fpr);
    }
    std::printf("| reg64, %.2f bits/key | %u | %.1f | %.1f | %.5f |\n", bits_per_key * scale, reg_k,
                ins, qry, fpr);
  }
  std::printf("standard Bloom filter model at these bits/key, optimal k: %.5f\n",
              model::bloom_fpr(static_cast<double>(m), static_cast<double>(n),
                               std::round(bits_per_key * std::log(2.0))));
  return 0;
}
