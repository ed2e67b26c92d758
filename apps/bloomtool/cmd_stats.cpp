// `bloomtool stats`: for each filter file, what it is and what its bits say — fill, distinct keys,
// the model's false-positive rate next to the rate its fill implies and, on request, a measured
// rate judged against the model — plus gates for CI. Exit status: 0 all gates passed, 1 a gate
// failed, 2 a file could not be read (the other files are still reported).
#include <sys/stat.h>

#include <algorithm>
#include <charconv>
#include <climits>
#include <cmath>
#include <ctime>
#include <memory>
#include <optional>

#include "analysis/measure_keys.h"
#include "analysis/stats.h"
#include "api/load_filter.h"
#include "bloomtool/error.h"
#include "common.h"
#include "filters/bloom.h"
#include "format/file_reader.h"
#include "format/filter_file.h"
#include "format/signature.h"
#include "interop/foreign_format.h"
#include "json_writer.h"
#include "keys/normalise.h"
#include "stats_report.h"
#include "units_cli.h"

namespace bloomtool::cli {

namespace {

struct StatsOptions {
  std::vector<std::string> filters;
  std::string from = "bloomtool";
  bool json = false;
  std::string measure;
  std::string negatives;
  std::string seed;
  std::string max_fpr, max_fill, min_keys, max_age;
  std::string min_headroom, design_fpr, plot;
  bool verify = false;
  std::string verify_signature;  // public key file
  std::string max_key_bytes = std::to_string(kDefaultMaxKeyBytes);
};

uint64_t parse_seed(const std::string& text) {
  if (text.empty()) return kDefaultProbeSeed;
  const bool hex = text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
  const char* begin = text.data() + (hex ? 2 : 0);
  const char* end = text.data() + text.size();
  uint64_t v = 0;
  const auto [ptr, ec] = std::from_chars(begin, end, v, hex ? 16 : 10);
  if (ec != std::errc() || ptr != end) {
    throw Error(ErrorCode::kInvalidArgument,
                "--seed: '" + text + "' is not a whole number (decimal, or hex with 0x)");
  }
  return v;
}

// Keys of `path` shaped by the filter's normalisation, as `query` shapes them.
// `normalisation` and `seed` are the filter's.
FprMeasurement measure_negatives(const Filter& filter, const std::string& normalisation,
                                 uint64_t seed, const std::string& path, InputOptions input_options,
                                 double model_fpr) {
  input_options.normaliser = Normaliser::parse(normalisation, path);
  KeyStreamOptions stream_options;
  stream_options.seed = seed;
  std::unique_ptr<KeyStream> keys = open_key_stream({path}, input_options, stream_options);
  const FprMeasurement m = measure_fpr_with_keys(filter, *keys, model_fpr);
  if (m.probes == 0) {
    throw Error(ErrorCode::kBadInput, (path == "-" ? std::string("<stdin>") : path) +
                                          ": --negatives: no keys to measure with");
  }
  return m;
}

// A part file of a partitioned build (one host's range of the partitions) read whole, its
// signature checked when a key is given: no filter answers for it, so stats reports it from its
// header and partition table. nullopt for any other file (and for a path that is not a regular
// file, which the loader reads and reports).
std::optional<FilterFileContents> read_part_file(const std::string& path, FileFormat from,
                                                 const std::optional<PublicKey>& trusted) {
  struct stat st;
  if (from != FileFormat::kBloomtool || ::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
    return std::nullopt;
  FilterHeader h;
  try {
    h = read_filter_header(path);
  } catch (const Error&) {
    return std::nullopt;  // reported by the loader, as for any file
  }
  if (!h.partitions || h.partitions->whole()) return std::nullopt;
  if (!trusted) return read_filter_file(path);
  check_image_fits_memory(h, path);  // as read_filter_file and load_verified_filter check it
  const std::vector<uint8_t> bytes = ReadFile(path).read_all();
  const FilterHeader header = parse_filter_header(
      std::span<const uint8_t>(bytes).first(std::min<size_t>(bytes.size(), kMaxHeaderBytes)),
      bytes.size(), path);
  verify_file_signature(bytes, header, *trusted, path);
  return parse_filter_file(bytes, path);
}

int run_stats(const StatsOptions& o) {
  Gates gates;
  if (!o.max_fpr.empty()) gates.max_fpr = parse_probability(o.max_fpr, "--max-fpr");
  if (!o.max_fill.empty()) gates.max_fill = parse_fraction(o.max_fill, "--max-fill");
  if (!o.min_keys.empty()) gates.min_keys = parse_count(o.min_keys, "--min-keys");
  if (!o.max_age.empty()) gates.max_age = parse_duration_seconds(o.max_age, "--max-age");
  gates.verify = o.verify;
  if (!o.min_headroom.empty())
    gates.min_headroom = parse_fraction(o.min_headroom, "--min-headroom");
  std::optional<double> design_fpr;
  if (!o.design_fpr.empty()) design_fpr = parse_probability(o.design_fpr, "--design-fpr");
  if (!o.plot.empty() && o.filters.size() != 1) {
    throw Error(ErrorCode::kInvalidArgument, "--plot: draws one filter; give one file");
  }
  // Before any reading: a missing directory, or the filter itself named as the picture.
  if (!o.plot.empty()) for_flag("--plot", [&] { check_output_path(o.plot, o.filters); });
  std::optional<uint64_t> probes;
  if (!o.measure.empty()) {
    probes = parse_count(o.measure, "--measure");
    if (*probes == 0) throw Error(ErrorCode::kInvalidArgument, "--measure: must be at least 1");
  }
  // The picture shows a measured rate: without one asked for, the quick measurement of build.
  if (!o.plot.empty() && !probes && o.negatives.empty()) probes = kQuickProbes;
  const uint64_t probe_seed = parse_seed(o.seed);
  const FileFormat from = for_flag("--from", [&] { return parse_file_format(o.from); });
  InputArgs negatives_input;
  negatives_input.max_key_bytes = o.max_key_bytes;
  const InputOptions input_options = negatives_input.options();
  const auto stdin_filters = std::count(o.filters.begin(), o.filters.end(), "-");
  if (stdin_filters > 1) {
    throw Error(ErrorCode::kInvalidArgument,
                "-: standard input can be read only once; give one filter as '-'");
  }
  if (o.negatives == "-" && stdin_filters != 0) {
    throw Error(ErrorCode::kInvalidArgument,
                "--negatives -: the filter is read from standard input, so the keys cannot be; "
                "give them as a file");
  }
  if (o.negatives == "-" && o.filters.size() > 1) {
    throw Error(ErrorCode::kInvalidArgument,
                "--negatives -: standard input can be read only once; give a file to measure "
                "several filters");
  }
  std::optional<PublicKey> trusted;
  if (!o.verify_signature.empty() && from != FileFormat::kBloomtool) {
    throw Error(ErrorCode::kInvalidArgument, std::string("--verify-signature: a ") +
                                                 file_format_name(from) +
                                                 " file carries no signature to verify");
  }
  if (!o.verify_signature.empty())
    trusted = for_flag("--verify-signature", [&] { return read_public_key(o.verify_signature); });
  const int64_t now = static_cast<int64_t>(std::time(nullptr));

  StdoutWriter out;
  JsonWriter json;
  const bool array = o.filters.size() > 1;
  if (o.json && array) json.begin_array();
  bool any_error = false, any_failed = false, first = true;
  for (const std::string& path : o.filters) {
    Report r;
    r.path = path;
    r.file_format = file_format_name(from);
    LoadedFilter loaded;
    try {
      if (std::optional<FilterFileContents> part = read_part_file(path, from, trusted)) {
        const PartitionsField& f = *part->header.partitions;
        if (probes || !o.negatives.empty()) {
          throw Error(ErrorCode::kUnsupported,
                      fmt::format("{}: unsupported: a part file holding partitions {}-{} of {} "
                                  "answers for some keys only, so its rate cannot be measured; "
                                  "assemble the parts into one file first",
                                  path, f.first, f.first + f.count - 1, f.partitions()));
        }
        r.stats = compute_part_stats(part->header, part->payload.span(), path);
        loaded.header = std::move(part->header);
        loaded.file_bytes = part->file_bytes;
      } else {
        loaded = trusted ? load_verified_filter(path, *trusted) : load_filter_as(path, from, false);
        // A raw file is opened, not loaded: its payload is read (every chunk verified) a window
        // at a time, so memory stays small whatever its size.
        r.stats = loaded.raw ? compute_stats_streamed(loaded.header, path)
                             : compute_stats(loaded.header, *loaded.filter);
        // A measurement probes everywhere: read the whole raw payload into memory first.
        if (probes || !o.negatives.empty()) verify_whole_payload(loaded);
      }
    } catch (const Error& e) {
      // Report the other files too; the error line is the one main() would print.
      // --json always prints an object for the file, with the error in it.
      if (!array && !o.json) throw;
      warn(e.what());
      r.error = e;
      any_error = true;
      if (o.json) write_json(json, r, probe_seed, o.negatives);
      continue;
    }
    r.header = std::move(loaded.header);
    r.signature_verified = trusted.has_value();
    r.headroom = compute_headroom(r.header, static_cast<double>(r.stats.distinct_keys), design_fpr);
    r.file_bytes = loaded.file_bytes;
    if (__builtin_sub_overflow(now, r.header.created_unix, &r.age_seconds))
      r.age_seconds = r.header.created_unix < 0 ? INT64_MAX : INT64_MIN;
    if (probes) {
      r.measured = Measured{
          measure_fpr(*loaded.filter, r.header.seed, *probes, probe_seed, r.stats.expected_fpr()),
          false};
    } else if (!o.negatives.empty()) {
      r.measured = Measured{measure_negatives(*loaded.filter, r.header.normalisation, r.header.seed,
                                              o.negatives, input_options, r.stats.expected_fpr()),
                            true};
    }
    evaluate_gates(r, gates);
    if (!o.plot.empty()) write_plot_svg(o.plot, r);
    for (const GateResult& g : r.gates) {
      if (g.status != GateStatus::kFailed) continue;
      any_failed = true;
      warn(fmt::format("{}: {} failed: {}", path, g.option, g.message));
    }
    if (o.json)
      write_json(json, r, probe_seed, o.negatives);
    else
      print_human(out, r, first);
    first = false;
  }
  if (o.json) {
    if (array) json.end_array();
    out.line(json.str());
  }
  out.flush();
  if (any_error) return kExitError;
  return any_failed ? kExitNegative : kExitOk;
}

}  // namespace

Command register_stats(CLI::App& root) {
  auto o = std::make_shared<StatsOptions>();
  CLI::App* app = root.add_subcommand(
      "stats", "Report what filter files hold, measure their false-positive rate, gate CI on them");
  app->add_option("filters", o->filters, "Filter files (any kind bloomtool writes; '-': stdin)")
      ->required()
      ->type_name("FILTER");
  app->add_option("--from", o->from,
                  "Format of the files: bloomtool (default), guava or dcso (plain or gzip)")
      ->type_name("FORMAT");
  app->add_flag("--json", o->json, "One JSON object per file (an array for several files)");
  auto* measure = app->add_option("--measure", o->measure,
                                  "Measure the false-positive rate with N generated keys that "
                                  "cannot be members (e.g. 1M)")
                      ->type_name("N");
  auto* negatives = app->add_option("--negatives", o->negatives,
                                    "Measure the rate with the keys of FILE, known non-members "
                                    "('-': stdin)")
                        ->type_name("FILE");
  measure->excludes(negatives);
  app->add_option("--seed", o->seed, "Seed of the generated keys of --measure (default 1)")
      ->type_name("S");
  app->add_option("--max-fpr", o->max_fpr,
                  "Gate: fail if the rate (measured, else implied by the fill) exceeds P; where "
                  "the model does not hold (DCSO, power-of-two m) only a measurement passes")
      ->type_name("P");
  app->add_option("--max-fill", o->max_fill, "Gate: fail if more than F of the bits are set")
      ->type_name("F");
  app->add_option("--min-keys", o->min_keys, "Gate: fail if the filter holds fewer distinct keys")
      ->type_name("N");
  app->add_option("--max-age", o->max_age, "Gate: fail if the file was created longer ago (26h)")
      ->type_name("DURATION");
  app->add_option("--min-headroom", o->min_headroom,
                  "Gate: fail if the filter takes fewer than F more keys (25%) before its rate "
                  "reaches the design rate")
      ->type_name("F");
  app->add_option("--design-fpr", o->design_fpr,
                  "The rate the filter was built for (default: the design point of its m and k)")
      ->type_name("P");
  app->add_option("--plot", o->plot,
                  "Draw rate vs keys and the fill of the regions as an SVG picture to FILE")
      ->type_name("FILE.svg");
  app->add_flag("--verify", o->verify,
                "Gate: fail if the header's counts disagree with the filter's bits");
  app->add_option("--verify-signature", o->verify_signature,
                  "Refuse (exit 2) a file not signed by the key of PUB (a NAME.pub from keygen), "
                  "or altered in any byte since it was signed")
      ->type_name("PUB");
  app->add_option("--max-key-bytes", o->max_key_bytes,
                  "Longest accepted key of --negatives in bytes (default 1MiB)")
      ->type_name("SIZE");
  app->footer(kTrustFooter);
  return {app, [o] { return run_stats(*o); }};
}

}  // namespace bloomtool::cli
