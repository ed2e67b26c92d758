// `bloomtool query`: streams keys through one filter, or several at once (-f, repeatable), of any
// kind and prints the records that may be present — in any of the filters, or with --all in every
// one; with --absent, the others — like grep: exit 0 if anything matched, 1 if nothing did, 2 on
// error. --which puts the names of the filters that may contain each record before it.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string_view>

#include "api/filter_set.h"
#include "bloomtool/error.h"
#include "common.h"
#include "format/signature.h"
#include "interop/foreign_format.h"
#include "json_writer.h"
#include "keys/key_stream.h"
#include "progress.h"
#include "query_filters.h"

namespace bloomtool::cli {

namespace {

struct QueryOptions {
  QueryFilterArgs filters;
  std::string from = "bloomtool";
  bool absent = false;
  bool all = false;
  bool which = false;
  bool count = false;
  bool json = false;
  bool quiet = false;
  unsigned threads = 0;
  std::string trusted_key;  // public key file; default BLOOMTOOL_TRUSTED_KEY
  InputArgs input;
};

// How each filter is loaded: read as --from says, its signature verified first when a trusted
// key is given (--trusted-key, else a non-empty BLOOMTOOL_TRUSTED_KEY).
std::function<LoadedFilter(const std::string&)> filter_loader(const QueryOptions& o) {
  const FileFormat from = for_flag("--from", [&] { return parse_file_format(o.from); });
  std::string source = "--trusted-key", key_path = o.trusted_key;
  if (key_path.empty()) {
    const char* env = std::getenv("BLOOMTOOL_TRUSTED_KEY");
    if (env == nullptr || *env == '\0')
      // A peer's trailing data block is read past, not kept: a query needs only the bits.
      return [from](const std::string& path) { return load_filter_as(path, from, false); };
    source = "BLOOMTOOL_TRUSTED_KEY";
    key_path = env;
  }
  if (from != FileFormat::kBloomtool) {
    throw Error(ErrorCode::kInvalidArgument,
                source + ": a " + file_format_name(from) + " file carries no signature to verify");
  }
  auto key = std::make_shared<const PublicKey>(
      for_flag(source, [&] { return read_public_key(key_path); }));
  return [key](const std::string& path) { return load_verified_filter(path, *key); };
}

// Appends the record's line for `--which`: the names of the filters that may contain key i,
// separated by commas (none: empty), a tab, then the record.
void append_which(std::string& piece, const FilterSetAnswers& a, size_t i,
                  const std::vector<std::string>& names) {
  bool first = true;
  for (size_t f = 0; f < names.size(); ++f) {
    if (a.hit(f, i) == 0) continue;
    if (!first) piece.push_back(',');
    piece.append(names[f]);
    first = false;
  }
  piece.push_back('\t');
}

// Runs `read()`; a filter file among the inputs (`query --absent d1.bf d2.bf` meant both as
// filters) is refused with the command line that asks it as a filter.
template <class F>
auto with_filter_hint(const QueryFilters& q, const QueryFilterArgs& args, F&& read) {
  try {
    return read();
  } catch (const FilterAsKeysError& e) {
    std::string hint;
    if (!args.flagged.empty()) {
      hint = "to ask it as a filter too, add -f " + e.input();
    } else {
      hint = "to ask several filters, end them with '--': bloomtool query";
      for (const std::string& p : q.paths) hint += " " + p;
      hint += " " + e.input() + " -- INPUT... ('-' for stdin)";
    }
    throw Error(e.code(), std::string(e.what()) + "; " + hint);
  }
}

// A piece of query output starts with its count of matching records, in host byte order.
constexpr size_t kCountBytes = sizeof(uint64_t);
uint64_t piece_count(const std::string& piece) noexcept {
  uint64_t n = 0;
  if (piece.size() >= kCountBytes) std::memcpy(&n, piece.data(), kCountBytes);
  return n;
}
void add_piece_count(std::string& piece, uint64_t hits) noexcept {
  const uint64_t n = piece_count(piece) + hits;
  std::memcpy(piece.data(), &n, kCountBytes);
}

// query --count --json: one object with the field names of stats --json where they apply.
std::string count_json(const std::vector<std::string>& filters, const QueryOptions& o,
                       const InputStats& in, uint64_t matched) {
  JsonWriter j;
  j.begin_object();
  j.field("command", "query");
  j.key("filters").begin_array();
  for (const std::string& f : filters) j.value(f);
  j.end_array();
  j.field("match", o.absent ? "absent" : "present");
  j.field("all", o.all);
  j.field("lines_read", in.lines);
  j.field("empty_lines", in.empty_lines);
  j.field("keys", in.keys);
  j.field("empty_keys", in.empty_keys);
  j.field("bad_lines", in.bad_lines);
  j.field("matched", matched);
  j.end_object();
  return j.str();
}

int run_query(const QueryOptions& o) {
  InputOptions input_options = o.input.options();
  const QueryFilters q = resolve_query_filters(o.filters, o.input.inputs, o.which);
  const FilterSet set(load_query_filters(q.paths, filter_loader(o)), q.paths);
  // Keys are shaped the way they were when the filters were built.
  input_options.normaliser = set.stream_normaliser();
  KeyStreamOptions stream_options;
  stream_options.threads = o.threads;
  stream_options.seed = set.stream_seed();
  std::unique_ptr<KeyStream> keys = open_key_stream(q.inputs, input_options, stream_options);
  keys->set_hash_keys(set.uses_stream_hashes());  // not for filters of a peer's scheme alone

  Progress progress(*keys, want_progress(o.input.progress, o.quiet, !o.count), o.input.progress);
  StdoutWriter out;
  uint64_t matched = 0;
  const uint8_t want = o.absent ? 0 : 1;
  const bool print = !o.quiet && !o.count;
  const bool all = o.all, which = o.which, quiet = o.quiet;
  std::vector<FilterSetAnswers> answers(keys->threads());
  // Each piece of output starts with the number of its matching records (kCountBytes, raw), which
  // every batch adds to, and then, when they are printed, holds those records, one per line: the
  // emitter neither scans the output nor gets any when only the count is wanted.
  const InputStats in = with_filter_hint(q, o.filters, [&] {
    return keys->for_each_ordered(
        [&](const HashedBatch& b, std::string& piece) {
          FilterSetAnswers& a = answers[b.thread];
          set.lookup(b, a);
          const uint8_t* matches = set.matches(a, all);  // a skipped key is neither 0 nor 1
          const size_t count = a.keys;
          if (piece.empty()) piece.assign(kCountBytes, '\0');
          uint64_t hits = 0;
          for (size_t i = 0; i < count; ++i) {
            if (matches[i] != want) continue;
            ++hits;
            if (print) {
              if (which) append_which(piece, a, i, q.names);
              piece.append(b.records[i]);
              piece.push_back('\n');
            }
            if (quiet) break;
          }
          add_piece_count(piece, hits);
        },
        [&](std::string& piece) {
          const uint64_t hits = piece_count(piece);
          if (hits == 0) return true;
          if (print) out.write(std::string_view(piece).substr(kCountBytes));
          matched += hits;
          return !o.quiet;  // like grep -q: the answer is known
        });
  });
  progress.finish();
  if (o.count && o.json)
    out.line(count_json(q.paths, o, in, matched));
  else if (o.count)
    out.line(std::to_string(matched));
  out.flush();
  if (!o.quiet) report_bad_lines(in);
  return matched != 0 ? kExitOk : kExitNegative;
}

}  // namespace

Command register_query(CLI::App& root) {
  auto o = std::make_shared<QueryOptions>();
  CLI::App* app = root.add_subcommand(
      "query",
      "Print the input records whose key a filter (or any of several) may contain, or lacks");
  o->filters.add_to(*app);
  app->add_option("--from", o->from,
                  "Format of FILTER (every one): bloomtool (default), guava (BloomFilter.writeTo) "
                  "or dcso (DCSO bloom v1, plain or gzip)")
      ->type_name("FORMAT");
  app->add_flag("--absent,-v", o->absent,
                "Print the records whose key is definitely absent instead (with several filters: "
                "from all of them; with --all: from at least one)");
  app->add_flag("--all", o->all,
                "With several filters: a record matches when every filter may contain its key "
                "(default: any filter)");
  CLI::Option* which =
      app->add_flag("--which", o->which,
                    "Put before each record the filters that may contain its key, comma-separated "
                    "as named on the command line (none: empty), and a tab");
  CLI::Option* count =
      app->add_flag("-c,--count", o->count, "Print only the number of matching records");
  CLI::Option* quiet =
      app->add_flag("-q,--quiet", o->quiet,
                    "Print nothing (no progress, no warnings); exit 0 at the first match");
  app->add_flag("--json", o->json,
                "With --count: print the count as one JSON object (matched, keys, lines_read, ...)")
      ->needs(count);
  // --count -q would stop at the first match and could only print 1: refused rather than wrong.
  count->excludes(quiet);
  // --which names the filters of printed records; --count and -q print none.
  which->excludes(count);
  which->excludes(quiet);
  app->add_option("--threads", o->threads,
                  "Worker threads (default: all cores); output order is the input order")
      ->type_name("T");
  app->add_option(
         "--trusted-key", o->trusted_key,
         "Answer only if every FILTER is signed by the key of PUB and unaltered, else exit 2 "
         "(default: $BLOOMTOOL_TRUSTED_KEY when set)")
      ->type_name("PUB");
  o->input.add_to(*app, "Key files ('-' or none: stdin); zstd and gzip are decompressed", false);
  app->footer(std::string(kSeveralFiltersHelp) + "\n" + kTrustFooter);
  Command c{app, [o] { return run_query(*o); }};
  c.preparse = [o, app](std::vector<std::string>& args, size_t from) {
    take_positional_mark(*app, args, from, o->filters);
  };
  return c;
}

}  // namespace bloomtool::cli
