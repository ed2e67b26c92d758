// LSD radix sort of 64-bit hashes followed by an in-place unique pass. Passes whose byte is the
// same for every element are skipped, which makes small or clustered inputs cheaper.
#include "bloomtool/hash_sort.h"

#include <algorithm>
#include <array>

namespace bloomtool {

void sort_unique(std::vector<uint64_t>& hashes) {
  const size_t n = hashes.size();
  if (n < 256) {
    std::sort(hashes.begin(), hashes.end());
  } else {
    std::vector<std::array<size_t, 256>> counts(8);
    for (auto& c : counts) c.fill(0);
    for (uint64_t h : hashes) {
      for (int b = 0; b < 8; ++b) ++counts[b][(h >> (8 * b)) & 0xFF];
    }
    std::vector<uint64_t> scratch(n);
    uint64_t* src = hashes.data();
    uint64_t* dst = scratch.data();
    for (int b = 0; b < 8; ++b) {
      auto& c = counts[b];
      if (std::any_of(c.begin(), c.end(), [n](size_t x) { return x == n; })) continue;
      size_t sum = 0;
      for (auto& x : c) {
        const size_t t = x;
        x = sum;
        sum += t;
      }
      const int shift = 8 * b;
      for (size_t i = 0; i < n; ++i) dst[c[(src[i] >> shift) & 0xFF]++] = src[i];
      std::swap(src, dst);
    }
    if (src != hashes.data()) std::copy(src, src + n, hashes.data());
  }
  hashes.erase(std::unique(hashes.begin(), hashes.end()), hashes.end());
}

}  // namespace bloomtool
