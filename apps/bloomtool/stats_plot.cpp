// The picture of `bloomtool stats --plot FILE.svg`: one SVG, two panels. Left: the model's
// false-positive rate against the number of keys for this filter's m and k, both axes
// logarithmic, with the design point, today's key count and the measured rate with its 95%
// interval. Right: the fill of the filter's regions as a histogram, the normal curve the model
// expects over it, and the chi-squared test of uniformity. Plain SVG 1.1 text, no dependency.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "format/atomic_file.h"
#include "analysis/stats.h"
#include "stats_report.h"

namespace bloomtool::cli {

namespace {

// Canvas and panels (pixels).
constexpr double kWidth = 960, kHeight = 440;
constexpr double kTop = 56, kBottom = 370;  // plot area, both panels
constexpr double kLeftX0 = 80, kLeftX1 = 500;
constexpr double kRightX0 = 580, kRightX1 = 930;
// The colours of the marks (the test looks for them).
constexpr const char* kCurveColour = "#1f77b4";
constexpr const char* kDesignColour = "#ff7f0e";
constexpr const char* kTodayColour = "#2ca02c";
constexpr const char* kMeasuredColour = "#d62728";
constexpr const char* kBarColour = "#9467bd";

std::string xml_escape(std::string_view text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        // Control bytes are not allowed in XML 1.0 text.
        if (static_cast<unsigned char>(c) < 0x20)
          out += '?';
        else
          out += c;
    }
  }
  return out;
}

std::string text(double x, double y, std::string_view s, const char* anchor = "start",
                 int size = 12, const char* extra = "") {
  return fmt::format(
      "<text x=\"{:.1f}\" y=\"{:.1f}\" font-family=\"sans-serif\" font-size=\"{}\" "
      "text-anchor=\"{}\"{}>{}</text>\n",
      x, y, size, anchor, extra, xml_escape(s));
}

std::string line(double x0, double y0, double x1, double y1, const char* colour, double width,
                 const char* extra = "") {
  return fmt::format(
      "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" "
      "stroke-width=\"{}\"{}/>\n",
      x0, y0, x1, y1, colour, width, extra);
}

// 950, 9.5k, 950k, 9.5M, 9.5G: three significant digits at most.
std::string count_text(double n) {
  static constexpr const char* kUnits[] = {"", "k", "M", "G", "T"};
  size_t u = 0;
  while (u + 1 < std::size(kUnits) && n >= 999.5) {
    n /= 1000;
    ++u;
  }
  return fmt::format("{:.3g}{}", n, kUnits[u]);
}

// One line of the legend (top left of the rate panel, where the curve never goes): a swatch
// drawn by `mark` at (x, y) and its text.
double legend_y(int i) {
  return kTop + 18 + 17 * i;
}
std::string legend_line(int i, const std::string& mark_svg, std::string_view label) {
  return mark_svg + text(kLeftX0 + 30, legend_y(i) + 4, label, "start", 11);
}

// A logarithmic axis from 10^lo to 10^hi onto pixels [p0, p1].
struct LogAxis {
  double lo, hi, p0, p1;
  double at(double v) const {
    const double t = (std::log10(std::max(v, 1e-300)) - lo) / (hi - lo);
    return p0 + std::clamp(t, -0.02, 1.02) * (p1 - p0);
  }
};

std::string rate_panel(const Report& r) {
  const FilterHeader& h = r.header;
  const double now = static_cast<double>(r.stats.distinct_keys);
  const bool bloom = r.headroom.has_value();
  const double design = bloom ? r.headroom->design_keys : std::max(now, 1.0);
  const double design_p = bloom ? r.headroom->design_fpr : r.stats.model_fpr;
  const double n_low = std::max(1.0, std::min(now > 0 ? now : design, design) / 30);
  const double n_high = std::max(now, design) * 8;
  LogAxis x{std::floor(std::log10(n_low)), std::ceil(std::log10(n_high)), kLeftX0, kLeftX1};
  // The rate axis reaches 1 and goes a few decades below the design rate and the measurement.
  double p_floor = design_p;
  if (r.measured && r.measured->m.ci95.low > 0) p_floor = std::min(p_floor, r.measured->m.ci95.low);
  p_floor = std::max(p_floor, 1e-300);
  LogAxis y{std::max(-300.0, std::floor(std::log10(p_floor)) - 3), 0, kBottom, kTop};
  std::string s;
  s += fmt::format(
      "<clipPath id=\"left\"><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/>"
      "</clipPath>\n",
      kLeftX0, kTop, kLeftX1 - kLeftX0, kBottom - kTop);
  // Grid and axes: one line per decade (every few decades when there are many).
  const int y_step = static_cast<int>(std::max(1.0, std::ceil((y.hi - y.lo) / 10)));
  for (int e = static_cast<int>(y.lo); e <= 0; e += y_step) {
    const double py = y.at(std::pow(10.0, e));
    s += line(kLeftX0, py, kLeftX1, py, "#dddddd", 1);
    s += text(kLeftX0 - 6, py + 4, e == 0 ? "1" : fmt::format("1e{}", e), "end", 11);
  }
  for (int e = static_cast<int>(x.lo); e <= static_cast<int>(x.hi); ++e) {
    const double px = x.at(std::pow(10.0, e));
    s += line(px, kTop, px, kBottom, "#dddddd", 1);
    s += text(px, kBottom + 16, count_text(std::pow(10.0, e)), "middle", 11);
  }
  s += fmt::format(
      "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" "
      "stroke=\"#333333\" stroke-width=\"1\"/>\n",
      kLeftX0, kTop, kLeftX1 - kLeftX0, kBottom - kTop);
  s += text((kLeftX0 + kLeftX1) / 2, kBottom + 36, "distinct keys (log scale)", "middle");
  s += text(20, (kTop + kBottom) / 2, "false-positive rate (log scale)", "middle", 12,
            " transform=\"rotate(-90 20 213)\"");
  int legend = 0;
  std::string legend_svg;  // drawn last, on a white box over the grid and the lines
  double ly = 0;
  // The model's curve for this m and k.
  std::string points;
  constexpr int kPoints = 240;
  for (int i = 0; i <= kPoints; ++i) {
    const double e = x.lo + (x.hi - x.lo) * i / kPoints;
    const double n = std::pow(10.0, e);
    const double p = model_fpr_for(h, n);
    points += fmt::format("{:.1f},{:.1f} ", x.at(n), y.at(std::max(p, std::pow(10.0, y.lo - 1))));
  }
  s += fmt::format(
      "<polyline clip-path=\"url(#left)\" fill=\"none\" stroke=\"{}\" "
      "stroke-width=\"3\" points=\"{}\"/>\n",
      kCurveColour, points);
  ly = legend_y(legend);
  legend_svg += legend_line(
      legend++, line(kLeftX0 + 8, ly - 5, kLeftX0 + 24, ly - 5, kCurveColour, 3),
      bloom ? "the model's rate for this m and k" : "the model's rate, 2^-f for any keys");
  // Today's key count.
  if (now > 0) {
    const double px = x.at(now);
    s += line(px, kTop, px, kBottom, kTodayColour, 3, " stroke-dasharray=\"8 4\"");
    ly = legend_y(legend);
    legend_svg +=
        legend_line(legend++, line(kLeftX0 + 10, ly - 5, kLeftX0 + 22, ly - 5, kTodayColour, 3),
                    fmt::format("today: {:.0f} distinct keys", now));
  }
  // The measured rate and its 95% interval.
  if (r.measured && now > 0) {
    const FprMeasurement& m = r.measured->m;
    const double px = x.at(now);
    const double bottom = m.ci95.low > 0 ? y.at(m.ci95.low) : kBottom;
    const double top = y.at(std::max(m.ci95.high, std::pow(10.0, y.lo)));
    s += line(px, bottom, px, top, kMeasuredColour, 3);
    s += line(px - 8, top, px + 8, top, kMeasuredColour, 3);
    if (m.ci95.low > 0) s += line(px - 8, bottom, px + 8, bottom, kMeasuredColour, 3);
    if (m.rate > 0) {
      s += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"12\" height=\"12\" fill=\"{}\"/>\n",
                       px - 6, y.at(m.rate) - 6, kMeasuredColour);
    }
    ly = legend_y(legend);
    legend_svg += legend_line(
        legend++,
        fmt::format("<rect x=\"{}\" y=\"{}\" width=\"10\" height=\"10\" "
                    "fill=\"{}\"/>\n",
                    kLeftX0 + 11, ly - 6, kMeasuredColour),
        fmt::format("measured: {:.3g} (95% CI {:.3g} to {:.3g})", m.rate, m.ci95.low, m.ci95.high));
  }
  // The design point: a ring drawn last, around the measurement when they meet.
  if (bloom) {
    const double px = x.at(design), py = y.at(design_p);
    s += fmt::format(
        "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"10\" fill=\"none\" stroke=\"{}\" "
        "stroke-width=\"3\"/>\n",
        px, py, kDesignColour);
    ly = legend_y(legend);
    legend_svg +=
        legend_line(legend++,
                    fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"5\" fill=\"none\" stroke=\"{}\" "
                                "stroke-width=\"3\"/>\n",
                                kLeftX0 + 16, ly - 1, kDesignColour),
                    fmt::format("design point: {} keys, p {:.3g}", count_text(design), design_p));
  }
  s += fmt::format(
      "<rect x=\"{}\" y=\"{}\" width=\"320\" height=\"{}\" fill=\"#ffffff\" "
      "fill-opacity=\"0.9\" stroke=\"#bbbbbb\" stroke-width=\"1\"/>\n",
      kLeftX0 + 4, kTop + 4, 17 * legend + 8);
  s += legend_svg;
  s += text(kLeftX0, kTop - 10,
            bloom ? fmt::format("rate vs keys for m = {} bits, k = {}", h.m, h.k)
                  : fmt::format("rate vs keys: {} slots of {}-bit fingerprints", h.m, h.k),
            "start", 13, " font-weight=\"bold\"");
  return s;
}

std::string region_panel(const Report& r) {
  std::string s;
  s += fmt::format(
      "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" "
      "stroke=\"#333333\" stroke-width=\"1\"/>\n",
      kRightX0, kTop, kRightX1 - kRightX0, kBottom - kTop);
  if (!r.stats.regions) {
    s += text((kRightX0 + kRightX1) / 2, (kTop + kBottom) / 2,
              fmt::format("a {} filter has no fill to test", filter_kind_name(r.header.kind)),
              "middle");
    return s;
  }
  const RegionFill& g = *r.stats.regions;
  // Full regions only: the last may be shorter and fill less evenly.
  std::vector<double> fills;
  for (size_t i = 0; i < g.set_bits.size(); ++i) {
    if (g.bits[i] != g.region_bits) continue;
    fills.push_back(static_cast<double>(g.set_bits[i]) / static_cast<double>(g.bits[i]));
  }
  if (fills.empty()) fills.push_back(g.fill);
  const double sd = g.region_sd / static_cast<double>(g.region_bits);
  const auto [mn, mx] = std::minmax_element(fills.begin(), fills.end());
  double lo = std::min(*mn, g.fill - 4 * sd), hi = std::max(*mx, g.fill + 4 * sd);
  if (!(hi > lo)) {
    lo = g.fill - 0.01;
    hi = g.fill + 0.01;
  }
  constexpr int kBins = 32;
  std::vector<double> counts(kBins, 0.0);
  for (double f : fills) {
    const int b = std::clamp(static_cast<int>((f - lo) / (hi - lo) * kBins), 0, kBins - 1);
    counts[b] += 1;
  }
  // The model's expectation: a normal curve of the regions' fill, scaled to counts per bin.
  const double bin = (hi - lo) / kBins;
  const auto expected = [&](double f) {
    if (!(sd > 0)) return 0.0;
    const double z = (f - g.fill) / sd;
    return static_cast<double>(fills.size()) * bin * std::exp(-0.5 * z * z) /
           (sd * std::sqrt(2 * M_PI));
  };
  double top = *std::max_element(counts.begin(), counts.end());
  top = std::max(top, expected(g.fill)) * 1.1;
  const auto px = [&](double f) { return kRightX0 + (f - lo) / (hi - lo) * (kRightX1 - kRightX0); };
  const auto py = [&](double c) { return kBottom - c / top * (kBottom - kTop); };
  for (int b = 0; b < kBins; ++b) {
    if (counts[b] == 0) continue;
    const double x0 = px(lo + b * bin), x1 = px(lo + (b + 1) * bin);
    s += fmt::format(
        "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" "
        "fill=\"{}\" stroke=\"#ffffff\" stroke-width=\"0.5\"/>\n",
        x0, py(counts[b]), x1 - x0, kBottom - py(counts[b]), kBarColour);
  }
  if (sd > 0) {
    std::string points;
    for (int i = 0; i <= 160; ++i) {
      const double f = lo + (hi - lo) * i / 160;
      points += fmt::format("{:.1f},{:.1f} ", px(f), py(expected(f)));
    }
    s += fmt::format(
        "<polyline fill=\"none\" stroke=\"#000000\" stroke-width=\"1.5\" "
        "stroke-dasharray=\"5 3\" points=\"{}\"/>\n",
        points);
  }
  for (int i = 0; i <= 4; ++i) {
    const double f = lo + (hi - lo) * i / 4;
    s += text(px(f), kBottom + 16, fmt::format("{:.2f}%", 100 * f), "middle", 11);
  }
  s += text(
      (kRightX0 + kRightX1) / 2, kBottom + 36,
      fmt::format("fill of {} regions of {} bits (dashed: the model)", fills.size(), g.region_bits),
      "middle");
  s += text(kRightX0 - 10, (kTop + kBottom) / 2, "regions", "middle", 12,
            " transform=\"rotate(-90 570 213)\"");
  s += text(kRightX0, kTop - 10, "fill of the filter's regions", "start", 13,
            " font-weight=\"bold\"");
  const std::string verdict =
      g.p_value
          ? fmt::format("chi-squared {:.1f} on {} df, p-value {:.3g}: {}", *g.chi_squared, *g.df,
                        *g.p_value, *g.p_value >= kUniformityAlpha ? "uniform" : "uneven")
          : fmt::format("not tested: {}", g.why_not);
  s += text(kRightX0 + 6, kTop + 16, verdict, "start", 11);
  return s;
}

}  // namespace

std::string plot_svg(const Report& r) {
  std::string s = fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\">\n"
      "<rect x=\"0\" y=\"0\" width=\"{0}\" height=\"{1}\" fill=\"#ffffff\"/>\n",
      kWidth, kHeight);
  s += text(kWidth / 2, 22, fmt::format("bloomtool stats: {}", r.path), "middle", 15,
            " font-weight=\"bold\"");
  s += rate_panel(r);
  s += region_panel(r);
  s += "</svg>\n";
  return s;
}

void write_plot_svg(const std::string& path, const Report& r) {
  const std::string svg = plot_svg(r);
  AtomicFile out(path);
  out.write(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(svg.data()), svg.size()));
  out.commit();
}

}  // namespace bloomtool::cli
