// The CI gates of `bloomtool stats` (--max-fpr, --max-fill, --min-keys, --max-age, --verify),
// each judged into a GateResult with its limit, the value found and a message.
#include <algorithm>
#include <climits>

#include <fmt/format.h>

#include "stats_report.h"

namespace bloomtool::cli {

namespace {

// A file created up to this far in the future still passes --max-age (clocks disagree a little).
constexpr int64_t kMaxClockSkewSeconds = 300;

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

}  // namespace

void evaluate_gates(Report& r, const Gates& gates) {
  if (gates.max_fpr) {
    GateResult g{"max_fpr",           "--max-fpr", *gates.max_fpr, std::nullopt,
                 GateStatus::kPassed, "",          std::nullopt,   std::nullopt};
    const char* what = "the measured rate";
    const bool broken = !r.stats.model_breaks.empty();
    if (broken && !r.measured) {
      // The model's rate and the fill's are known to be wrong here: no figure to pass on.
      g.value = r.stats.expected_fpr();
      g.status = GateStatus::kFailed;
      g.message = fmt::format(
          "the model does not hold for this filter ({}), so its rate {:.4g} proves nothing: give "
          "--measure N (or --negatives FILE) to gate on a measured rate",
          r.stats.model_breaks, *g.value);
      r.gates.push_back(g);
    } else {
      if (broken) {
        // Judged by the upper end of the measurement's 95% interval: a rate the model cannot
        // vouch for must be shown small, not only measured small.
        g.value = r.measured->m.ci95.high;
        what =
            "the upper end of the measured rate's 95% interval (the model does not hold for "
            "this geometry)";
      } else if (r.measured) {
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
  if (gates.min_headroom) r.gates.push_back(headroom_gate(r, *gates.min_headroom));
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

}  // namespace bloomtool::cli
