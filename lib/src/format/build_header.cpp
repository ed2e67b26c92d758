// Filling in the header of a newly built filter from the facts of its build, so that every
// builder records the same fields the same way.
#include "format/build_header.h"

#include "bloomtool/version.h"
#include "keys/hash.h"

namespace bloomtool {

void stamp_provenance(FilterHeader& header, const BuildProvenance& provenance) {
  header.created_unix = provenance.created_unix;
  header.tool_version = std::string("bloomtool ") + kToolVersion;
  header.label = provenance.label;
}

FilterHeader make_filter_header(const BuildFacts& facts, const InputStats& stats,
                                const InputOptions& input, const BuildProvenance& provenance) {
  FilterHeader h;
  h.kind = facts.kind;
  h.variant = facts.variant;
  h.hash_id = kHashXxh3_64;
  h.seed = facts.seed;
  h.m = facts.m;
  h.k = facts.k;
  h.kind_params = facts.kind_params;
  h.lines_read = stats.lines;
  h.keys_added = stats.keys;
  h.empty_lines = stats.empty_lines;
  h.distinct_estimate = facts.distinct;
  stamp_provenance(h, provenance);
  h.normalisation = input.normaliser.to_string();
  h.input_options = input_options_text(input);
  return h;
}

}  // namespace bloomtool
