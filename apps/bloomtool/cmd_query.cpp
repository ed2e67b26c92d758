// `bloomtool query`: streams keys through a filter of any kind and prints the records that may be
// present (or, with --absent, those definitely absent), like grep: exit 0 if anything matched,
// 1 if nothing did, 2 on error.
#include <algorithm>
#include <memory>

#include "bloomtool/batch_pipeline.h"
#include "bloomtool/hash.h"
#include "bloomtool/load_filter.h"
#include "bloomtool/normalise.h"
#include "common.h"
#include "progress.h"

namespace bloomtool::cli {

namespace {

struct QueryOptions {
  std::string filter;
  bool absent = false;
  bool count = false;
  bool quiet = false;
  unsigned threads = 0;
  InputArgs input;
};

int run_query(const QueryOptions& o) {
  InputOptions input_options = o.input.options();
  const LoadedFilter loaded = load_filter(o.filter);
  const uint64_t seed = loaded.header.seed;
  // Keys are shaped the way they were when the filter was built.
  input_options.normaliser = Normaliser::parse(loaded.header.normalisation, o.filter);

  KeyReader reader(o.input.inputs, input_options);
  const bool show_progress = want_progress(o.input.progress, o.quiet, !o.count);
  Progress progress(reader, show_progress, o.input.progress);
  StdoutWriter out;
  uint64_t matched = 0;
  const uint8_t want = o.absent ? 0 : 1;
  const bool print = !o.quiet && !o.count;
  const Filter& filter = *loaded.filter;
  const unsigned threads = o.threads != 0 ? o.threads : default_thread_count();
  // Regular files are split at line ends into pieces of kQueryRangeBytes that all threads read
  // at once; results still come out in input order, a few pieces ahead at most.
  const std::vector<LineRange> ranges =
      show_progress ? std::vector<LineRange>{}
                    : plan_line_ranges(o.input.inputs, input_options, threads > 1 ? 1u << 20 : 1,
                                       kQueryRangeBytes);
  InputStats in = {};
  if (!ranges.empty()) {
    struct Scratch {
      std::vector<uint64_t> hashes;
      std::vector<uint8_t> flags;
    };
    std::vector<Scratch> scratch(threads);
    in = run_ordered_range_pipeline(
        o.input.inputs, ranges, input_options, threads, 2 * size_t{threads},
        [&](KeyBatch& b, unsigned t, std::string& piece) {
          // Printed records take at most the piece's size (plus a line past its nominal end):
          // one allocation per buffer, which the pipeline then reuses.
          if (print && piece.capacity() < kQueryRangeBytes + kQueryRangeBytes / 2)
            piece.reserve(kQueryRangeBytes + kQueryRangeBytes / 2);
          Scratch& s = scratch[t];
          const size_t n = b.keys.size();
          s.hashes.resize(n);
          s.flags.resize(n);
          for (size_t i = 0; i < n; ++i) s.hashes[i] = hash_key(b.keys[i], seed);
          filter.contains_batch(s.hashes, s.flags.data());
          for (size_t i = 0; i < n; ++i) {
            if (s.flags[i] != want) continue;
            // A piece's output: its matching records, one per line; only the count, or
            // nothing, when they are not printed.
            if (print) {
              piece.append(b.records[i]);
              piece.push_back('\n');
            } else {
              piece.push_back('\n');
            }
            if (o.quiet) return;
          }
        },
        [&](std::string& piece) {
          if (piece.empty()) return true;
          if (print) out.write(piece);
          matched += static_cast<uint64_t>(std::count(piece.begin(), piece.end(), '\n'));
          return !o.quiet;  // like grep -q: the answer is known
        });
  } else {
    run_batch_pipeline(
        reader, threads,
        [&](WorkBatch& b) {
          const size_t n = b.keys.size();
          b.hashes.resize(n);
          b.flags.resize(n);
          for (size_t i = 0; i < n; ++i) b.hashes[i] = hash_key(b.keys[i], seed);
          filter.contains_batch(b.hashes, b.flags.data());
        },
        [&](WorkBatch& b) {
          for (size_t i = 0; i < b.keys.size(); ++i) {
            if (b.flags[i] != want) continue;
            ++matched;
            if (o.quiet) return false;  // like grep -q: the answer is known
            if (print) out.line(b.records[i]);
          }
          progress.tick();
          return true;
        });
    in = reader.stats();
  }
  progress.finish();
  if (o.count) out.line(std::to_string(matched));
  out.flush();
  if (!o.quiet) report_bad_lines(in);
  return matched != 0 ? kExitOk : kExitNegative;
}

}  // namespace

Command register_query(CLI::App& root) {
  auto o = std::make_shared<QueryOptions>();
  CLI::App* app = root.add_subcommand(
      "query", "Print the input records whose key a filter may contain (or, with --absent, lacks)");
  app->add_option("filter", o->filter, "Filter file (any kind bloomtool writes)")
      ->required()
      ->type_name("FILTER");
  app->add_flag("--absent,-v", o->absent,
                "Print the records whose key is definitely absent instead");
  CLI::Option* count =
      app->add_flag("-c,--count", o->count, "Print only the number of matching records");
  CLI::Option* quiet =
      app->add_flag("-q,--quiet", o->quiet,
                    "Print nothing (no progress, no warnings); exit 0 at the first match");
  // --count -q would stop at the first match and could only print 1: refused rather than wrong.
  count->excludes(quiet);
  app->add_option("--threads", o->threads,
                  "Worker threads (default: all cores); output order is the input order")
      ->type_name("T");
  o->input.add_to(*app, "Key files ('-' or none: stdin); zstd-compressed files are recognised",
                  false);
  return {app, [o] { return run_query(*o); }};
}

}  // namespace bloomtool::cli
