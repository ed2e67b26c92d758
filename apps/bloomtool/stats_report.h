// What `bloomtool stats` reports about one filter file, the CI gates judged on it, and the two
// renderings of a report: text for people and one JSON object for scripts.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bloomtool/error.h"
#include "format/filter_file.h"
#include "analysis/stats.h"
#include "common.h"
#include "json_writer.h"

namespace bloomtool::cli {

// Parsed gate limits; an empty optional is a gate not asked for.
struct Gates {
  std::optional<double> max_fpr;
  std::optional<double> max_fill;
  std::optional<uint64_t> min_keys;
  std::optional<uint64_t> max_age;
  bool verify = false;
  std::optional<double> min_headroom;  // a fraction: 0.25 for 25%
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
  const char* file_format = "bloomtool";  // as read: bloomtool, guava or dcso (stats --from)
  std::optional<Error> error;             // the file could not be read
  FilterHeader header;
  uint64_t file_bytes = 0;
  FilterStats stats;
  std::optional<Measured> measured;
  std::vector<GateResult> gates;
  int64_t age_seconds = 0;
  bool signature_verified = false;   // --verify-signature passed
  std::optional<Headroom> headroom;  // Bloom filters (region_fill.h)

  bool gates_passed() const {
    for (const GateResult& g : gates)
      if (g.status == GateStatus::kFailed) return false;
    return true;
  }
};

// Judges `r` against every gate asked for, appending to r.gates.
void evaluate_gates(Report& r, const Gates& gates);
// "passed", "failed", "not_applicable".
const char* status_name(GateStatus s);
// "standard" or "blocked" for a Bloom filter, nothing for the other kinds.
std::optional<std::string> variant_name(const FilterHeader& h);
// The text report of one file (a blank line before every file but the first).
void print_human(StdoutWriter& out, const Report& r, bool first);
// Below this p-value the region test calls the set bits unevenly spread.
inline constexpr double kUniformityAlpha = 0.001;
// "uniform", "uneven", "not_applicable".
const char* uniformity_verdict(const RegionFill& g);
// The text rows on region fill, uniformity and headroom (stats_growth.cpp).
std::string growth_rows(const Report& r);
// The "regions" and "headroom" members of the JSON object.
void write_growth_json(JsonWriter& j, const Report& r);
// --min-headroom.
GateResult headroom_gate(const Report& r, double min_headroom);
// The picture of `stats --plot` (stats_plot.cpp): written atomically to `path`.
void write_plot_svg(const std::string& path, const Report& r);
// The SVG text of that picture.
std::string plot_svg(const Report& r);

// The JSON object of one file.
void write_json(JsonWriter& j, const Report& r, uint64_t probe_seed, const std::string& negatives);
// A measurement's counts, rate and intervals as members of the open object (stats --json and the
// summaries of the commands that write a filter share these names).
void write_measured_rate(JsonWriter& j, const FprMeasurement& m);

}  // namespace bloomtool::cli
