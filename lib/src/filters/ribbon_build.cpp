// Ribbon filters from a key stream: each thread appends its batches' hashes to its own mapped
// buffer (together the same set, in an order that does not change the filter); the buffers go to
// build_ribbon_filter as they are, which runs its grouping on as many threads as the stream.
#include <algorithm>

#include "base/word_buffer.h"
#include "filters/ribbon_build.h"

namespace bloomtool {

uint64_t RibbonBuild::write(const std::string& path, const WriteOptions& options) {
  const RibbonFilter& f = *built.filter;
  return write_filter_file(path, header, f.words(), f.words().size() * 8, options);
}

RibbonBuild build_ribbon(KeyStream& keys, const RibbonBuildOptions& options,
                         const BuildProvenance& provenance) {
  return build_ribbon(hashed_keys(keys), options, provenance);
}

RibbonBuild build_ribbon(const HashedKeys& keys, const RibbonBuildOptions& options,
                         const BuildProvenance& provenance) {
  // The rate is checked before any key is read.
  (void)ribbon_params_for(0, options.rate);
  RibbonBuild r;
  const unsigned threads = keys.threads;
  CollectedHashes hashes = collect_hashes(keys);
  r.input = hashes.input;
  RibbonBuildOptions o = options;
  o.threads = threads;
  o.hash_seed = keys.seed;
  r.built = build_ribbon_filter(hashes.parts, hashes.used, o);
  hashes.parts.clear();
  r.header = ribbon_file_header(r.built, keys.seed, r.input, *keys.input, provenance);
  return r;
}

FilterHeader ribbon_file_header(const RibbonBuildResult& built, uint64_t seed,
                                const InputStats& input, const InputOptions& input_options,
                                const BuildProvenance& provenance) {
  const RibbonParams& p = built.filter->params();
  BuildFacts facts;
  facts.kind = FilterKind::kRibbon;
  facts.variant = p.variant;
  facts.seed = seed;
  facts.m = p.slots;
  facts.k = p.columns;
  facts.kind_params = p.kind_params();
  facts.distinct = built.distinct;
  return make_filter_header(facts, input, input_options, provenance);
}

}  // namespace bloomtool
