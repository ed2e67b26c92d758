// The parts of a `bloomtool stats` report about how the bits are spread and what growth costs:
// the region fill with its chi-squared test, the headroom rows, their JSON objects and the
// --min-headroom gate (the figures are computed by the library, region_fill.h).
#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "stats_report.h"

namespace bloomtool::cli {

namespace {

std::string keys_text(double n) {
  if (!std::isfinite(n)) return "unbounded";
  return fmt::format("{:.0f}", n);
}

std::string percent_text(double fraction) {
  if (!std::isfinite(fraction)) return "unbounded";
  return fmt::format("{:+.1f}%", 100.0 * fraction);
}

std::pair<double, double> region_fill_range(const RegionFill& g) {
  double lo = 1, hi = 0;
  for (size_t i = 0; i < g.set_bits.size(); ++i) {
    const double f = static_cast<double>(g.set_bits[i]) / static_cast<double>(g.bits[i]);
    lo = std::min(lo, f);
    hi = std::max(hi, f);
  }
  return {lo, hi};
}

}  // namespace

const char* uniformity_verdict(const RegionFill& g) {
  if (!g.p_value) return "not_applicable";
  return *g.p_value >= kUniformityAlpha ? "uniform" : "uneven";
}

std::string growth_rows(const Report& r) {
  std::string t;
  const auto row = [&t](std::string_view name, const std::string& value) {
    t += fmt::format("  {:<18}{}\n", name, value);
  };
  if (r.stats.regions) {
    const RegionFill& g = *r.stats.regions;
    const auto [lo, hi] = region_fill_range(g);
    row("regions", fmt::format("{} of {} bits; fill {:.2f}% to {:.2f}% (model sd {:.3f}%)",
                               g.set_bits.size(), g.region_bits, 100.0 * lo, 100.0 * hi,
                               100.0 * g.region_sd / static_cast<double>(g.region_bits)));
    if (g.p_value) {
      row("uniformity",
          fmt::format("chi-squared {:.1f} on {} df, p-value {:.4g}: {}", *g.chi_squared, *g.df,
                      *g.p_value,
                      *g.p_value >= kUniformityAlpha
                          ? "consistent with a uniform hash"
                          : fmt::format("the set bits are spread unevenly (p-value below {:g})",
                                        kUniformityAlpha)));
    } else {
      row("uniformity", fmt::format("not tested: {}", g.why_not));
    }
  } else {
    row("uniformity",
        fmt::format("not applicable: a {} filter has no fill", filter_kind_name(r.header.kind)));
  }
  if (r.headroom) {
    const Headroom& h = *r.headroom;
    row("design point",
        fmt::format("{} keys at p {:.4g} ({}); {} keys now, headroom {}", keys_text(h.design_keys),
                    h.design_fpr,
                    h.design_from_fill ? fmt::format("where k = {} is optimal", r.header.k)
                                       : std::string("--design-fpr"),
                    r.stats.distinct_keys, percent_text(h.headroom)));
    row("growth",
        fmt::format("p {:.4g} at 1.25x the keys, {:.4g} at 1.5x, {:.4g} at 2x; "
                    "2x the design p at {} keys",
                    h.fpr_1_25x, h.fpr_1_5x, h.fpr_2x, keys_text(h.keys_at_2x_design_fpr)));
  } else {
    row("headroom", fmt::format("not applicable: a {} filter holds a fixed set (rebuild to grow)",
                                filter_kind_name(r.header.kind)));
  }
  return t;
}

void write_growth_json(JsonWriter& j, const Report& r) {
  j.key("regions").begin_object();
  const RegionFill* g = r.stats.regions ? &*r.stats.regions : nullptr;
  if (g) {
    const auto [lo, hi] = region_fill_range(*g);
    j.field("count", static_cast<uint64_t>(g->set_bits.size()));
    j.field("region_bits", g->region_bits);
    j.field("min_fill", lo);
    j.field("max_fill", hi);
    j.field("model_sd_bits", g->region_sd);
    j.field("chi_squared", g->chi_squared);
    j.key("df");
    if (g->df)
      j.value(static_cast<uint64_t>(*g->df));
    else
      j.null();
    j.field("p_value", g->p_value);
    j.field("verdict", uniformity_verdict(*g));
  } else {
    for (const char* name : {"count", "region_bits", "min_fill", "max_fill", "model_sd_bits",
                             "chi_squared", "df", "p_value"})
      j.key(name).null();
    j.field("verdict", "not_applicable");
  }
  j.end_object();
  j.key("headroom").begin_object();
  const auto finite = [](double v) {
    return std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
  };
  if (r.headroom) {
    const Headroom& h = *r.headroom;
    j.field("design_keys", finite(h.design_keys));
    j.field("design_fpr", h.design_fpr);
    j.field("design_from", h.design_from_fill ? "geometry" : "design_fpr");
    j.field("headroom", finite(h.headroom));
    j.field("keys_at_2x_design_fpr", finite(h.keys_at_2x_design_fpr));
    j.field("fpr_at_1_25x", h.fpr_1_25x);
    j.field("fpr_at_1_5x", h.fpr_1_5x);
    j.field("fpr_at_2x", h.fpr_2x);
  } else {
    for (const char* name : {"design_keys", "design_fpr", "design_from", "headroom",
                             "keys_at_2x_design_fpr", "fpr_at_1_25x", "fpr_at_1_5x", "fpr_at_2x"})
      j.key(name).null();
  }
  j.end_object();
}

GateResult headroom_gate(const Report& r, double min_headroom) {
  GateResult g{"min_headroom", "--min-headroom",    min_headroom,
               std::nullopt,   GateStatus::kPassed, "",
               std::nullopt,   std::nullopt};
  if (!r.headroom) {
    g.status = GateStatus::kNotApplicable;
    g.message = fmt::format("a {} filter holds a fixed set", filter_kind_name(r.header.kind));
    return g;
  }
  const double have = r.headroom->headroom;
  if (std::isfinite(have)) g.value = have;
  const bool ok = have >= min_headroom;
  g.status = ok ? GateStatus::kPassed : GateStatus::kFailed;
  g.message = fmt::format("room for {} more keys before the design p {:.4g}, {} the minimum {}",
                          percent_text(have), r.headroom->design_fpr, ok ? "at least" : "less than",
                          percent_text(min_headroom));
  return g;
}

}  // namespace bloomtool::cli
