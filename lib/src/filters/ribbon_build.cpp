// A built Ribbon filter's file header and writing (ribbon_build.h).
#include <algorithm>

#include "base/word_buffer.h"
#include "filters/ribbon_build.h"

namespace bloomtool {

uint64_t RibbonBuild::write(const std::string& path, const WriteOptions& options) {
  const RibbonFilter& f = *built.filter;
  return write_filter_file(path, header, f.words(), f.words().size() * 8, options);
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
