// `bloomtool merge`: the union (or, with --intersect, the intersection) of Bloom filters of the
// same geometry, written atomically like `build` writes, with a summary on stderr. The union of
// filters built from parts of a key set is bit for bit the filter of the whole set.
#include <memory>

#include "filters/bloom.h"
#include "bloomtool/error.h"
#include "api/merge.h"
#include "analysis/stats.h"
#include "common.h"
#include "units_cli.h"
#include "written_json.h"

namespace bloomtool::cli {

namespace {

struct MergeOptions {
  std::vector<std::string> filters;
  std::string output;
  bool intersect = false;
  OutputArgs out;
};

int run_merge(const MergeOptions& o) {
  if (o.filters.size() < 2) {
    throw Error(ErrorCode::kInvalidArgument, "merge: give at least two filter files");
  }
  const OutputArgs::Prepared out = o.out.prepare(o.filters, /*allow_in_place=*/true);
  const MergeOp op = o.intersect ? MergeOp::kIntersect : MergeOp::kUnion;

  MergedFilter merged = merge_filter_files(o.filters, op, out.provenance);
  const auto& h = merged.header;
  return publish(o.out, out, h.distinct_estimate, merged, [&](uint64_t file_bytes) {
    const bool uni = op == MergeOp::kUnion;
    // The rate these bits give, computed as `stats` computes it (exactly for small filters).
    BloomFillCounter fill(h.m, h.k, static_cast<BloomVariant>(h.variant));
    fill.add(merged.words.span());
    const double fill_fpr = fill.finish().fpr;
    if (o.out.json) {
      WrittenFacts f;
      f.command = uni ? "merge" : "merge --intersect";
      f.header = &h;
      f.file_bytes = file_bytes;
      f.set_bits = merged.set_bits;
      f.fill_fpr = fill_fpr;
      f.inputs = o.filters;
      return print_written_json(o.out, f);
    }
    fmt::print(stderr,
               "bloomtool: wrote {}: {} of {} bloom ({}) filters\n"
               "  m               {}\n"
               "  k               {}\n"
               "  bits set        {} ({:.2f}%)\n"
               "  lines read      {} (sum over the inputs)\n"
               "  keys added      {} ({})\n"
               "  distinct keys   {} (estimated from the fill{})\n"
               "  fill p          {:.6g} (false-positive rate of these bits)\n"
               "  file size       {} ({} bytes)\n",
               o.out.name(), uni ? "union" : "intersection", o.filters.size(),
               bloom_variant_name(static_cast<BloomVariant>(h.variant)), format_bits(h.m), h.k,
               merged.set_bits,
               100.0 * static_cast<double>(merged.set_bits) / static_cast<double>(h.m),
               h.lines_read, h.keys_added,
               uni ? "sum over the inputs: an upper bound" : "the smallest input's: an upper bound",
               h.distinct_estimate, uni ? "" : "; approximate for an intersection", fill_fpr,
               format_bytes(file_bytes), file_bytes);
  });
}

}  // namespace

Command register_merge(CLI::App& root) {
  auto o = std::make_shared<MergeOptions>();
  CLI::App* app = root.add_subcommand(
      "merge",
      "Union (or intersection) of Bloom filters of the same geometry: build shards, then merge");
  app->add_option(
         "filters", o->filters,
         "Two or more Bloom filter files with the same variant, m, k, seed and key options "
         "('-': one of them from stdin)")
      ->required()
      ->type_name("FILTER");
  o->out.add_output(*app);
  app->add_flag("--intersect", o->intersect,
                "Keep only the bits set in every input (AND) instead of in any input (OR)");
  o->out.add_to(*app, "Free text stored in the file (default: none)", "Print nothing but errors");
  return {app, [o] { return run_merge(*o); }};
}

}  // namespace bloomtool::cli
