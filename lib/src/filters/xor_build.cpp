// Xor and binary fuse filters from a key stream: each thread appends its batches' hashes to its
// own mapped buffer (together the same set, in an order that does not change the filter); the
// buffers go to build_xor_filter as they are (grouping reads them in place, so they are never
// joined into one array), which runs on as many threads as the stream.
#include <algorithm>

#include "base/word_buffer.h"
#include "filters/xor_build.h"

namespace bloomtool {

uint64_t XorBuild::write(const std::string& path, const WriteOptions& options) {
  const XorFilter& f = *built.filter;
  return write_filter_file(path, header, f.words(), f.words().size() * 8, options);
}

XorBuild build_xor(KeyStream& keys, const XorBuildOptions& options,
                   const BuildProvenance& provenance) {
  return build_xor(hashed_keys(keys), options, provenance);
}

XorBuild build_xor(const HashedKeys& keys, const XorBuildOptions& options,
                   const BuildProvenance& provenance) {
  XorBuild r;
  const unsigned threads = keys.threads;
  CollectedHashes hashes = collect_hashes(keys);
  r.input = hashes.input;
  XorBuildOptions o = options;
  o.threads = threads;
  o.hash_seed = keys.seed;
  r.built = build_xor_filter(hashes.parts, hashes.used, o);
  hashes.parts.clear();
  r.header = xor_file_header(xor_filter_kind(options.layout), r.built, keys.seed, r.input,
                             *keys.input, provenance);
  return r;
}

FilterHeader xor_file_header(FilterKind kind, const XorBuildResult& built, uint64_t seed,
                             const InputStats& input, const InputOptions& input_options,
                             const BuildProvenance& provenance) {
  const XorParams& p = built.filter->params();
  BuildFacts facts;
  facts.kind = kind;
  facts.seed = seed;
  facts.m = p.slots;
  facts.k = p.fingerprint_bits;
  facts.kind_params = p.kind_params();
  facts.distinct = built.distinct;
  return make_filter_header(facts, input, input_options, provenance);
}

}  // namespace bloomtool
