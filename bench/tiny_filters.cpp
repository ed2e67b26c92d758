// Tiny standard Bloom filters: for n = 1..N keys and a few target rates, sizes each filter as
// `build` does, then prints the model's rate, the rate its bits imply, and a measured rate with
// its 95% interval and verdict (what `bloomtool stats --measure` reports). Usage:
// tiny_filters [PROBES] [MAX_N] [old | M K]   (defaults 1000000 and 20)
#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "filters/bloom.h"
#include "format/filter_file.h"
#include "keys/hash.h"
#include "model/model.h"
#include "analysis/stats.h"

using namespace bloomtool;

int main(int argc, char** argv) {
  const uint64_t probes = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1000000;
  const uint64_t max_n = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 20;
  // "old": size as earlier versions did (m = -n ln p / ln(2)^2, no minimum), to show old files.
  const bool old = argc > 3 && std::string(argv[3]) == "old";
  const uint64_t explicit_m = argc > 3 && !old ? std::strtoull(argv[3], nullptr, 10) : 0;
  const uint32_t explicit_k =
      argc > 4 ? static_cast<uint32_t>(std::strtoul(argv[4], nullptr, 10)) : 0;
  fmt::print("{:>3} {:>7} {:>6} {:>3} {:>10} {:>10} {:>10} {:>23} {:>10} {}\n", "n", "p", "m", "k",
             "model p", "fill p", "measured", "95% CI", "verdict", "fill check");
  int deviates = 0, gate_low = 0, rows = 0;
  for (const double p : {0.1, 0.01, 0.001}) {
    for (uint64_t n = 1; n <= max_n; ++n) {
      model::BloomSize s =
          explicit_m ? model::BloomSize{explicit_m, explicit_k} : model::standard_size(n, p);
      if (old) {
        const double m = std::max(1.0, std::ceil(model::bloom_optimal_bits(n, p)));
        s = {static_cast<uint64_t>(m), model::bloom_optimal_k(m, n)};
      }
      BloomFilter f(s.m_bits, s.k);
      std::vector<uint64_t> hashes;
      for (uint64_t i = 0; i < n; ++i)
        hashes.push_back(hash_key(fmt::format("key-{}-{}", n, i), kDefaultSeed));
      f.add_batch(hashes);
      FilterHeader h;
      h.kind = FilterKind::kBloom;
      h.variant = 0;
      h.m = f.bits();
      h.k = f.k();
      h.keys_added = n;
      h.distinct_estimate = n;
      h.seed = kDefaultSeed;
      const FilterStats st = compute_stats(h, f);
      const FprMeasurement m =
          measure_fpr(f, kDefaultSeed, probes, kDefaultProbeSeed, st.expected_fpr());
      ++rows;
      deviates += !m.consistent;
      gate_low += st.expected_fpr() < m.ci999.low;
      fmt::print(
          "{:>3} {:>7} {:>6} {:>3} {:>10.4g} {:>10.4g} {:>10.4g} {:>10.4g} - {:<10.4g} {:>10} {}\n",
          n, p, f.bits(), f.k(), st.model_fpr, st.expected_fpr(), m.rate, m.ci95.low, m.ci95.high,
          m.consistent ? "consistent" : "deviates",
          st.fill_check ? (st.fill_check->consistent ? "consistent" : "deviates") : "-");
    }
  }
  fmt::print("{} rows, {} deviate, {} with the gate rate below the 99.9% lower bound\n", rows,
             deviates, gate_low);
  return 0;
}
