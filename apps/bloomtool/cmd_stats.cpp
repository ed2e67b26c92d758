// `bloomtool stats`: for each filter file, what it is and what its bits say — fill, distinct keys,
// the model's false-positive rate next to the rate its fill implies and, on request, a measured
// rate judged against the model — plus gates for CI. Exit status: 0 all gates passed, 1 a gate
// failed, 2 a file could not be read (the other files are still reported).
#include <charconv>
#include <climits>
#include <cmath>
#include <ctime>
#include <memory>
#include <optional>

#include "bloomtool/bloom.h"
#include "bloomtool/error.h"
#include "bloomtool/hash.h"
#include "bloomtool/json_writer.h"
#include "bloomtool/load_filter.h"
#include "bloomtool/model.h"
#include "bloomtool/normalise.h"
#include "bloomtool/stats.h"
#include "bloomtool/units.h"
#include "common.h"

namespace bloomtool::cli {

namespace {

struct StatsOptions {
  std::vector<std::string> filters;
  bool json = false;
  std::string measure;
  std::string negatives;
  std::string seed;
  std::string max_fpr, max_fill, min_keys, max_age;
  bool verify = false;
  std::string max_key_bytes = std::to_string(kDefaultMaxKeyBytes);
};

// A file created up to this far in the future still passes --max-age (clocks disagree a little).
constexpr int64_t kMaxClockSkewSeconds = 300;

// Parsed gate limits; an empty optional is a gate not asked for.
struct Gates {
  std::optional<double> max_fpr;
  std::optional<double> max_fill;
  std::optional<uint64_t> min_keys;
  std::optional<uint64_t> max_age;
  bool verify = false;
};

enum class GateStatus { kPassed, kFailed, kNotApplicable };

struct GateResult {
  const char* name;    // JSON name: "max_fpr"
  const char* option;  // "--max-fpr"
  std::optional<double> limit;
  std::optional<double> value;
  GateStatus status = GateStatus::kPassed;
  std::string message;
  // Counts and seconds: the exact whole numbers JSON prints instead of limit and value.
  std::optional<uint64_t> whole_limit;
  std::optional<int64_t> whole_value;
};

struct Measured {
  FprMeasurement m;
  bool from_negatives = false;
};

// Everything reported about one file.
struct Report {
  std::string path;
  std::optional<Error> error;  // the file could not be read
  FilterHeader header;
  uint64_t file_bytes = 0;
  FilterStats stats;
  std::optional<Measured> measured;
  std::vector<GateResult> gates;
  int64_t age_seconds = 0;

  bool gates_passed() const {
    for (const GateResult& g : gates)
      if (g.status == GateStatus::kFailed) return false;
    return true;
  }
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

const char* hash_name(uint32_t hash_id) {
  return hash_id == kHashXxh3_64 ? "xxh3-64" : "unknown";
}

std::optional<std::string> variant_name(const FilterHeader& h) {
  if (h.kind != FilterKind::kBloom) return std::nullopt;
  return bloom_variant_name(static_cast<BloomVariant>(h.variant));
}

GateResult verify_gate(const Report& r) {
  GateResult g{"verify", "--verify",   std::nullopt, std::nullopt, GateStatus::kPassed,
               "",       std::nullopt, std::nullopt};
  const std::vector<std::string> problems = header_count_problems(r.header, r.stats);
  if (problems.empty()) {
    g.message = "checksums verified; header counts agree with the filter";
    return g;
  }
  g.status = GateStatus::kFailed;
  g.message = "the header disagrees with the filter: " + problems.front();
  for (size_t i = 1; i < problems.size(); ++i) g.message += "; " + problems[i];
  return g;
}

void evaluate_gates(Report& r, const Gates& gates) {
  if (gates.max_fpr) {
    GateResult g{"max_fpr",           "--max-fpr", *gates.max_fpr, std::nullopt,
                 GateStatus::kPassed, "",          std::nullopt,   std::nullopt};
    const char* what = "the measured rate";
    if (r.measured) {
      g.value = r.measured->m.rate;
    } else {
      g.value = r.stats.expected_fpr();
      what = r.stats.fill_fpr ? "the rate implied by the fill" : "the model's rate";
    }
    const bool ok = *g.value <= *gates.max_fpr;
    g.status = ok ? GateStatus::kPassed : GateStatus::kFailed;
    g.message = fmt::format("{} {:.4g} is {} {:.4g}", what, *g.value, ok ? "within" : "above",
                            *gates.max_fpr);
    r.gates.push_back(g);
  }
  if (gates.max_fill) {
    GateResult g{"max_fill",          "--max-fill", *gates.max_fill, r.stats.fill,
                 GateStatus::kPassed, "",           std::nullopt,    std::nullopt};
    if (!r.stats.fill) {
      g.status = GateStatus::kNotApplicable;
      g.message = fmt::format("a {} filter has no fill", filter_kind_name(r.header.kind));
    } else {
      const bool ok = *r.stats.fill <= *gates.max_fill;
      g.status = ok ? GateStatus::kPassed : GateStatus::kFailed;
      g.message = fmt::format("fill {:.4g} is {} {:.4g}", *r.stats.fill, ok ? "within" : "above",
                              *gates.max_fill);
    }
    r.gates.push_back(g);
  }
  if (gates.min_keys) {
    const double have = static_cast<double>(r.stats.distinct_keys);
    const bool ok = r.stats.distinct_keys >= *gates.min_keys;
    r.gates.push_back({"min_keys", "--min-keys", static_cast<double>(*gates.min_keys), have,
                       ok ? GateStatus::kPassed : GateStatus::kFailed,
                       fmt::format("{} distinct keys, {} the minimum {}", r.stats.distinct_keys,
                                   ok ? "at least" : "fewer than", *gates.min_keys),
                       *gates.min_keys,
                       static_cast<int64_t>(std::min<uint64_t>(r.stats.distinct_keys, INT64_MAX))});
  }
  if (gates.max_age) {
    GateResult g{"max_age",
                 "--max-age",
                 static_cast<double>(*gates.max_age),
                 static_cast<double>(r.age_seconds),
                 GateStatus::kPassed,
                 "",
                 *gates.max_age,
                 r.age_seconds};
    if (r.age_seconds < -kMaxClockSkewSeconds) {
      // A file from the future is not fresh: its clock, or its header, is wrong.
      g.status = GateStatus::kFailed;
      g.message =
          fmt::format("created {} s in the future, more than the {} s of clock skew allowed",
                      uint64_t{0} - static_cast<uint64_t>(r.age_seconds), kMaxClockSkewSeconds);
    } else {
      const bool ok = r.age_seconds <= 0 || static_cast<uint64_t>(r.age_seconds) <= *gates.max_age;
      g.status = ok ? GateStatus::kPassed : GateStatus::kFailed;
      g.message =
          fmt::format("created {} s ago, {} the limit of {} s", std::max<int64_t>(r.age_seconds, 0),
                      ok ? "within" : "beyond", *gates.max_age);
    }
    r.gates.push_back(g);
  }
  if (gates.verify) r.gates.push_back(verify_gate(r));
}

const char* status_name(GateStatus s) {
  switch (s) {
    case GateStatus::kPassed:
      return "passed";
    case GateStatus::kFailed:
      return "failed";
    case GateStatus::kNotApplicable:
      return "not_applicable";
  }
  return "";
}

std::string fmt_opt(const std::optional<double>& v, const char* spec = "{:.4g}") {
  return v ? fmt::format(fmt::runtime(spec), *v) : std::string("n/a");
}

// Header text as it may be shown on a terminal: control bytes become \xNN.
std::string printable(std::string_view text) {
  std::string out;
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7F)
      out += fmt::format("\\x{:02x}", u);
    else
      out += c;
  }
  return out;
}

std::string human_age(int64_t seconds) {
  if (seconds < 0)
    return fmt::format("{} s in the future", uint64_t{0} - static_cast<uint64_t>(seconds));
  if (seconds < 120) return fmt::format("{} s ago", seconds);
  if (seconds < 7200) return fmt::format("{} min ago", seconds / 60);
  if (seconds < 172800) return fmt::format("{:.1f} h ago", static_cast<double>(seconds) / 3600.0);
  return fmt::format("{:.1f} days ago", static_cast<double>(seconds) / 86400.0);
}

void print_human(StdoutWriter& out, const Report& r, bool first) {
  const FilterHeader& h = r.header;
  const FilterStats& s = r.stats;
  const bool bloom = h.kind == FilterKind::kBloom;
  std::string t;
  const auto row = [&t](std::string_view name, const std::string& value) {
    t += fmt::format("  {:<18}{}\n", name, value);
  };
  if (!first) t += "\n";
  t += r.path + "\n";
  row("kind", bloom ? fmt::format("bloom, {} variant", *variant_name(h))
                    : fmt::format("{}, {}-bit fingerprints", filter_kind_name(h.kind), h.k));
  row("format",
      fmt::format("{}.{}, written by {}", h.major, h.minor,
                  h.tool_version.empty() ? "an unknown tool" : printable(h.tool_version)));
  row("created",
      fmt::format("{} ({})", format_timestamp(h.created_unix), human_age(r.age_seconds)));
  row("label", h.label.empty() ? "(none)" : printable(h.label));
  row("normalisation", h.normalisation.empty() ? "none" : printable(h.normalisation));
  row("input options", h.input_options.empty() ? "(not recorded)" : printable(h.input_options));
  row("hash", fmt::format("{}, seed {:#018x}", hash_name(h.hash_id), h.seed));
  if (bloom) {
    row("m", fmt::format("{} bits ({})", h.m, format_bytes(h.payload_raw_bytes)));
    row("k", fmt::format("{} hashes per key", h.k));
  } else {
    row("m", fmt::format("{} slots of {} bits = {} bits ({})", h.m, h.k, s.filter_bits,
                         format_bytes(h.payload_raw_bytes)));
  }
  row("lines read", fmt::format("{} ({} empty, skipped)", h.lines_read, h.empty_lines));
  row("keys added", fmt::format("{}", h.keys_added));
  if (bloom) {
    row("distinct keys",
        fmt::format("{} recorded; {} implied by the fill", h.distinct_estimate,
                    s.distinct_from_fill ? fmt::format("{:.0f}", *s.distinct_from_fill)
                                         : std::string("unbounded (every bit is set)")));
    row("set bits", fmt::format("{} (fill {:.2f}%)", *s.set_bits, 100.0 * *s.fill));
  } else {
    row("distinct keys", fmt::format("{}", h.distinct_estimate));
  }
  row("bits per key", fmt_opt(s.bits_per_key, "{:.3f}"));
  if (s.fill_check) {
    const FillCheck& c = *s.fill_check;
    row("fill check",
        fmt::format(
            "{}: {} set bits; {} distinct keys give {:.0f} (99.9% interval {:.0f} to {:.0f})",
            c.consistent ? "consistent" : "deviates", *s.set_bits, s.distinct_keys,
            c.expected_set_bits, std::ceil(c.interval.low), std::floor(c.interval.high)));
  }
  row("model p", fmt::format("{:.4g} for {} distinct keys", s.model_fpr, s.distinct_keys));
  if (s.fill_fpr) row("fill p", fmt::format("{:.4g} (the rate these bits give)", *s.fill_fpr));
  if (s.below_min_size) {
    row("small filter",
        fmt::format("m = {} bits is below {} bits, the smallest size bloomtool now builds for k = "
                    "{}: a key's positions often coincide; the rates above account for that",
                    h.m, model::min_standard_bits(h.k), h.k));
  }
  if (s.lower_bound_bits) {
    row("lower bound", fmt::format("{:.0f} bits (n log2(1/p)); this filter uses {:.3f}x that",
                                   *s.lower_bound_bits, *s.lower_bound_ratio));
  } else {
    row("lower bound", "n/a (no keys)");
  }
  row("file size",
      fmt::format("{} ({} bytes); payload {} stored, {} raw", format_bytes(r.file_bytes),
                  r.file_bytes, format_bytes(h.payload_stored_bytes),
                  format_bytes(h.payload_raw_bytes)));
  row("checksums", "verified");
  if (r.measured) {
    row(r.measured->from_negatives ? "measured p (neg)" : "measured p",
        describe_measurement(r.measured->m, s.fill_fpr ? "fill p" : "model"));
  }
  for (const GateResult& g : r.gates) {
    row(std::string("gate ") + g.option,
        fmt::format(
            "{}: {}",
            g.status == GateStatus::kNotApplicable ? "not applicable" : status_name(g.status),
            g.message));
  }
  out.write(t);
}

void write_json(JsonWriter& j, const Report& r, uint64_t probe_seed, const std::string& negatives) {
  j.begin_object();
  j.field("path", r.path);
  if (r.error) {
    j.field("error", std::string(r.error->what()));
    j.field("error_code", error_code_name(r.error->code()));
    j.end_object();
    return;
  }
  const FilterHeader& h = r.header;
  const FilterStats& s = r.stats;
  j.field("kind", filter_kind_name(h.kind));
  j.field("variant", variant_name(h));
  j.field("format_version", fmt::format("{}.{}", h.major, h.minor));
  j.field("tool_version", h.tool_version);
  j.field("created", format_timestamp(h.created_unix));
  j.field("created_unix", h.created_unix);
  j.field("age_seconds", r.age_seconds);
  j.field("label", h.label);
  j.field("normalisation", h.normalisation);
  j.field("input_options", h.input_options);
  j.field("hash", hash_name(h.hash_id));
  j.field("seed", fmt::format("{:#018x}", h.seed));
  j.field("m", h.m);
  j.field("k", h.k);
  j.field("filter_bits", s.filter_bits);
  j.field("lines_read", h.lines_read);
  j.field("empty_lines", h.empty_lines);
  j.field("keys_added", h.keys_added);
  j.field("distinct_keys", s.distinct_keys);
  j.field("distinct_from_fill", s.distinct_from_fill);
  j.field("set_bits", s.set_bits);
  j.field("fill", s.fill);
  j.field("bits_per_key", s.bits_per_key);
  j.field("model_fpr", s.model_fpr);
  j.field("fill_fpr", s.fill_fpr);
  j.key("fill_check");
  if (s.fill_check) {
    j.begin_object();
    j.field("expected_set_bits", s.fill_check->expected_set_bits);
    j.field("sd", s.fill_check->sd);
    j.field("low", std::ceil(s.fill_check->interval.low));
    j.field("high", std::floor(s.fill_check->interval.high));
    j.field("verdict", s.fill_check->consistent ? "consistent" : "deviates");
    j.end_object();
  } else {
    // Same shape for every kind; no fill, so every member is null.
    j.begin_object();
    for (const char* name : {"expected_set_bits", "sd", "low", "high", "verdict"})
      j.key(name).null();
    j.end_object();
  }
  j.field("below_min_size", s.below_min_size);
  j.key("min_bits");
  if (h.kind == FilterKind::kBloom && h.variant == static_cast<uint32_t>(BloomVariant::kStandard))
    j.value(model::min_standard_bits(h.k));
  else
    j.null();
  j.field("lower_bound_bits", s.lower_bound_bits);
  j.field("lower_bound_ratio", s.lower_bound_ratio);
  j.field("file_bytes", r.file_bytes);
  j.field("payload_stored_bytes", h.payload_stored_bytes);
  j.field("payload_raw_bytes", h.payload_raw_bytes);
  j.field("checksums", "verified");
  j.key("measurement");
  if (r.measured) {
    const FprMeasurement& m = r.measured->m;
    j.begin_object();
    j.field("source", r.measured->from_negatives ? "negatives" : "generated");
    j.key("negatives_file");
    if (r.measured->from_negatives)
      j.value(negatives);
    else
      j.null();
    j.key("seed");
    if (r.measured->from_negatives)
      j.null();
    else
      j.value(probe_seed);
    j.field("probes", m.probes);
    j.field("false_positives", m.false_positives);
    j.field("rate", m.rate);
    j.field("ci95_low", m.ci95.low);
    j.field("ci95_high", m.ci95.high);
    j.field("ci999_low", m.ci999.low);
    j.field("ci999_high", m.ci999.high);
    j.field("model_fpr", s.model_fpr);
    j.field("expected_fpr", m.expected_fpr);
    j.field("expected_from", s.fill_fpr ? "fill" : "model");
    j.field("verdict", m.consistent ? "consistent" : "deviates");
    j.end_object();
  } else {
    j.null();
  }
  j.key("gates").begin_array();
  for (const GateResult& g : r.gates) {
    j.begin_object();
    j.field("name", g.name);
    if (g.whole_limit) {
      j.field("limit", *g.whole_limit);
      j.field("value", g.whole_value);
    } else {
      j.field("limit", g.limit);
      j.field("value", g.value);
    }
    j.field("status", status_name(g.status));
    j.field("message", g.message);
    j.end_object();
  }
  j.end_array();
  j.key("failed_gates").begin_array();
  for (const GateResult& g : r.gates)
    if (g.status == GateStatus::kFailed) j.value(g.name);
  j.end_array();
  j.field("ok", r.gates_passed());
  j.end_object();
}

// Keys of `path` shaped by the filter's normalisation, as `query` shapes them.
FprMeasurement measure_negatives(const Filter& filter, const FilterHeader& header,
                                 const std::string& path, InputOptions input_options,
                                 double expected_fpr) {
  input_options.normaliser = Normaliser::parse(header.normalisation, path);
  const uint64_t seed = header.seed;
  KeyReader reader({path}, input_options);
  KeyBatch batch;
  std::vector<uint64_t> hashes;
  uint64_t present = 0;
  while (reader.next(batch)) {
    hashes.resize(batch.keys.size());
    for (size_t i = 0; i < batch.keys.size(); ++i) hashes[i] = hash_key(batch.keys[i], seed);
    present += count_present(filter, hashes);
  }
  if (reader.stats().keys == 0) {
    throw Error(ErrorCode::kBadInput, (path == "-" ? std::string("<stdin>") : path) +
                                          ": --negatives: no keys to measure with");
  }
  return judge_fpr(present, reader.stats().keys, expected_fpr);
}

int run_stats(const StatsOptions& o) {
  Gates gates;
  if (!o.max_fpr.empty()) gates.max_fpr = parse_probability(o.max_fpr, "--max-fpr");
  if (!o.max_fill.empty()) gates.max_fill = parse_fraction(o.max_fill, "--max-fill");
  if (!o.min_keys.empty()) gates.min_keys = parse_count(o.min_keys, "--min-keys");
  if (!o.max_age.empty()) gates.max_age = parse_duration_seconds(o.max_age, "--max-age");
  gates.verify = o.verify;
  std::optional<uint64_t> probes;
  if (!o.measure.empty()) {
    probes = parse_count(o.measure, "--measure");
    if (*probes == 0) throw Error(ErrorCode::kInvalidArgument, "--measure: must be at least 1");
  }
  const uint64_t probe_seed = parse_seed(o.seed);
  InputArgs negatives_input;
  negatives_input.max_key_bytes = o.max_key_bytes;
  const InputOptions input_options = negatives_input.options();
  if (o.negatives == "-" && o.filters.size() > 1) {
    throw Error(ErrorCode::kInvalidArgument,
                "--negatives -: standard input can be read only once; give a file to measure "
                "several filters");
  }
  const int64_t now = static_cast<int64_t>(std::time(nullptr));

  StdoutWriter out;
  JsonWriter json;
  const bool array = o.filters.size() > 1;
  if (o.json && array) json.begin_array();
  bool any_error = false, any_failed = false, first = true;
  for (const std::string& path : o.filters) {
    Report r;
    r.path = path;
    LoadedFilter loaded;
    try {
      loaded = load_filter(path);
    } catch (const Error& e) {
      // Report the other files too; the error line is the one main() would print. --json always
      // prints an object for the file, with the error in it.
      if (!array && !o.json) throw;
      warn(e.what());
      r.error = e;
      any_error = true;
      if (o.json) write_json(json, r, probe_seed, o.negatives);
      continue;
    }
    r.header = std::move(loaded.header);
    r.file_bytes = loaded.file_bytes;
    r.stats = compute_stats(r.header, *loaded.filter);
    if (__builtin_sub_overflow(now, r.header.created_unix, &r.age_seconds))
      r.age_seconds = r.header.created_unix < 0 ? INT64_MAX : INT64_MIN;
    if (probes) {
      r.measured = Measured{
          measure_fpr(*loaded.filter, r.header.seed, *probes, probe_seed, r.stats.expected_fpr()),
          false};
    } else if (!o.negatives.empty()) {
      r.measured = Measured{measure_negatives(*loaded.filter, r.header, o.negatives, input_options,
                                              r.stats.expected_fpr()),
                            true};
    }
    evaluate_gates(r, gates);
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
  app->add_option("filters", o->filters, "Filter files (any kind bloomtool writes)")
      ->required()
      ->type_name("FILTER");
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
                  "Gate: fail if the rate (measured, else implied by the fill) exceeds P")
      ->type_name("P");
  app->add_option("--max-fill", o->max_fill, "Gate: fail if more than F of the bits are set")
      ->type_name("F");
  app->add_option("--min-keys", o->min_keys, "Gate: fail if the filter holds fewer distinct keys")
      ->type_name("N");
  app->add_option("--max-age", o->max_age, "Gate: fail if the file was created longer ago (26h)")
      ->type_name("DURATION");
  app->add_flag("--verify", o->verify,
                "Gate: fail if the header's counts disagree with the filter's bits");
  app->add_option("--max-key-bytes", o->max_key_bytes,
                  "Longest accepted key of --negatives in bytes (default 1MiB)")
      ->type_name("SIZE");
  return {app, [o] { return run_stats(*o); }};
}

}  // namespace bloomtool::cli
