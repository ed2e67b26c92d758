// A built xor or binary fuse filter's file header and writing (xor_build.h).
#include <algorithm>

#include "base/word_buffer.h"
#include "filters/xor_build.h"

namespace bloomtool {

uint64_t XorBuild::write(const std::string& path, const WriteOptions& options) {
  const XorFilter& f = *built.filter;
  return write_filter_file(path, header, f.words(), f.words().size() * 8, options);
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
