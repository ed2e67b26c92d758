// Ribbon geometry and rate model (model/ribbon_model.h).
#include "model/ribbon_model.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>

#include "bloomtool/error.h"
#include "model/model.h"

namespace bloomtool {

namespace {

// Keys per row a bumping layer is sized for: overloaded, so that nearly every row holds a pivot
// and the keys that do not fit go on.
constexpr double kBumpingLoad = 1.05;
// The share of a bumping layer's rows that end up holding a key (bench/ribbon_bench layers, from
// 10^6 and 10^7 keys: 0.993 to 0.995): only for sizes predicted before a build (`size`).
constexpr double kExpectedFill = 0.995;

// Upper blocks for layer l: the fewest whose rate, with `bumped_before(b)` bumped starts in
// blocks [0, b), is at most p; sets upper_blocks and bumped_upper.
void choose_upper(RibbonLayer& l, double next, double p,
                  const std::function<uint64_t(uint64_t)>& bumped_before) {
  uint64_t lo = 0, hi = l.blocks();
  auto set = [&](uint64_t u) {
    l.upper_blocks = u;
    l.bumped_upper = std::min(l.bumped, bumped_before(std::min(u, l.blocks())));
  };
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo) / 2;
    set(mid);
    if (ribbon_layer_rate(l, next) <= p)
      hi = mid;
    else
      lo = mid + 1;
  }
  set(lo);
}

}  // namespace

uint32_t ribbon_columns_for(double p) {
  return std::clamp(static_cast<uint32_t>(std::floor(-std::log2(p))), 1u, 30u);
}

// Rows for n keys. Banding fails when some stretch of starts holds so many more keys than rows
// that the keys pushed past it no longer fit in their 128 rows; the longer the solution, the
// larger the crowding somewhere, so the share of extra rows grows with log2(n), by about 0.33
// percentage points for each doubling (RocksDB's ribbon_config.cc reports 0.38 for the same
// width). The share below makes about two attempts in three succeed from 10^4 to 10^7 keys
// (measured with bench/ribbon_bench: 64% at 10^6 keys, 3.9% extra rows; 60% at 10^7, 5.0%); 32
// rows more keep sets of a few hundred keys from failing at the ends of the band.
uint64_t ribbon_plain_slots(uint64_t n) {
  if (n == 0) return 0;
  const double log2n = std::log2(static_cast<double>(n));
  const double eps = std::max(0.0, 0.0033 * log2n - 0.027);
  const double rows = static_cast<double>(n) * (1.0 + eps) + 32.0;
  const auto blocks = static_cast<uint64_t>(std::ceil(rows / kRibbonBlockRows));
  return std::max<uint64_t>(blocks, 3) * kRibbonBlockRows;
}

uint64_t ribbon_bumping_slots(uint64_t n) {
  const auto blocks =
      static_cast<uint64_t>(std::ceil(static_cast<double>(n) / kBumpingLoad / kRibbonBlockRows));
  return std::max<uint64_t>(blocks, 3) * kRibbonBlockRows;
}

uint64_t RibbonParams::solution_bits() const noexcept {
  return slots == 0 ? 0 : uint64_t{kRibbonBlockRows} * ribbon_payload_words(*this);
}

bool RibbonParams::mixed() const noexcept {
  for (const RibbonLayer& l : layers)
    if (l.upper_blocks > 0) return true;
  return false;
}

std::vector<uint64_t> RibbonParams::kind_params() const {
  if (variant == 0) return {layers.at(0).upper_blocks, layers.at(0).seed};
  std::vector<uint64_t> v{layers.size()};
  for (const RibbonLayer& l : layers) {
    v.insert(v.end(), {l.slots, l.upper_blocks, l.seed, l.bumped_upper, l.bumped});
  }
  return v;
}

double ribbon_layer_rate(const RibbonLayer& l, double next) noexcept {
  const uint64_t s = l.starts();
  if (s == 0) return 0.0;
  const uint64_t upper = std::min(s, l.upper_blocks * kRibbonBlockRows);
  const double bu = static_cast<double>(std::min(l.bumped_upper, upper));
  const double bl =
      static_cast<double>(std::min(l.bumped - std::min(l.bumped, l.bumped_upper), s - upper));
  return ((static_cast<double>(upper) - bu) * std::ldexp(1.0, -static_cast<int>(l.columns) - 1) +
          (static_cast<double>(s - upper) - bl) * std::ldexp(1.0, -static_cast<int>(l.columns)) +
          (bu + bl) * next) /
         static_cast<double>(s);
}

double ribbon_model_rate(const RibbonParams& p) noexcept {
  double rate = 0.0;
  for (size_t i = p.layers.size(); i-- > 0;) rate = ribbon_layer_rate(p.layers[i], rate);
  return rate;
}

void detail::ribbon_choose_upper(RibbonLayer& l, double next, double p,
                                 const std::vector<uint64_t>& bumped_before) {
  choose_upper(l, next, p, [&](uint64_t b) { return bumped_before.at(b); });
}

RibbonParams ribbon_params_for(uint64_t n, double p, uint32_t variant) {
  RibbonParams r = ribbon_geometry(n, p, variant);
  if (r.solution_bits() > model::kMaxBits) {
    throw Error(ErrorCode::kInvalidArgument,
                std::to_string(n) + " keys need more than 2^40 bits of solution");
  }
  return r;
}

RibbonParams ribbon_geometry(uint64_t n, double p, uint32_t variant) {
  if (!(p >= kRibbonMinRate && p <= kRibbonMaxRate)) {
    throw Error(ErrorCode::kInvalidArgument,
                "false-positive rate " + std::to_string(p) + " is outside [2^-30, 0.5]");
  }
  if (n > (uint64_t{1} << 59)) {
    throw Error(ErrorCode::kInvalidArgument,
                std::to_string(n) + " keys are more than the 2^59 a Ribbon filter is sized for");
  }
  RibbonParams r;
  r.variant = variant;
  r.columns = ribbon_columns_for(p);
  // Variant 1: overloaded layers while many keys remain, each expected to keep kExpectedFill of
  // its rows' worth of keys; the bumped starts spread evenly.
  uint64_t left = n;
  while (variant == 1 && left > kRibbonLastLayerKeys && r.layers.size() + 1 < kRibbonMaxLayers) {
    RibbonLayer l;
    l.columns = r.columns;
    l.bumping = true;
    l.slots = ribbon_bumping_slots(left);
    const auto kept = std::min<uint64_t>(
        left, static_cast<uint64_t>(kExpectedFill * static_cast<double>(l.slots)));
    l.bumped = static_cast<uint64_t>(static_cast<double>(l.starts()) *
                                     static_cast<double>(left - kept) / static_cast<double>(left));
    r.layers.push_back(l);
    left -= kept;
  }
  RibbonLayer last;
  last.columns = r.columns;
  last.slots = ribbon_plain_slots(left);
  r.layers.push_back(last);
  // p * 2^r in (1/2, 1]: some share of upper blocks brings 2^-r down to p (none when p = 2^-r).
  double next = 0.0;
  for (size_t i = r.layers.size(); i-- > 0;) {
    RibbonLayer& l = r.layers[i];
    const double s = static_cast<double>(l.starts());
    choose_upper(l, next, p, [&](uint64_t b) {
      const double before = std::min(s, static_cast<double>(b) * kRibbonBlockRows);
      return s == 0 ? 0 : static_cast<uint64_t>(static_cast<double>(l.bumped) * before / s);
    });
    next = ribbon_layer_rate(l, next);
    r.slots += l.slots;
  }
  return r;
}

std::string ribbon_params_from_file(uint32_t variant, uint32_t columns, uint64_t m,
                                    const std::vector<uint64_t>& kind_params, RibbonParams& out) {
  RibbonParams p;
  p.variant = variant;
  if (columns < 1 || columns > kRibbonMaxColumns - 1)
    return "column count k=" + std::to_string(columns) + " is not in [1, 30]";
  p.columns = columns;
  if (m > model::kMaxBits) return "m=" + std::to_string(m) + " exceeds 2^40 rows";
  auto layer_rows = [](uint64_t slots, bool bumping, const std::string& what) -> std::string {
    if (slots % kRibbonBlockRows != 0 || (slots == 0 && bumping) ||
        (slots != 0 && slots < 3 * kRibbonBlockRows))
      return what + "=" + std::to_string(slots) + " is not " + (bumping ? "" : "0 or ") +
             "a multiple of 64 of at least 192";
    if (slots > model::kMaxBits) return what + "=" + std::to_string(slots) + " exceeds 2^40 rows";
    return {};
  };
  if (variant == 0) {
    if (kind_params.size() != 2) return "Ribbon filters need 2 kind parameters";
    if (std::string why = layer_rows(m, false, "m"); !why.empty()) return why;
    RibbonLayer l;
    l.slots = m;
    l.columns = columns;
    l.upper_blocks = kind_params[0];
    l.seed = kind_params[1];
    p.layers.push_back(l);
  } else {
    if (kind_params.empty() || kind_params[0] < 1 || kind_params[0] > kRibbonMaxLayers)
      return "a bumped Ribbon filter needs a layer count of 1 to 8";
    const uint64_t count = kind_params[0];
    if (kind_params.size() != 1 + 5 * count)
      return "a bumped Ribbon filter of " + std::to_string(count) + " layers needs " +
             std::to_string(1 + 5 * count) + " kind parameters";
    uint64_t total = 0;
    for (uint64_t i = 0; i < count; ++i) {
      const uint64_t* v = &kind_params[1 + 5 * i];
      const std::string what = "layer " + std::to_string(i) + " rows";
      RibbonLayer l;
      l.bumping = i + 1 < count;
      if (std::string why = layer_rows(v[0], l.bumping, what); !why.empty()) return why;
      l.slots = v[0];
      l.columns = columns;
      l.upper_blocks = v[1];
      l.seed = v[2];
      l.bumped_upper = v[3];
      l.bumped = v[4];
      if (!l.bumping && (l.bumped != 0 || l.bumped_upper != 0))
        return "the last layer bumps " + std::to_string(l.bumped) + " starts";
      if (l.bumped > l.starts() || l.bumped_upper > l.bumped ||
          l.bumped_upper > std::min(l.starts(), l.upper_blocks * kRibbonBlockRows))
        return "layer " + std::to_string(i) + " bumps " + std::to_string(l.bumped) + " starts (" +
               std::to_string(l.bumped_upper) + " in upper blocks) of " +
               std::to_string(l.starts());
      total += l.slots;
      p.layers.push_back(l);
    }
    if (total != m)
      return "m=" + std::to_string(m) + " is not the layers' " + std::to_string(total) + " rows";
  }
  p.slots = m;
  for (size_t i = 0; i < p.layers.size(); ++i) {
    const RibbonLayer& l = p.layers[i];
    if (l.upper_blocks > l.blocks())
      return "upper block count " + std::to_string(l.upper_blocks) + " exceeds the " +
             std::to_string(l.blocks()) + " blocks";
  }
  if (p.solution_bits() > model::kMaxBits) return "the solution exceeds 2^40 bits";
  out = p;
  return {};
}

uint64_t ribbon_layer_words(const RibbonLayer& l) noexcept {
  if (l.slots == 0) return 1;
  return l.code_words() + l.blocks() * l.columns + detail::ribbon_stored_upper(l);
}

uint64_t ribbon_payload_words(const RibbonParams& p) noexcept {
  uint64_t words = 0;
  for (const RibbonLayer& l : p.layers) words += ribbon_layer_words(l);
  return words;
}

}  // namespace bloomtool
