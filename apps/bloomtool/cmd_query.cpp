// `bloomtool query`: streams keys through a filter of any kind and prints the records that may be
// present (or, with --absent, those definitely absent), like grep: exit 0 if anything matched,
// 1 if nothing did, 2 on error.
#include <memory>

#include "bloomtool/hash.h"
#include "bloomtool/load_filter.h"
#include "common.h"

namespace bloomtool::cli {

namespace {

struct QueryOptions {
  std::string filter;
  bool absent = false;
  bool count = false;
  bool quiet = false;
  InputArgs input;
};

int run_query(const QueryOptions& o) {
  const InputOptions input_options = o.input.options();
  const LoadedFilter loaded = load_filter(o.filter);
  const uint64_t seed = loaded.header.seed;

  KeyReader reader(o.input.inputs, input_options);
  KeyBatch batch;
  std::vector<uint64_t> hashes;
  std::vector<uint8_t> found;
  StdoutWriter out;
  uint64_t matched = 0;
  const uint8_t want = o.absent ? 0 : 1;
  const bool print = !o.quiet && !o.count;
  while (reader.next(batch)) {
    const size_t n = batch.keys.size();
    hashes.resize(n);
    found.resize(n);
    for (size_t i = 0; i < n; ++i) hashes[i] = hash_key(batch.keys[i], seed);
    loaded.filter->contains_batch(hashes, found.data());
    for (size_t i = 0; i < n; ++i) {
      if (found[i] != want) continue;
      ++matched;
      if (o.quiet) return kExitOk;  // like grep -q: the answer is known
      if (print) out.line(batch.records[i]);
    }
  }
  if (o.count) out.line(std::to_string(matched));
  out.flush();
  return matched != 0 ? kExitOk : kExitNegative;
}

}  // namespace

Command register_query(CLI::App& root) {
  auto o = std::make_shared<QueryOptions>();
  CLI::App* app = root.add_subcommand(
      "query", "Print the input keys a filter may contain (or, with --absent, lacks)");
  app->add_option("filter", o->filter, "Filter file (any kind bloomtool writes)")
      ->required()
      ->type_name("FILTER");
  app->add_flag("--absent,-v", o->absent, "Print the keys that are definitely absent instead");
  app->add_flag("-c,--count", o->count, "Print only the number of matching keys");
  app->add_flag("-q,--quiet", o->quiet, "Print nothing; exit 0 at the first match");
  o->input.add_to(*app, "Key files ('-' or none: stdin); zstd-compressed files are recognised");
  return {app, [o] { return run_query(*o); }};
}

}  // namespace bloomtool::cli
