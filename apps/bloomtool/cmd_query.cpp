// `bloomtool query`: streams keys through a filter of any kind and prints the records that may be
// present (or, with --absent, those definitely absent), like grep: exit 0 if anything matched,
// 1 if nothing did, 2 on error.
#include <algorithm>
#include <cstdlib>
#include <memory>

#include "bloomtool/error.h"
#include "bloomtool/foreign_format.h"
#include "bloomtool/key_stream.h"
#include "bloomtool/load_filter.h"
#include "bloomtool/normalise.h"
#include "bloomtool/signature.h"
#include "common.h"
#include "progress.h"

namespace bloomtool::cli {

namespace {

struct QueryOptions {
  std::string filter;
  std::string from = "bloomtool";
  bool absent = false;
  bool count = false;
  bool quiet = false;
  unsigned threads = 0;
  std::string trusted_key;  // public key file; default BLOOMTOOL_TRUSTED_KEY
  InputArgs input;
};

// The filter, its signature verified first when a trusted key is given (--trusted-key, else a
// non-empty BLOOMTOOL_TRUSTED_KEY).
LoadedFilter load_query_filter(const QueryOptions& o) {
  const FileFormat from = for_flag("--from", [&] { return parse_file_format(o.from); });
  std::string source = "--trusted-key", key_path = o.trusted_key;
  if (key_path.empty()) {
    const char* env = std::getenv("BLOOMTOOL_TRUSTED_KEY");
    if (env == nullptr || *env == '\0') return load_filter_as(o.filter, from);
    source = "BLOOMTOOL_TRUSTED_KEY";
    key_path = env;
  }
  if (from != FileFormat::kBloomtool) {
    throw Error(ErrorCode::kInvalidArgument,
                source + ": a " + file_format_name(from) + " file carries no signature to verify");
  }
  const PublicKey key = for_flag(source, [&] { return read_public_key(key_path); });
  return load_verified_filter(o.filter, key);
}

int run_query(const QueryOptions& o) {
  InputOptions input_options = o.input.options();
  const LoadedFilter loaded = load_query_filter(o);
  // Keys are shaped the way they were when the filter was built.
  input_options.normaliser = Normaliser::parse(loaded.header.normalisation, o.filter);
  KeyStreamOptions stream_options;
  stream_options.threads = o.threads;
  stream_options.seed = loaded.header.seed;
  std::unique_ptr<KeyStream> keys = open_key_stream(o.input.inputs, input_options, stream_options);

  Progress progress(*keys, want_progress(o.input.progress, o.quiet, !o.count), o.input.progress);
  StdoutWriter out;
  uint64_t matched = 0;
  const uint8_t want = o.absent ? 0 : 1;
  const bool print = !o.quiet && !o.count;
  const bool key_scheme = loaded.header.hash_id != kHashXxh3_64;
  std::vector<std::vector<uint8_t>> flags(keys->threads());
  // Each batch's output is its matching records, one per line; only the line ends when they are
  // not printed, so that the emitter can count them.
  const InputStats in = keys->for_each_ordered(
      [&](const HashedBatch& b, std::string& piece) {
        std::vector<uint8_t>& f = flags[b.thread];
        f.resize(b.hashes.size());
        // A raw file's chunks are verified before they answer: a bad one throws, and this batch
        // and every later one print nothing. A peer's scheme takes positions from the key bytes.
        if (key_scheme)
          filter_contains_keys(loaded, b.keys, f.data());
        else
          filter_contains_hashes(loaded, b.hashes, f.data());
        for (size_t i = 0; i < f.size(); ++i) {
          if (f[i] != want) continue;
          if (print) piece.append(b.records[i]);
          piece.push_back('\n');
          if (o.quiet) return;
        }
      },
      [&](std::string& piece) {
        if (piece.empty()) return true;
        if (print) out.write(piece);
        matched += static_cast<uint64_t>(std::count(piece.begin(), piece.end(), '\n'));
        return !o.quiet;  // like grep -q: the answer is known
      });
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
  app->add_option("--from", o->from,
                  "Format of FILTER: bloomtool (default), guava (BloomFilter.writeTo) or dcso "
                  "(DCSO bloom v1, plain or gzip)")
      ->type_name("FORMAT");
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
  app->add_option("--trusted-key", o->trusted_key,
                  "Answer only if FILTER is signed by the key of PUB and unaltered, else exit 2 "
                  "(default: $BLOOMTOOL_TRUSTED_KEY when set)")
      ->type_name("PUB");
  o->input.add_to(*app, "Key files ('-' or none: stdin); zstd-compressed files are recognised",
                  false);
  app->footer(kTrustFooter);
  return {app, [o] { return run_query(*o); }};
}

}  // namespace bloomtool::cli
