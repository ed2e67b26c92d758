// Ribbon filters against binary fuse 8 and standard Bloom, in memory, from precomputed random
// 64-bit key hashes (the hashing every kind shares is left out).
//
//   ribbon_bench compare N RATE [REPS]   one line per kind: bits/key of the payload, build and
//                                        query ns/key (median of REPS runs, default 5; queries
//                                        of N non-members through contains_batch), measured
//                                        false-positive rate over the N non-members, and the
//                                        lower bound n log2(1/p) of the rate measured
//   ribbon_bench rate N RATE PROBES      a Ribbon filter's bits/key, modelled rate, redundant
//                                        keys, its layers and measured rate over PROBES
//                                        non-members
//
// compare shows bumped Ribbon ("ribbon") and standard Ribbon ("ribbon0"); rate and attempts build
// bumped Ribbon unless RIBBON_VARIANT=0, on RIBBON_THREADS threads (default 1).
//
// Keys are splitmix64 outputs of 1..N; non-members of 2^62 + 1.. (distinct from the keys).
#include <time.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "filters/bloom.h"
#include "filters/ribbon_construct.h"
#include "filters/xor_construct.h"
#include "keys/hash.h"
#include "model/model.h"

using namespace bloomtool;

namespace {

double now() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

std::vector<uint64_t> hashes(uint64_t first, uint64_t n) {
  std::vector<uint64_t> out(n);
  for (uint64_t i = 0; i < n; ++i) out[i] = mix64(first + i);
  return out;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Row {
  std::string name;
  double bits_per_key = 0, build_ns = 0, query_ns = 0, fpr = 0;
};

template <typename Build>
Row measure(const std::string& name, uint64_t n, int reps, Build build) {
  const std::vector<uint64_t> keys = hashes(1, n);
  const std::vector<uint64_t> others = hashes(uint64_t{1} << 62, n);
  std::vector<double> b, q;
  Row row;
  row.name = name;
  std::vector<uint8_t> out(n);
  for (int r = 0; r < reps; ++r) {
    std::vector<uint64_t> copy = keys;
    const double t0 = now();
    std::unique_ptr<Filter> f = build(copy);
    b.push_back((now() - t0) * 1e9 / static_cast<double>(n));
    const double t1 = now();
    f->contains_batch(others, out.data());
    q.push_back((now() - t1) * 1e9 / static_cast<double>(n));
    const uint64_t fp = static_cast<uint64_t>(std::count(out.begin(), out.end(), 1));
    row.fpr = static_cast<double>(fp) / static_cast<double>(n);
    row.bits_per_key = static_cast<double>(f->words().size()) * 64.0 / static_cast<double>(n);
    f->contains_batch(keys, out.data());
    if (std::count(out.begin(), out.end(), 1) != static_cast<ptrdiff_t>(n)) {
      std::fprintf(stderr, "%s: false negatives\n", name.c_str());
      std::exit(1);
    }
  }
  row.build_ns = median(b);
  row.query_ns = median(q);
  return row;
}

RibbonBuildOptions ribbon_options(double rate) {
  RibbonBuildOptions o;
  o.rate = rate;
  const char* v = std::getenv("RIBBON_VARIANT");
  o.variant = v != nullptr ? static_cast<uint32_t>(std::atoi(v)) : 1;
  const char* t = std::getenv("RIBBON_THREADS");
  o.threads = t != nullptr ? static_cast<unsigned>(std::atoi(t)) : 1;
  return o;
}

int compare(uint64_t n, double rate, int reps) {
  std::vector<Row> rows;
  for (const uint32_t variant : {1u, 0u}) {
    rows.push_back(
        measure(variant == 1 ? "ribbon" : "ribbon0", n, reps, [&](std::vector<uint64_t>& h) {
          RibbonBuildOptions o = ribbon_options(rate);
          o.variant = variant;
          return std::unique_ptr<Filter>(std::move(build_ribbon_filter(h, o).filter));
        }));
  }
  rows.push_back(measure("fuse8", n, reps, [&](std::vector<uint64_t>& h) {
    XorBuildOptions o;
    return std::unique_ptr<Filter>(std::move(build_xor_filter(h, o).filter));
  }));
  rows.push_back(measure("bloom", n, reps, [&](std::vector<uint64_t>& h) {
    const model::BloomSize s = model::standard_size(n, rate);
    auto f = std::make_unique<BloomFilter>(s.m_bits, s.k);
    f->add_batch(h);
    return std::unique_ptr<Filter>(std::move(f));
  }));
  std::printf("%-8s %10s %10s %10s %12s %10s %8s\n", "kind", "bits/key", "build ns", "query ns",
              "measured p", "bound", "ratio");
  for (const Row& r : rows) {
    const double bound = std::log2(1.0 / r.fpr);
    std::printf("%-8s %10.3f %10.1f %10.1f %12.6f %10.3f %8.4f\n", r.name.c_str(), r.bits_per_key,
                r.build_ns, r.query_ns, r.fpr, bound, r.bits_per_key / bound);
  }
  return 0;
}

int rate(uint64_t n, double p, uint64_t probes) {
  std::vector<uint64_t> keys = hashes(1, n);
  const RibbonBuildOptions o = ribbon_options(p);
  const double t0 = now();
  RibbonBuildResult r = build_ribbon_filter(keys, o);
  const double build = now() - t0;
  const RibbonParams& rp = r.filter->params();
  uint64_t fp = 0;
  std::vector<uint8_t> out(1 << 20);
  for (uint64_t done = 0; done < probes; done += out.size()) {
    const uint64_t m = std::min<uint64_t>(out.size(), probes - done);
    const std::vector<uint64_t> others = hashes((uint64_t{1} << 62) + done, m);
    r.filter->contains_batch(others, out.data());
    fp +=
        static_cast<uint64_t>(std::count(out.begin(), out.begin() + static_cast<ptrdiff_t>(m), 1));
  }
  const double measured = static_cast<double>(fp) / static_cast<double>(probes);
  const double bits = static_cast<double>(rp.solution_bits()) / static_cast<double>(n);
  std::string layers;
  for (size_t i = 0; i < rp.layers.size(); ++i) {
    const RibbonLayer& l = rp.layers[i];
    layers += " [" + std::to_string(r.layer_keys[i]) + " keys, " + std::to_string(l.slots) +
              " rows, fill " +
              std::to_string(
                  static_cast<double>(r.layer_keys[i] -
                                      (i + 1 < r.layer_keys.size() ? r.layer_keys[i + 1] : 0)) /
                  static_cast<double>(std::max<uint64_t>(l.slots, 1))) +
              ", upper " + std::to_string(l.upper_blocks) + "/" + std::to_string(l.blocks()) +
              ", bumped starts " + std::to_string(l.bumped) + "]";
  }
  std::printf(
      "n=%llu p=%g slots/key=%.4f r=%u layers=%s bits/key=%.4f bound=%.4f ratio=%.4f "
      "model=%.6g measured=%.6g (x%.4f) redundant=%llu attempts=%u band=%.3fs solve=%.3fs "
      "total=%.3fs\n",
      static_cast<unsigned long long>(n), p, static_cast<double>(rp.slots) / static_cast<double>(n),
      rp.columns, layers.c_str(), bits, std::log2(1.0 / p), bits / std::log2(1.0 / p),
      ribbon_model_rate(rp), measured, measured / ribbon_model_rate(rp),
      static_cast<unsigned long long>(r.redundant), r.attempts, r.band_seconds, r.solve_seconds,
      build);
  return 0;
}

// Builds TRIALS filters of N keys from different key sets; prints the share of first attempts
// that succeeded and the most attempts any build took.
int attempts(uint64_t n, double p, int trials) {
  int first = 0;
  uint32_t most = 0;
  double band = 0;
  for (int t = 0; t < trials; ++t) {
    std::vector<uint64_t> keys = hashes((uint64_t{static_cast<unsigned>(t)} + 1) << 40, n);
    const RibbonBuildOptions o = ribbon_options(p);
    RibbonBuildResult r;
    try {
      r = build_ribbon_filter(keys, o);
    } catch (const RibbonConstructionError& e) {
      std::printf("trial %d: %s\n", t, e.what());
      continue;
    }
    first += r.attempts == 1;
    if (std::getenv("RIBBON_VERBOSE")) std::printf("trial %d attempts %u\n", t, r.attempts);
    most = std::max(most, r.attempts);
    band += r.band_seconds;
  }
  std::printf("n=%llu p=%g first-attempt success %d/%d, most attempts %u, band %.1f ns/key\n",
              static_cast<unsigned long long>(n), p, first, trials, most,
              band * 1e9 / (static_cast<double>(n) * trials));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "compare" && argc >= 4)
    return compare(std::strtoull(argv[2], nullptr, 10), std::atof(argv[3]),
                   argc > 4 ? std::atoi(argv[4]) : 5);
  if (mode == "rate" && argc == 5)
    return rate(std::strtoull(argv[2], nullptr, 10), std::atof(argv[3]),
                std::strtoull(argv[4], nullptr, 10));
  if (mode == "attempts" && argc == 5)
    return attempts(std::strtoull(argv[2], nullptr, 10), std::atof(argv[3]), std::atoi(argv[4]));
  std::fprintf(
      stderr,
      "usage: ribbon_bench compare N RATE [REPS] | rate N RATE PROBES | attempts N RATE TRIALS\n");
  return 2;
}
