// The verdict on a healthy filter at high precision: a 10,000-key standard filter at p = 1%,
// measured with SEEDS probe seeds of PROBES generated keys each (`stats --measure PROBES --seed
// S`); prints how many say "deviates" (expected: about 0.1%). Usage: verdict_seeds [PROBES] [SEEDS]
#include <fmt/format.h>

#include <cstdlib>
#include <string>

#include "filters/bloom.h"
#include "keys/hash.h"
#include "model/model.h"
#include "analysis/stats.h"

using namespace bloomtool;

int main(int argc, char** argv) {
  const uint64_t probes = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 20000000;
  const uint64_t seeds = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 100;
  const model::BloomSize s = model::standard_size(10000, 0.01);
  BloomFilter f(s.m_bits, s.k);
  for (int i = 0; i < 10000; ++i) f.add(hash_key(std::to_string(i), kDefaultSeed));
  const BloomFill fill = bloom_fill(f);
  uint64_t dev_fill = 0, dev_model = 0;
  const double model_p = model::bloom_fpr(static_cast<double>(s.m_bits), 10000, s.k);
  for (uint64_t seed = 1; seed <= seeds; ++seed) {
    const FprMeasurement m = measure_fpr(f, kDefaultSeed, probes, seed, fill.fpr);
    dev_fill += !m.consistent;
    dev_model += !m.ci999.contains(model_p);
  }
  fmt::print("m={} k={} fill p {:.6g} model p {:.6g}: {} of {} seeds x {} probes deviate from the "
             "fill's rate ({} would deviate from the model's)\n",
             s.m_bits, s.k, fill.fpr, model_p, dev_fill, seeds, probes, dev_model);
  return 0;
}
